#!/usr/bin/env python3
"""start.py - what a start costs: plain CGI and --workers 0 (mod_fcgid).

Usage: start.py --builddir DIR [--runs N] [--out FILE]

A CGI request starts a process that loads wymcp-fcgi, its libraries and
its modules, serves one request and exits; so does the first request of
a --workers 0 process spawned by mod_fcgid.  Measured against the floor,
t/bench/bare-cgi.c: a C CGI program (libc only) that reads its body and
prints a fixed JSON answer.

  1. Wall time: the floor and wymcp-fcgi as CGI (tools/call "echo" with
     the bundled modules, help and echo), run alternately in one loop of
     --runs requests each, so that both see the same machine; then the
     same with every bundled module (help, echo, whoami, examples); then
     the first request of wymcp-fcgi --workers 0 --max-requests 1 given a
     listening unix socket on descriptor 0, as mod_fcgid gives it (from
     the spawn to the end of the answer and the exit), in the same loop
     as the floor.
  2. Instructions of each whole process, start to exit (callgrind), with
     wymcp's split by object (the dynamic linker, libc, libwymcp as
     "wymcp", json-c, libsodium, wymcp-fcgi itself as "fcgi", the
     modules, the rest); and the system calls (strace -f -c), of which
     the openat(2) calls.
  3. 10,000 tools (t/bench/manytools.c): a CGI start that loads them,
     against one of 5 tools (wall time: 10,000 tools load in at most 1 s),
     and a tools/call inside the accept loop of a --workers 0 process
     with 10,000 tools against one with 5 (instructions, callgrind
     --toggle-collect=front_worker, the difference of 55 and 5
     requests, the median of three processes: at most 1.03 times).

The web server is this script: it sets the CGI variables and writes the
body to standard input, or speaks FastCGI to the socket (the client of
t/e2e/lib/wymcp_e2e.py).  Figures are printed beside their targets (ok /
over), never asserted: timing is the machine's, and make bench is where
they are read.  The table goes to stdout and, with --out, to a file.
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True	# no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import wymcp_e2e
    import icount
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("start.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)

SRC = os.path.dirname(os.path.dirname(HERE))
PROTO = wymcp_e2e.PROTO

CGI_RATIO = 2.0		# wall time of a CGI request / the floor's
CGI_INSNS = 3000000	# instructions of a CGI request, start to exit
LOAD_10K = 1.0		# seconds to start with 10,000 tools
CALL_10K = 1.03		# a call with 10,000 tools / with 5
CALL_N1, CALL_N2 = 5, 55	# requests of the two runs of a call count
CALL_RUNS = 3		# processes on each side of the call ratio (median)


def cgi_env(tool, body, libdir):
    """The CGI variables a web server sets for a tools/call of `tool'."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HTTP_", "WYMCP_", "LISTEN_", "CONTENT_",
                                "REQUEST_", "GATEWAY_"))}
    env.update({"GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": "POST",
                "CONTENT_TYPE": "application/json",
                "CONTENT_LENGTH": str(len(body)),
                "SCRIPT_NAME": "/mcp", "REQUEST_URI": "/mcp",
                "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
                "HTTP_HOST": "localhost", "SERVER_NAME": "localhost",
                "HTTP_ACCEPT": "application/json, text/event-stream",
                "HTTP_MCP_PROTOCOL_VERSION": PROTO,
                "HTTP_MCP_METHOD": "tools/call", "HTTP_MCP_NAME": tool})
    # The build tree's library, as libtool's wrapper would set it; the
    # program itself runs, not the wrapper (a shell script).
    env["LD_LIBRARY_PATH"] = libdir
    return env


class Run:
    """One way of serving one request in a new process: `argv' run with
    `env' (CGI: the body on standard input), or a --workers 0 process on
    an inherited socket (fcgi=True).  go() serves one and returns the
    answer's body; it raises unless the answer is a 200."""

    def __init__(self, label, short, argv, env, body, fcgi=False):
        self.label, self.argv, self.env, self.body = label, argv, env, body
        self.short, self.fcgi = short, fcgi

    def go(self, tmp, prefix=()):
        if self.fcgi:
            return self.go_fcgi(tmp, prefix)
        p = subprocess.run(list(prefix) + self.argv, input=self.body,
                           env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=300)
        if not p.stdout.startswith(b"Status: 200"):
            raise SystemExit("%s: %r" % (self.label, p.stdout[:300]))
        return p.stdout

    def go_fcgi(self, tmp, prefix):
        path = os.path.join(tmp, "w0.sock")
        if os.path.exists(path):
            os.unlink(path)
        ls = socket.socket(socket.AF_UNIX)
        ls.bind(path)
        ls.listen(8)
        # The process's environment is the spawner's; the request's
        # variables travel as FastCGI params.
        params = {k: v for k, v in self.env.items() if k.startswith(
            ("HTTP_", "CONTENT_", "REQUEST_", "SCRIPT_", "SERVER_",
             "REMOTE_", "GATEWAY_"))}
        env = {k: v for k, v in self.env.items() if k not in params}
        try:
            p = subprocess.Popen(list(prefix) + self.argv, stdin=ls.fileno(),
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        finally:
            ls.close()
        try:
            # The connection waits in the backlog while the process
            # starts, as mod_fcgid's first one does.
            st, _, body = icount.fcgi(path, params, self.body)
        finally:
            try:
                p.wait(timeout=300)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if st != 200:
            raise SystemExit("%s: answered %d: %r" % (self.label, st,
                                                      body[:300]))
        return body


def walls(runs, n, tmp):
    """Mean wall time (s) of each run, all in one loop of n rounds."""
    tot = [0.0] * len(runs)
    for r in runs:		# warm the page cache once
        r.go(tmp)
    for _ in range(n):
        for i, r in enumerate(runs):
            t0 = time.perf_counter()
            r.go(tmp)
            tot[i] += time.perf_counter() - t0
    return [t / n for t in tot]


def callgrind(run, tmp, valgrind):
    """Instructions of the whole process, and their split by object."""
    out = os.path.join(tmp, "cg.out")
    if os.path.exists(out):
        os.unlink(out)
    run.go(tmp, [valgrind, "--tool=callgrind", "--callgrind-out-file=" + out,
                 "--dump-line=no", "--compress-strings=no", "--vgdb=no"])
    return by_object(out)


def by_object(path):
    """Self cost per object (file name) of a callgrind output file."""
    tot, ob, call = {}, "?", False
    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = os.path.basename(line[3:].strip())
            elif line.startswith("calls="):
                call = True		# the next line is an inclusive cost
            elif line[:1].isdigit() or line[:1] in "+-*":
                if call:
                    call = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    tot[ob] = tot.get(ob, 0) + int(parts[1])
    return tot


def split(tot):
    """The objects grouped as the report names them."""
    groups = {"ld.so": 0, "libc": 0, "libwymcp": 0, "json-c": 0,
              "libsodium": 0, "wymcp-fcgi": 0, "modules": 0, "other": 0}
    for ob, n in tot.items():
        if ob.startswith("ld-linux"):
            groups["ld.so"] += n
        elif ob.startswith("libc.so"):
            groups["libc"] += n
        elif ob.startswith("libwymcp"):
            groups["libwymcp"] += n
        elif ob.startswith("libjson-c"):
            groups["json-c"] += n
        elif ob.startswith("libsodium"):
            groups["libsodium"] += n
        elif ob == "wymcp-fcgi":
            groups["wymcp-fcgi"] += n
        elif ob.endswith(".so") and not ob.startswith("vgpreload"):
            groups["modules"] += n
        else:
            groups["other"] += n
    return groups


def syscalls(run, tmp, strace):
    """(system calls, openat calls) of the process and its children."""
    out = os.path.join(tmp, "strace.out")
    run.go(tmp, [strace, "-f", "-c", "-o", out])
    calls = opens = 0
    with open(out) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?"
                         r"(\w+)\s*$", line)
            if m:
                calls += int(m.group(1))
                if m.group(2) == "openat":
                    opens += int(m.group(1))
    return calls, opens


def build(tmp):
    """The floor and the 5- and 10,000-tool modules, with -O2."""
    bare = os.path.join(tmp, "bare-cgi")
    subprocess.run(["cc", "-O2", "-o", bare,
                    os.path.join(HERE, "bare-cgi.c")], check=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "json-c"],
                           capture_output=True, text=True,
                           check=True).stdout.split()
    many = {}
    for n in (5, 10000):
        so = os.path.join(tmp, "many%d.so" % n)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-DNTOOLS=%d" % n,
                        "-I" + os.path.join(SRC, "src"), "-o", so,
                        os.path.join(HERE, "manytools.c")] + flags,
                       check=True)
        many[n] = so
    return bare, many


def ok(sock, req):
    """One FastCGI request that must be answered 200."""
    st, _, body = icount.fcgi(sock, *req)
    if st != 200:
        raise SystemExit("request answered %d: %r" % (st, body[:300]))
    return body


def mark(v, target):
    return "ok" if v <= target else "over"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--out")
    a = ap.parse_args()
    b = os.path.abspath(a.builddir)
    tmp = tempfile.mkdtemp(prefix="wymcp-start.")
    try:
        return run(a, b, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(a, b, tmp):
    valgrind = shutil.which("valgrind")
    strace = shutil.which("strace")
    libdir = os.path.join(b, "src", ".libs")
    prog = os.path.join(b, "src", "front", ".libs", "wymcp-fcgi")
    if not os.path.exists(prog):	# linked without libtool's wrapper
        prog = os.path.join(b, "src", "front", "wymcp-fcgi")
    mods = os.path.join(b, "tools", ".libs")
    bare, many = build(tmp)

    def body(tool, rid=1):
        return icount.enc({"jsonrpc": "2.0", "id": rid,
                           "method": "tools/call",
                           "params": {"name": tool,
                                      "arguments": {"text": "hi"},
                                      "_meta": icount.META}})

    def module_args(names):
        v = []
        for m in names:
            v += ["--module", m if m.startswith("/") else
                  os.path.join(mods, m + ".so")]
        return v

    echo = body("echo")
    env = cgi_env("echo", echo, libdir)
    bundled = module_args(("help", "echo"))
    every = module_args(("help", "echo", "whoami", "examples"))
    floor = Run("floor: bare C CGI (libc, fixed body)", "floor", [bare],
                env, echo)
    cgi2 = Run("CGI tools/call echo, help and echo",
               "CGI, help+echo", [prog] + bundled, env, echo)
    cgi4 = Run("CGI tools/call echo, every module",
               "CGI, every mod.", [prog] + every, env, echo)
    w0 = Run("--workers 0, first request (mod_fcgid)",
             "--workers 0", [prog, "--workers", "0", "--max-requests", "1"] +
             bundled, env, echo, fcgi=True)
    t1 = body("t0001")
    env1 = cgi_env("t0001", t1, libdir)
    c5 = Run("CGI tools/call t0001, 5 tools", "5 tools", [prog] +
             module_args((many[5],)), env1, t1)
    c10k = Run("CGI tools/call t0001, 10,000 tools", "10,000 tools",
               [prog] + module_args((many[10000],)), env1, t1)

    lines = ["", "start cost: one request in a new process (CGI, and "
             "--workers 0 as mod_fcgid spawns it)", ""]

    def emit(s=""):
        s = s.rstrip()
        lines.append(s)
        print(s, flush=True)

    runs = [floor, cgi2, cgi4, w0]
    t = walls(runs, a.runs, tmp)
    emit("%-40s %10s %8s %8s" % ("wall time, mean of %d in one loop" %
                                 a.runs, "ms", "/floor", "target"))
    for r, v in zip(runs, t):
        if r is floor:
            emit("%-40s %10.2f" % (r.label, v * 1000))
        else:
            emit("%-40s %10.2f %8.2f %8.2f  %s" % (
                r.label, v * 1000, v / t[0], CGI_RATIO,
                mark(v / t[0], CGI_RATIO)))
    if valgrind is None:
        emit("instructions: valgrind is not installed (Debian: valgrind)")
    else:
        emit()
        emit("%-40s %10s %10s" % ("instructions, start to exit (callgrind)",
                                  "total", "target"))
        counts = {}
        for r in runs:
            counts[r.label] = callgrind(r, tmp, valgrind)
            n = sum(counts[r.label].values())
            emit("%-40s %10d %10s  %s" % (
                r.label, n, "" if r is floor else "%d" % CGI_INSNS,
                "" if r is floor else mark(n, CGI_INSNS)))
        emit()
        cols = ("ld.so", "libc", "libwymcp", "json-c", "libsodium",
                "wymcp-fcgi", "modules", "other")
        heads = ("ld.so", "libc", "wymcp", "json-c", "sodium", "fcgi",
                 "mods", "other")
        emit("split (thousands)   " + "".join("%7s" % c for c in heads))
        for r in runs:
            g = split(counts[r.label])
            emit("%-20s" % r.short +
                 "".join("%7.0f" % (g[c] / 1000) for c in cols))
    if strace is not None:
        emit()
        emit("%-40s %10s %8s" % ("system calls (strace -f -c)", "calls",
                                 "openat"))
        for r in runs:
            calls, opens = syscalls(r, tmp, strace)
            emit("%-40s %10d %8d" % (r.label, calls, opens))

    emit()
    t = walls([c5, c10k], max(a.runs // 20, 3), tmp)
    emit("%-40s %10s %8s %8s" % ("10,000 tools", "ms", "", "target"))
    emit("%-40s %10.1f" % (c5.label, t[0] * 1000))
    emit("%-40s %10.1f %8s %8.0f  %s" % (c10k.label, t[1] * 1000, "",
                                         LOAD_10K * 1000,
                                         mark(t[1], LOAD_10K)))
    if valgrind is not None:
        emit("%-40s %10d" % ("  its instructions (callgrind)",
                             sum(callgrind(c10k, tmp, valgrind).values())))
        # Inside the accept loop: the per-request cost with the tools
        # loaded, by the difference of two runs (icount.py's method).
        call = icount.rpc("tools/call", {"name": "t0001",
                                         "arguments": {"text": "hi"}},
                          "t0001")
        prog_wrapped = os.path.join(b, "src", "front", "wymcp-fcgi")
        libtool = os.path.join(b, "libtool")

        def case(n):
            def argv(sock, k):
                return [prog_wrapped, "--listen", "unix:" + sock,
                        "--workers", "0", "--module", many[n]]
            return icount.Case("tools/call t0001, %d tools" % n, argv,
                               lambda s: ok(s, call))
        # json-c seeds its string hash at random in each process, so
        # that a request's count varies by about 1% from one process to
        # another (not from one request to the next): the median of
        # CALL_RUNS processes on each side, printed with their range.
        per, spread = {}, {}
        for n in (5, 10000):
            c = case(n)
            v = []
            for _ in range(CALL_RUNS):
                t1_ = icount.count(c, CALL_N1, tmp, valgrind, libtool)
                t2_ = icount.count(c, CALL_N2, tmp, valgrind, libtool)
                v.append((t2_ - t1_) / (CALL_N2 - CALL_N1))
            v.sort()
            per[n] = v[len(v) // 2]
            spread[n] = (v[0], v[-1])
        ratio = per[10000] / per[5]
        for n, label in ((5, "5 tools"), (10000, "10,000 tools")):
            emit("%-40s %10.0f  (%.0f-%.0f)" % (
                "a call in the accept loop, " + label, per[n],
                spread[n][0], spread[n][1]))
        emit("%-40s %10.3f %8s %8.2f  %s" % ("  10,000 / 5", ratio, "",
                                             CALL_10K,
                                             mark(ratio, CALL_10K)))
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
