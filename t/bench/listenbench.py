#!/usr/bin/env python3
"""listenbench.py - what listen streams cost: many held by the hub at once.

Usage: listenbench.py [--builddir DIR] [--streams N] [--fanout M]
                      [--publishes K] [--seconds S] [--cache DIR]
                      [--no-peer] [--no-bus] [--out FILE]

Starts wymcp-fcgi (4 workers, the echo and examples modules, a hub for
N + 500 streams) behind one private nginx (2 workers, 19000 connections
each), then, in one run:

  1. tools/call echo with wrk for S seconds (16 connections): req/s
     without streams;
  2. opens N listen streams (default 10000), each its own connection
     through nginx, M of them (default 1000) subscribed to note://fan,
     and waits for every acknowledgement;
  3. the PSS of wymcp's processes (hub, supervisor, workers), from
     /proc/PID/smaps_rollup, and nginx's apart;
  4. tools/call echo with wrk again, the N streams open: req/s, and the
     ratio to (1);
  5. K times (default 20), 'updated note://fan' sent to the hub's
     socket: the time from the publish to the last of the M frames, p50
     and p99 of the K; the same for note://all (all N streams), with
     the CPU time per frame of the hub, of nginx's workers and of the
     reader (below), from /proc/PID/task/*/schedstat over the N-stream
     publishes, and the three together for one event divided by the
     CPUs (the floor under the N-stream time on this machine); then
     t/bench/sendfloor.c: the kernel's CPU for a bare send() of a
     frame to each of N unix socket pairs read by an epoll loop (the
     floor under the hub's CPU per frame), then the same sends as one
     io_uring submission each time;
  6. then, the first instance stopped, three instances A, B and C on one
     private PostgreSQL bus (t/e2e/e2e_bus.py's harness: as root with
     ip(8), hosts in network namespaces, else three instances on this
     host), M streams spread over them, and K times wymcp-fcgi
     --publish 'updated note://fan' --bus postgresql://...: the time
     from the publish to the last of the M frames, p50 and p99;
  7. (before 6, through the same nginx) the TypeScript SDK v2 holding
     the same N streams: t/bench/ts-listen-peer.mjs, the official
     @modelcontextprotocol/server's createMcpHandler() and its listen
     router (packages and Node as bench.py pins and installs them, in
     --cache), the same subscriptions/listen requests with the same
     resourceSubscriptions, and K times handler.notify.resourceUpdated()
     of note://fan, then of note://all: p50, p99 and the Node process's
     CPU per frame, printed beside wymcp's.

and prints the figures beside their targets (issue 20: PSS at most
64 MiB, req/s ratio at least 0.9; issue 35: fan-out to M p99 at most
15 ms, to all N at most 50 ms, the hub's CPU per frame at most 1 us;
printed, not asserted).  Every stream also watches note://all (the
N-stream fan-out); the one-host publishes are one datagram each to the
hub socket (SOCK.hub), then the same through wymcp-fcgi --publish.

The streams are read by t/bench/listenread.c (compiled here with cc
-O2): one epoll loop over every socket, told by this script when to
look; it reports when the last stream got the frame.  A Python
selectors loop over 10,000 sockets was slower than the hub and nginx
together, so it measured itself.  The reader still shares the machine's
cores with the hub and nginx: its CPU per frame is printed.

Without PostgreSQL's initdb part 6 is left out (said so); without npm
or Node 22, part 7 (said so).  Python 3 standard library, wrk, cc;
descriptors: N client sockets here, 2N in nginx, N in the hub (the hard
limit must allow it).
"""

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FRAME = 160	# bytes: a resources/updated frame in its FastCGI record
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2e_bus
import bench
from bench import mem_kib
import wymcp_e2e
import wymcp_netns
import wymcp_tasks
from wymcp_e2e import Client, enc, rpc, std_headers
from wymcp_listen import STATUS, HubHarness


