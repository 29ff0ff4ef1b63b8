#!/usr/bin/env python3
"""bench.py - wymcp's speed and size, against the floor and a peer.

Usage: bench.py --builddir DIR [--seconds S] [--rounds N] [--workers W]
                [--connections C,C...] [--slow-seconds S]
                [--peer-warmup S] [--cache DIR] [--no-peer] [--out FILE]

One private nginx on a loopback port proxies, over unix sockets:

  /bare  t/bench/bare.c (FastCGI, W workers): libfcgi + json-c, parse
         the body, build the tools/call answer; the least any FastCGI
         MCP responder does: the floor;
  /barec the same built with -DCLOSE_AT_ONCE ("floor-c"): it closes
         each connection at once, as wymcp-fcgi does a unix-socket one
         whose stdin it read, instead of libfcgi's lingering close; no
         target, it shows what wymcp costs beside a floor that saves
         the same system calls;
  /mcp   wymcp-fcgi --workers W with the echo module: the whole
         2026-07-28 pipeline (Host/Origin, headers, _meta, schema check
         of the arguments, context, the tool run, result _meta);
  /ts    the peer: the official TypeScript SDK v2 server
         (@modelcontextprotocol/server and /node, pinned in PEER_PKGS),
         stateless, one Node 22 process (t/bench/ts-peer.mjs), through
         proxy_pass with an upstream keepalive pool, as Node is deployed;
  /slowN the slow-tool configurations of wymcp (SLOW below), each with
         t/bench/sleep200.c, a tool that sleeps 200 ms.

wrk (Debian package wrk) sends the same tools/call echo request to each,
first to warm it up (2 s; the peer --peer-warmup, 10 s, for
Node's compiler), then in interleaved rounds (each round: every
connection count, every server), and the script prints per run the
requests per second, p50 and p99 latency and the CPU time per request
(utime + stime from /proc/PID/stat of the server's processes and of
nginx's, with cutime + cstime for the workers replaced meanwhile,
before and after the run, divided by the requests wrk completed); then
the medians, the memory of each server after the load (PSS from
/proc/PID/smaps_rollup summed over its processes; RSS summed too), and
the ratios beside the performance issue's targets (>= 0.95x the floor's
req/s; >= 7x the peer's at <= 1/10 of its memory), marked ok or over.
Then the slow tool: wrk -c 64 on tools/call sleep200 against each
configuration of SLOW (each started for its run only, then stopped) and
the peer (an async 200 ms sleep): req/s, latency, PSS and RSS after the
load.

The table goes to stdout and, with --out, to a file.  Figures are
printed, never asserted: the exit status only says whether the
measurement itself worked (77 when wrk, nginx or cc is missing).  When
npm or a Node 22 cannot be had, the peer is skipped with a line saying
why, and the rest is measured.  Node 22 and the pinned packages are
installed with npm into --cache (default _build/bench-peer in the source
tree, reused while the versions match); a Node 22 on PATH, or the one
t/conformance/run.py keeps in _build/conformance, is used instead when
there is one.  The process and port helpers come from
t/e2e/lib/wymcp_e2e.py, npm provisioning from wymcp_conformance.py
(PYTHONPATH).
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True	# no __pycache__ in the source tree
try:
    from wymcp_e2e import (proc_table, free_port, find_nginx, need_built,
                           stop_pid, tail)
    from wymcp_conformance import (NODE_MAJOR, NODE_PKG, Failed,
                                   npm_install, pkg_version)
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_conformance"):
        raise
    print("bench.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
PROTO = "2026-07-28"
# The peer, pinned: the SDK's server package, its node:http adapter, and
# the schema library its tools are declared with.
PEER_PKGS = [("@modelcontextprotocol/server", "2.4.0"),
             ("@modelcontextprotocol/node", "2.1.2"),
             ("zod", "4.6.7")]
# The slow-tool configurations of wymcp-fcgi: (label, its options).
# Another pool is one more line here.
SLOW = [
    ("wymcp --workers 4", ["--workers", "4"]),
    ("wymcp --workers 64", ["--workers", "64"]),
    ("wymcp --workers 4:128", ["--workers", "4:128"]),
]
SLOW_CONNS = 64
TICK = os.sysconf("SC_CLK_TCK")
CPU_PER = 1e6 / TICK		# microseconds per clock tick


def body(name, arguments):
    return json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": PROTO,
            "io.modelcontextprotocol/clientInfo": {"name": "bench",
                                                   "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}},
            "name": name, "arguments": arguments}},
        separators=(",", ":"))


# The request of each load, and what its answer must hold.
LOADS = {
    "echo": (body("echo", {"text": "hello"}), '"text":"hello"'),
    "sleep200": (body("sleep200", {}), '"text":"slept 200 ms"'),
}


def headers(name):
    return {"Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTO, "Mcp-Method": "tools/call",
            "Mcp-Name": name}


def lua(name):
    out = 'wrk.method = "POST"\nwrk.body = [[%s]]\n' % LOADS[name][0]
    for k, v in headers(name).items():
        out += 'wrk.headers["%s"] = "%s"\n' % (k, v)
    return out


def say(msg=""):
    print(msg, flush=True)


# ------------------------------------------------------------ processes

def tree(pid, table=None):
    """pid and all its live descendants."""
    table = proc_table() if table is None else table
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p in table and table[p][1] != "Z":
            out.append(p)
            todo += [c for c, (pp, _, _) in table.items() if pp == p]
    return sorted(out)


def cpu_ticks(pids):
    """utime + stime of the processes and of their children that they
    waited for (cutime + cstime: a worker that was replaced), in clock
    ticks."""
    n = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                stat = f.read().decode("latin-1")
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        n += sum(int(x) for x in rest[11:15])
    return n


def mem_kib(pids, key):
    """The sum of one field (Pss, Rss) of /proc/PID/smaps_rollup."""
    n = 0
    for pid in pids:
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                for line in f:
                    if line.startswith(key + ":"):
                        n += int(line.split()[1])
        except OSError:
            pass
    return n


class Server:
    """One server under test: a process tree and the path nginx serves it
    at.  Its processes are the tree of the process started."""

    def __init__(self, key, label, path, argv, ready, cwd=None, log=None):
        self.key, self.label, self.path = key, label, path
        self.argv, self.ready, self.cwd, self.log = argv, ready, cwd, log
        self.proc = None

    def start(self):
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        # Its own process group: whatever it forks goes with it.
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=out, cwd=self.cwd,
                                     start_new_session=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise Failed("%s did not start (%s)%s" % (
                    self.label, " ".join(self.argv), "".join(
                        "\n  " + x for x in tail(self.log, 10))
                    if self.log else ""))
            time.sleep(0.05)
        os.chmod(self.ready, 0o666)

    def pids(self):
        return tree(self.proc.pid) if self.proc else []

    def stop(self):
        if self.proc is None:
            return
        left = self.pids()
        stop_pid(self.proc.pid, self.proc, 10)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc = None


# ------------------------------------------------------------ the peer

def node_major(node):
    """The major version of a node binary, or None when it does not run."""
    if not node:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"v(\d+)\.", out.stdout.strip())
    return int(m.group(1)) if out.returncode == 0 and m else None


def provision_peer(cache):
    """The Node 22 binary to run t/bench/ts-peer.mjs with, the pinned
    packages installed in cache/node_modules (raises Failed)."""
    t0 = time.monotonic()
    cache = os.path.abspath(cache)
    own = os.path.join(cache, "node_modules", NODE_PKG, "bin", "node")
    conf = os.path.join(SRC, "_build", "conformance", "node_modules",
                        NODE_PKG, "bin", "node")
    node = None
    for cand in (shutil.which("node"), conf, own):
        if node_major(cand) == NODE_MAJOR:
            node = cand
            break
    specs = ["%s@%s" % (n, v) for n, v in PEER_PKGS
             if pkg_version(cache, n) != v]
    if node is None:
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
    if specs:
        os.makedirs(cache, exist_ok=True)
        pj = os.path.join(cache, "package.json")
        if not os.path.exists(pj):
            with open(pj, "w") as f:
                json.dump({"name": "wymcp-bench-peer", "private": True,
                           "description": "written by t/bench/bench.py"},
                          f, indent=2)
                f.write("\n")
        npm_install(cache, specs)
    if node is None:
        if node_major(own) != NODE_MAJOR:
            raise Failed("%s@%d gave no Node %d (%s)" %
                         (NODE_PKG, NODE_MAJOR, NODE_MAJOR, own))
        node = own
    for n, v in PEER_PKGS:
        if pkg_version(cache, n) != v:
            raise Failed("%s is %s in %s, want %s" %
                         (n, pkg_version(cache, n), cache, v))
    ver = subprocess.run([node, "--version"], capture_output=True,
                         text=True).stdout.strip()
    say("# peer: node %s (%s), %s; provisioning took %.1f s" % (
        ver, node, ", ".join("%s@%s" % p for p in PEER_PKGS),
        time.monotonic() - t0))
    return node


# ------------------------------------------------------------ nginx, wrk

NGINX = """{user}worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
	access_log off;
	client_body_temp_path {t}/cb; fastcgi_temp_path {t}/ft;
	proxy_temp_path {t}/pt; scgi_temp_path {t}/st; uwsgi_temp_path {t}/ut;
	fastcgi_read_timeout 60s;
	proxy_read_timeout 60s;
	upstream ts {{
		server unix:{t}/ts.sock;
		keepalive 64;
	}}
	server {{
		listen 127.0.0.1:{port};
{locations}
		location = /ts {{
			proxy_pass http://ts;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $http_host;
		}}
	}}
}}
"""
FASTCGI = """		location = {path} {{
			fastcgi_param REQUEST_METHOD $request_method;
			fastcgi_param CONTENT_LENGTH $content_length;
			fastcgi_param CONTENT_TYPE $content_type;
			fastcgi_pass unix:{sock};
		}}
