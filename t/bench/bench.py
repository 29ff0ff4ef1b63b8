#!/usr/bin/env python3
"""bench.py - wymcp's speed and size, measured against a bare baseline.

Usage: bench.py --builddir DIR [--seconds S] [--rounds N] [--workers W]

One private nginx on a loopback port proxies two FastCGI pools of W
workers each over unix sockets:

  /bare  t/bench/bare.c: libfcgi + json-c, parse the body, build the
         tools/call answer; the least any FastCGI MCP responder does;
  /mcp   wymcp-fcgi with the echo module: the whole 2026-07-28 pipeline
         (Host/Origin, headers, _meta, schema check of the arguments,
         context, the tool run, result _meta).

wrk (Debian package wrk) sends the same tools/call echo request to each,
in interleaved runs, and the script prints requests per second per run,
the medians, wymcp's share of the baseline, latency, and the workers'
resident memory after the load.  Figures are printed, not asserted: the
exit status only says whether the measurement itself worked.  The
process and port helpers come from t/e2e/lib/wymcp_e2e.py (PYTHONPATH).
"""

import argparse
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
    from wymcp_e2e import children, free_port
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("bench.py: no module wymcp_e2e: run with PYTHONPATH=t/e2e/lib, "
          "or through make", file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
BODY = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}},
        "name": "echo", "arguments": {"text": "hello"}}},
    separators=(",", ":"))
LUA = """wrk.method = "POST"
wrk.body = [[%s]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "echo"
""" % BODY


def wait_file(path, proc, what):
    deadline = time.monotonic() + 20
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("bench: %s did not start" % what)
        time.sleep(0.05)


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def wrk(url, seconds, conns, script):
    out = subprocess.run(["wrk", "-t", "2", "-c", str(conns), "-d",
                          "%ds" % seconds, "-s", script, "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, p99.group(1) if p99 else "?", int(non2xx.group(1)) \
        if non2xx else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--connections", type=int, default=16)
    a = ap.parse_args()
    b = os.path.abspath(a.builddir)
    for tool in ("wrk", "nginx", "cc"):
        if shutil.which(tool) is None and not os.path.exists(
                "/usr/sbin/" + tool):
            print("SKIP: %s is not installed" % tool)
            return 77
    tmp = tempfile.mkdtemp(prefix="wymcp-bench.")
    os.chmod(tmp, 0o755)
    procs = []
    try:
        bare = os.path.join(tmp, "bare")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fcgi",
                                "json-c"], capture_output=True, text=True,
                               check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", bare,
                        os.path.join(HERE, "bare.c")] + flags, check=True)
        bsock, msock = os.path.join(tmp, "bare.sock"), \
            os.path.join(tmp, "wymcp.sock")
        # Its own process group: bare's workers go with it.
        p = subprocess.Popen([bare, bsock, str(a.workers)],
                             start_new_session=True)
        procs.append(p)
        wait_file(bsock, p, "bare")
        log = open(os.path.join(tmp, "wymcp.log"), "wb")
        p = subprocess.Popen([os.path.join(b, "src", "front", "wymcp-fcgi"),
                              "--listen", "unix:" + msock,
                              "--workers", str(a.workers), "--module",
                              os.path.join(b, "tools", ".libs", "echo.so")],
                             stdout=log, stderr=log)
        procs.append(p)
        wait_file(msock, p, "wymcp-fcgi")
        os.chmod(msock, 0o666)
        port = free_port()
        user = "user root;\n" if os.geteuid() == 0 else ""
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""%sworker_processes 1;
pid %s/nginx.pid;
error_log %s/nginx-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path %s/cb; fastcgi_temp_path %s/ft;
	proxy_temp_path %s/pt; scgi_temp_path %s/st; uwsgi_temp_path %s/ut;
	server {
		listen 127.0.0.1:%d;
		location = /bare {
			fastcgi_param REQUEST_METHOD $request_method;
			fastcgi_param CONTENT_LENGTH $content_length;
			fastcgi_param CONTENT_TYPE $content_type;
			fastcgi_pass unix:%s;
		}
		location = /mcp {
			fastcgi_param REQUEST_METHOD $request_method;
			fastcgi_param CONTENT_LENGTH $content_length;
			fastcgi_param CONTENT_TYPE $content_type;
			fastcgi_pass unix:%s;
		}
	}
}
""" % ((user, tmp, tmp) + (tmp,) * 5 + (port, bsock, msock)))
        p = subprocess.Popen(["nginx", "-p", tmp + "/", "-c", conf, "-g",
                              "daemon off;"], stderr=subprocess.DEVNULL)
        procs.append(p)
        time.sleep(0.5)
        script = os.path.join(tmp, "post.lua")
        with open(script, "w") as f:
            f.write(LUA)
        base = "http://127.0.0.1:%d" % port
        # Warm up both, and check they answer what they should.
        for path in ("/bare", "/mcp"):
            out = subprocess.run(
                ["curl", "-s", "-X", "POST", "-H",
                 "Content-Type: application/json", "-H",
                 "MCP-Protocol-Version: 2026-07-28", "-H",
                 "Mcp-Method: tools/call", "-H", "Mcp-Name: echo",
                 "--data", BODY, base + path], capture_output=True,
                text=True).stdout
            if '"text":"hello"' not in out:
                raise SystemExit("bench: %s answered %r" % (path, out))
            wrk(base + path, 1, a.connections, script)
        res = {"/bare": [], "/mcp": []}
        for r in range(a.rounds):
            for path in ("/bare", "/mcp"):
                rps, p99, bad = wrk(base + path, a.seconds, a.connections,
                                    script)
                if bad:
                    raise SystemExit("bench: %s: %d non-2xx" % (path, bad))
                res[path].append(rps)
                print("round %d %-5s %9.0f req/s  p99 %s" %
                      (r + 1, path, rps, p99), flush=True)
        mb, mm = statistics.median(res["/bare"]), \
            statistics.median(res["/mcp"])
        wpids = children(procs[1].pid)
        bpids = children(procs[0].pid)
        print("bare libfcgi+json-c responder: %.0f req/s (median of %d)"
              % (mb, a.rounds))
        print("wymcp-fcgi tools/call echo:    %.0f req/s (median of %d)"
              % (mm, a.rounds))
        print("wymcp / bare: %.1f%%" % (100.0 * mm / mb))
        print("worker RSS after load: wymcp %s KiB, bare %s KiB" % (
            "/".join(str(rss_kib(x)) for x in wpids),
            "/".join(str(rss_kib(x)) for x in bpids)))
        return 0
    finally:
        if procs:
            try:
                os.killpg(procs[0].pid, signal.SIGTERM)
            except OSError:
                pass
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for pid in children(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
