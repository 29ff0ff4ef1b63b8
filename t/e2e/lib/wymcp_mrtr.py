"""wymcp_mrtr - what the Multi Round-Trip Request scripts share:
wymcp-fcgi instances serving the bundled examples module (book_room)
behind a private nginx, their -vv logs read back (which process served
request N), key files, the judges of an input_required round, and the
Tests class with the requests of a book_room call.

e2e_mrtr.py runs its sections with these; e2e_hosts.py and
e2e_deploy.py subclass Instance, World and Tests for hosts in network
namespaces and the ways deploy/ starts wymcp-fcgi.  Found through
PYTHONPATH=t/e2e/lib, like wymcp_e2e, which it builds on.  Python 3
standard library only.
"""

import base64
import copy
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import time

import wymcp_e2e
from wymcp_e2e import (R, Client, Failed, alive, children, enc, hlist,
                       judge_error, judge_result, report, std_headers,
                       stop_pid, tail)

WORKERS = 2
DAY = "2026-12-01"
ROOM_Q = "Which room would you like?"
SIZE_Q = "How many people?"
ELICIT_CAPS = {"elicitation": {}}


def meta(caps):
    m = dict(wymcp_e2e.META)
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
    if len(b) < 5 or b[0] != 7:  # SEAL_VERSION (src/core/seal.c)
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


# ------------------------------------------------------------ processes

class Instance(wymcp_e2e.LogWatch):
    """One wymcp-fcgi supervisor with its workers, socket and logs."""

    supervisor = wymcp_e2e.Harness.supervisor	# uses self.fcgi
    workers = wymcp_e2e.Harness.workers		# uses self.sup, self.seen_pids

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
        argv = wymcp_e2e.wrap_argv(argv)
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


class World(wymcp_e2e.World):
    """The temporary directory, nginx and every instance."""

    def __init__(self, builddir, keep):
        wymcp_e2e.World.__init__(self, builddir, keep)
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
        wymcp_e2e.need_built(self.prog, self.examples)

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
        t = self.tmp

        def loc(path, target):
            return wymcp_e2e.wymcp_location(
                path, target, [("WYMCP_PRINCIPAL", '"alice"')],
                blank_user=False)

        return wymcp_e2e.nginx_preamble(t) + """\

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
""".format(t=t, port=port, a=socks["a"], b=socks["b"],
           le=loc("/mcp-e", "unix:" + socks["e"]),
           la=loc("/mcp-a", "unix:" + socks["a"]),
           lb=loc("/mcp-b", "unix:" + socks["b"]),
           lab=loc("/mcp-ab", "wymcp_ab"))

    def start_nginx(self, socks):
        wymcp_e2e.write_fastcgi_params(self.tmp)
        self.nginx, (self.port,) = wymcp_e2e.launch_nginx(
            self.nginx_bin, self.tmp, self.nginx_log, 1,
            lambda ports: self.nginx_conf(socks, ports[0]))
        self.nginx_pids.update(children(self.nginx.pid))
        R.note("nginx %d on 127.0.0.1:%d" % (self.nginx.pid, self.port))

    # -- teardown

    def stop(self):
        for i in self.instances:
            i.cont_all()
        self.stop_nginx()
        for i in self.instances:
            i.stop()

    def sanitizer_reports(self):
        hits = []
        for path in self.logs:
            for line in tail(path, 1000000):
                if any(m in line for m in wymcp_e2e.SANITIZER_MARKS):
                    hits.append("%s: %s" % (os.path.basename(path),
                                            line.strip()))
        for out in self.tool_outputs:
            for line in out.splitlines():
                if any(m in line for m in wymcp_e2e.SANITIZER_MARKS):
                    hits.append("--generate-key: " + line.strip())
        return hits

    def dump_logs(self):
        self.print_tails(self.logs + [self.nginx_log], 30)


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
    if "id" not in o or not wymcp_e2e.same_id(o["id"], rid):
        p.append("id %r, want %r" % (o.get("id", "<absent>"), rid))
    if "error" in o:
        p.append("error %s" % json.dumps(o["error"]))
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
    """The requests of a book_room call through the World's nginx, and
    where its rounds ran.  The scripts add their sections in a
    subclass."""

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

    # -- the three rounds of one call, and where they ran

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

    # -- one round at a time

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