"""


def start_nginx(tmp, fcgi):
    """nginx on a free loopback port; fcgi: [(path, socket)]."""
    nginx = find_nginx()
    conf = os.path.join(tmp, "nginx.conf")
    locs = "".join(FASTCGI.format(path=p, sock=s) for p, s in fcgi)
    for _ in range(8):
        port = free_port()
        with open(conf, "w") as f:
            f.write(NGINX.format(user="user root;\n" if os.geteuid() == 0
                                 else "", t=tmp, port=port, locations=locs))
        p = subprocess.Popen([nginx, "-p", tmp + "/", "-c", conf, "-g",
                              "daemon off;"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             start_new_session=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and p.poll() is None:
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/nothing")
                c.getresponse().read()
                c.close()
                return p, port
            except OSError:
                time.sleep(0.05)
        stop_pid(p.pid, p, 5)
    raise Failed("nginx did not start: %s" % "\n".join(
        tail(os.path.join(tmp, "nginx-error.log"), 10)))


def check(port, path, load):
    """One request; raises Failed unless the answer is what it should be."""
    data, want = LOADS[load]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("POST", path, data, headers(load))
        r = c.getresponse()
        out = r.read().decode("utf-8", "replace")
    except OSError as e:
        raise Failed("%s: %s" % (path, e))
    finally:
        c.close()
    if r.status != 200 or want not in out:
        raise Failed("%s answered %d %r" % (path, r.status, out[:300]))


def ms(text):
    """wrk's latency (1.23ms, 456.00us, 1.02s, 1.50m) in milliseconds."""
    m = re.match(r"([\d.]+)(us|ms|s|m)$", text)
    if not m:
        return float("nan")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3,
                                "m": 6e4}[m.group(2)]


