#!/usr/bin/env python3
"""e2e_stream.py - wymcp end to end: SSE progress, logging, cancellation.

Usage: e2e_stream.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi (two workers, -vv, the bundled examples module with
its count_slowly tool) on a unix socket behind a private nginx with
three ways of passing responses: /mcp with nginx's default buffering
(fastcgi_buffering on: only the X-Accel-Buffering: no header wymcp sends
keeps events from being held back), /mcp-unbuf with fastcgi_buffering
off, and the location block of deploy/nginx/wymcp.conf as shipped.
Requests go over raw sockets so that the arrival time of every event is
measured:

  S  progress: notifications/progress arrive as they happen, before the
     result (the first one at least 0.8 s before it with delay_ms 300
     and to 5), on an exact SSE framing (event: message, one compact
     data line, no id:), the token echoed with its JSON type; JSON when
     there is nothing to stream;
  L  logging: _meta logLevel debug brings notifications/message from
     the tool's wymcp_log() lines; none without logLevel or above it;
     an unknown level is 400 with -32602;
  C  cancellation: a client that closes the connection after the
     second progress event stops the tool early (the worker logs it at
     info and fewer steps run than asked), and the worker goes on
     serving; no worker dies of SIGPIPE;
  P  two streams at once on two workers, each with its own token.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
pieces are in t/e2e/lib/wymcp_e2e.py (PYTHONPATH).
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_stream.py: no module wymcp_e2e: run with "
          "PYTHONPATH=t/e2e/lib, or through make", file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, Failed, alive, children, stop_pid,  # noqa: E402
                       tail)

WORKERS = 2
LOCATIONS = ("/mcp", "/mcp-unbuf", "deploy")


# ------------------------------------------------------------------ HTTP

class Conn(wymcp_e2e.HeaderList):
    """One POST over a raw socket, read as it arrives.  The head is read
    by the constructor; body pieces come from piece(), complete SSE
    events with their arrival time from events()."""

    def __init__(self, port, path, body, headers, timeout=30.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout)
        lines = ["POST %s HTTP/1.1" % path, "Host: localhost:%d" % port]
        lines += ["%s: %s" % kv for kv in headers]
        lines += ["Content-Length: %d" % len(body), "Connection: close"]
        req = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        self.raw = b""
        self.done = False
        self.left = 0		# bytes left in the current chunk
        self.t0 = time.monotonic()
        self.sock.sendall(req)
        self.read_head()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _recv(self):
        d = self.sock.recv(65536)
        if not d:
            raise EOFError("connection closed")
        self.raw += d

    def _line(self):
        while b"\r\n" not in self.raw:
            self._recv()
        line, self.raw = self.raw.split(b"\r\n", 1)
        return line.decode("latin-1")

    def read_head(self):
        st = self._line().split(" ", 2)
        self.status = int(st[1])
        self.headers = []
        while True:
            ln = self._line()
            if not ln:
                break
            k, _, v = ln.partition(":")
            self.headers.append((k.strip(), v.strip()))
        self.t_head = time.monotonic() - self.t0
        te = (self.header("Transfer-Encoding") or "").lower()
        self.chunked = "chunked" in te
        cl = self.header("Content-Length")
        self.length = int(cl) if cl is not None and not self.chunked \
            else None

    def piece(self):
        """The next piece of the body as it arrived; b"" at its end."""
        if self.done:
            return b""
        try:
            if self.chunked:
                if self.left == 0:
                    size = int(self._line().split(";")[0], 16)
                    if size == 0:
                        while self._line():
                            pass
                        self.done = True
                        return b""
                    self.left = size
                if not self.raw:
                    self._recv()
                p = self.raw[:self.left]
                self.raw = self.raw[len(p):]
                self.left -= len(p)
                if self.left == 0:
                    while len(self.raw) < 2:
                        self._recv()
                    self.raw = self.raw[2:]
                return p
            if self.length is not None:
                if self.length == 0:
                    self.done = True
                    return b""
                if not self.raw:
                    self._recv()
                p = self.raw[:self.length]
                self.raw = self.raw[len(p):]
                self.length -= len(p)
                return p
            if not self.raw:
                self._recv()
            p, self.raw = self.raw, b""
            return p
        except EOFError:
            if self.chunked or self.length:
                raise
            self.done = True
            return b""

    def body(self):
        out = b""
        while True:
            p = self.piece()
            if not p:
                return out
            out += p

    def events(self):
        """Yield (seconds since the request, event text) per event."""
        buf = b""
        while True:
            p = self.piece()
            if not p:
                break
            t = time.monotonic() - self.t0
            buf += p
            while b"\n\n" in buf:
                ev, buf = buf.split(b"\n\n", 1)
                yield t, ev.decode("utf-8")
        self.rest = buf


def headers_for(method, name=None):
    h = [("Content-Type", "application/json"),
         ("Accept", "application/json, text/event-stream"),
         ("MCP-Protocol-Version", wymcp_e2e.PROTO), ("Mcp-Method", method)]
    if name is not None:
        h.append(("Mcp-Name", name))
    return h


def call_body(rid, tool, args, meta_extra=None):
    meta = dict(wymcp_e2e.META)
    meta.update(meta_extra or {})
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": tool, "arguments": args,
                                  "_meta": meta}},
                      separators=(",", ":")).encode("utf-8")


def parse_event(text):
    """(message, problems) for one SSE event's text."""
    lines = text.split("\n")
    p = []
    if len(lines) != 2 or lines[0] != "event: message" or \
            not lines[1].startswith("data: "):
        p.append("framing %r" % text[:120])
        return None, p
    data = lines[1][6:]
    c = wymcp_e2e.compact(data.encode("utf-8"))
    if c:
        p.append("data not compact: " + c)
    try:
        return json.loads(data), p
    except ValueError as ex:
        p.append("data is not JSON: %s" % ex)
        return None, p


