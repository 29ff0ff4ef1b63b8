#!/usr/bin/env python3
"""listenbench.py - what listen streams cost: many held by the hub at once.

Usage: listenbench.py [--builddir DIR] [--streams N] [--fanout M]
                      [--publishes K] [--seconds S] [--out FILE]

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
     the hub's CPU time per frame;
  6. then, the first instance stopped, three instances A, B and C on one
     private PostgreSQL bus (t/e2e/e2e_bus.py's harness: as root with
     ip(8), hosts in network namespaces, else three instances on this
     host), M streams spread over them, and K times wymcp-fcgi
     --publish 'updated note://fan' --bus postgresql://...: the time
     from the publish to the last of the M frames, p50 and p99.

and prints the figures beside their targets (issue 20: PSS at most
64 MiB, req/s ratio at least 0.9; issue 35: fan-out to M p99 at most
15 ms, to all N at most 50 ms, the hub's CPU per frame at most 1 us,
from /proc/PID/schedstat over the N-stream publishes; printed, not
asserted).  Every stream also watches note://all (the N-stream
fan-out); the one-host publishes are one datagram each to the hub
socket (SOCK.hub), then the same through wymcp-fcgi --publish.
Without PostgreSQL's initdb part 6 is left out (said so).  Python 3 standard library, wrk; descriptors: N
client sockets here, 2N in nginx, N in the hub (the hard limit must
allow it).
"""

import argparse
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import e2e_bus
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
    (selector, sockets)."""
    sel = selectors.DefaultSelector()
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
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, {"buf": b"", "fan": i < m})
        socks.append(s)
    return sel, socks


def read_until(sel, want, count, timeout):
    """Read every stream until `count' of them hold `want'; the times
    each got it (time.monotonic())."""
    got = {}
    end = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < end:
        for k, _ in sel.select(0.5):
            try:
                b = k.fileobj.recv(65536)
            except BlockingIOError:
                continue
            d = k.data
            d["buf"] += b
            if k.fileobj not in got and want in d["buf"]:
                got[k.fileobj] = time.monotonic()
    return got


def hub_cpu_ns(pid):
    """The CPU time the process `pid' has run, ns (schedstat)."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def time_publishes(sel, argv, fanout, k, status):
    """k times: run argv (a --publish; or ("dgram", PATH, URI): one event
    sent to a hub socket, no process started), then read until all
    `fanout' streams have the update: the ms from the start to the last
    one."""
    lat = []
    for i in range(k):
        for key in sel.get_map().values():
            key.data["buf"] = b""
        t = time.monotonic()
        if argv[0] == "dgram":
            d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            d.sendto(json.dumps({"v": 1, "k": "updated", "uri": argv[2]},
                                separators=(",", ":")).encode(), argv[1])
            d.close()
        else:
            subprocess.run(wymcp_e2e.wrap_argv(argv), check=True)
        got = read_until(sel, b"resources/updated", fanout, 30)
        if len(got) < fanout:
            raise wymcp_e2e.Failed("publish %d reached %d of %d (%s)" % (
                i, len(got), fanout, status()))
        lat.append((max(got.values()) - t) * 1000)
    return lat


def across_hosts(a, nginx):
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
    try:
        h.start()
        for n in e2e_bus.NAMES:
            b = e2e_bus.wait_bus(h, n, lambda b: b.get("up") is True)
            if b.get("up") is not True:
                raise wymcp_e2e.Failed("%s: the bus is not up: %s" %
                                       (n, json.dumps(b)))
        sel, socks = open_streams(h.port, a.fanout, a.fanout,
                                  ["/" + n for n in e2e_bus.NAMES])
        acked = read_until(sel, b"acknowledged", a.fanout, 60)
        if len(acked) < a.fanout:
            raise wymcp_e2e.Failed("%d of %d streams acknowledged" %
                                   (len(acked), a.fanout))
        lat = time_publishes(
            sel, [h.prog, "--publish", "updated note://fan", "--bus",
                  h.uri], a.fanout, a.publishes,
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
        for s in socks:
            s.close()
        h.stop()
        h.cleanup()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--streams", type=int, default=10000)
    ap.add_argument("--fanout", type=int, default=1000)
    ap.add_argument("--publishes", type=int, default=20)
    ap.add_argument("--seconds", type=int, default=5)
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
    socks = []
    try:
        h.paths()
        h.start()
        tmp = h.tmp
        base = wrk_echo(h, a.seconds, tmp)
        t0 = time.monotonic()
        sel, socks = open_streams(h.port, a.streams, a.fanout)
        acked = read_until(sel, b"acknowledged", a.streams, 120)
        opened = time.monotonic() - t0
        st = json.loads(Client(h.port).send("GET", STATUS).raw)
        pids = [h.sup] + wymcp_e2e.children(h.sup)
        pss = mem_kib(pids, "Pss")
        hub = mem_kib([h.hub()], "Pss")
        ngx = mem_kib([h.nginx.pid] + wymcp_e2e.children(h.nginx.pid),
                      "Pss")
        loaded = wrk_echo(h, a.seconds, tmp)

        def status():
            return json.dumps(json.loads(Client(h.port).send(
                "GET", STATUS).raw)["listen"])

        def frames():
            return json.loads(Client(h.port).send(
                "GET", STATUS).raw)["listen"]["framesOut"]
        lat = time_publishes(
            sel, ["dgram", h.sock + ".hub", "note://fan"], a.fanout,
            a.publishes, status)
        cpu0, fr0 = hub_cpu_ns(h.hub()), frames()
        lat_all = time_publishes(
            sel, ["dgram", h.sock + ".hub", "note://all"], a.streams,
            a.publishes, status)
        cpu = hub_cpu_ns(h.hub()) - cpu0
        nframes = frames() - fr0
        lat_cmd = time_publishes(
            sel, [h.prog, "--publish", "updated note://fan", "--listen",
                  "unix:" + h.sock], a.fanout, a.publishes, status)
        lines = [
            "listen streams: %d opened and acknowledged in %.1f s "
            "(%d acknowledged, the hub holds %d)" % (
                a.streams, opened, len(acked), st["listen"]["held"]),
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
                                   nframes, cpu / 1000.0 / max(nframes, 1),
                                   "<= 1"),
            "(%d publishes each: one datagram to the hub socket; the "
            "time is to the last frame read by this one Python process)" %
            a.publishes,
            "%-44s %10.1f" % ("fan-out to %d via --publish, p99" %
                              a.fanout, pct(lat_cmd, 99)),
            "(the same with wymcp-fcgi --publish: includes starting that "
            "command)",
        ]
        for line in lines:
            print(line, flush=True)
    except wymcp_e2e.Failed as e:
        print("listenbench: %s" % e)
        return 1
    finally:
        for s in socks:
            s.close()
        h.stop()
        h.cleanup()
    try:
        more = across_hosts(a, nginx)
    except wymcp_e2e.Failed as e:
        print("listenbench: across hosts: %s" % e)
        return 1
    for line in more:
        print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines + more) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