class Run:
    """The figures of one wrk run."""

    def __init__(self, rps, n, p50, p99, errors, cpu_us, nginx_us):
        self.rps, self.n, self.p50, self.p99 = rps, n, p50, p99
        self.errors, self.cpu_us, self.nginx_us = errors, cpu_us, nginx_us


def wrk(base, server, seconds, conns, script, nginx_pids, timeout=10):
    """wrk against a server; the CPU of its processes and nginx's."""
    c0, n0 = cpu_ticks(server.pids()), cpu_ticks(nginx_pids)
    w = subprocess.run(["wrk", "-t", "2", "-c", str(conns), "-d",
                        "%ds" % seconds, "--timeout", "%ds" % timeout,
                        "-s", script, "--latency", base + server.path],
                       capture_output=True, text=True)
    # The tree again: a worker replaced during the run is in its
    # supervisor's cutime, its successor in the tree.
    c1, n1 = cpu_ticks(server.pids()), cpu_ticks(nginx_pids)
    out = w.stdout
    if w.returncode != 0 or "Requests/sec:" not in out:
        raise Failed("wrk %s exited with %d: %s" % (
            server.path, w.returncode, (w.stderr or out)[-500:]))
    # A server still busy with what was sent before wrk stopped would
    # charge the next run: let it finish.
    time.sleep(0.5)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = re.search(r"50%\s+([\d.]+\w+)", out)
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise Failed("%s: %s non-2xx answers of %d" % (server.path,
                                                       non2xx.group(1), n))
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), "
                     r"write (\d+), timeout (\d+)", out)
    errors = sum(int(x) for x in sock.groups()) if sock else 0
    per = CPU_PER / n if n else float("nan")
    return Run(rps, n, ms(p50.group(1)) if p50 else float("nan"),
               ms(p99.group(1)) if p99 else float("nan"), errors,
               (c1 - c0 + n1 - n0) * per, (n1 - n0) * per)


