#!/usr/bin/env python3
"""e2e_mrtr.py - wymcp end to end: Multi Round-Trip Requests through nginx.

Usage: e2e_mrtr.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi instances serving the bundled examples module
(book_room, purge_cache) behind a private nginx, and runs elicitation
over several rounds where every round may land on another process:

  E  one instance, two workers, no key file: a three-round book_room
     call whose rounds are served by alternating workers (the other
     worker is held with SIGSTOP), then a missing answer, a decline and
     a client without the elicitation capability;
  F  two instances sharing one key file made with --generate-key,
     behind one round-robin nginx upstream and behind two pinned
     locations (rounds alternate A, B, A);
  G  a key mismatch (-32602 and a warning naming --state-key-file),
     then key rotation: a state sealed with the old key still opens
     after --generate-key put a new key first, and no longer once the
     old key is removed;
  H  without --state-key-file the supervisor warns at startup and its
     workers share its random key (E's cross-worker call).

Every instance runs with -vv: the debug line "[id N] tools/call -> 200"
names the process that served request N.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
pieces come from e2e.py.
"""

import base64
import copy
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402  (the path must be set first)
from e2e import (R, Client, Failed, alive, children, enc, free_port,  # noqa
                 hlist, judge_error, judge_result, report, std_headers,
                 stop_pid, tail)

WORKERS = 2
DAY = "2026-12-01"
ROOM_Q = "Which room would you like?"
SIZE_Q = "How many people?"
PURGE_Q = "Purge the whole cache? This cannot be undone."
NO_ELICIT = ("This tool needs a client that can ask the user questions "
             "(form elicitation).")
ELICIT_CAPS = {"elicitation": {}}
LOG_RE = re.compile(r"^wymcp-fcgi\[(\d+)\]: (error|warning|info|debug): "
                    r"(?:\[id (.*?)\] )?(.*)$")


def meta(caps):
    m = dict(e2e.META)
    m["io.modelcontextprotocol/clientCapabilities"] = copy.deepcopy(caps)
    m["io.modelcontextprotocol/clientInfo"] = {"name": "e2e_mrtr",
                                               "version": "1"}
    return m


def key_id(hexkey):
    """The key id wymcp puts in a token: BLAKE2b-128(key)[:4]."""
    return hashlib.blake2b(bytes.fromhex(hexkey), digest_size=16).digest()[:4]


def token_key_id(tok):
    """The 4-byte key id of a requestState token, or None."""
    try:
        b = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
    except (ValueError, TypeError):
        return None
    if len(b) < 5 or b[0] != 1:
        return None
    return b[1:5]


def read_keys(path):
    with open(path) as f:
        return [ln.strip() for ln in f
                if ln.strip() and not ln.strip().startswith("#")]


def write_keyfile(path, keys):
    tmp = path + ".new"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("".join(k + "\n" for k in keys))
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("latin-1")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[0]


# ------------------------------------------------------------ processes