class BenchHarness(HubHarness):
    def __init__(self, builddir, streams):
        HubHarness.__init__(self, builddir, False)
        self.nworkers = 4
        self.tools = ["echo", "examples"]
        self.hub_args = ["--max-listeners", str(streams + 500),
                         "--max-listeners-per-principal",
                         str(streams + 500)]

    def nginx_conf(self, sock, port, port2):
        conf = HubHarness.nginx_conf(self, sock, port, port2)
        # The TypeScript peer (part 7), proxied as bench.py proxies it,
        # unbuffered as an SSE stream must be.
        self.ts_sock = os.path.join(self.tmp, "ts.sock")
        ts = ("\t\tlocation = /ts {\n"
              "\t\t\tproxy_pass http://unix:%s:;\n"
              "\t\t\tproxy_http_version 1.1;\n"
              "\t\t\tproxy_set_header Connection \"\";\n"
              "\t\t\tproxy_set_header Host $http_host;\n"
              "\t\t\tproxy_buffering off;\n"
              "\t\t\tproxy_read_timeout 3600s;\n"
              "\t\t}\n" % self.ts_sock)
        conf = conf.replace("\t\tlocation = /mcp-anon {",
                            ts + "\t\tlocation = /mcp-anon {", 1)
        return conf.replace("worker_processes 1;", "worker_processes 2;") \
            .replace("events { worker_connections 256; }",
                     "worker_rlimit_nofile 20000;\n"
                     "events { worker_connections 19000; }")


def wrk_echo(h, seconds, tmp):
    script = os.path.join(tmp, "echo.lua")
    body = enc(rpc(1, "tools/call", {"name": "echo",
                                     "arguments": {"text": "hello"}}))
    with open(script, "w") as f:
        f.write('wrk.method = "POST"\nwrk.body = [[%s]]\n' % body.decode())
        for k, v in std_headers("tools/call", "echo").items():
            f.write('wrk.headers["%s"] = "%s"\n' % (k, v))
    w = subprocess.run(["wrk", "-t", "2", "-c", "16", "-d", "%ds" % seconds,
                        "-s", script, "http://127.0.0.1:%d/mcp" % h.port],
                       capture_output=True, text=True)
    for line in w.stdout.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise wymcp_e2e.Failed("wrk: %s" % (w.stderr or w.stdout)[-300:])


def open_streams(port, n, m, paths=("/mcp-anon",)):
    """n streams, the first m on note://fan, posted to `paths' in turn:
    the sockets."""
    socks = []
    for i in range(n):
        uris = ["note://all", "note://fan" if i < m else "note://other"]
        body = enc(rpc(i, "subscriptions/listen", {"notifications": {
            "resourceSubscriptions": uris}}))
        head = "POST %s HTTP/1.0\r\nHost: localhost\r\n" % \
            paths[i % len(paths)] + "".join(
            "%s: %s\r\n" % kv for kv in
            std_headers("subscriptions/listen").items()) + \
            "Content-Length: %d\r\n\r\n" % len(body)
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(head.encode() + body)
        socks.append(s)
    return socks


class Reader:
    """The streams' reader: t/bench/listenread.c (epoll, built here with
    cc -O2), given the sockets' descriptors; this process only says
    when to look and reads the answer."""

    def __init__(self, prog, socks):
        fds = [s.fileno() for s in socks]
        self.p = subprocess.Popen([prog], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  pass_fds=fds)
        self.p.stdin.write("fds %s\n" % " ".join(map(str, fds)))
        self.p.stdin.flush()
        if not self.p.stdout.readline().startswith("ok "):
            raise wymcp_e2e.Failed("listenread: no answer to fds")

    def arm(self, want, count, timeout):
        self.p.stdin.write("wait %s %d %d\n" % (want, count,
                                                 timeout * 1000))
        self.p.stdin.flush()
        if self.p.stdout.readline().strip() != "armed":
            raise wymcp_e2e.Failed("listenread: not armed")

    def done(self):
        """(streams that got it, time.monotonic() of the last)."""
        w = self.p.stdout.readline().split()
        if len(w) != 3 or w[0] != "done":
            raise wymcp_e2e.Failed("listenread: %r" % w)
        return int(w[1]), int(w[2]) / 1e9

    def read_until(self, want, count, timeout):
        self.arm(want, count, timeout)
        return self.done()[0]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def build(tmp, name):
    """t/bench/NAME.c compiled with cc -O2 into tmp: its path."""
    out = os.path.join(tmp, name)
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    subprocess.run([cc, "-O2", "-o", out, os.path.join(HERE,
                                                       name + ".c")],
                   check=True)
    return out