# ------------------------------------------------------------ the run

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--seconds", type=int, default=5,
                    help="seconds of each echo run (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved rounds (default %(default)s)")
    ap.add_argument("--workers", type=int, default=4,
                    help="workers of the floor and of wymcp "
                    "(default %(default)s)")
    ap.add_argument("--connections", default="16,64",
                    help="wrk connection counts (default %(default)s)")
    ap.add_argument("--slow-seconds", type=int, default=5,
                    help="seconds of each slow-tool run "
                    "(default %(default)s)")
    ap.add_argument("--peer-warmup", type=int, default=10,
                    help="seconds of load before the peer is measured "
                    "(default %(default)s; the others get 2)")
    ap.add_argument("--cache", default=os.path.join(SRC, "_build",
                                                    "bench-peer"),
                    help="where npm installs Node 22 and the peer "
                    "(default %(default)s)")
    ap.add_argument("--no-peer", action="store_true",
                    help="skip the TypeScript peer")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    a.conns = [int(x) for x in a.connections.split(",")]
    b = os.path.abspath(a.builddir)
    for tool in ("wrk", "cc", "pkg-config"):
        if shutil.which(tool) is None:
            say("SKIP: %s is not installed" % tool)
            return 77
    if find_nginx() is None:
        say("SKIP: nginx is not installed")
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    # Stopped from outside, still stop what was started (each server is
    # in a session of its own).
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    tmp = tempfile.mkdtemp(prefix="wymcp-bench.")
    os.chmod(tmp, 0o755)
    servers = []	# what to stop at the end, nginx too
    try:
        return run(a, b, tmp, servers)
    except Failed as e:
        say("bench: %s" % e)
        return 1
    finally:
        for s in reversed(servers):
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def build(tmp):
    """The floor and the slow module, compiled here with -O2."""
    def flags(*pkgs):
        return subprocess.run(["pkg-config", "--cflags", "--libs"] +
                              list(pkgs), capture_output=True, text=True,
                              check=True).stdout.split()
    bare = os.path.join(tmp, "bare")
    # The floor, and floor-c (bare + "c").
    for out, defs in ((bare, []), (bare + "c", ["-DCLOSE_AT_ONCE"])):
        subprocess.run(["cc", "-O2"] + defs + ["-o", out,
                        os.path.join(HERE, "bare.c")] +
                       flags("fcgi", "json-c"), check=True)
    so = os.path.join(tmp, "sleep200.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC",
                    "-I" + os.path.join(SRC, "src"), "-o", so,
                    os.path.join(HERE, "sleep200.c")] + flags("json-c"),
                   check=True)
    return bare, so


