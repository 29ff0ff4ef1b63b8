#!/usr/bin/env python3
"""e2e_fanout.py - every listener gets every event, or its stream ends.

Usage: e2e_fanout.py [--builddir DIR] [--keep] [--listeners N]
                     [--calls K] [--bus-events E]

Proves (issue 35), under the machine's net.unix.max_dgram_qlen (Debian's
default is 10; printed):

  F  one wymcp-fcgi (4 workers, the examples module) behind nginx holds
     N listen streams (default 2,000) on note://fan; write_note "fan" is
     called K times (default 320) from 16 connections at once: every
     listener gets exactly one notifications/resources/updated per
     answered call, none of their streams ends, no worker waited for
     room on its channel to the hub (workerWaits 0), nothing was shed
     (eventsShed, endedForShed 0) and no event was refused;
  S  then 50 listeners, the hub stopped (SIGSTOP) and the rogue module's
     flood_events called until the workers' channel is full: workers
     wait (workerWaits), then shed (eventsShed); the hub resumed, every
     listener's stream ends with its result (endedForShed), the log
     says why;
  B  three instances A, B and C on one private PostgreSQL bus (e2e_bus.py's
     harness, this host; skipped without initdb), 20 listeners each on
     note://fan; E events (default 6,000) sent as fast as a blocking
     socket goes to A's hub socket: every listener on every instance
     gets all E, or its stream ends (eof, or its result); A's NOTIFYs
     are batched (fewer than E / 10).

Not a timed test: the time each part took is printed, never asserted.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed".
Python 3 standard library only.
"""

import json
import os
import resource
import selectors
import signal
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True
import wymcp_e2e
import wymcp_tasks
from wymcp_e2e import R, Client, enc, rpc, std_headers
from wymcp_listen import STATUS, HubHarness


class FanHarness(HubHarness):
    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        n = wymcp_e2e.ARGS.listeners
        self.nworkers = 4
        self.tools = ["examples"]
        self.hub_args = ["--max-listeners", str(n + 100),
                         "--max-listeners-per-principal", str(n + 100)]

    def paths(self):
        HubHarness.paths(self)
        rogue = os.path.join(self.builddir, "t", "lib", ".libs", "rogue.so")
        wymcp_e2e.need_built(rogue, hint="make check-listen builds it")
        self.mods.append(rogue)

    def nginx_conf(self, sock, port, port2):
        n = wymcp_e2e.ARGS.listeners
        return HubHarness.nginx_conf(self, sock, port, port2).replace(
            "events { worker_connections 256; }",
            "worker_rlimit_nofile %d;\n"
            "events { worker_connections %d; }" % (4 * n + 1000,
                                                   2 * n + 500))


