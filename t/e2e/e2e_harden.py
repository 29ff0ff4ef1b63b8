#!/usr/bin/env python3
"""e2e_harden.py - wymcp end to end: worker limits, through a real nginx.

Usage: e2e_harden.py [--builddir DIR] [--keep] [--verbose]

Starts several wymcp-fcgi instances, each with the rogue tools of
t/lib/rogue.c (loop, sleep without looking, crash, allocate, leak
descriptors, print to stdout) and the bundled examples module, behind one
private nginx, and proves that nothing a tool does pins a worker, takes
the others down or writes the response head:

  T  time limit (--request-timeout 3; a location lowering it to 1 s with
     WYMCP_REQUEST_TIMEOUT, another trying to raise it to 30 s): a tool
     that never looks is stopped a few seconds after its limit (502 from
     nginx, the log names method and tool, a new worker takes its place);
     one that returns late or looks gets -32603 "Request timed out" (504)
     and its worker goes on; a stream ends with that error; a location
     cannot raise the limit; --allow-peer leaves a unix socket alone;
  G  a client that goes away frees its worker without a progressToken:
     two count_slowly calls dropped after 0.5 s stop at once, and the
     next request is served at once;
  M  --memory-limit: a tool allocating 1 GiB fails its request, its
     worker is replaced and the other serves on (skipped under
     AddressSanitizer, which reserves terabytes of address space); a
     worker that leaked descriptors is replaced after that request;
  R  --max-requests 3 recycles a worker every 3 requests, none failing;
     a SIGTERM to a worker that is never idle (12 clients of a 5 ms
     call on its one worker: a connection always waits) stops it within
     2 s, every request answered;
  L  the close of a FastCGI connection: on a unix socket, once the
     request's stdin is at its end, the worker closes at once and a
     web server that keeps its end open holds no worker (the next
     request on one worker is served at once, not after libfcgi's 2 s
     linger); a 413 whose body was not read, and any TCP connection,
     still linger, so the web server can finish sending; a web server
     that never ends stdin holds the worker only until the time limit,
     and without a limit (--request-timeout 0) the worker lingers;
  B  12 requests to a crashing tool: each worker is replaced at once (no
     back-off a client can drive), the log names the tool a dead worker
     was serving, and the next request is served at once;
  P  a worker never outlives its supervisor: SIGKILL to the supervisor
     while a worker loops ends the worker; a stop (SIGTERM) that finds a
     worker stuck past --drain-timeout kills it;
  A  --allow-peer over TCP: a listener allowing only ::1 refuses nginx
     connecting from 127.0.0.1 (502) and serves it over [::1]; one
     allowing 127.0.0.0/8 does the reverse (v4-mapped peers); a TCP
     listener on a non-loopback address refuses to start without
     --allow-peer or --allow-any-peer;
  C  CGI: a tool's printf() cannot write the response head; without
     --state-key-file the program says so and answers a question with a
     clear error.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
pieces come from e2e.py.
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e as e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_harden.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, alive, children, free_port,  # noqa: E402
                       stop_pid, tail)

GRACE = 2.0		# what wymcp-fcgi allows past a time limit
CLIENT_TIMEOUT = 12.0	# so that today's code, which never stops, fails


# ------------------------------------------------------------------ HTTP

class Reply(e2e.HeaderList):
    def __init__(self, status, headers, raw, elapsed):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.elapsed = elapsed
        self.json = None
        self.events = []
        text = raw.decode("utf-8", "replace")
        ctype = self.header("Content-Type") or ""
        if ctype.startswith("text/event-stream"):
            for block in text.split("\n\n"):
                for line in block.split("\n"):
                    if line.startswith("data: "):
                        try:
                            self.events.append(json.loads(line[6:]))
                        except ValueError:
                            pass
            self.json = self.events[-1] if self.events else None
        elif raw:
            try:
                self.json = json.loads(text)
            except ValueError:
                pass

    def error(self):
        """(code, message) of a JSON-RPC error, or None."""
        if isinstance(self.json, dict) and \
                isinstance(self.json.get("error"), dict):
            e = self.json["error"]
            return e.get("code"), e.get("message") or ""
        return None

    def text(self):
        """The first content text of a result, or None."""
        try:
            return self.json["result"]["content"][0]["text"]
        except (KeyError, IndexError, TypeError):
            return None

    def brief(self):
        return "HTTP %d after %.2f s: %r" % (
            self.status, self.elapsed,
            self.raw[:200].decode("utf-8", "replace"))


RID = [1000]


def next_rid():
    RID[0] += 1
    return RID[0]


def call_body(rid, tool, args=None, meta_extra=None):
    meta = dict(e2e.META)
    meta.update(meta_extra or {})
    params = {"name": tool, "_meta": meta}
    if args is not None:
        params["arguments"] = args
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": params}).encode()


def call_headers(tool):
    return [("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", e2e.PROTO),
            ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)]


def post(port, path, tool, args=None, rid=None, meta_extra=None,
         timeout=CLIENT_TIMEOUT):
    """tools/call `tool` at `path`; a Reply (status 0: no answer)."""
    rid = next_rid() if rid is None else rid
    body = call_body(rid, tool, args, meta_extra)
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest("POST", path, skip_accept_encoding=True)
        for k, v in call_headers(tool):
            conn.putheader(k, v)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        r = conn.getresponse()
        raw = r.read()
        return Reply(r.status, r.getheaders(), raw, time.monotonic() - t0)
    except (OSError, http.client.HTTPException) as ex:
        return Reply(0, [], repr(ex).encode(), time.monotonic() - t0)
    finally:
        conn.close()


def post_async(port, path, tool, args=None, rid=None, timeout=60.0):
    """post() in a thread; returns (thread, box) with box["r"] at the
    end."""
    box = {}

    def run():
        box["r"] = post(port, path, tool, args, rid, timeout=timeout)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th, box


def open_request(port, path, tool, args):
    """Send a call over a raw socket and return the socket, unread."""
    body = call_body(next_rid(), tool, args)
    head = ["POST %s HTTP/1.1" % path, "Host: localhost:%d" % port]
    head += ["%s: %s" % kv for kv in call_headers(tool)]
    head += ["Content-Length: %d" % len(body), "Connection: close"]
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    return s


def is_timeout_error(r):
    e = r.error()
    return (r.status in (200, 504) and e is not None and e[0] == -32603
            and "Request timed out" in e[1])


# ------------------------------------------------------------- processes

class Instance(e2e.LogWatch):
    """One wymcp-fcgi supervisor with its workers and its log."""

    supervisor = e2e.Harness.supervisor		# uses self.fcgi
    workers = e2e.Harness.workers		# uses self.sup, self.seen_pids

    def __init__(self, world, name, args, nworkers=2, listen=None):
        self.w = world
        self.name = name
        self.args = list(args)
        self.nworkers = nworkers
        self.sock = os.path.join(world.tmp, name + ".sock")
        self.listen = listen or "unix:" + self.sock
        self.log = os.path.join(world.tmp, name + ".log")
        self.fcgi = None
        self.sup = None
        self.seen_pids = set()
        self.started = False
        world.instances.append(self)

    def argv(self):
        return ([self.w.prog, "--listen", self.listen,
                 "--workers", str(self.nworkers), "-vv",
                 "--module", self.w.rogue, "--module", self.w.examples] +
                self.args)

    def start(self):
        """Start it; False (and a failed assertion) when it would not."""
        with open(self.log, "ab") as log:
            self.fcgi = subprocess.Popen(
                self.argv(), stdin=subprocess.DEVNULL, stdout=log,
                stderr=log, env=self.w.env, cwd=self.w.tmp)
        deadline = time.monotonic() + 20
        while True:
            if self.fcgi.poll() is not None:
                R.fail("%s: wymcp-fcgi starts" % self.name,
                       "exit %d: %s" % (self.fcgi.returncode,
                                        " | ".join(tail(self.log, 4))))
                self.fcgi = None
                return False
            ready = (os.path.exists(self.sock)
                     if self.listen.startswith("unix:") else True)
            if ready:
                self.sup = self.supervisor()
                if len(self.workers()) >= self.nworkers:
                    break
            if time.monotonic() > deadline:
                R.fail("%s: wymcp-fcgi starts" % self.name,
                       "no socket or workers after 20 s")
                return False
            time.sleep(0.03)
        if not self.listen.startswith("unix:"):
            time.sleep(0.2)		# listening before the first fork
        self.started = True
        R.note("%s: supervisor %d, workers %r: %s" % (
            self.name, self.sup, self.workers(), " ".join(self.args)))
        return True

    def stop(self):
        if self.fcgi is None:
            return
        if self.sup and alive(self.sup):
            self.seen_pids.update(children(self.sup))
        if self.sup and self.sup != self.fcgi.pid and alive(self.sup):
            stop_pid(self.sup, None, 10)
        if self.fcgi.poll() is None:
            stop_pid(self.fcgi.pid, self.fcgi, 10)
        for pid in sorted(self.seen_pids):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self.fcgi = None

    def served_by(self, rid, timeout=3.0):
        """The PID that logged the end of request rid, or None."""
        rs = str(rid)
        hits = self.wait_for(lambda e: e[2] == rs and
                             e[3].startswith("tools/call -> "), timeout)
        return hits[0][0] if hits else None

    def wait_workers(self, n, timeout=5.0, without=()):
        """Wait for n live workers none of which is in `without`."""
        deadline = time.monotonic() + timeout
        while True:
            w = self.workers()
            if len(w) >= n and not set(w) & set(without):
                return w
            if time.monotonic() > deadline:
                return w
            time.sleep(0.03)


class World(e2e.World):
    """The temporary directory, nginx and every instance."""

    def __init__(self, builddir, keep):
        e2e.World.__init__(self, builddir, keep)
        self.port = None
        self.instances = []
        self.sanitized = False
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        self.env = env

    def paths(self):
        b = self.builddir
        self.prog = os.path.join(b, "src", "front", "wymcp-fcgi")
        self.rogue = os.path.join(b, "t", "lib", ".libs", "rogue.so")
        self.examples = os.path.join(b, "tools", ".libs", "examples.so")
        e2e.need_built(self.prog, self.rogue, self.examples,
                       hint=" (make check-harden builds them)")
        try:
            with open(os.path.join(b, "Makefile")) as f:
                self.sanitized = any(
                    ln.startswith("SAN_CFLAGS = -f") for ln in f)
        except OSError:
            pass
        if self.sanitized:
            R.note("sanitizer build: no --memory-limit test (ASan "
                   "reserves terabytes of address space), crashes by "
                   "abort() only")

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-harden.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.p6, self.p4 = free_port(), free_port()
        mem = ([] if self.sanitized else
               ["--memory-limit", str(256 * 1024 * 1024)])
        self.limits = Instance(self, "limits", [
            "--request-timeout", "3", "--allow-peer", "192.0.2.1"])
        self.plain = Instance(self, "plain", [])
        self.mem = Instance(self, "mem", mem)
        self.recycle = Instance(self, "recycle", ["--max-requests", "3"],
                                nworkers=1)
        self.orphan = Instance(self, "orphan", [], nworkers=1)
        self.busy = Instance(self, "busy", [], nworkers=1)
        self.linger = Instance(self, "linger", [
            "--max-body", "4096", "--request-timeout", "1"], nworkers=1)
        self.untimed = Instance(self, "untimed", ["--request-timeout", "0"],
                                nworkers=1)
        self.linger_tcp = Instance(self, "linger_tcp", [], nworkers=1,
                                   listen="127.0.0.1:%d" % free_port())
        self.drain = Instance(self, "drain", [
            "--request-timeout", "0", "--drain-timeout", "2"], nworkers=1)
        self.status = Instance(self, "status", [
            "--status-path", "/status", "--status-allow", "127.0.0.1",
            "--slow-log-ms", "100"])
        self.closed = Instance(self, "closed", [
            "--status-path", "/closed", "--status-allow", "192.0.2.0/24"],
            nworkers=1)
        self.pool = Instance(self, "pool", [
            "--workers", "4:128", "--idle-timeout", "2"], nworkers=4)
        self.v6only = Instance(self, "v6only", ["--allow-peer", "::1"],
                               nworkers=1, listen="[::]:%d" % self.p6)
        self.v4only = Instance(self, "v4only", [
            "--allow-peer", "127.0.0.0/8"], nworkers=1,
            listen="[::]:%d" % self.p4)
        self.start_nginx()

    def location(self, path, upstream, params=()):
        return e2e.wymcp_location(path, upstream, params, blank_user=False,
                                  read_timeout="60s")

    def nginx_conf(self):
        t = self.tmp
        locs = ""
        for inst in (self.limits, self.plain, self.mem, self.recycle,
                     self.linger,
                     self.orphan, self.busy, self.drain, self.pool,
                     self.status, self.closed):
            locs += self.location("/" + inst.name, "unix:" + inst.sock)
        locs += self.location("/status-mcp", "unix:" + self.status.sock)
        locs += self.location(
            "/limits-1s", "unix:" + self.limits.sock,
            [("WYMCP_REQUEST_TIMEOUT", "1")])
        locs += self.location(
            "/limits-30s", "unix:" + self.limits.sock,
            [("WYMCP_REQUEST_TIMEOUT", "30")])
        for name, port in (("v6only", self.p6), ("v4only", self.p4)):
            locs += self.location("/%s-from-v4" % name,
                                  "127.0.0.1:%d" % port)
            locs += self.location("/%s-from-v6" % name,
                                  "[::1]:%d" % port)
        return e2e.nginx_preamble(t) + """\

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		client_max_body_size 1m;
{locs}	}}
}}
""".format(port=self.port, locs=locs)

    def start_nginx(self):
        e2e.write_fastcgi_params(self.tmp)

        def conf(ports):
            self.port = ports[0]
            return self.nginx_conf()

        self.nginx, _ = e2e.launch_nginx(self.nginx_bin, self.tmp,
                                         self.nginx_log, 1, conf)
        self.nginx_pids.update(children(self.nginx.pid))
        R.note("nginx %d on 127.0.0.1:%d" % (self.nginx.pid, self.port))

    # -- teardown (run_layer calls these)

    def stop(self):
        self.stop_nginx()
        for inst in self.instances:
            inst.stop()

    def sanitizer_reports(self):
        hits = []
        for inst in self.instances:
            hits += e2e.sanitizer_lines(inst.log)
        return hits

    def dump_logs(self):
        self.print_tails([i.log for i in self.instances] +
                         [self.nginx_log], 25)


# ----------------------------------------------------------------- tests

def check_replaced(inst, dead, label):
    """The worker `dead` is gone and a new one serves in its place."""
    w = inst.wait_workers(inst.nworkers, 5.0, without=[dead])
    R.check(not alive(dead) and dead not in w and
            len(w) >= inst.nworkers,
            "%s: worker %d was replaced" % (label, dead),
            "workers now %r" % (w,))
    r = post(inst.w.port, "/" + inst.name, "count_slowly",
             {"to": 1, "delay_ms": 0})
    R.check(r.text() == "Counted to 1.", "%s: the instance serves on" %
            label, r.brief())


def test_time_limit(w):
    inst = w.limits
    if not inst.start():
        return
    port = w.port
    # T1: never looks, at a location lowering the limit to 1 s.
    rid = next_rid()
    before = set(inst.workers())
    r = post(port, "/limits-1s", "loop_forever", rid=rid)
    ok = R.check(r.status == 502 and 1.0 <= r.elapsed <= 1.0 + GRACE + 1.5,
                 "T a tool that never looks is stopped %.1f s after a 1 s "
                 "limit (nginx answers 502)" % r.elapsed, r.brief())
    hits = inst.wait_for(lambda e: e[2] == str(rid) and
                         "loop_forever" in e[3] and "tools/call" in e[3] and
                         "time limit" in e[3])
    R.check(hits, "T the worker's log line names the method and the tool",
            " | ".join(tail(inst.log, 6)))
    # At the limit itself, before the stop, the warning wymcp-fcgi(8)
    # promises, once.
    warn = inst.wait_for(lambda e: e[2] == str(rid) and
                         e[1] == "warning" and
                         e[3] == "tools/call loop_forever: still running "
                         "at its time limit (1000 ms): the request is "
                         "cancelled")
    R.check(len(warn) == 1, "T ... and at the limit itself the warning "
            "'still running at its time limit (1000 ms)', once",
            " | ".join(tail(inst.log, 6)))
    deadline = time.monotonic() + 3
    while True:		# the socket closes a moment before the exit ends
        dead = [p for p in before if not alive(p)]
        if dead or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    sup = inst.wait_for(lambda e: e[0] == inst.sup and "loop_forever" in
                        e[3] and str(rid) in e[3])
    R.check(sup, "T the supervisor logs what the dead worker was serving",
            " | ".join(tail(inst.log, 6)))
    if ok and len(dead) == 1:
        check_replaced(inst, dead[0], "T")
    else:
        R.fail("T one worker died", "before %r, dead %r" % (before, dead))

    # T2: returns after the limit without looking.
    before = set(inst.workers())
    rid = next_rid()
    r = post(port, "/limits-1s", "sleep_quietly", {"ms": 1500}, rid=rid)
    R.check(is_timeout_error(r) and r.status == 504 and
            1.4 <= r.elapsed < 3.0,
            "T a result that comes after the limit is replaced by -32603 "
            "Request timed out (504)", r.brief())
    R.check(set(inst.workers()) == before,
            "T ... and its worker goes on", "%r -> %r" %
            (before, inst.workers()))
    # The timer (at the limit) and the library (at the late return)
    # both see it: one warning.
    inst.wait_for(lambda e: e[2] == str(rid) and
                  e[3].startswith("tools/call -> "))
    warn = [e for e in inst.entries() if e[2] == str(rid) and
            "still running at its time limit (1000 ms)" in e[3]]
    R.check(len(warn) == 1 and warn[0][1] == "warning",
            "T ... and logs the time-limit warning once", repr(warn))

    # T3: looks (wymcp_cancelled) and stops at the limit.
    r = post(port, "/limits-1s", "wait_politely", {"seconds": 20})
    R.check(is_timeout_error(r) and 0.9 <= r.elapsed < 2.0,
            "T a tool that looks stops at the limit: -32603 after %.2f s" %
            r.elapsed, r.brief())

    # T4: a stream ends with the error as its last event.
    r = post(port, "/limits-1s", "count_slowly",
             {"to": 100, "delay_ms": 100}, meta_extra={"progressToken": 7})
    prog = [e for e in r.events if isinstance(e, dict) and
            e.get("method") == "notifications/progress"]
    R.check(r.status == 200 and len(prog) >= 3 and is_timeout_error(r) and
            r.elapsed < 2.5,
            "T a stream past its limit ends with the -32603 event (%d "
            "progress events before it)" % len(prog), r.brief())

    # T5: WYMCP_REQUEST_TIMEOUT 30 cannot raise --request-timeout 3.
    before = set(inst.workers())
    r = post(port, "/limits-30s", "loop_forever")
    R.check(r.status == 502 and 3.0 <= r.elapsed <= 3.0 + GRACE + 1.5,
            "T a location cannot raise the limit: stopped after %.1f s, "
            "not 30" % r.elapsed, r.brief())
    inst.wait_workers(2, 5.0, without=[p for p in before if not alive(p)])

    # T6: the timer is armed lazily (watch.c): for a worker's first
    # request, then left to run while later ones end later.  Quick
    # calls for 1.5 s leave every worker's timer due before the next
    # request's time; a loop then must still be stopped by its worker
    # at its own limit, not by the supervisor's backstop 3 s later.
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        post(port, "/limits", "count_slowly", {"to": 1, "delay_ms": 0})
    rid = next_rid()
    r = post(port, "/limits", "loop_forever", rid=rid)
    R.check(r.status == 502 and 3.0 <= r.elapsed <= 3.0 + GRACE + 1.5,
            "T after quick calls a loop is still stopped %.1f s after a 3 s "
            "limit (the timer, armed for an earlier call, follows)" %
            r.elapsed, r.brief())
    R.check(inst.wait_for(lambda e: e[2] == str(rid) and
                          "time limit" in e[3] and e[0] != inst.sup),
            "T ... by its worker, which logs it",
            " | ".join(tail(inst.log, 6)))
    inst.wait_workers(2, 5.0)

    # --allow-peer does not apply to a unix socket.
    r = post(port, "/limits", "count_slowly", {"to": 1, "delay_ms": 0})
    R.check(r.text() == "Counted to 1.", "T --allow-peer leaves a unix "
            "socket's clients alone", r.brief())


def test_gone(w):
    inst = w.plain
    if not inst.started and not inst.start():
        return
    port = w.port
    socks = [open_request(port, "/plain", "count_slowly",
                          {"to": 40, "delay_ms": 100}) for _ in range(2)]
    time.sleep(0.5)
    for s in socks:
        s.close()
    t_closed = time.monotonic()
    time.sleep(0.3)
    r = post(port, "/plain", "count_slowly", {"to": 1, "delay_ms": 0})
    waited = time.monotonic() - t_closed
    R.check(r.text() == "Counted to 1." and waited < 1.2,
            "G the next request is served %.2f s after two clients left "
            "(no progressToken)" % waited, r.brief())
    hits = inst.wait_for(lambda e: e[3].startswith(
        "count_slowly: the client went away after "), 3.0)
    steps = [int(re.search(r"after (\d+) of", e[3]).group(1))
             for e in hits]
    R.check(len(hits) == 2 and max(steps) <= 12,
            "G both tools stopped early, after %r of 40 steps" % steps,
            " | ".join(tail(inst.log, 6)))


def test_memory(w):
    if w.sanitized:
        R.note("M --memory-limit: skipped under AddressSanitizer")
    else:
        inst = w.mem
        if inst.start():
            rid = next_rid()
            before = set(inst.workers())
            r = post(w.port, "/mem", "allocate", {"mib": 1024}, rid=rid)
            e = r.error()
            R.check(e is not None and e[0] == -32603 and r.elapsed < 10,
                    "M a tool allocating 1 GiB past a 256 MiB limit fails "
                    "its request with -32603", r.brief())
            pid = inst.wait_for(lambda x: x[2] == str(rid), 1.0)
            pid = pid[0][0] if pid else None
            other = [p for p in before if p != pid]
            if pid is not None:
                ret = inst.wait_for(lambda x: x[0] == inst.sup and
                                    "retir" in x[3] and str(pid) in x[3] and
                                    "memory" in x[3], 3.0)
                R.check(ret, "M its worker retires after the request",
                        " | ".join(tail(inst.log, 5)))
                check_replaced(inst, pid, "M")
            R.check(all(alive(p) for p in other),
                    "M the other worker was untouched", "%r" % other)

    # Descriptors (no option needed).
    inst = w.plain
    if not inst.started and not inst.start():
        return
    rid = next_rid()
    r = post(w.port, "/plain", "leak_fds", {"n": 100}, rid=rid)
    R.check(r.text() == "leaked 100", "M a tool leaks 100 descriptors",
            r.brief())
    pid = inst.served_by(rid)
    ret = inst.wait_for(lambda x: x[0] == inst.sup and "retir" in x[3] and
                        "descriptor" in x[3], 3.0)
    R.check(pid is not None and ret, "M its worker retires after the "
            "request", " | ".join(tail(inst.log, 5)))
    if pid is not None:
        check_replaced(inst, pid, "M")


def test_recycle(w):
    inst = w.recycle
    if not inst.start():
        return
    pids, texts = [], []
    for i in range(7):
        rid = next_rid()
        r = post(w.port, "/recycle", "count_slowly",
                 {"to": 1, "delay_ms": 0}, rid=rid)
        texts.append(r.text())
        pids.append(inst.served_by(rid))
    R.check(texts == ["Counted to 1."] * 7, "R 7 requests, none failed",
            "%r" % texts)
    R.check(None not in pids and len(set(pids[0:3])) == 1 and
            len(set(pids[3:6])) == 1 and
            len({pids[0], pids[3], pids[6]}) == 3,
            "R --max-requests 3: a new worker every 3 requests", "%r" % pids)
    ret = [e for e in inst.entries() if "retired" in e[3] and
           "--max-requests" in e[3] and e[1] == "info"]
    R.check(len(ret) >= 2, "R the supervisor logs each retirement at info",
            " | ".join(tail(inst.log, 5)))


def load(port, path, ms, seconds, clients):
    """`clients` threads calling sleep_quietly {"ms": ms} at `path`, one
    call after another, for `seconds`: (the threads, started; the list
    their Replies go to)."""
    stop = time.monotonic() + seconds
    results, lock = [], threading.Lock()

    def client():
        while time.monotonic() < stop:
            r = post(port, path, "sleep_quietly", {"ms": ms}, timeout=30)
            with lock:
                results.append(r)

    threads = [threading.Thread(target=client, daemon=True)
               for _ in range(clients)]
    for th in threads:
        th.start()
    return threads, results


def test_busy_stop(w):
    """A stop signal reaches a worker that always has a connection
    waiting: ppoll(2) lets a signal in only when nothing is ready, so
    the worker asks sigpending(2) every 64 requests (fcgi.c)."""
    inst = w.busy
    if not inst.start():
        return
    threads, results = load(w.port, "/busy", 5, 3.0, 12)
    time.sleep(1.0)
    worker = inst.workers()[0]
    os.kill(worker, signal.SIGTERM)
    t0 = time.monotonic()
    while alive(worker) and time.monotonic() - t0 < 5.0:
        time.sleep(0.01)
    took = time.monotonic() - t0
    for th in threads:
        th.join()
    bad = [r.brief() for r in results
           if r.status != 200 or r.text() != "slept"]
    R.check(not alive(worker) and took < 2.0, "R SIGTERM to a worker "
            "that is never idle: it stops in %.2f s" % took,
            " | ".join(tail(inst.log, 4)))
    R.check(len(results) > 50 and not bad, "R ... and every one of %d "
            "requests is answered" % len(results), "; ".join(bad[:3]))
    R.check(inst.wait_for(lambda e: e[0] == worker and
                          "stopping on signal 15" in e[3]),
            "R ... it says it stops on the signal",
            " | ".join(tail(inst.log, 4)))
    inst.stop()


def fcgi_call(rid, tool, args):
    """A tools/call of tool as nginx would pass it: (params, body)."""
    body = call_body(rid, tool, args)
    return e2e.mcp_params("tools/call", tool, body), body


def fcgi_connect(inst):
    """A connection to the instance's socket, as the web server's."""
    if inst.listen.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(inst.sock)
        return s
    host, port = inst.listen.rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), 10)


def count_raw(inst):
    """A quick count_slowly call on a connection of our own, as nginx
    would send it; (the connection, left open, and the stdout bytes or
    None)."""
    params, body = fcgi_call(next_rid(), "count_slowly",
                             {"to": 1, "delay_ms": 0})
    s = fcgi_connect(inst)
    s.sendall(e2e.fcgi_request(params, body))
    return s, e2e.fcgi_response(s)


def closed_for_writes(s):
    """Does a write on s fail (the peer closed its end, not only its
    sending side)?  Waits up to 1 s for the peer."""
    deadline = time.monotonic() + 1.0
    while True:
        try:
            s.sendall(e2e.fcgi_record(e2e.FCGI_STDIN, b"late"))
        except (BrokenPipeError, ConnectionResetError):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_linger(w):
    """The close after a response (fcgi.c finish()): at once on a unix
    socket whose stdin was read to its end, lingering otherwise."""
    inst = w.linger
    if not inst.start():
        return
    a, out = count_raw(inst)
    ok = out is not None and e2e.cgi_status(out) == 200
    R.check(ok and b"Counted to 1." in out, "L unix socket: the call is "
            "answered", repr((out or b"")[:200]))
    R.check(closed_for_writes(a), "L ... and the worker closed the "
            "connection, not only its sending side")
    # The web server keeps its end open: the one worker serves on.
    t0 = time.monotonic()
    b, out = count_raw(inst)
    took = time.monotonic() - t0
    b.close()
    a.close()
    R.check(out is not None and b"Counted to 1." in out and took < 1.0,
            "L ... the next request, its one worker, is served in %.2f s "
            "while the first connection stays open (libfcgi's linger: "
            "2 s)" % took, repr((out or b"")[:200]))

    # A body too large is answered unread: the worker lingers, so the
    # web server can send the rest of it.
    params, _ = fcgi_call(next_rid(), "count_slowly", {"to": 1})
    params["CONTENT_LENGTH"] = "200000"
    a = fcgi_connect(inst)
    a.sendall(e2e.fcgi_head(params) +
              e2e.fcgi_record(e2e.FCGI_STDIN, b"x" * 1000))
    out = e2e.fcgi_response(a)
    R.check(out is not None and e2e.cgi_status(out) == 413,
            "L a body past --max-body is answered 413 before it is read",
            repr((out or b"")[:200]))
    sent, err = 1000, None
    try:
        while sent < 200000:
            n = min(60000, 200000 - sent)
            a.sendall(e2e.fcgi_record(e2e.FCGI_STDIN, b"x" * n))
            sent += n
        a.sendall(e2e.fcgi_record(e2e.FCGI_STDIN))
        a.shutdown(socket.SHUT_WR)
        end = a.recv(16)
    except OSError as ex:
        err, end = repr(ex), None
    a.close()
    R.check(err is None and end == b"", "L ... and the worker lingers: "
            "the rest of the body (%d bytes) goes out, then the "
            "connection ends cleanly" % sent, "after %d bytes: %s" %
            (sent, err))
    r = post(w.port, "/linger", "count_slowly", {"to": 1, "delay_ms": 0})
    R.check(r.text() == "Counted to 1.", "L ... the worker serves on",
            r.brief())

    # A web server that never sends the record ending stdin: the
    # worker waits for it under the time limit (1 s), then its timer
    # ends it and another takes its place.
    params, body = fcgi_call(next_rid(), "count_slowly",
                             {"to": 1, "delay_ms": 0})
    old = inst.workers()
    a = fcgi_connect(inst)
    a.sendall(e2e.fcgi_head(params) + e2e.fcgi_record(e2e.FCGI_STDIN, body))
    out = e2e.fcgi_response(a)
    t0 = time.monotonic()
    a.settimeout(10)
    try:
        end = a.recv(16)
    except OSError as ex:
        end = repr(ex).encode()
    took = time.monotonic() - t0
    a.close()
    R.check(out is not None and b"Counted to 1." in out,
            "L a web server that never ends stdin gets its answer",
            repr((out or b"")[:200]))
    R.check(end in (b"", b"ConnectionResetError(104, 'Connection reset "
                    b"by peer')") and took < 1 + GRACE + 2.0,
            "L ... and the worker waits for the end of stdin only until "
            "its time limit (%.1f s)" % took, repr(end))
    w2 = inst.wait_workers(1, 5.0, without=old)
    R.check(len(w2) == 1 and not any(p in w2 for p in old),
            "L ... then another worker takes its place", repr(w2))
    inst.stop()

    for inst, why in ((w.untimed, "--request-timeout 0: nothing would "
                       "bound a wait for the end of stdin, so the worker "
                       "lingers"),
                      (w.linger_tcp, "TCP: the call is answered and the "
                       "worker lingers (the web server may still write)")):
        if not inst.start():
            continue
        a, out = count_raw(inst)
        try:
            a.sendall(e2e.fcgi_record(e2e.FCGI_STDIN, b"late"))
            late = None
        except OSError as ex:
            late = repr(ex)
        a.close()
        R.check(out is not None and b"Counted to 1." in out and
                late is None, "L " + why, "%r %s" % ((out or b"")[:200],
                                                     late))
        inst.stop()

def pss_kib(pid):
    """The proportional set size of a process, KiB (0 when gone)."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_pool(w):
    """--workers 4:128: 64 concurrent 200 ms calls grow the pool, every
    call is served, the workers' memory stays small, and the pool is
    back to 4 once the load is over (--idle-timeout 2)."""
    inst = w.pool
    if not inst.start():
        return
    threads, results = load(w.port, "/pool", 200, 4.0, 64)
    peak, peak_pss = 0, 0
    while any(th.is_alive() for th in threads):
        ws = inst.workers()
        if len(ws) > peak:
            peak = len(ws)
            peak_pss = sum(pss_kib(pid) for pid in ws)
        time.sleep(0.1)
    for th in threads:
        th.join()
    bad = [r.brief() for r in results
           if r.status != 200 or r.text() != "slept"]
    R.check(results and not bad, "W %d calls of 200 ms, 64 at a time, "
            "all served" % len(results), "; ".join(bad[:3]))
    R.note("W %d calls in 4 s (%.0f/s), the pool peaked at %d workers, "
           "%d KiB PSS together" % (len(results), len(results) / 4.0,
                                    peak, peak_pss))
    R.check(peak >= 32, "W the pool grew under load (peak %d workers, "
            "from 4)" % peak)
    R.check(peak <= 128, "W never beyond MAX (peak %d)" % peak)
    R.check(0 < peak_pss <= 256 * 1024, "W the workers' PSS at the peak "
            "is within 256 MiB (%d KiB)" % peak_pss)
    deadline = time.monotonic() + 15.0
    while len(inst.workers()) != 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    R.check(len(inst.workers()) == 4, "W back to 4 workers within 15 s of "
            "the load's end (--idle-timeout 2)",
            "workers %r" % inst.workers())


