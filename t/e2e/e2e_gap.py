#!/usr/bin/env python3
"""e2e_gap.py - events shed on the bus: every other host's listener is told.

Usage: e2e_gap.py [--builddir DIR] [--keep]

Three wymcp-fcgi instances, A, B and C (two workers each, the examples
module, one --state-key-file, --bus naming one private PostgreSQL
cluster; A's bus connection logs in as its own role hub_a, which has no
privilege), each on its own unix socket behind one nginx (/a, /b, /c),
and a role m of that cluster that may log in and nothing else (CREATE
ROLE m LOGIN), prove (issue 35, wymcp-fcgi(8) "Events and commands"):

  F  psql as m sends a "gap" on wymcp_events, sealed with a made-up MAC,
     and one unsealed: B's and C's hubs refuse them (counted: forged,
     command), their listeners stay open and get the next update, no
     stream is ended for a gap;
  G  A's bus made unreachable (hub_a may no longer log in, its LISTEN
     connection terminated): notes written through A meanwhile reach
     A's own listeners only, and A's status page counts them shed on
     the bus.  hub_a may log in again: once A's hub is back on the bus,
     every listener on B and C either got every one of those notes or
     its stream ended with the listen result (a sealed gap of A's; on
     fea4807 they got neither); the gap names what was shed (the
     resources list kind, note://g), so a listener on B and C of
     another URI stays open and gets its next update; the status pages
     count the gap sent, the gaps received and the streams ended for
     them (JSON and Prometheus); new listeners on B and C get A's notes
     again;
  R  A's gap, read off the bus by m (LISTEN) and sent again by m (a
     replay), ends nothing: B's and C's hubs refuse it (replayed) and
     their listeners get the next update;
  L  A holds no stream when its bus is cut again; a listener opened on A
     during the outage misses a note written through B, so it ends with
     its result once A is back on the bus (on fea4807 it stayed open,
     the note lost to it).

Not a timed test: it waits for states, with generous limits.  Skips (77)
without PostgreSQL or nginx.  Every process it starts is stopped by PID.
Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed".
Python 3 standard library only.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_e2e
import wymcp_tasks
from wymcp_e2e import R
from e2e_bus import BusHarness, bus_of, wait_bus, write, listen, updates
from e2e_intake import notify_as_m, refused, wait_refused, status, \
    alive_streams

NAMES = ("a", "b", "c")
OTHERS = ("b", "c")
K = 3			# notes written through A while its bus is down


class GapHarness(BusHarness):
    """Three instances with one state key; A on the bus as hub_a."""

    def __init__(self, builddir, keep=False):
        BusHarness.__init__(self, builddir, keep, netns=False)
        self.spy = None		# psql LISTENing as m

    def start(self):
        self.begin("wymcp-gap.")
        self.sql("CREATE ROLE m LOGIN")
        self.sql("CREATE ROLE hub_a LOGIN")
        self.key = os.path.join(self.tmp, "state.key")
        subprocess.run(wymcp_e2e.wrap_argv([self.prog, "--generate-key",
                                            self.key]), check=True,
                       stdout=subprocess.DEVNULL)
        notes = os.path.join(self.tmp, "notes")
        os.makedirs(notes)
        env = dict(os.environ, WYMCP_NOTES_DIR=notes)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        socks = {}
        for n in NAMES:
            self.logs[n] = os.path.join(self.tmp, n + ".log")
            socks[n] = os.path.join(self.tmp, n + ".sock")
            bus = self.uri if n != "a" else \
                self.uri.replace("user=wymcp", "user=hub_a")
            argv = wymcp_e2e.wrap_argv([
                self.prog, "--listen", "unix:" + socks[n],
                "--workers", "2", "--module", self.mod, "--bus", bus,
                "--state-key-file", self.key,
                "--status-path", "/%s-status" % n, "-v", "-v"])
            with open(self.logs[n], "wb") as log:
                self.procs[n] = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    env=env, cwd=self.tmp)
        wymcp_tasks.wait_serving(self.logs, self.procs)
        locs = wymcp_e2e.instance_locations(
            {n: "unix:" + w for n, w in socks.items()})
        self.nginx, self.port = wymcp_tasks.start_nginx(
            self.nginx_bin, self.tmp, "gap", locs, self.conns)

    def sql(self, q, user="wymcp"):
        return subprocess.run(wymcp_tasks.as_user(self.psql + [
            "-U", user, "-c", q]), check=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)

    def stop(self):
        if self.spy is not None and self.spy.poll() is None:
            self.spy.kill()
            self.spy.wait()
        self.spy = None
        BusHarness.stop(self)


def spy_start(h):
    """psql as m, LISTENing on wymcp_events (what any role can read)."""
    h.spy = subprocess.Popen(wymcp_tasks.as_user(h.psql + ["-U", "m"]),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
    h.spy.stdin.write(b"LISTEN wymcp_events;\n")
    h.spy.stdin.flush()


def spy_gaps(h):
    """The sealed gaps m heard (psql prints the notifications after its
    next query)."""
    try:
        out, _ = h.spy.communicate(b"SELECT 1;\n\\q\n", timeout=60)
    except subprocess.TimeoutExpired:
        h.spy.kill()
        out, _ = h.spy.communicate()
    h.spy = None
    got = []
    for p in re.findall(r'with payload "(.*?)" received from server',
                        out.decode("utf-8", "replace"), re.S):
        for line in p.split("\n"):
            try:
                f = json.loads(line)
            except ValueError:
                continue
            if isinstance(f, dict) and f.get("k") == "sealed" and \
                    '"k":"gap"' in f.get("e", ""):
                got.append(line)
    return got


def ended_with_result(s, rid):
    return s.eof and any(f.get("id") == rid and "result" in f
                         for f in s.frames)


def wait_all(streams, pred, timeout):
    end = time.monotonic() + timeout
    for s in streams.values():
        s.wait(pred, max(0.1, end - time.monotonic()))
    return all(pred(s) for s in streams.values())


def listen_stat(h, n):
    return status(h, n).get("listen", {})


def f_section(h):
    ls = {"%s%d" % (n, i): listen(h, n, "note://f", "f-%s%d" % (n, i))
          for n in OTHERS for i in range(2)}
    body = json.dumps({"v": 1, "k": "gap", "from": "0" * 16,
                       "n": "1" * 16})
    forged = json.dumps({"v": 1, "k": "sealed", "kid": "00000000",
                         "t": int(time.time()), "mac": "00" * 32,
                         "e": body})
    before = {n: refused(h, n, "bus") for n in OTHERS}
    for p in (forged, body):
        r = notify_as_m(h, p)
        R.check(r.returncode == 0, "F: m NOTIFYs %s" % p[:40],
                r.stdout.decode("utf-8", "replace")[-200:])
    for n in OTHERS:
        b0 = before[n]
        got = wait_refused(h, n, "bus", lambda g: g.get("forged", 0) >
                           b0.get("forged", 0) and g.get("command", 0) >
                           b0.get("command", 0))
        R.check(got.get("forged", 0) > b0.get("forged", 0) and
                got.get("command", 0) > b0.get("command", 0),
                "F: %s's hub refuses the forged gap (forged) and the "
                "unsealed one (command)" % n.upper(), json.dumps(got))
    alive_streams(h, ls, "F", "f")
    for n in OTHERS:
        e = listen_stat(h, n).get("endedForBusGap")
        R.check(e == 0, "F: %s ended no stream for a gap" % n.upper(),
                repr(e))
    for s in ls.values():
        s.close()


def g_section(h):
    ls = {"%s%d" % (n, i): listen(h, n, "note://g", "g-%s%d" % (n, i))
          for n in NAMES for i in range(2)}
    others = {k: s for k, s in ls.items() if k[0] != "a"}
    own = {k: s for k, s in ls.items() if k[0] == "a"}
    keep = {n: listen(h, n, "note://keep", "keep-" + n) for n in OTHERS}
    before = bus_of(h, "a")
    h.sql("ALTER ROLE hub_a NOLOGIN")
    h.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
          "WHERE usename = 'hub_a'")
    down = wait_bus(h, "a", lambda b: b.get("up") is False, 20)
    R.check(down.get("up") is False, "G: A's bus connection terminated, "
            "hub_a may not log in: A's bus is down", json.dumps(down))
    for i in range(K):
        r = write(h, "a", "g", "while down %d" % i)
        R.check(r.status == 200, "G: write_note g through A (%d)" % i,
                r.brief())
    ok = wait_all(own, lambda s: len(updates(s)) >= K, 15)
    R.check(ok, "G: A's own listeners get the %d notes" % K,
            json.dumps({k: len(updates(s)) for k, s in own.items()}))
    shed = bus_of(h, "a").get("eventsShed", 0)
    R.check(shed - before.get("eventsShed", 0) >= K,
            "G: A's status page counts them shed on the bus",
            "%r then %r" % (before.get("eventsShed"), shed))
    h.sql("ALTER ROLE hub_a LOGIN")
    up = wait_bus(h, "a", lambda b: b.get("up") is True and
                  b.get("connects", 0) > before.get("connects", 0), 30)
    R.check(up.get("up") is True, "G: A's hub is on the bus again",
            json.dumps(up))

    def told(s):
        return len(updates(s)) >= K or s.eof

    wait_all(others, told, 30)
    for k, s in sorted(others.items()):
        R.check(len(updates(s)) >= K or ended_with_result(s, "g-" + k),
                "G: %s's listener %s got all %d notes or its stream ended "
                "with the listen result" % (k[0].upper(), k, K),
                "%d updates, eof %r, last %s" % (
                    len(updates(s)), s.eof, json.dumps(s.frames[-2:])))
    for s in keep.values():
        s.pump(0.5)
    alive_streams(h, keep, "G: the gap names note://g: a listener of "
                  "another URI", "keep")
    a = bus_of(h, "a")
    R.check(a.get("gapsSent", 0) >= 1, "G: A's status page counts the "
            "gap it sent", json.dumps(a))
    for n in OTHERS:
        b = bus_of(h, n)
        e = listen_stat(h, n).get("endedForBusGap", 0)
        R.check(b.get("gapsReceived", 0) >= 1 and e >= 2,
                "G: %s's status page counts the gap and the streams "
                "ended for it" % n.upper(),
                "gapsReceived %r, endedForBusGap %r" %
                (b.get("gapsReceived"), e))
        prom = status(h, n, prom=True)
        m1 = re.search(r'^wymcp_listen_ended_total\{why="bus_gap"\} (\d+)$',
                       prom, re.M)
        m2 = re.search(r'^wymcp_bus_gaps_total\{way="received"\} (\d+)$',
                       prom, re.M)
        R.check(m1 is not None and int(m1.group(1)) >= 2 and
                m2 is not None and int(m2.group(1)) >= 1,
                "G: %s's Prometheus text counts them" % n.upper(),
                "%r %r" % (m1 and m1.group(0), m2 and m2.group(0)))
    prom = status(h, "a", prom=True)
    R.check(re.search(r'^wymcp_bus_events_total\{way="shed"\} [1-9]', prom,
                      re.M) is not None,
            "G: A's Prometheus text counts the events shed",
            "\n".join(x for x in prom.splitlines() if "bus" in x))
    for s in list(ls.values()) + list(keep.values()):
        s.close()
    fresh = {n: listen(h, n, "note://g2", "g2-" + n) for n in OTHERS}
    write(h, "a", "g2", "after")
    for n, s in fresh.items():
        R.check(s.wait(lambda x: len(updates(x)) >= 1, 15),
                "G: after the outage a note written through A reaches "
                "%s's new listener" % n.upper(), json.dumps(s.frames))
    return fresh


def r_section(h, fresh):
    gaps = spy_gaps(h)
    R.check(len(gaps) >= 1, "R: m read A's sealed gap off the bus",
            "%d gaps" % len(gaps))
    if not gaps:
        return
    before = {n: refused(h, n, "bus") for n in OTHERS}
    ended = {n: listen_stat(h, n).get("endedForBusGap", 0) for n in OTHERS}
    r = notify_as_m(h, gaps[0])
    R.check(r.returncode == 0, "R: m sends it again",
            r.stdout.decode("utf-8", "replace")[-200:])
    for n in OTHERS:
        b0 = before[n]
        got = wait_refused(h, n, "bus", lambda g: g.get("replayed", 0) >
                           b0.get("replayed", 0))
        R.check(got.get("replayed", 0) > b0.get("replayed", 0),
                "R: %s's hub refuses the replayed gap" % n.upper(),
                json.dumps(got))
    alive_streams(h, fresh, "R", "g2")
    for n in OTHERS:
        e = listen_stat(h, n).get("endedForBusGap", 0)
        R.check(e == ended[n], "R: %s ended no stream for the replay" %
                n.upper(), "%r then %r" % (ended[n], e))
    for s in fresh.values():
        s.close()


def l_section(h):
    before = bus_of(h, "a")
    h.sql("ALTER ROLE hub_a NOLOGIN")
    h.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
          "WHERE usename = 'hub_a'")
    down = wait_bus(h, "a", lambda b: b.get("up") is False, 20)
    R.check(down.get("up") is False, "L: A's bus is down again",
            json.dumps(down))
    late = listen(h, "a", "note://late", "late-a")
    r = write(h, "b", "late", "missed by A")
    R.check(r.status == 200, "L: write_note late through B", r.brief())
    h.sql("ALTER ROLE hub_a LOGIN")
    up = wait_bus(h, "a", lambda b: b.get("up") is True and
                  b.get("connects", 0) > before.get("connects", 0), 30)
    R.check(up.get("up") is True, "L: A's hub is on the bus again",
            json.dumps(up))
    late.wait(lambda s: s.eof, 20)
    R.check(ended_with_result(late, "late-a"), "L: A's listener opened "
            "during the outage ends with the listen result",
            "eof %r, last %s" % (late.eof, json.dumps(late.frames[-2:])))
    late.close()


def body(h):
    h.bindir = wymcp_tasks.pg_bindir()
    h.start()
    for n in NAMES:
        b = wait_bus(h, n, lambda b: b.get("up") is True)
        R.check(b.get("up") is True, "%s: the hub listens on the bus" %
                n.upper(), json.dumps(b))
    spy_start(h)
    f_section(h)
    fresh = g_section(h)
    r_section(h, fresh)
    l_section(h)
    for n in NAMES:
        R.check(h.procs[n].poll() is None, "instance %s is still running" %
                n.upper(), "exited %r" % h.procs[n].poll())


def main():
    if wymcp_tasks.pg_missing() is not None:
        print("SKIP: %s" % wymcp_tasks.pg_missing())
        return 77
    return wymcp_e2e.run_layer(GapHarness, body, label="the instances' logs")


if __name__ == "__main__":
    sys.exit(main())