def run(a, b, tmp, servers):
    bare, sleepso = build(tmp)
    prog = os.path.join(b, "src", "front", "wymcp-fcgi")
    echo = os.path.join(b, "tools", ".libs", "echo.so")
    need_built(prog, echo)

    def wymcp(key, label, path, opts, *mods):
        sock = os.path.join(tmp, key + ".sock")
        argv = [prog, "--listen", "unix:" + sock] + opts
        for m in mods:
            argv += ["--module", m]
        return Server(key, label, path, argv, sock,
                      log=os.path.join(tmp, key + ".log"))

    floor = Server("bare", "floor", "/bare",
                   [bare, os.path.join(tmp, "bare.sock"), str(a.workers)],
                   os.path.join(tmp, "bare.sock"))
    floorc = Server("barec", "floor-c", "/barec",
                    [bare + "c", os.path.join(tmp, "barec.sock"),
                     str(a.workers)], os.path.join(tmp, "barec.sock"))
    mcp = wymcp("wymcp", "wymcp", "/mcp",
                ["--workers", str(a.workers)], echo)
    slow = [wymcp("slow%d" % i, label, "/slow%d" % i, opts, sleepso)
            for i, (label, opts) in enumerate(SLOW)]

    peer = None
    note = None
    if a.no_peer:
        note = "the TypeScript peer: skipped (--no-peer)"
    else:
        try:
            node = provision_peer(a.cache)
            # The script runs beside the packages: ESM resolves bare
            # imports from the script's own directory up.
            script = os.path.join(tmp, "ts-peer.mjs")
            shutil.copy(os.path.join(HERE, "ts-peer.mjs"), script)
            os.symlink(os.path.join(os.path.abspath(a.cache),
                                    "node_modules"),
                       os.path.join(tmp, "node_modules"))
            peer = Server("ts", "TS SDK v2", "/ts",
                          [node, script, os.path.join(tmp, "ts.sock")],
                          os.path.join(tmp, "ts.sock"),
                          log=os.path.join(tmp, "ts.log"))
        except (Failed, OSError) as e:
            note = "the TypeScript peer: skipped: %s" % e
            say("# " + note)

    fast = [floor, floorc, mcp] + ([peer] if peer else [])
    load0 = os.getloadavg()[0]
    for s in fast:
        servers.append(s)
        s.start()
    nginx = Server("nginx", "nginx", None, None, None)
    servers.append(nginx)
    nginx.proc, port = start_nginx(tmp, [(s.path, s.ready) for s in
                                         [floor, floorc, mcp] + slow])
    npids = nginx.pids()
    base = "http://127.0.0.1:%d" % port
    scripts = {}
    for load in LOADS:
        scripts[load] = os.path.join(tmp, load + ".lua")
        with open(scripts[load], "w") as f:
            f.write(lua(load))

    # Check each answers what it should, and warm it up: Node compiles
    # its hot code as it runs, the peer's CPU per request falling by
    # half over its first 10 s of load.
    for s in fast:
        check(port, s.path, "echo")
        wrk(base, s, a.peer_warmup if s is peer else 2, max(a.conns),
            scripts["echo"], npids)
    say("# tools/call echo: %d rounds of %d s, connections %s, %d workers"
        " (floors, wymcp)" % (a.rounds, a.seconds, a.connections,
                              a.workers))
    res = {(s.key, c): [] for s in fast for c in a.conns}
    for r in range(a.rounds):
        for c in a.conns:
            for s in fast:
                x = wrk(base, s, a.seconds, c, scripts["echo"], npids)
                res[s.key, c].append(x)
                say("round %d  c=%-3d %-10s %9.0f req/s  p50 %7.2f ms  "
                    "p99 %7.2f ms  cpu %5.0f us/req%s" % (
                        r + 1, c, s.label, x.rps, x.p50, x.p99, x.cpu_us,
                        "  (%d socket errors)" % x.errors
                        if x.errors else ""))
    pss = {s.key: mem_kib(s.pids(), "Pss") for s in fast}
    rss = {s.key: mem_kib(s.pids(), "Rss") for s in fast}
    nproc = {s.key: len(s.pids()) for s in fast}

    # The slow tool: each configuration of SLOW on its own, then the peer.
    slowres = []
    for s in slow + ([peer] if peer else []):
        if s is not peer:
            servers.append(s)
            s.start()
        check(port, s.path, "sleep200")
        x = wrk(base, s, a.slow_seconds, SLOW_CONNS, scripts["sleep200"],
                npids, timeout=30)
        slowres.append((s, x, mem_kib(s.pids(), "Pss"),
                        mem_kib(s.pids(), "Rss"), len(s.pids())))
        say("slow  c=%-3d %-20s %7.1f req/s  p50 %7.1f ms  p99 %7.1f ms%s"
            % (SLOW_CONNS, s.label, x.rps, x.p50, x.p99,
               "  (%d socket errors)" % x.errors if x.errors else ""))
        if s is not peer:
            s.stop()

    text = machine(load0) + table(a, fast, res, pss, rss, nproc, slowres,
                                  note)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


def med(runs, attr):
    return statistics.median(getattr(x, attr) for x in runs)


def machine(load0):
    """Where and when: the figures of a loaded machine are noisier."""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return ("\n%s, %d CPUs (%s)\nload average %.1f at the start, %.1f "
            "at the end\n" % (time.strftime("%Y-%m-%d %H:%M UTC",
                                            time.gmtime()),
                              os.cpu_count() or 0, model, load0,
                              os.getloadavg()[0]))