class Stream:
    """A whole response read as events: (t, message) pairs and the
    problems with the framing."""

    def __init__(self, conn, stop=None):
        self.conn = conn
        self.items = []
        self.problems = []
        for t, text in conn.events():
            if text.startswith("id:") or "\nid:" in text:
                self.problems.append("an id: line")
            m, p = parse_event(text)
            self.problems += p
            self.items.append((t, m))
            if stop is not None and stop(self.items):
                break
        else:
            if getattr(conn, "rest", b""):
                self.problems.append("trailing bytes %r" % conn.rest[:80])

    def of(self, method):
        return [(t, m) for t, m in self.items
                if isinstance(m, dict) and m.get("method") == method]

    @property
    def final(self):
        if not self.items:
            return None, None
        return self.items[-1]


# ------------------------------------------------------------- processes

class World(wymcp_e2e.World, wymcp_e2e.LogWatch):
    """The temporary directory, wymcp-fcgi and nginx."""

    supervisor = wymcp_e2e.Harness.supervisor	# uses self.fcgi
    workers = wymcp_e2e.Harness.workers		# uses self.sup, self.seen_pids

    def __init__(self, builddir, keep):
        wymcp_e2e.World.__init__(self, builddir, keep)
        self.fcgi = None
        self.sup = None
        self.seen_pids = set()
        self.port = self.port2 = None

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.examples = os.path.join(self.builddir, "tools", ".libs",
                                     "examples.so")
        wymcp_e2e.need_built(self.prog, self.examples)

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-stream.")
        os.chmod(self.tmp, 0o755)
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.start_fcgi()
        self.start_nginx()

    def start_fcgi(self):
        argv = [self.prog, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "-vv", "--module", self.examples]
        argv = wymcp_e2e.wrap_argv(argv)
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        with open(self.log, "wb") as log:
            self.fcgi = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, env=env,
                                         cwd=self.tmp)
        deadline = time.monotonic() + 30
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("wymcp-fcgi exited with %d: %s" %
                             (self.fcgi.returncode,
                              " | ".join(tail(self.log, 5))))
            if os.path.exists(self.sock):
                self.sup = self.supervisor()
                if len(self.workers()) >= WORKERS:
                    break
            if time.monotonic() > deadline:
                raise Failed("no socket and %d workers after 30 s" %
                             WORKERS)
            time.sleep(0.03)
        R.note("wymcp-fcgi supervisor %d, workers %r" %
               (self.sup, self.workers()))

    def nginx_conf(self):
        t = self.tmp
        deploy = wymcp_e2e.write_deploy_conf(t, self.sock)
        target = "unix:" + self.sock
        buffered = wymcp_e2e.wymcp_location("/mcp", target, blank_user=False,
                                            buffering=True)
        unbuf = wymcp_e2e.wymcp_location("/mcp-unbuf", target,
                                         blank_user=False)
        return wymcp_e2e.nginx_preamble(t) + """\

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		client_max_body_size 1m;

		# nginx's defaults: responses are buffered unless the
		# upstream says X-Accel-Buffering: no.
{buffered}{unbuf}	}}

	# deploy/nginx/wymcp.conf, as shipped.
	server {{
		listen 127.0.0.1:{port2};
		server_name localhost;
		include {deploy};
	}}
}}
""".format(port=self.port, port2=self.port2,
           buffered=buffered, unbuf=unbuf, deploy=deploy)

    def start_nginx(self):
        wymcp_e2e.write_fastcgi_params(self.tmp)

        def conf(ports):
            self.port, self.port2 = ports
            return self.nginx_conf()

        self.nginx, _ = wymcp_e2e.launch_nginx(self.nginx_bin, self.tmp,
                                               self.nginx_log, 2, conf)
        self.nginx_pids.update(children(self.nginx.pid))
        R.note("nginx %d on 127.0.0.1:%d and :%d" %
               (self.nginx.pid, self.port, self.port2))

    def where(self, loc):
        """(port, path) of a location name."""
        if loc == "deploy":
            return self.port2, "/mcp"
        return self.port, loc

    # -- the log

    # -- teardown

    def stop(self):
        self.stop_nginx()
        if self.fcgi is not None:
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

    def sanitizer_reports(self):
        return wymcp_e2e.sanitizer_lines(self.log)

    def dump_logs(self):
        self.print_tails([self.log, self.nginx_log], 40)