class Instance:
    """One wymcp-fcgi supervisor with its workers, socket and logs."""

    supervisor = e2e.Harness.supervisor		# uses self.fcgi
    workers = e2e.Harness.workers		# uses self.sup, self.seen_pids

    def __init__(self, world, name, keyfile=None):
        self.w = world
        self.name = name
        self.keyfile = keyfile
        self.sock = os.path.join(world.tmp, name + ".sock")
        self.fcgi = None
        self.sup = None
        self.gen = 0
        self.log = None
        self.seen_pids = set()
        self.stopped = set()		# workers we sent SIGSTOP

    def start(self, keyfile="same"):
        if keyfile != "same":
            self.keyfile = keyfile
        self.gen += 1
        self.log = os.path.join(self.w.tmp, "%s-%d.log" % (self.name,
                                                          self.gen))
        self.w.logs.append(self.log)
        argv = [self.w.prog, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "-vv",
                "--module", self.w.examples]
        if self.keyfile is not None:
            argv += ["--state-key-file", self.keyfile]
        with open(self.log, "wb") as log:
            self.fcgi = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                env=self.w.env, cwd=self.w.tmp)
        self.sup = None
        deadline = time.monotonic() + 30
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("%s: wymcp-fcgi exited with %d: %s" %
                             (self.name, self.fcgi.returncode,
                              " | ".join(tail(self.log, 5))))
            if os.path.exists(self.sock):
                self.sup = self.supervisor()
                if len(self.workers()) >= WORKERS:
                    break
            if time.monotonic() > deadline:
                raise Failed("%s: no socket and %d workers after 30 s" %
                             (self.name, WORKERS))
            time.sleep(0.03)
        R.note("%s: wymcp-fcgi supervisor %d, workers %r, key file %s, "
               "log %s" % (self.name, self.sup, self.workers(),
                           self.keyfile and os.path.basename(self.keyfile),
                           os.path.basename(self.log)))

    def cont_all(self):
        for pid in sorted(self.stopped | self.seen_pids):
            try:
                os.kill(pid, signal.SIGCONT)
            except (ProcessLookupError, PermissionError):
                pass
        self.stopped.clear()

    def stop(self):
        """Stop every process of this instance, by PID."""
        if self.fcgi is None:
            return
        self.cont_all()
        if self.sup and alive(self.sup):
            self.seen_pids.update(children(self.sup))
        if self.sup and self.sup != self.fcgi.pid and alive(self.sup):
            stop_pid(self.sup, None, 10)
        if self.fcgi.poll() is None:
            stop_pid(self.fcgi.pid, self.fcgi, 10)
        for pid in sorted(self.seen_pids):
            if alive(pid):
                stop_pid(pid, None, 2)
        self.fcgi = None
        self.sup = None
        # The supervisor removes its socket; make sure before a restart.
        if os.path.exists(self.sock):
            try:
                os.unlink(self.sock)
            except OSError:
                pass

    def restart(self, keyfile="same"):
        self.stop()
        self.start(keyfile)

    # -- the log

    def entries(self):
        """[(pid, level, reqid or None, message)] of the current log."""
        out = []
        try:
            with open(self.log, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return out
        for line in text.splitlines():
            m = LOG_RE.match(line)
            if m:
                out.append((int(m.group(1)), m.group(2), m.group(3),
                            m.group(4)))
        return out

    def wait_for(self, pred, timeout=5.0):
        """Poll the log until some entry matches; the matches ([] after
        the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            hits = [e for e in self.entries() if pred(e)]
            if hits or time.monotonic() > deadline:
                return hits
            time.sleep(0.02)

    def served(self, rid, timeout=5.0):
        """The PIDs that logged the end of request rid ("tools/call ->")."""
        rs = str(rid)
        hits = self.wait_for(lambda e: e[2] == rs and
                             e[3].startswith("tools/call -> "), timeout)
        return sorted({e[0] for e in hits})

    def mentions(self, rid):
        """The PIDs that logged anything for request rid (no waiting)."""
        rs = str(rid)
        return sorted({e[0] for e in self.entries() if e[2] == rs})


class World:
    """The temporary directory, nginx and every instance."""

    def __init__(self, builddir, keep):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = None
        self.nginx = None
        self.nginx_bin = None
        self.nginx_pids = set()
        self.port = None
        self.instances = []
        self.logs = []
        self.tool_outputs = []		# stderr of --generate-key runs
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        self.env = env

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.examples = os.path.join(self.builddir, "tools", ".libs",
                                     "examples.so")
        missing = [p for p in (self.prog, self.examples)
                   if not os.path.exists(p)]
        if missing:
            raise Failed("not built: %s" % ", ".join(missing))

    def setup(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-mrtr.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")

    def instance(self, name, keyfile=None):
        i = Instance(self, name, keyfile)
        self.instances.append(i)
        return i

    def generate_key(self, path):
        """Run wymcp-fcgi --generate-key PATH; (rc, output)."""
        p = subprocess.run([self.prog, "--generate-key", path],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=self.env,
                           cwd=self.tmp, check=False)
        out = p.stdout.decode("utf-8", "replace")
        self.tool_outputs.append(out)
        return p.returncode, out

    # -- nginx

    def nginx_conf(self, socks, port):
        user = "user root;\n" if os.geteuid() == 0 else ""
        t = self.tmp

        def loc(path, target):
            return """\
		location = {path} {{
			include fastcgi_params;
			fastcgi_pass {target};
			fastcgi_keep_conn off;
			fastcgi_buffering off;
			fastcgi_intercept_errors off;
			fastcgi_param WYMCP_PRINCIPAL "alice";
		}}
""".format(path=path, target=target)

        return """\
{user}worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/nginx-error.log notice;
events {{ worker_connections 256; }}
http {{
	access_log off;
	client_body_temp_path {t}/client_body;
	fastcgi_temp_path {t}/fastcgi_temp;
	proxy_temp_path {t}/proxy_temp;
	scgi_temp_path {t}/scgi_temp;
	uwsgi_temp_path {t}/uwsgi_temp;

	# Round robin over both instances; no keepalive.
	upstream wymcp_ab {{
		server unix:{a};
		server unix:{b};
	}}

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		client_max_body_size 1m;
{le}{la}{lb}{lab}	}}
}}
""".format(user=user, t=t, port=port, a=socks["a"], b=socks["b"],
           le=loc("/mcp-e", "unix:" + socks["e"]),
           la=loc("/mcp-a", "unix:" + socks["a"]),
           lb=loc("/mcp-b", "unix:" + socks["b"]),
           lab=loc("/mcp-ab", "wymcp_ab"))

    def start_nginx(self, socks):
        with open(os.path.join(self.tmp, "fastcgi_params"), "w") as f:
            f.write(e2e.FASTCGI_PARAMS)
        conf = os.path.join(self.tmp, "nginx.conf")
        for attempt in range(8):
            self.port = free_port()
            with open(conf, "w") as f:
                f.write(self.nginx_conf(socks, self.port))
            with open(os.path.join(self.tmp, "nginx.out"), "ab") as out:
                self.nginx = subprocess.Popen(
                    [self.nginx_bin, "-p", self.tmp + "/", "-c", conf,
                     "-e", self.nginx_log, "-g", "daemon off;"],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=out)
            if self.wait_nginx():
                self.nginx_pids.update(children(self.nginx.pid))
                R.note("nginx %d on 127.0.0.1:%d" % (self.nginx.pid,
                                                    self.port))
                return
            log = "\n".join(tail(self.nginx_log, 10) +
                            tail(os.path.join(self.tmp, "nginx.out"), 10))
            stop_pid(self.nginx.pid, self.nginx, 5)
            self.nginx = None
            if "in use" not in log:
                raise Failed("nginx did not start: " + log)
        raise Failed("nginx: no free port after 8 attempts")

    def wait_nginx(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                return False
            try:
                e2e.socket.create_connection(("127.0.0.1", self.port),
                                             1).close()
                return True
            except OSError:
                time.sleep(0.05)
        return False

    # -- teardown

    def stop(self):
        for i in self.instances:
            i.cont_all()
        if self.nginx is not None:
            self.nginx_pids.update(children(self.nginx.pid))
            stop_pid(self.nginx.pid, self.nginx, 10)
            for pid in self.nginx_pids:
                if alive(pid):
                    stop_pid(pid, None, 2)
            self.nginx = None
        for i in self.instances:
            i.stop()

    def sanitizer_reports(self):
        hits = []
        for path in self.logs:
            for line in tail(path, 1000000):
                if any(m in line for m in e2e.SANITIZER_MARKS):
                    hits.append("%s: %s" % (os.path.basename(path),
                                            line.strip()))
        for out in self.tool_outputs:
            for line in out.splitlines():
                if any(m in line for m in e2e.SANITIZER_MARKS):
                    hits.append("--generate-key: " + line.strip())
        return hits

    def dump_logs(self):
        if not self.tmp:
            return
        for path in self.logs + [self.nginx_log]:
            print("# ---- tail of %s" % path)
            for line in tail(path, 30):
                print("#   " + line)

    def cleanup(self):
        if self.tmp and not self.keep:
            e2e.shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            R.note("kept %s" % self.tmp)


# ------------------------------------------------------------ judgements

def judge_input(r, rid, want):
    """An input_required result asking exactly the questions in want
    ({key: message}).  (problems, requestState or None)."""
    p = []
    if r.status != 200:
        p.append("status %d, want 200" % r.status)
    if r.mime != "application/json":
        p.append("Content-Type %r" % r.header("Content-Type"))
    o = r.json
    if not isinstance(o, dict):
        return p + ["body is not a JSON object"], None
    if o.get("jsonrpc") != "2.0":
        p.append("jsonrpc %r" % o.get("jsonrpc"))
    if "id" not in o or not e2e.same_id(o["id"], rid):
        p.append("id %r, want %r" % (o.get("id", "<absent>"), rid))
    if "error" in o:
        p.append("error %s" % e2e.json.dumps(o["error"]))
    res = o.get("result")
    if not isinstance(res, dict):
        return p + ["no result object"], None
    if res.get("resultType") != "input_required":
        p.append("resultType %r, want input_required" %
                 res.get("resultType"))
    ir = res.get("inputRequests")
    if not isinstance(ir, dict):
        p.append("inputRequests %r" % (ir,))
    else:
        if sorted(ir) != sorted(want):
            p.append("inputRequests keys %r, want %r" % (sorted(ir),
                                                       sorted(want)))
        for k, msg in want.items():
            q = ir.get(k)
            if not isinstance(q, dict):
                continue
            if q.get("method") != "elicitation/create":
                p.append("%s method %r" % (k, q.get("method")))
            qp = q.get("params")
            if not isinstance(qp, dict):
                p.append("%s params %r" % (k, qp))
                continue
            if qp.get("message") != msg:
                p.append("%s message %r, want %r" % (k, qp.get("message"),
                                                     msg))
            if not isinstance(qp.get("requestedSchema"), dict) or \
                    qp["requestedSchema"].get("type") != "object":
                p.append("%s requestedSchema %r" %
                         (k, qp.get("requestedSchema")))
    st = res.get("requestState")
    if not isinstance(st, str) or not st:
        p.append("requestState %r, want a non-empty string" % (st,))
        st = None
    return p, st


def text_of(r):
    res = r.json["result"]
    content = res.get("content")
    if not isinstance(content, list):
        return None
    return "\n".join(b.get("text") for b in content
                     if isinstance(b, dict) and b.get("type") == "text" and
                     isinstance(b.get("text"), str))


def judge_done(r, rid, text, is_error=False):
    """A complete result whose text is `text`, with no questions."""
    p = judge_result(r, rid)
    if p:
        return p
    res = r.json["result"]
    got = text_of(r)
    if got != text:
        p.append("text %r, want %r" % (got, text))
    if bool(res.get("isError", False)) != is_error:
        p.append("isError %r, want %r" % (res.get("isError"), is_error))
    for k in ("inputRequests", "requestState"):
        if k in res:
            p.append("has %s" % k)
    return p


def judge_bad_state(r, rid):
    p = judge_error(r, 200, -32602, rid)
    if isinstance(r.json, dict) and isinstance(r.json.get("error"), dict):
        msg = r.json["error"].get("message")
        if not isinstance(msg, str) or \
                not msg.startswith("Invalid requestState"):
            p.append("message %r, want 'Invalid requestState...'" % (msg,))
    return p


# ----------------------------------------------------------------- tests

ROOM = {"action": "accept", "content": {"room": "Aurora"}}
SIZE = {"action": "accept", "content": {"people": 4}}
BOOKED = "Booked Aurora for 4 on %s." % DAY


class Tests:
    def __init__(self, w):
        self.w = w
        self.c = Client(w.port)
        self.nid = 7000

    def rid(self):
        self.nid += 1
        return self.nid

    def call(self, path, tool, args, state=None, responses=None,
             caps=ELICIT_CAPS, rid=None):
        rid = self.rid() if rid is None else rid
        params = {"name": tool, "arguments": args}
        if responses is not None:
            params["inputResponses"] = responses
        if state is not None:
            params["requestState"] = state
        params["_meta"] = meta(caps)
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": params}
        r = self.c.send("POST", path, enc(body),
                        hlist(std_headers("tools/call", tool)))
        return rid, r

    def book(self, path, state=None, responses=None, day=DAY, **kw):
        return self.call(path, "book_room", {"day": day}, state, responses,
                         **kw)

    # -- pinning a round to one worker

    def pinned(self, inst, target, fn):
        """Run fn() while every worker of inst but target is stopped."""
        others = [p for p in inst.workers() if p != target]
        try:
            for p in others:
                inst.stopped.add(p)
                os.kill(p, signal.SIGSTOP)
            deadline = time.monotonic() + 5
            while any(proc_state(p) not in ("T", "t") for p in others):
                if time.monotonic() > deadline:
                    raise Failed("workers %r did not stop" % (others,))
                time.sleep(0.005)
            return fn()
        finally:
            for p in others:
                try:
                    os.kill(p, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                inst.stopped.discard(p)

    # -- E

    def test_e(self, e):
        ws = e.workers()
        if not R.check(len(ws) == WORKERS, "E %d workers" % WORKERS,
                       "workers %r" % (ws,)):
            return False
        order = [ws[0], ws[1], ws[0]]
        R.note("E rounds pinned to workers %r" % (order,))
        states = []
        rids = []

        rid, r = self.pinned(e, order[0], lambda: self.book("/mcp-e"))
        rids.append(rid)
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        if st is not None:
            room = r.json["result"]["inputRequests"].get("elicit-1", {})
            enum = (((room.get("params") or {}).get("requestedSchema") or {})
                    .get("properties") or {}).get("room", {}).get("enum")
            if enum != ["Aurora", "Borealis", "Cirrus"]:
                p.append("room enum %r" % (enum,))
        report("E round 1: input_required asking elicit-1 (room)", p, r)
        states.append(st)
        if st is None:
            return False

        rid, r = self.pinned(e, order[1], lambda: self.book(
            "/mcp-e", states[0], {"elicit-1": ROOM}))
        rids.append(rid)
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        report("E round 2: input_required asking elicit-2 (people)", p, r)
        states.append(st)
        if st is None:
            return False
        R.check(states[0] != states[1],
                "E round 1 and round 2 requestState differ", "same token")

        rid, r = self.pinned(e, order[2], lambda: self.book(
            "/mcp-e", states[1], {"elicit-2": SIZE}))
        rids.append(rid)
        done = report("E round 3: complete, %r" % BOOKED,
                      judge_done(r, rid, BOOKED), r)

        served = [e.served(x) for x in rids]
        for n, (x, want, got) in enumerate(zip(rids, order, served), 1):
            R.check(got == [want], "E round %d (id %d) was served by "
                    "worker %d" % (n, x, want),
                    "log names PIDs %r for id %d" % (got, x))
        R.check(len({tuple(s) for s in served[:2]}) == 2 and
                len({tuple(s) for s in served[1:]}) == 2,
                "E consecutive rounds were served by different processes",
                "served %r" % (served,))
        booked = [x for x in e.entries() if x[3].startswith("booked ")]
        want = "booked Aurora for 4 on %s (by alice)" % DAY
        R.check(len(booked) == 1 and booked[0][3] == want and
                booked[0][2] == str(rids[2]) and booked[0][0] == order[2],
                "E the log shows 'booked' exactly once, in round 3",
                "booked lines %r" % (booked,))
        self.e_done = done and served == [[p] for p in order]

        # A round without the answer asks the same question again.
        rid, r = self.book("/mcp-e", states[0])
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        report("E round-1 state without inputResponses re-asks elicit-1",
               p, r)
        rid, r = self.book("/mcp-e", states[1])
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        report("E round-2 state without inputResponses re-asks elicit-2 "
               "only", p, r)

        # Decline is an answer.
        rid, r = self.call("/mcp-e", "purge_cache", {})
        p, st = judge_input(r, rid, {"elicit-1": PURGE_Q})
        report("E purge_cache round 1 asks for confirmation", p, r)
        if st is not None:
            rid, r = self.call("/mcp-e", "purge_cache", {}, st,
                               {"elicit-1": {"action": "decline"}})
            report("E purge_cache decline completes with 'You declined' "
                   "and no further question",
                   judge_done(r, rid, "You declined; the cache was left "
                              "alone."), r)
        purged = [x for x in e.entries() if x[3] == "cache purged"]
        R.check(not purged, "E a declined purge_cache purged nothing",
                "log %r" % (purged,))

        # No elicitation capability: the tool's own isError result.
        n_before = len(e.entries())
        rid, r = self.book("/mcp-e", caps={})
        report("E book_room without the elicitation capability: isError "
               "result, no question",
               judge_done(r, rid, NO_ELICIT, is_error=True), r)
        rid, r = self.book("/mcp-e", caps={"sampling": {}})
        report("E book_room with only sampling declared: isError result, "
               "no question",
               judge_done(r, rid, NO_ELICIT, is_error=True), r)
        booked = [x for x in e.entries()[n_before:]
                  if x[3].startswith("booked ")]
        R.check(not booked, "E capability-less calls booked nothing",
                "%r" % (booked,))
        return True

    # -- H

    def test_h(self, e, others):
        warn = e.wait_for(lambda x: x[1] == "warning" and
                          "no --state-key-file" in x[3], 2)
        R.check(len(warn) == 1 and warn[0][0] == e.sup,
                "H without --state-key-file the supervisor warns "
                "'no --state-key-file' once at startup",
                "warnings %r (supervisor %d)" % (warn, e.sup))
        R.check(getattr(self, "e_done", False),
                "H rounds on different workers of one instance complete "
                "with the supervisor's random key", "see E above")
        for i in others:
            bad = [x for x in i.entries() if "no --state-key-file" in x[3]]
            R.check(not bad, "H %s (with --state-key-file) does not warn "
                    "about a missing key file" % i.name, "%r" % (bad,))

    # -- F

    def three_rounds(self, paths, day=DAY):
        """A book_room call whose rounds go to paths[0..2]; (rids,
        problems, last response)."""
        rids, st = [], None
        answers = [None, {"elicit-1": ROOM}, {"elicit-2": SIZE}]
        asks = [{"elicit-1": ROOM_Q}, {"elicit-2": SIZE_Q}]
        for n in range(3):
            rid, r = self.book(paths[n], st, answers[n], day=day)
            rids.append(rid)
            if n < 2:
                p, st = judge_input(r, rid, asks[n])
                if p:
                    return rids, ["round %d: %s" % (n + 1, "; ".join(p))], r
            else:
                p = judge_done(r, rid, "Booked Aurora for 4 on %s." % day)
                if p:
                    return rids, ["round 3: " + "; ".join(p)], r
        return rids, [], r

    def where(self, insts, rid):
        """The names of the instances whose logs say they served rid."""
        names = []
        deadline = time.monotonic() + 5
        while True:
            names = [i.name for i in insts if i.served(rid, 0)]
            if names or time.monotonic() > deadline:
                return names
            time.sleep(0.02)

    def test_f(self, a, b):
        insts = [a, b]
        # Pinned locations: A, B, A.
        rids, p, r = self.three_rounds(["/mcp-a", "/mcp-b", "/mcp-a"],
                                       day="2026-12-02")
        report("F pinned /mcp-a, /mcp-b, /mcp-a: three rounds complete",
               p, r)
        got = [self.where(insts, x) for x in rids]
        R.check(got == [["A"], ["B"], ["A"]],
                "F pinned rounds were served by A, then B, then A",
                "instances per round %r (ids %r)" % (got, rids))
        bk = [x for i in insts for x in i.entries()
              if x[3].startswith("booked ") and "2026-12-02" in x[3]]
        R.check(len(bk) == 1 and bk[0][2] == str(rids[2]),
                "F pinned call: 'booked' logged once in total, by round 3",
                "%r" % (bk,))

        # The round-robin upstream: several sequential calls.
        pattern, crossed, ok, n = [], 0, 0, 4
        for k in range(n):
            day = "2027-01-%02d" % (k + 1)
            rids, p, r = self.three_rounds(["/mcp-ab"] * 3, day=day)
            got = [self.where(insts, x) for x in rids]
            pattern.append(got)
            for x, y in zip(got, got[1:]):
                if len(x) == 1 and len(y) == 1 and x != y:
                    crossed += 1
            bk = [x for i in insts for x in i.entries()
                  if x[3].startswith("booked ") and day in x[3]]
            if p:
                R.note("upstream call %d: %s %s" % (k, p, r.brief()))
            elif len(bk) != 1 or bk[0][2] != str(rids[-1]):
                R.note("upstream call %d: booked lines %r" % (k, bk))
            else:
                ok += 1
        R.note("F upstream instances per round: %s" %
               " | ".join(",".join("+".join(g) or "?" for g in c)
                          for c in pattern))
        R.check(ok == n, "F upstream: %d sequential three-round calls all "
                "complete, each booked once" % n,
                "%d of %d" % (ok, n))
        flat = [g for c in pattern for g in c]
        R.check(all(len(g) == 1 for g in flat),
                "F upstream: every round is in exactly one instance's log",
                "%r" % (pattern,))
        R.check(["A"] in flat and ["B"] in flat,
                "F upstream: both instances served rounds", "%r" % (flat,))
        R.check(crossed > 0, "F upstream: some round's requestState was "
                "opened by the other instance",
                "no round crossed instances: %r" % (pattern,))

    # -- G

    def step(self, path, state, answer_key, label, expect_next):
        """Send one round with a state; expect input_required(expect_next)
        and return its state."""
        ans = {"elicit-1": ROOM, "elicit-2": SIZE}[answer_key]
        rid, r = self.book(path, state, {answer_key: ans})
        p, st = judge_input(r, rid, expect_next)
        report(label, p, r)
        return rid, st

    def round1(self, path, label):
        rid, r = self.book(path)
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        report(label, p, r)
        return st

    def warned(self, inst, rid):
        return inst.wait_for(lambda x: x[1] == "warning" and
                             x[2] == str(rid) and
                             "--state-key-file" in x[3], 5)

    def test_g(self, a, b, shared):
        w = self.w
        k1 = read_keys(shared)
        # Key mismatch: B gets a key file of its own.
        kb_path = os.path.join(w.tmp, "b-only.key")
        rc, out = w.generate_key(kb_path)
        R.check(rc == 0 and os.path.exists(kb_path),
                "G --generate-key makes B's own key file",
                "rc %d: %s" % (rc, out))
        kb = read_keys(kb_path)
        b.restart(kb_path)
        s = self.round1("/mcp-a", "G round 1 on A (shared key)")
        if s is None:
            return
        R.check(token_key_id(s) == key_id(k1[0]),
                "G A's token carries the shared key's id",
                "%r vs %r" % (token_key_id(s), key_id(k1[0])))
        rid, r = self.book("/mcp-b", s, {"elicit-1": ROOM})
        report("G round 2 on B (other key): -32602 'Invalid requestState'",
               judge_bad_state(r, rid), r)
        hits = self.warned(b, rid)
        R.check(bool(hits), "G B logs a warning naming --state-key-file "
                "for that request", "B log tail %r" % (tail(b.log, 5),))
        bk = [x for x in b.entries() if x[3].startswith("booked ")]
        R.check(not bk, "G B booked nothing", "%r" % (bk,))
        # And the other way round.
        s_b = self.round1("/mcp-b", "G round 1 on B (its own key)")
        if s_b is not None:
            R.check(token_key_id(s_b) == key_id(kb[0]),
                    "G B's token carries B's key id", "differs")
            rid, r = self.book("/mcp-a", s_b, {"elicit-1": ROOM})
            report("G B's state on A: -32602 'Invalid requestState'",
                   judge_bad_state(r, rid), r)
            R.check(bool(self.warned(a, rid)), "G A logs a warning naming "
                    "--state-key-file", "A log tail %r" % (tail(a.log, 5),))

        # Rotation: a round-1 state sealed by A with the old key ...
        s_pre = self.round1("/mcp-a", "G pre-rotation round 1 on A")
        if s_pre is None:
            return
        rc, out = w.generate_key(shared)
        k2 = read_keys(shared)
        R.check(rc == 0 and len(k2) == 2 and k2[1] == k1[0] and
                k2[0] != k1[0],
                "G --generate-key on the shared file puts a new key "
                "first and keeps the old one second",
                "rc %d %s; keys before %d, after %d" %
                (rc, out.strip(), len(k1), len(k2)))
        mode = os.stat(shared).st_mode & 0o777
        R.check(mode == 0o600, "G the rotated key file is mode 0600",
                "mode %03o" % mode)
        a.restart()
        b.restart(shared)
        # ... still opens on B, and the new state is sealed with the new key.
        rid2, s2 = self.step("/mcp-b", s_pre, "elicit-1",
                             "G after rotation: the pre-rotation state "
                             "opens on B (asks elicit-2)",
                             {"elicit-2": SIZE_Q})
        if s2 is not None:
            R.check(token_key_id(s_pre) == key_id(k1[0]) and
                    token_key_id(s2) == key_id(k2[0]),
                    "G pre-rotation token is sealed with the old key, "
                    "post-rotation token with the new key",
                    "ids %r %r, old %r new %r" % (
                        token_key_id(s_pre), token_key_id(s2),
                        key_id(k1[0]), key_id(k2[0])))
            rid, r = self.book("/mcp-a", s2, {"elicit-2": SIZE})
            report("G round 3 on A with B's post-rotation state completes",
                   judge_done(r, rid, BOOKED), r)
        self.step("/mcp-a", s_pre, "elicit-1",
                  "G after rotation: the pre-rotation state opens on A too",
                  {"elicit-2": SIZE_Q})
        # A state sealed after the rotation opens on both.
        t_a = self.round1("/mcp-a", "G post-rotation round 1 on A")
        t_b = self.round1("/mcp-b", "G post-rotation round 1 on B")
        if t_a is not None:
            self.step("/mcp-b", t_a, "elicit-1",
                      "G A's post-rotation state opens on B",
                      {"elicit-2": SIZE_Q})
            self.step("/mcp-a", t_a, "elicit-1",
                      "G A's post-rotation state opens on A",
                      {"elicit-2": SIZE_Q})
        if t_b is not None:
            self.step("/mcp-a", t_b, "elicit-1",
                      "G B's post-rotation state opens on A",
                      {"elicit-2": SIZE_Q})

        # Only the new key left: the pre-rotation state is refused.
        write_keyfile(shared, [k2[0]])
        R.check(read_keys(shared) == [k2[0]],
                "G the key file now holds only the new key", "differs")
        a.restart()
        b.restart()
        for inst, path in ((b, "/mcp-b"), (a, "/mcp-a")):
            rid, r = self.book(path, s_pre, {"elicit-1": ROOM})
            report("G old key removed: the pre-rotation state on %s -> "
                   "-32602 'Invalid requestState'" % inst.name,
                   judge_bad_state(r, rid), r)
            R.check(bool(self.warned(inst, rid)), "G old key removed: %s "
                    "logs a warning naming --state-key-file" % inst.name,
                    "log tail %r" % (tail(inst.log, 5),))
        if t_a is not None:
            self.step("/mcp-b", t_a, "elicit-1",
                      "G old key removed: a post-rotation state still "
                      "opens on B", {"elicit-2": SIZE_Q})


def layer(w):
    """This script's tests."""
    w.paths()
    w.setup()
    shared = os.path.join(w.tmp, "shared.key")
    rc, out = w.generate_key(shared)
    if not R.check(rc == 0 and os.path.exists(shared),
                   "--generate-key creates the shared key file",
                   "rc %d: %s" % (rc, out)):
        raise Failed("no key file")
    keys = read_keys(shared)
    R.check(len(keys) == 1 and re.fullmatch("[0-9a-f]{64}", keys[0])
            is not None and os.stat(shared).st_mode & 0o777 == 0o600,
            "the new key file holds one 64-hex-digit key, mode 0600",
            "keys %r mode %03o" % (keys, os.stat(shared).st_mode))
    e = w.instance("E")
    a = w.instance("A", shared)
    b = w.instance("B", shared)
    for i in (e, a, b):
        i.start()
    w.start_nginx({"e": e.sock, "a": a.sock, "b": b.sock})
    t = Tests(w)
    t.test_e(e)
    t.test_h(e, [a, b])
    t.test_f(a, b)
    t.test_g(a, b, shared)


def main():
    return e2e.run_layer(World, layer, 'any wymcp-fcgi log')


if __name__ == "__main__":
    sys.exit(main())