PROM_PARSE = """
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        out.setdefault(fam.name + ":" + fam.type, []).append(
            [s.name, s.labels, s.value])
print(json.dumps(out))
"""


def get(port, path, headers=()):
    """A GET; (status, content type, body text)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for k, v in headers:
            conn.putheader(k, v)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type") or "", \
            r.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException) as ex:
        return 0, "", repr(ex)
    finally:
        conn.close()


def test_status(w):
    """--status-path: the pool and its requests, as JSON and as
    Prometheus text a real parser reads; its own allow-list; slow
    requests logged with method, tool and duration."""
    inst = w.status
    if not inst.start() or not w.closed.start():
        return
    for i in range(3):
        post(w.port, "/status-mcp", "count_slowly", {"to": 1,
                                                    "delay_ms": 0})
    post(w.port, "/status-mcp", "no_such_tool")
    post(w.port, "/status-mcp", "sleep_quietly", {"ms": 150})
    time.sleep(1.2)		# the supervisor looks once a second
    st, ctype, body = get(w.port, "/status")
    try:
        page = json.loads(body)
    except ValueError:
        page = None
    R.check(st == 200 and ctype == "application/json" and page,
            "S the status page answers JSON", "%d %s %s" % (st, ctype,
                                                         body[:200]))
    if page:
        calls = page["requests"]["tools/call"]
        R.check(page["workers"]["running"] == 2 and
                page["workers"]["min"] == 2, "S it shows the 2 workers",
                json.dumps(page["workers"]))
        R.check(calls["ok"] == 5 and calls["client_error"] == 0,
                "S it counts the tools/call requests by outcome (5 ok; an "
                "unknown tool is a JSON-RPC error of a 200)",
                json.dumps(calls))
        R.check(page["slowRequests"] == 1 and page["slowMs"] == 100,
                "S one request past --slow-log-ms 100",
                "%r" % page["slowRequests"])
    slow = inst.wait_for(lambda e: "slow request: tools/call "
                         "sleep_quietly took" in e[3], 3.0)
    R.check(slow, "S the slow request is logged with its method, tool "
            "and duration", " | ".join(tail(inst.log, 3)))
    st, ctype, text = get(w.port, "/status?format=prometheus")
    R.check(st == 200 and ctype.startswith("text/plain; version=0.0.4"),
            "S ?format=prometheus answers the text format", ctype)
    parser = "/usr/bin/python3"
    if not os.path.exists(parser):
        R.fail("S the Prometheus text parses", "no /usr/bin/python3")
        return
    p = subprocess.run([parser, "-c", PROM_PARSE], input=text,
                       capture_output=True, text=True)
    if p.returncode != 0 and "prometheus_client" in p.stderr:
        R.fail("S the Prometheus text parses", "Debian's "
               "python3-prometheus-client is not installed")
        return
    fams = json.loads(p.stdout) if p.returncode == 0 else {}
    R.check(p.returncode == 0 and "wymcp_requests:counter" in fams and
            "wymcp_workers:gauge" in fams,
            "S a real Prometheus parser reads it (prometheus_client)",
            p.stderr[-300:])
    if fams:
        ok = [v for n, lab, v in fams["wymcp_requests:counter"]
              if lab == {"method": "tools/call", "outcome": "ok"}]
        R.check(ok == [5.0], "S wymcp_requests_total{method=tools/call,"
                "outcome=ok} is 5", "%r" % ok)
    st, _, body = get(w.port, "/closed")
    R.check(st == 403, "S a client outside --status-allow gets 403",
            "%d %s" % (st, body[:80]))


def test_backoff(w):
    inst = w.plain
    if not inst.started and not inst.start():
        return
    hows = ["abort"] * 12 if w.sanitized else ["abort", "segv"] * 6
    statuses = []
    t0 = time.monotonic()
    for how in hows:
        r = post(w.port, "/plain", "crash", {"how": how})
        statuses.append(r.status)
    spent = time.monotonic() - t0
    R.check(statuses == [502] * 12 and spent < 4.0,
            "B 12 crashing requests each get 502, in %.1f s" % spent,
            "%r" % statuses)
    # At once, without waiting for the workers to be back.
    r = post(w.port, "/plain", "count_slowly", {"to": 1, "delay_ms": 0})
    R.check(r.text() == "Counted to 1." and r.elapsed < 1.0,
            "B the next request is served in %.2f s: no back-off" %
            r.elapsed, r.brief())
    backoff = [e for e in inst.entries() if "next start in" in e[3]]
    R.check(not backoff, "B no back-off delay was logged",
            "%r" % backoff[:2])
    # nginx's 502 can come before the supervisor has reaped the worker
    # and logged its death: wait for the lines.
    named = inst.wait_for(lambda e: e[0] == inst.sup and
                          "tools/call crash" in e[3] and "serving" in e[3],
                          timeout=20.0, least=12)
    R.check(len(named) >= 12, "B the supervisor names the tool each dead "
            "worker was serving (%d lines)" % len(named),
            " | ".join(tail(inst.log, 4)))


def test_parent(w):
    # P1: SIGKILL to the supervisor while its worker loops.
    inst = w.orphan
    if inst.start():
        worker = inst.workers()[0]
        th, box = post_async(w.port, "/orphan", "loop_forever")
        time.sleep(0.7)
        os.kill(inst.sup, signal.SIGKILL)
        deadline = time.monotonic() + 3
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        R.check(not alive(worker), "P a looping worker dies with its "
                "SIGKILLed supervisor", "worker %d still alive" % worker)
        if alive(worker):
            os.kill(worker, signal.SIGKILL)
        th.join(10)
        r = box.get("r")
        R.check(r is not None and r.status == 502,
                "P ... and its client gets 502", r and r.brief())
        inst.fcgi.wait(5)
        inst.fcgi = None
    # P2: a stop that finds a worker stuck past --drain-timeout.
    inst = w.drain
    if inst.start():
        worker = inst.workers()[0]
        th, box = post_async(w.port, "/drain", "loop_forever")
        time.sleep(0.7)
        t0 = time.monotonic()
        os.kill(inst.sup, signal.SIGTERM)
        try:
            inst.fcgi.wait(10)
        except subprocess.TimeoutExpired:
            pass
        took = time.monotonic() - t0
        R.check(inst.fcgi.returncode == 0 and 2.0 <= took <= 4.5 and
                not alive(worker),
                "P SIGTERM: the worker stuck past --drain-timeout 2 is "
                "killed and the supervisor exits 0 after %.1f s" % took,
                "rc %r, worker alive %r" % (inst.fcgi.returncode,
                                           alive(worker)))
        R.check(inst.wait_for(lambda e: "still busy after 2 s; killing it"
                              in e[3], 1.0),
                "P ... and says so", " | ".join(tail(inst.log, 4)))
        th.join(10)
        inst.fcgi = None


def test_peers(w):
    for inst in (w.v6only, w.v4only):
        inst.start()
    cases = (("v6only", "v4", 502), ("v6only", "v6", 200),
             ("v4only", "v4", 200), ("v4only", "v6", 502))
    for name, fam, want in cases:
        r = post(w.port, "/%s-from-%s" % (name, fam), "count_slowly",
                 {"to": 1, "delay_ms": 0})
        good = (r.status == 502 if want == 502 else
                r.text() == "Counted to 1.")
        R.check(good, "A --allow-peer %s: nginx connecting over %s gets "
                "%s" % ("::1" if name == "v6only" else "127.0.0.0/8",
                        "127.0.0.1" if fam == "v4" else "[::1]",
                        "502" if want == 502 else "served"), r.brief())
    hits = w.v6only.wait_for(lambda e: "refused" in e[3] and
                             "::ffff:127.0.0.1" in e[3], 2.0)
    R.check(hits, "A the refusal is logged with the peer's address",
            " | ".join(tail(w.v6only.log, 3)))

    # Startup rules for TCP listeners.
    def run(args, label):
        log = os.path.join(w.tmp, "startup-%s.log" % label)
        with open(log, "wb") as f:
            p = subprocess.Popen([w.prog, "--workers", "1", "--module",
                                  w.rogue] + args, stdin=subprocess.DEVNULL,
                                 stdout=f, stderr=f, env=w.env, cwd=w.tmp)
        try:
            rc = p.wait(1.5)
        except subprocess.TimeoutExpired:
            rc = None
            stop_pid(p.pid, p, 5)
        with open(log, "rb") as f:
            return rc, f.read().decode("utf-8", "replace")

    rc, out = run(["--listen", "0.0.0.0:%d" % free_port()], "any")
    R.check(rc == 2 and "--allow-peer" in out, "A a TCP listener on 0.0.0.0 "
            "without --allow-peer refuses to start (exit 2)",
            "rc %r: %s" % (rc, out[-300:]))
    rc, out = run(["--listen", "[::]:%d" % free_port(), "--allow-any-peer"],
                  "allow-any")
    R.check(rc is None, "A ... and starts with --allow-any-peer",
            "rc %r: %s" % (rc, out[-300:]))
    rc, out = run(["--listen", "127.0.0.1:%d" % free_port()], "loopback")
    R.check(rc is None, "A a loopback TCP listener needs neither",
            "rc %r: %s" % (rc, out[-300:]))


def cgi(w, tool, args=None, caps=None, extra=()):
    """Run wymcp-fcgi as a CGI program; (status line, stdout, stderr)."""
    meta = {}
    if caps is not None:
        meta["io.modelcontextprotocol/clientCapabilities"] = caps
    body = call_body(1, tool, args, meta)
    env = dict(w.env)
    for k in list(env):
        if k.startswith(("LISTEN_", "HTTP_", "WYMCP_")):
            del env[k]
    env.update({"GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": "POST",
                "CONTENT_TYPE": "application/json",
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_HOST": "localhost", "SERVER_NAME": "localhost",
                "HTTP_ACCEPT": "application/json, text/event-stream",
                "HTTP_MCP_PROTOCOL_VERSION": e2e.PROTO,
                "HTTP_MCP_METHOD": "tools/call", "HTTP_MCP_NAME": tool})
    p = subprocess.run([w.prog, "--module", w.rogue, "--module",
                        w.examples] + list(extra), input=body,
                       capture_output=True, env=env, cwd=w.tmp, timeout=20)
    out = p.stdout.decode("utf-8", "replace")
    return out, p.stderr.decode("utf-8", "replace")


def test_cgi(w):
    out, err = cgi(w, "print_stdout")
    head, _, body = out.partition("\r\n\r\n")
    R.check(out.startswith("Status: 200 OK\r\n") and "X-Injected" not in
            head and '"printed"' in body,
            "C CGI: a tool's printf() cannot write the response head",
            repr(out[:200]))
    R.check("X-Injected: yes" in err, "C ... it goes to standard error "
            "(the web server's error log)", repr(err[-300:]))

    caps = {"elicitation": {}}
    out, err = cgi(w, "book_room", {"day": "2026-12-01"}, caps)
    R.check("--state-key-file" in err and "CGI" in err,
            "C CGI without --state-key-file says so at start",
            repr(err[-300:]))
    head, _, body = out.partition("\r\n\r\n")
    try:
        e = json.loads(body).get("error") or {}
    except ValueError:
        e = {}
    R.check(e.get("code") == -32603 and "state key" in e.get("message", "")
            and "requestState" not in body.replace(
                "the requestState", ""),
            "C ... and answers a question with a clear error, minting no "
            "state", repr(out[:300]))

    key = os.path.join(w.tmp, "state.key")
    subprocess.run([w.prog, "--generate-key", key], capture_output=True,
                   env=w.env, timeout=10)
    out, err = cgi(w, "book_room", {"day": "2026-12-01"}, caps,
                   ["--state-key-file", key])
    _, _, body = out.partition("\r\n\r\n")
    try:
        res = json.loads(body).get("result") or {}
    except ValueError:
        res = {}
    R.check(res.get("resultType") == "input_required" and
            "--state-key-file" not in err,
            "C with --state-key-file the question goes out, no warning",
            repr(out[:200]) + repr(err[-200:]))

    # A CGI start leaves the tools' digests to first use (the seal
    # here); a FastCGI process makes them at the load.  The state the
    # CGI sealed opens in a --workers 0 process given the same key and
    # modules, and both list the same tools byte for byte.
    state = res.get("requestState")
    meta = {"io.modelcontextprotocol/clientCapabilities": caps}
    params = json.loads(call_body(2, "book_room", {"day": "2026-12-01"},
                                  meta))
    params["params"]["requestState"] = state
    params["params"]["inputResponses"] = {
        "elicit-1": {"action": "accept", "content": {"room": "Aurora"}}}
    body2 = json.dumps(params).encode()
    out2 = fcgi_once(w, body2, "tools/call", "book_room",
                     ["--state-key-file", key])
    _, _, b2 = out2.partition(b"\r\n\r\n")
    # Opened, the state gives the tool its first answer, and it asks
    # its next question (elicit-2); a state that did not open is an
    # error.
    R.check(state is not None and b'"result":' in b2 and
            b'"elicit-2"' in b2 and b'"error"' not in b2,
            "C a requestState sealed in CGI opens in a FastCGI process "
            "(the same tool digests, made lazily and at the load)",
            repr(out2[:300]))
    lbody = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                        "params": {"_meta": dict(e2e.META)}}).encode()
    env = dict(w.env)
    for k in list(env):
        if k.startswith(("LISTEN_", "HTTP_", "WYMCP_")):
            del env[k]
    env.update(list_params(lbody))
    p = subprocess.run([w.prog, "--module", w.rogue, "--module",
                        w.examples], input=lbody, capture_output=True,
                       env=env, cwd=w.tmp, timeout=20)
    l1 = p.stdout.partition(b"\r\n\r\n")[2]
    l2 = fcgi_once(w, lbody, "tools/list", None, []).partition(
        b"\r\n\r\n")[2]
    R.check(b'"tools":[' in l1 and l1 == l2,
            "C tools/list in CGI (digests made on first use) is the "
            "FastCGI one byte for byte", repr(l1[:200]) + repr(l2[:200]))


def list_params(body, method="tools/list", name=None):
    """The CGI variables (FastCGI params) of a POST of `body'."""
    e = {"GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": "POST",
         "CONTENT_TYPE": "application/json",
         "CONTENT_LENGTH": str(len(body)),
         "HTTP_HOST": "localhost", "SERVER_NAME": "localhost",
         "HTTP_ACCEPT": "application/json, text/event-stream",
         "HTTP_MCP_PROTOCOL_VERSION": e2e.PROTO, "HTTP_MCP_METHOD": method}
    if name is not None:
        e["HTTP_MCP_NAME"] = name
    return e


def fcgi_once(w, body, method, name, extra):
    """One request to wymcp-fcgi --workers 0 --max-requests 1 given a
    listening unix socket on descriptor 0 (as mod_fcgid starts it),
    with the CGI test's modules; its stdout bytes.  The process is
    waited for, or killed."""
    path = os.path.join(w.tmp, "once.sock")
    if os.path.exists(path):
        os.unlink(path)
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(path)
    ls.listen(4)
    env = dict(w.env)
    for k in list(env):
        if k.startswith(("LISTEN_", "HTTP_", "WYMCP_")):
            del env[k]
    try:
        p = subprocess.Popen([w.prog, "--workers", "0", "--max-requests",
                              "1", "--module", w.rogue, "--module",
                              w.examples] + list(extra), stdin=ls.fileno(),
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, cwd=w.tmp)
    finally:
        ls.close()
    out = b""
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(20)
        s.connect(path)
        s.sendall(e2e.fcgi_request(list_params(body, method, name), body))
        out = e2e.fcgi_response(s) or b""
        s.close()
    finally:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            stop_pid(p.pid, p, 5)
    return out


def layer(w):
    """This script's tests."""
    w.paths()
    w.start()
    test_time_limit(w)
    test_gone(w)
    test_memory(w)
    test_recycle(w)
    test_busy_stop(w)
    test_linger(w)
    test_pool(w)
    test_status(w)
    test_backoff(w)
    test_parent(w)
    test_peers(w)
    test_cgi(w)


def main():
    return e2e.run_layer(World, layer, "the wymcp-fcgi logs")


if __name__ == "__main__":
    sys.exit(main())