# ----------------------------------------------------------------- tests

def report(name, problems, detail=""):
    if problems:
        R.fail(name, "; ".join(problems) + (" | " + detail if detail
                                            else ""))
        return False
    R.ok(name)
    return True


def judge_head(c):
    """Problems with the head of an SSE response."""
    p = []
    if c.status != 200:
        p.append("status %d" % c.status)
    if c.mime != "text/event-stream":
        p.append("Content-Type %r" % c.header("Content-Type"))
    if (c.header("Cache-Control") or "").lower() != "no-cache":
        p.append("Cache-Control %r" % c.header("Cache-Control"))
    # nginx consumes X-Accel-Buffering (fastcgi_hide_header's default
    # list); if some setup passes it on, it must say "no".
    xab = c.header("X-Accel-Buffering")
    if xab is not None and xab.lower() != "no":
        p.append("X-Accel-Buffering %r" % xab)
    if c.header("Content-Length") is not None:
        p.append("a Content-Length on a stream")
    return p


def judge_final(final, rid, text):
    """Problems with the final response of a stream."""
    p = []
    if not isinstance(final, dict):
        return ["no final response"]
    if "method" in final:
        p.append("last event is %r, not the response" % final["method"])
    if not wymcp_e2e.same_id(final.get("id"), rid):
        p.append("final id %r, want %r" % (final.get("id"), rid))
    res = final.get("result")
    if not isinstance(res, dict):
        return p + ["no result: %s" % json.dumps(final)[:200]]
    if res.get("resultType") != "complete":
        p.append("resultType %r" % res.get("resultType"))
    try:
        got = res["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        got = None
    if got != text:
        p.append("text %r, want %r" % (got, text))
    return p


def judge_progress(items, token, to):
    """Problems with the progress notifications of count_slowly."""
    p = []
    if len(items) != to:
        p.append("%d progress events, want %d" % (len(items), to))
    for i, (_, m) in enumerate(items, 1):
        par = m.get("params", {})
        if set(m) != {"jsonrpc", "method", "params"} or \
                m.get("jsonrpc") != "2.0":
            p.append("event %d members %r" % (i, sorted(m)))
        tok = par.get("progressToken")
        if type(tok) is not type(token) or tok != token:
            p.append("event %d token %r, want %r" % (i, tok, token))
        if type(par.get("progress")) is not int or par["progress"] != i:
            p.append("event %d progress %r" % (i, par.get("progress")))
        if type(par.get("total")) is not int or par["total"] != to:
            p.append("event %d total %r" % (i, par.get("total")))
        if par.get("message") != "Counted %d of %d" % (i, to):
            p.append("event %d message %r" % (i, par.get("message")))
    return p


class Tests:
    def __init__(self, w):
        self.w = w
        self.nid = 1000

    def rid(self):
        self.nid += 1
        return self.nid

    def open(self, loc, rid, args, meta_extra=None, tool="count_slowly"):
        port, path = self.w.where(loc)
        return Conn(port, path, call_body(rid, tool, args, meta_extra),
                    headers_for("tools/call", tool))

    # -- S: progress as it happens

    def test_progress(self):
        for loc in LOCATIONS:
            rid = self.rid()
            c = self.open(loc, rid, {"to": 5, "delay_ms": 300},
                          {"progressToken": "s-%d" % rid})
            try:
                report("S %s: a progressToken makes the response an SSE "
                       "stream (200, text/event-stream, no-cache)" % loc,
                       judge_head(c), repr(c.headers))
                s = Stream(c)
            finally:
                c.close()
            report("S %s: every event is 'event: message' + one compact "
                   "data line, no id:" % loc, s.problems)
            prog = s.of("notifications/progress")
            report("S %s: five notifications/progress with the string "
                   "token, progress 1..5 of 5, with messages" % loc,
                   judge_progress(prog, "s-%d" % rid, 5))
            t_final, final = s.final
            report("S %s: the result is the last event" % loc,
                   judge_final(final, rid, "Counted to 5."))
            if prog and t_final is not None:
                gap = t_final - prog[0][0]
                R.check(gap >= 0.8, "S %s: the first progress event "
                        "arrives %.2f s before the result (>= 0.8 s: "
                        "flushed through nginx as it happens)" % (loc, gap),
                        "times %r" % [round(t, 3) for t, _ in s.items])
                times = [t for t, _ in prog]
                spread = all(times[i + 1] - times[i] >= 0.15
                             for i in range(len(times) - 1))
                R.check(spread, "S %s: the progress events arrive one "
                        "by one, about 0.3 s apart" % loc,
                        "times %r" % [round(t, 3) for t in times])

        # An integer token stays an integer.
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 3, "delay_ms": 0},
                      {"progressToken": 7})
        try:
            s = Stream(c)
        finally:
            c.close()
        report("S an integer progressToken is echoed as the integer",
               s.problems + judge_progress(s.of("notifications/progress"),
                                           7, 3) +
               judge_final(s.final[1], rid, "Counted to 3."))

        # Nothing to stream: one JSON response.
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 3, "delay_ms": 0})
        try:
            body = c.body()
        finally:
            c.close()
        p = []
        if c.status != 200 or c.mime != "application/json":
            p.append("HTTP %d %r" % (c.status, c.header("Content-Type")))
        try:
            o = json.loads(body)
            p += judge_final(o, rid, "Counted to 3.")
        except ValueError as ex:
            p.append("body is not JSON: %s %r" % (ex, body[:100]))
        report("S without progressToken or logLevel the answer is plain "
               "JSON", p)

    # -- L: log messages

    def test_logging(self):
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 3, "delay_ms": 0},
                      {"progressToken": "l", "io.modelcontextprotocol/"
                       "logLevel": "debug"})
        try:
            p = judge_head(c)
            s = Stream(c)
        finally:
            c.close()
        msgs = s.of("notifications/message")
        p += s.problems
        want = [{"level": "debug", "logger": "examples",
                 "data": "count_slowly: step %d of 3" % i}
                for i in (1, 2, 3)]
        got = [m.get("params") for _, m in msgs]
        if got != want:
            p.append("messages %r" % got)
        kinds = [m.get("method", "result") for _, m in s.items]
        if kinds != ["notifications/message", "notifications/progress"] * 3 \
                + ["result"]:
            p.append("order %r" % kinds)
        p += judge_final(s.final[1], rid, "Counted to 3.")
        report("L logLevel debug: each step's wymcp_log() line arrives as "
               "notifications/message (logger examples) before its "
               "progress, then the result", p)

        # Only the logLevel, no token: still a stream.
        rid = self.rid()
        c = self.open("/mcp-unbuf", rid, {"to": 2, "delay_ms": 0},
                      {"io.modelcontextprotocol/logLevel": "debug"})
        try:
            p = judge_head(c)
            s = Stream(c)
        finally:
            c.close()
        p += s.problems + judge_final(s.final[1], rid, "Counted to 2.")
        if len(s.of("notifications/message")) != 2 or \
                s.of("notifications/progress"):
            p.append("events %r" % [m.get("method") for _, m in s.items])
        report("L logLevel without progressToken: log messages only", p)

        # Above the lines' level: none.
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 2, "delay_ms": 0},
                      {"progressToken": "i", "io.modelcontextprotocol/"
                       "logLevel": "info"})
        try:
            s = Stream(c)
        finally:
            c.close()
        report("L logLevel info: no debug lines reach the client",
               s.problems + (["a notifications/message"] if
                             s.of("notifications/message") else []) +
               judge_progress(s.of("notifications/progress"), "i", 2))

        # No logLevel: never (conformance server-stateless row 14).
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 2, "delay_ms": 0},
                      {"progressToken": "n"})
        try:
            s = Stream(c)
        finally:
            c.close()
        report("L without logLevel no notifications/message is sent",
               s.problems + (["a notifications/message"] if
                             s.of("notifications/message") else []) +
               judge_progress(s.of("notifications/progress"), "n", 2))

        # An unknown level: 400 with -32602, before the tool runs.
        rid = self.rid()
        c = self.open("/mcp", rid, {"to": 2, "delay_ms": 0},
                      {"progressToken": "x", "io.modelcontextprotocol/"
                       "logLevel": "verbose"})
        try:
            body = c.body()
        finally:
            c.close()
        p = []
        if c.status != 400 or c.mime != "application/json":
            p.append("HTTP %d %r" % (c.status, c.header("Content-Type")))
        try:
            o = json.loads(body)
            if o.get("error", {}).get("code") != -32602 or \
                    not wymcp_e2e.same_id(o.get("id"), rid):
                p.append("body %r" % o)
        except ValueError as ex:
            p.append("body is not JSON: %s" % ex)
        ran = [e for e in self.w.entries() if e[2] == str(rid) and
               e[3].startswith("count_slowly:")]
        if ran:
            p.append("the tool ran: %r" % ran[:2])
        report("L an unknown logLevel is 400 with -32602 and the tool "
               "does not run", p)

    # -- C: cancellation

    def test_cancel(self):
        before = set(self.w.workers())
        for loc in ("/mcp", "deploy"):
            rid = self.rid()
            to = 20
            c = self.open(loc, rid, {"to": to, "delay_ms": 200},
                          {"progressToken": "bye"})
            try:
                p = judge_head(c)
                s = Stream(c, stop=lambda items: sum(
                    1 for _, m in items if isinstance(m, dict) and
                    m.get("method") == "notifications/progress") >= 2)
            finally:
                c.close()		# the client goes away
            t_closed = time.monotonic()
            got = len(s.of("notifications/progress"))
            if got != 2:
                p.append("%d progress events before closing" % got)
            report("C %s: two progress events, then the client closes "
                   "the connection" % loc, p + s.problems)

            rs = str(rid)
            gone = self.w.wait_for(
                lambda e: e[2] == rs and e[1] == "info" and
                e[3].startswith("count_slowly: the client went away "
                                "after "), timeout=10.0)
            elapsed = time.monotonic() - t_closed
            m = re.match(r"count_slowly: the client went away after (\d+) "
                         r"of (\d+) steps; stopping$",
                         gone[0][3]) if gone else None
            if not R.check(m is not None, "C %s: the worker logs at info "
                           "that the client went away (%.2f s after the "
                           "close)" % (loc, elapsed),
                           "log tail %r" % tail(self.w.log, 8)):
                continue
            stopped_at = int(m.group(1))
            steps = [e for e in self.w.entries() if e[2] == rs and
                     e[3].startswith("count_slowly: step ")]
            R.check(stopped_at <= to // 2 and len(steps) == stopped_at,
                    "C %s: the tool stopped early: %d of %d steps ran" %
                    (loc, len(steps), to),
                    "stopped at %d, step lines %d" % (stopped_at,
                                                      len(steps)))
            lib = [e for e in self.w.entries() if e[2] == rs and
                   "the client went away: the request is cancelled" in
                   e[3] and e[1] == "info"]
            R.check(len(lib) == 1 and lib[0][0] == gone[0][0],
                    "C %s: the library logs the cancellation once, in "
                    "the same worker %d" % (loc, gone[0][0]),
                    "lines %r" % lib)
            worker = gone[0][0]
            R.check(alive(worker) and worker in self.w.workers(),
                    "C %s: worker %d is still running" % (loc, worker),
                    "workers %r" % self.w.workers())

        # Every worker still serves, streams included.
        served, problems = set(), []
        for i in range(8):
            rid = self.rid()
            c = self.open("/mcp", rid, {"to": 2, "delay_ms": 0},
                          {"progressToken": "after-%d" % i})
            try:
                s = Stream(c)
            finally:
                c.close()
            problems += s.problems + judge_final(s.final[1], rid,
                                                 "Counted to 2.")
            for e in self.w.wait_for(lambda e, r=str(rid): e[2] == r and
                                     e[3].startswith("tools/call -> ")):
                served.add(e[0])
        report("C later requests are served in full", problems)
        after = set(self.w.workers())
        R.check(after == before, "C no worker died or was replaced "
                "(SIGPIPE is ignored)", "before %r after %r" %
                (sorted(before), sorted(after)))
        died = [e for e in self.w.entries() if "killed by signal" in e[3] or
                re.search(r"worker \d+ exited", e[3])]
        R.check(not died, "C the supervisor saw no worker die",
                "%r" % died[:3])
        R.note("workers that served the later requests: %r" %
               sorted(served))

    # -- P: two streams at once

    def test_parallel(self):
        results = {}

        def run(tok):
            rid = self.rid()
            try:
                c = self.open("/mcp", rid, {"to": 4, "delay_ms": 300},
                              {"progressToken": tok})
                try:
                    results[tok] = (rid, Stream(c))
                finally:
                    c.close()
            except Exception as ex:		# reported below
                results[tok] = (rid, ex)

        th = [threading.Thread(target=run, args=(t,)) for t in ("p-a", "p-b")]
        t0 = time.monotonic()
        for t in th:
            t.start()
        for t in th:
            t.join(30)
        wall = time.monotonic() - t0
        for tok in ("p-a", "p-b"):
            rid, s = results.get(tok, (None, "no result"))
            if not isinstance(s, Stream):
                R.fail("P stream %s" % tok, repr(s))
                continue
            report("P two concurrent streams: %s carries only its own "
                   "token's progress and its own result" % tok,
                   s.problems + judge_progress(
                       s.of("notifications/progress"), tok, 4) +
                   judge_final(s.final[1], rid, "Counted to 4."))
        R.check(wall < 1.5, "P the two calls ran side by side on the two "
                "workers (%.2f s for two 0.9 s calls)" % wall)


def layer(w):
    """This script's tests."""
    w.paths()
    w.start()
    t = Tests(w)
    t.test_progress()
    t.test_logging()
    t.test_cancel()
    t.test_parallel()


def main():
    return wymcp_e2e.run_layer(World, layer, 'the wymcp-fcgi log')


if __name__ == "__main__":
    sys.exit(main())