def send_floor(tmp, streams):
    """t/bench/sendfloor.c, built into tmp and run over as many socket
    pairs as there were streams (as the descriptor limit allows): the
    kernel's CPU for one frame's send() to one stream, with nothing of
    the hub's own; lines to print."""
    out = build(tmp, "sendfloor")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    n = min(streams, (hard - 64) // 2)
    us = {}
    for mode in ([], ["uring"]):
        r = subprocess.run([out, str(n), str(FRAME), "20"] + mode,
                           text=True, capture_output=True, timeout=300)
        w = r.stdout.split()
        if r.returncode != 0 or len(w) != 2 or w[0] != "us_per_send":
            raise wymcp_e2e.Failed("sendfloor %s: %r %r" % (
                " ".join(mode), r.stdout, r.stderr))
        us[bool(mode)] = float(w[1])
    return ["%-44s %10.2f" % ("the kernel's send() alone, us per frame",
                              us[False]),
            "%-44s %10.2f" % ("the same sends by io_uring, us per frame",
                              us[True]),
            "(t/bench/sendfloor.c: %d unix socket pairs, %d bytes to each, "
            "20 times, an epoll reader on the far ends: the floor under "
            "the hub's CPU per frame on this machine; with io_uring, each "
            "time's sends are one submission)" % (n, FRAME)]


def cpu_ns(pid):
    """The CPU time the process `pid' has run, ns: every thread's
    (/proc/PID/task/*/schedstat)."""
    n = 0
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                n += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return n


def time_publishes(rd, publish, fanout, k, status):
    """k times: publish() (a datagram to the hub socket, a --publish
    command, a line to the TypeScript peer), then read until all `fanout'
    streams have the update: the ms from the start to the last one."""
    lat = []
    for i in range(k):
        rd.arm("resources/updated", fanout, 30)
        t = time.monotonic()
        publish()
        got, last = rd.done()
        if got < fanout:
            raise wymcp_e2e.Failed("publish %d reached %d of %d (%s)" % (
                i, got, fanout, status()))
        lat.append((last - t) * 1000)
    return lat


def dgram(path, uri):
    """A publish: one event datagram to the hub socket `path'."""
    def publish():
        d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        d.sendto(json.dumps({"v": 1, "k": "updated", "uri": uri},
                            separators=(",", ":")).encode(), path)
        d.close()
    return publish


def command(argv):
    """A publish: run argv (wymcp-fcgi --publish ...)."""
    return lambda: subprocess.run(wymcp_e2e.wrap_argv(argv), check=True)


def across_hosts(a, nginx, reader):
    """Part 6: the fan-out lines, or one line saying why there are none."""
    if wymcp_tasks.pg_missing() is not None:
        return ["(fan-out across instances: left out: %s)" %
                wymcp_tasks.pg_missing()]
    netns = os.geteuid() == 0 and wymcp_netns.unavailable() is None
    wymcp_e2e.ARGS = argparse.Namespace(netns=netns)
    h = e2e_bus.BusHarness(a.builddir, netns=netns)
    h.nginx_bin = nginx
    h.bindir = wymcp_tasks.pg_bindir()
    h.extra = ["--max-listeners", str(a.fanout + 100),
               "--max-listeners-per-principal", str(a.fanout + 100)]
    h.conns = 2 * a.fanout + 200
    socks = []
    rd = None
    try:
        h.start()
        for n in e2e_bus.NAMES:
            b = e2e_bus.wait_bus(h, n, lambda b: b.get("up") is True)
            if b.get("up") is not True:
                raise wymcp_e2e.Failed("%s: the bus is not up: %s" %
                                       (n, json.dumps(b)))
        socks = open_streams(h.port, a.fanout, a.fanout,
                             ["/" + n for n in e2e_bus.NAMES])
        rd = Reader(reader, socks)
        acked = rd.read_until("acknowledged", a.fanout, 60)
        if acked < a.fanout:
            raise wymcp_e2e.Failed("%d of %d streams acknowledged" %
                                   (acked, a.fanout))
        lat = time_publishes(
            rd, command([h.prog, "--publish", "updated note://fan",
                         "--bus", h.uri]), a.fanout, a.publishes,
            lambda: json.dumps([e2e_bus.bus_of(h, n)
                                for n in e2e_bus.NAMES]))
        where = "3 hosts (network namespaces)" if netns else \
            "3 instances on this host"
        return [
            "%-44s %10.1f" % ("fan-out to %d on %s, p50" % (
                a.fanout, "A, B, C"), pct(lat, 50)),
            "%-44s %10.1f %10s" % ("fan-out to %d on %s, p99" % (
                a.fanout, "A, B, C"), pct(lat, 99), "<= 200"),
            "(%d publishes by wymcp-fcgi --publish --bus through "
            "PostgreSQL to %s, %d streams each)" % (
                a.publishes, where, a.fanout // 3)]
    finally:
        if rd is not None:
            rd.close()
        for s in socks:
            s.close()
        h.stop()
        h.cleanup()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def ts_peer(a, h, tmp, reader):
    """Part 7: the TypeScript SDK v2 holding the same streams (its
    listen router, the same subscriptions) through the same nginx; the
    lines, or one saying why there are none."""
    if a.no_peer:
        return ["(the TypeScript SDK v2 peer: skipped (--no-peer))"]
    try:
        node = bench.provision_peer(a.cache)
    except (bench.Failed, OSError, subprocess.SubprocessError) as e:
        return ["(the TypeScript SDK v2 peer: skipped: %s)" % e]
    script = os.path.join(tmp, "ts-listen-peer.mjs")
    shutil.copy(os.path.join(HERE, "ts-listen-peer.mjs"), script)
    if not os.path.exists(os.path.join(tmp, "node_modules")):
        os.symlink(os.path.join(os.path.abspath(a.cache), "node_modules"),
                   os.path.join(tmp, "node_modules"))
    log = open(os.path.join(tmp, "ts.log"), "w")
    peer = subprocess.Popen([node, script, h.ts_sock, str(a.streams + 500)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=log, text=True)
    socks = []
    rd = None
    try:
        if peer.stdout.readline().strip() != "ready":
            raise wymcp_e2e.Failed("the TypeScript peer did not start")
        # Opened 1,000 at a time, each thousand acknowledged before the
        # next: Node accepts more slowly than nginx connects, and past
        # its listen backlog nginx answers 502.
        t0 = time.monotonic()
        acked = 0
        for i in range(0, a.streams, 1000):
            k = min(1000, a.streams - i)
            more = open_streams(h.port, k, max(0, min(k, a.fanout - i)),
                                ("/ts",))
            socks += more
            r = Reader(reader, more)
            try:
                acked += r.read_until("acknowledged", k, 120)
            finally:
                r.close()
        opened = time.monotonic() - t0
        rd = Reader(reader, socks)
        if acked < a.streams:
            raise wymcp_e2e.Failed("%d of %d streams acknowledged by the "
                                   "TypeScript peer" % (acked, a.streams))
        pss = mem_kib([peer.pid], "Pss")

        def publish(uri):
            def f():
                peer.stdin.write(uri + "\n")
                peer.stdin.flush()
            return f
        lat = time_publishes(rd, publish("note://fan"), a.fanout,
                             a.publishes, lambda: "ts")
        cpu0 = cpu_ns(peer.pid)
        lat_all = time_publishes(rd, publish("note://all"), a.streams,
                                 a.publishes, lambda: "ts")
        cpu = cpu_ns(peer.pid) - cpu0
        return [
            "TypeScript SDK v2 (createMcpHandler's listen router, "
            "Node %s): %d streams acknowledged in %.1f s" % (
                subprocess.run([node, "--version"], capture_output=True,
                               text=True).stdout.strip(), acked, opened),
            "%-44s %10.1f" % ("  PSS MiB, the Node process", pss / 1024.0),
            "%-44s %10.1f" % ("  fan-out to %d, ms to the last, p50" %
                              a.fanout, pct(lat, 50)),
            "%-44s %10.1f" % ("  fan-out to %d, ms to the last, p99" %
                              a.fanout, pct(lat, 99)),
            "%-44s %10.1f" % ("  fan-out to %d, ms to the last, p50" %
                              a.streams, pct(lat_all, 50)),
            "%-44s %10.1f" % ("  fan-out to %d, ms to the last, p99" %
                              a.streams, pct(lat_all, 99)),
            "%-44s %10.2f" % ("  Node CPU us per frame (%d frames)" %
                              (a.streams * a.publishes),
                              cpu / 1000.0 / (a.streams * a.publishes)),
            "(the same streams and subscriptions, the same nginx and "
            "reader; a publish is one line to the peer's stdin: "
            "handler.notify.resourceUpdated(uri))"]
    except wymcp_e2e.Failed as e:
        return ["(the TypeScript SDK v2 peer: %s)" % e]
    finally:
        if rd is not None:
            rd.close()
        for s in socks:
            s.close()
        peer.terminate()
        peer.wait()
        log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--streams", type=int, default=10000)
    ap.add_argument("--fanout", type=int, default=1000)
    ap.add_argument("--publishes", type=int, default=20)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--cache", default=os.path.join(bench.SRC, "_build",
                                                    "bench-peer"),
                    help="where npm installs Node 22 and the TypeScript "
                    "peer (bench.py's; default %(default)s)")
    ap.add_argument("--no-peer", action="store_true",
                    help="leave out the TypeScript SDK v2 peer")
    ap.add_argument("--no-bus", action="store_true",
                    help="leave out the three instances on a bus")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    def on_signal(signum, frame):	# stop what we started, then go
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < a.streams + 100:
        print("SKIP: the open-file limit (%d) is below %d streams" %
              (hard, a.streams))
        return 77
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        print("SKIP: nginx is not installed")
        return 77
    h = BenchHarness(a.builddir, a.streams)
    h.nginx_bin = nginx
    lines = []
    more = []
    socks = []
    rd = None
    try:
        h.paths()
        h.start()
        tmp = h.tmp
        reader = build(tmp, "listenread")
        base = wrk_echo(h, a.seconds, tmp)
        t0 = time.monotonic()
        socks = open_streams(h.port, a.streams, a.fanout)
        rd = Reader(reader, socks)
        acked = rd.read_until("acknowledged", a.streams, 120)
        opened = time.monotonic() - t0
        st = json.loads(Client(h.port).send("GET", STATUS).raw)
        pids = [h.sup] + wymcp_e2e.children(h.sup)
        pss = mem_kib(pids, "Pss")
        hub = mem_kib([h.hub()], "Pss")
        npids = [h.nginx.pid] + wymcp_e2e.children(h.nginx.pid)
        ngx = mem_kib(npids, "Pss")
        loaded = wrk_echo(h, a.seconds, tmp)

        def status():
            return json.dumps(json.loads(Client(h.port).send(
                "GET", STATUS).raw)["listen"])

        def frames():
            return json.loads(Client(h.port).send(
                "GET", STATUS).raw)["listen"]["framesOut"]
        lat = time_publishes(rd, dgram(h.sock + ".hub", "note://fan"),
                             a.fanout, a.publishes, status)
        cpu0, fr0 = cpu_ns(h.hub()), frames()
        ncpu0 = sum(cpu_ns(p) for p in npids)
        rcpu0 = cpu_ns(rd.p.pid)
        lat_all = time_publishes(rd, dgram(h.sock + ".hub", "note://all"),
                                 a.streams, a.publishes, status)
        cpu = cpu_ns(h.hub()) - cpu0
        ncpu = sum(cpu_ns(p) for p in npids) - ncpu0
        rcpu = cpu_ns(rd.p.pid) - rcpu0
        nframes = frames() - fr0
        lat_cmd = time_publishes(
            rd, command([h.prog, "--publish", "updated note://fan",
                         "--listen", "unix:" + h.sock]), a.fanout,
            a.publishes, status)
        nf = max(nframes, 1)
        lines = [
            "listen streams: %d opened and acknowledged in %.1f s "
            "(%d acknowledged, the hub holds %d)" % (
                a.streams, opened, acked, st["listen"]["held"]),
            "%-44s %10s %10s" % ("", "now", "target"),
            "%-44s %10.1f %10s" % ("PSS MiB, wymcp (hub, supervisor, 4 "
                                   "workers)", pss / 1024.0, "<= 64"),
            "%-44s %10.1f" % ("PSS MiB, the hub alone", hub / 1024.0),
            "%-44s %10.1f" % ("PSS MiB, nginx (2 workers; apart)",
                              ngx / 1024.0),
            "%-44s %10.0f" % ("echo req/s, no stream", base),
            "%-44s %10.0f" % ("echo req/s, %d streams open" % a.streams,
                              loaded),
            "%-44s %10.2f %10s" % ("ratio", loaded / base, ">= 0.9"),
            "%-44s %10.1f" % ("fan-out to %d, ms to the last, p50" %
                              a.fanout, pct(lat, 50)),
            "%-44s %10.1f %10s" % ("fan-out to %d, ms to the last, p99" %
                                   a.fanout, pct(lat, 99), "<= 15"),
            "%-44s %10.1f" % ("fan-out to %d, ms to the last, p50" %
                              a.streams, pct(lat_all, 50)),
            "%-44s %10.1f %10s" % ("fan-out to %d, ms to the last, p99" %
                                   a.streams, pct(lat_all, 99), "<= 50"),
            "%-44s %10.2f %10s" % ("hub CPU us per frame (%d frames)" %
                                   nframes, cpu / 1000.0 / nf, "<= 1"),
            "%-44s %10.2f" % ("nginx CPU us per frame (2 workers)",
                              ncpu / 1000.0 / nf),
            "%-44s %10.2f" % ("reader CPU us per frame (listenread.c)",
                              rcpu / 1000.0 / nf),
            "%-44s %10.1f" % ("their CPU for one event to %d / %d CPUs, "
                              "ms" % (a.streams, os.cpu_count()),
                              (cpu + ncpu + rcpu) / 1e6 / a.publishes /
                              os.cpu_count()),
            "(%d publishes each: one datagram to the hub socket; the "
            "time is to the last frame read by t/bench/listenread.c, one "
            "epoll loop over every stream; load average %.1f)" % (
                a.publishes, os.getloadavg()[0]),
            "%-44s %10.1f" % ("fan-out to %d via --publish, p99" %
                              a.fanout, pct(lat_cmd, 99)),
            "(the same with wymcp-fcgi --publish: includes starting that "
            "command)",
        ]
        for line in lines:
            print(line, flush=True)
        rd.close()
        rd = None
        for s in socks:
            s.close()
        socks = []
        floor = send_floor(tmp, a.streams)
        for line in floor:
            print(line, flush=True)
        lines += floor
        more = ts_peer(a, h, tmp, reader)
        for line in more:
            print(line, flush=True)
    except wymcp_e2e.Failed as e:
        print("listenbench: %s" % e)
        return 1
    finally:
        if rd is not None:
            rd.close()
        for s in socks:
            s.close()
        h.stop()
        h.cleanup()
    if a.no_bus:
        bus = ["(fan-out across instances: left out (--no-bus))"]
    else:
        try:
            tmp = tempfile.mkdtemp(prefix="listenread.")
            try:
                bus = across_hosts(a, nginx, build(tmp, "listenread"))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        except wymcp_e2e.Failed as e:
            print("listenbench: across hosts: %s" % e)
            return 1
    for line in bus:
        print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines + more + bus) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