class Listeners:
    """Many listen streams read by one selector: per stream, the
    resources/updated frames counted, whether its result came, eof."""

    def __init__(self, port, n, paths):
        self.sel = selectors.DefaultSelector()
        self.st = []
        for i in range(n):
            body = enc(rpc(i + 1, "subscriptions/listen", {"notifications": {
                "resourceSubscriptions": ["note://fan"]}}))
            head = "POST %s HTTP/1.0\r\nHost: localhost\r\n" % \
                paths[i % len(paths)] + "".join(
                "%s: %s\r\n" % kv for kv in
                std_headers("subscriptions/listen").items()) + \
                "Content-Length: %d\r\n\r\n" % len(body)
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(head.encode() + body)
            s.setblocking(False)
            d = {"s": s, "buf": b"", "acked": False, "updated": 0,
                 "result": False, "eof": False}
            self.sel.register(s, selectors.EVENT_READ, d)
            self.st.append(d)

    def pump(self, timeout):
        for k, _ in self.sel.select(timeout):
            d = k.data
            try:
                b = d["s"].recv(262144)
            except BlockingIOError:
                continue
            except OSError:
                b = b""
            if not b:
                d["eof"] = True
                self.sel.unregister(d["s"])
                continue
            buf = d["buf"] + b
            frames = buf.split(b"\n\n")
            d["buf"] = frames.pop()
            for f in frames:
                if b"resources/updated" in f:
                    d["updated"] += 1
                elif b"subscriptions/acknowledged" in f:
                    d["acked"] = True
                elif b'"result"' in f:
                    d["result"] = True

    def until(self, pred, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end and not all(pred(d) for d in self.st):
            self.pump(0.2)
        return all(pred(d) for d in self.st)

    def close(self):
        for d in self.st:
            try:
                d["s"].close()
            except OSError:
                pass
        self.sel.close()


def listen_stats(port, path=STATUS):
    try:
        return json.loads(Client(port).send("GET", path).raw)["listen"]
    except (ValueError, KeyError):
        return {}


def writers(h, total, conns=16):
    """`total' write_note calls from `conns' connections at once: the
    number answered (a result, not an error)."""
    answered = [0] * conns
    per = [total // conns + (i < total % conns) for i in range(conns)]
    hd = list(std_headers("tools/call", "write_note").items())

    def run(i):
        for j in range(per[i]):
            r = Client(h.port).send("POST", "/mcp", enc(rpc(
                j + 1, "tools/call", {"name": "write_note", "arguments": {
                    "name": "fan", "text": "%d.%d" % (i, j)}})), hd)
            res = (r.json or {}).get("result") if r.status == 200 else None
            if res is not None and not res.get("isError"):
                answered[i] += 1

    ts = [threading.Thread(target=run, args=(i,)) for i in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(answered)


def part_f(h):
    n = wymcp_e2e.ARGS.listeners
    k = wymcp_e2e.ARGS.calls
    qlen = open("/proc/sys/net/unix/max_dgram_qlen").read().strip()
    R.note("net.unix.max_dgram_qlen is %s here" % qlen)
    t0 = time.monotonic()
    ls = Listeners(h.port, n, ["/mcp-anon"])
    try:
        R.check(ls.until(lambda d: d["acked"] or d["eof"], 120) and
                all(d["acked"] and not d["eof"] for d in ls.st),
                "F: %d listeners acknowledged and held" % n,
                "%d acknowledged" % sum(d["acked"] for d in ls.st))
        R.note("F: %d listeners opened in %.1f s" % (n,
                                                     time.monotonic() - t0))
        box = {}
        t = threading.Thread(target=lambda: box.update(
            answered=writers(h, k)))
        t1 = time.monotonic()
        t.start()
        while t.is_alive():
            ls.pump(0.05)
        t.join()
        answered = box.get("answered", 0)
        R.note("F: %d write_note calls answered of %d in %.1f s (16 "
               "connections)" % (answered, k, time.monotonic() - t1))
        R.check(answered == k, "F: every write_note call is answered",
                "%d of %d" % (answered, k))
        done = ls.until(lambda d: d["updated"] >= answered or d["eof"], 300)
        R.note("F: every frame read %.1f s after the first call" % (
            time.monotonic() - t1))
        ls.pump(0.5)
        counts = {}
        for d in ls.st:
            counts[d["updated"]] = counts.get(d["updated"], 0) + 1
        R.check(done and all(d["updated"] == answered and not d["eof"]
                             for d in ls.st),
                "F: each of %d listeners got exactly one frame per answered "
                "call (%d), none ended" % (n, answered),
                "frames per listener: %r, %d ended" % (
                    counts, sum(d["eof"] for d in ls.st)))
        st = listen_stats(h.port)
        R.check(st.get("workerWaits") == 0 and st.get("eventsShed") == 0 and
                st.get("endedForShed") == 0 and
                st.get("droppedSlow") == 0,
                "F: no worker waited for the hub, nothing shed, no stream "
                "dropped", json.dumps(st))
        R.check(not any("could not reach the hub" in e[3] for e in
                        wymcp_e2e.log_entries(h.fcgi_log)),
                "F: the log has no event that could not reach the hub")
    finally:
        ls.close()


def part_s(h):
    ls = Listeners(h.port, 50, ["/mcp-anon"])
    hub = h.hub()
    st = {}
    try:
        R.check(ls.until(lambda d: d["acked"] or d["eof"], 60) and
                all(d["acked"] for d in ls.st),
                "S: 50 more listeners acknowledged")
        os.kill(hub, signal.SIGSTOP)
        hd = list(std_headers("tools/call", "flood_events").items())
        end = time.monotonic() + 180
        calls = 0
        try:
            while time.monotonic() < end and not st.get("eventsShed"):
                Client(h.port).send("POST", "/mcp", enc(rpc(
                    1, "tools/call", {"name": "flood_events", "arguments": {
                        "n": 64, "size": 2000}})), hd)
                calls += 1
                st = listen_stats(h.port)
        finally:
            os.kill(hub, signal.SIGCONT)
        R.note("S: %d flood_events calls (64 events of 2 KB each) with the "
               "hub stopped" % calls)
        R.check(st.get("eventsShed", 0) > 0 and st.get("workerWaits", 0) > 0,
                "S: the hub stopped, the workers' channel fills: workers "
                "wait (20 ms at most), then shed, counted",
                json.dumps(st))
        ok = ls.until(lambda d: d["result"] or d["eof"], 120)
        R.check(ok and all(d["result"] for d in ls.st),
                "S: every listener may have missed an event: its stream ends "
                "with its result (its client listens again)",
                "%d of 50 got the result" % sum(d["result"] for d in ls.st))
        st = listen_stats(h.port)
        R.check(st.get("endedForShed", 0) >= 50 and st.get("held") == 0,
                "S: the status page counts the streams ended for it",
                json.dumps(st))
        R.check(any("could not reach the hub" in e[3] for e in
                    wymcp_e2e.log_entries(h.fcgi_log)),
                "S: the log says an event could not reach the hub")
    finally:
        ls.close()


def part_b(h):
    import e2e_bus
    why = wymcp_tasks.pg_missing()
    if why is not None:
        R.note("B: skipped: %s" % why)
        return
    e = wymcp_e2e.ARGS.bus_events
    b = e2e_bus.BusHarness(h.builddir, netns=False)
    b.nginx_bin = h.nginx_bin
    b.bindir = wymcp_tasks.pg_bindir()
    b.extra = ["--max-listeners", "200", "--max-listeners-per-principal",
               "200"]
    b.conns = 400
    ls = None
    try:
        b.start()
        for n in e2e_bus.NAMES:
            e2e_bus.wait_bus(b, n, lambda x: x.get("up") is True)
        ls = Listeners(b.port, 60, ["/" + n for n in e2e_bus.NAMES])
        R.check(ls.until(lambda d: d["acked"] or d["eof"], 60) and
                all(d["acked"] for d in ls.st),
                "B: 20 listeners on each of A, B, C acknowledged")
        ev = json.dumps({"v": 1, "k": "updated", "uri": "note://fan"},
                        separators=(",", ":")).encode()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        t0 = time.monotonic()
        for i in range(e):
            s.sendto(ev, os.path.join(b.tmp, "a.sock.hub"))
            if i % 500 == 0:
                ls.pump(0)
        sent = time.monotonic() - t0
        s.close()
        R.note("B: %d events sent to A's hub socket in %.2f s" % (e, sent))
        ok = ls.until(lambda d: d["updated"] >= e or d["eof"] or
                      d["result"], 300)
        full = sum(d["updated"] == e for d in ls.st)
        R.note("B: %d of 60 listeners got all %d, %d ended (%.1f s)" % (
            full, e, sum(d["eof"] or d["result"] for d in ls.st),
            time.monotonic() - t0))
        R.check(ok and all(d["updated"] == e or d["eof"] or d["result"]
                           for d in ls.st),
                "B: every listener on A, B and C got all %d events or its "
                "stream ended" % e, json.dumps([
                    (d["updated"], d["eof"], d["result"]) for d in ls.st
                    if d["updated"] != e][:10]))
        sa = listen_stats(b.port, "/a-status")
        bus = sa.get("bus", {})
        R.check(0 < bus.get("notifies", e) < e // 10,
                "B: A's NOTIFYs carry many events each (%r NOTIFYs for %r "
                "events)" % (bus.get("notifies"), bus.get("eventsSent")),
                json.dumps(bus))
    finally:
        if ls is not None:
            ls.close()
        b.stop()
        b.cleanup()


def body(h):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wymcp_e2e.ARGS.listeners + 500
    if hard < need:
        R.note("skipped: the open-file limit (%d) is below %d" % (hard,
                                                                  need))
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    h.paths()
    h.start()
    part_f(h)
    part_s(h)
    part_b(h)


def options(ap):
    ap.add_argument("--listeners", type=int, default=2000)
    ap.add_argument("--calls", type=int, default=320)
    ap.add_argument("--bus-events", type=int, default=6000)


if __name__ == "__main__":
    sys.exit(wymcp_e2e.run_layer(FanHarness, body, options=options))