def table(a, fast, res, pss, rss, nproc, slowres, note):
    keys = [s.key for s in fast]
    heads = {"bare": "floor", "barec": "floor-c", "wymcp": "wymcp",
             "ts": "TS SDK v2"}
    # Lines of at most 72 characters: t/README quotes the table.
    lines = ["", "tools/call echo behind one nginx, wrk -t 2: medians of %d "
             "interleaved" % a.rounds,
             "rounds of %d s; floors and wymcp: %d workers%s" % (
                 a.seconds, a.workers, "; the peer: one Node process"
                 if "ts" in keys else ""),
             "floor-c: the floor closing each connection at once, as "
             "wymcp does", ""]
    row = "%-28s" + " %9s" * len(keys)
    lines.append(row % (("",) + tuple(heads[k] for k in keys)))
    for c in a.conns:
        lines.append("%d connections" % c)
        for title, attr, fmt in (("  req/s", "rps", "%.0f"),
                                 ("  p50 ms", "p50", "%.2f"),
                                 ("  p99 ms", "p99", "%.2f"),
                                 ("  CPU us/req, nginx + server",
                                  "cpu_us", "%.0f"),
                                 ("  CPU us/req, nginx's part",
                                  "nginx_us", "%.0f")):
            lines.append(row % ((title,) + tuple(
                fmt % med(res[k, c], attr) for k in keys)))
    lines.append("after the load")
    lines.append(row % (("  PSS MiB, server processes",) + tuple(
        "%.1f" % (pss[k] / 1024.0) for k in keys)))
    lines.append(row % (("  RSS MiB, summed",) + tuple(
        "%.1f" % (rss[k] / 1024.0) for k in keys)))
    lines.append(row % (("  processes",) + tuple(
        "%d" % nproc[k] for k in keys)))
    if note:
        lines += ["", note]

    ratios = []
    for c in a.conns:
        ratios.append(("wymcp / floor req/s, %d conns" % c,
                       med(res["wymcp", c], "rps") /
                       med(res["bare", c], "rps"), 0.95))
    if "ts" in keys:
        for c in a.conns:
            ratios.append(("wymcp / TS req/s, %d conns" % c,
                           med(res["wymcp", c], "rps") /
                           med(res["ts", c], "rps"), 7.0))
        ratios.append(("TS / wymcp PSS", pss["ts"] / max(pss["wymcp"], 1),
                       10.0))
    # No target, but steadier than req/s when others share the CPUs.
    for c in a.conns:
        ratios.append(("wymcp / floor CPU per request, %d conns" % c,
                       med(res["wymcp", c], "cpu_us") /
                       med(res["bare", c], "cpu_us"), None))
    # No target: against the floor that closes as wymcp does.
    for c in a.conns:
        ratios.append(("wymcp / floor-c req/s, %d conns" % c,
                       med(res["wymcp", c], "rps") /
                       med(res["barec", c], "rps"), None))
        ratios.append(("wymcp / floor-c CPU per req, %d conns" % c,
                       med(res["wymcp", c], "cpu_us") /
                       med(res["barec", c], "cpu_us"), None))
    lines += ["", "%-40s %7s %8s" % ("ratio", "now", "target")]
    for name, v, target in ratios:
        if target is None:
            lines.append("%-40s %7.2f" % (name, v))
            continue
        lines.append("%-40s %7.2f %8s  %s" % (
            name, v, ">= %g" % target, "ok" if v >= target else "over"))

    lines += ["", "slow tool: tools/call sleep200 (200 ms), wrk -c %d for "
              "%d s" % (SLOW_CONNS, a.slow_seconds), ""]
    srow = "%-23s %7s %8s %8s %7s %7s %5s"
    lines.append(srow % ("server", "req/s", "p50 ms", "p99 ms", "PSS MiB",
                         "RSS MiB", "procs"))
    for s, x, p, r, n in slowres:
        lines.append(srow % ((s.label + ", 1 process") if s.key == "ts"
                             else s.label, "%.1f" % x.rps, "%.0f" % x.p50,
                             "%.0f" % x.p99, "%.1f" % (p / 1024.0),
                             "%.1f" % (r / 1024.0), n))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
