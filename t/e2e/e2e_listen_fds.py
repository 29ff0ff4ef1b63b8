#!/usr/bin/env python3
"""e2e_listen_fds.py - the hub and the open-file limit.

Usage: e2e_listen_fds.py [--builddir DIR] [--keep] [-v]

wymcp-fcgi (one worker, --max-listeners 300) behind nginx, started with
a soft open-file limit of 64 (systemd's 1024 against a larger
--max-listeners, made small), proves:

  S  the hub raises its soft limit: 150 streams are all acknowledged
     and held, none lost;
  H  (root) the hub's hard limit lowered to 80 under it (prlimit(2)):
     the hub sees it within a tick (descriptorRoom on the status page)
     and listens past it get 503 with Retry-After before any
     acknowledgement (refusedNoFd), never 200 and an empty end; none is
     lost (lostNoFd 0), the Prometheus wymcp_listen_held equals the
     streams open, and once every stream is closed it is 0 again and a
     new listen is held;
  W  (root) started under a hard limit of 64: the hub logs that the
     limit is below --max-listeners + 64.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed".
Python 3 standard library only.
"""

import json
import os
import resource
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_e2e
from wymcp_e2e import R, Client
from wymcp_listen import STATUS, HubHarness, Stream


class FdsHarness(HubHarness):
    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        self.nworkers = 1
        self.tools = ["examples"]
        self.hub_args = ["--max-listeners", "300",
                         "--max-listeners-per-principal", "300"]

    def start_fcgi(self):
        old = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, old[1]))
        try:
            HubHarness.start_fcgi(self)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, old)

    def nginx_conf(self, sock, port, port2):
        return HubHarness.nginx_conf(self, sock, port, port2).replace(
            "events { worker_connections 256; }",
            "worker_rlimit_nofile 2000;\n"
            "events { worker_connections 1000; }")


def stats(h):
    r = Client(h.port).send("GET", STATUS)
    try:
        return json.loads(r.raw.decode()).get("listen", {})
    except ValueError:
        return {}


def prom_held(h):
    r = Client(h.port).send("GET", STATUS + "?format=prometheus")
    for line in r.raw.decode().splitlines():
        if line.startswith("wymcp_listen_held "):
            return int(line.split()[1])
    return None


def wait(pred, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


def open_many(h, n, base):
    ss = [Stream(h.port, {"resourceSubscriptions": ["note://f"]}, base + i,
                 "/mcp-anon") for i in range(n)]
    end = time.monotonic() + 20
    for s in ss:	# pump() reads for its whole timeout: short ones
        while not (s.frames or s.eof) and time.monotonic() < end:
            s.pump(0.01)
    return ss


def body(h):
    h.paths()
    h.start()
    hub = h.hub()
    lim = open("/proc/%d/limits" % hub).read() if hub else ""
    soft = next((int(line.split()[3]) for line in lim.splitlines()
                 if line.startswith("Max open files")), 0)
    R.check(soft >= 364, "S: the hub raised its soft open-file limit "
            "from 64 to --max-listeners + 64", "soft %d" % soft)

    ss = open_many(h, 150, 1000)
    acked = [s for s in ss if s.frames and not s.eof]
    R.check(len(acked) == 150 and wait(lambda: stats(h).get("held") == 150),
            "S: 150 streams with a soft limit of 64: all acknowledged and "
            "held", "%d acknowledged, %r" % (len(acked), stats(h)))
    R.check(stats(h).get("lostNoFd") == 0, "S: none lost", json.dumps(
        stats(h)))
    for s in ss:
        s.close()
    R.check(wait(lambda: stats(h).get("held") == 0 and prom_held(h) == 0),
            "S: every stream closed: none held", json.dumps(stats(h)))

    if os.geteuid() != 0:
        R.note("H: skipped (lowering the hub's hard limit under it and "
               "back is root's)")
        return
    resource.prlimit(hub, resource.RLIMIT_NOFILE, (80, 80))
    R.check(wait(lambda: 0 < stats(h).get("descriptorRoom", 0) < 80),
            "H: the hub sees its lowered limit within a tick "
            "(descriptorRoom)", json.dumps(stats(h)))
    room = stats(h).get("descriptorRoom", 0)
    ss = open_many(h, 120, 2000)
    time.sleep(0.5)
    for s in ss:
        s.pump(0.01)
    held = [s for s in ss if s.status == 200]
    refused = [s for s in ss if s.status == 503]
    st = stats(h)
    R.check(len(held) == room and len(refused) == 120 - room,
            "H: past the limit a listen gets 503, never 200 (%d held = "
            "descriptorRoom, %d refused)" % (len(held), len(refused)),
            json.dumps(st))
    R.check(all(s.frames and not s.eof for s in held),
            "H: every stream acknowledged is held, none closed after its "
            "acknowledgement", json.dumps([s.frames for s in held
                                           if s.eof][:2]))
    R.check(all("retry-after:" in s.headers.lower() and not s.frames
                for s in refused),
            "H: a refused listen says Retry-After, and nothing else",
            refused[0].headers if refused else "")
    R.check(st.get("lostNoFd") == 0 and st.get("refusedNoFd") ==
            len(refused), "H: none lost; refusedNoFd counts the 503s",
            json.dumps(st))
    R.check(wait(lambda: prom_held(h) == len(held) and
                 stats(h).get("held") == len(held)),
            "H: held %r = wymcp_listen_held %r = open %d" % (
                stats(h).get("held"), prom_held(h), len(held)))
    for s in ss:
        s.close()
    R.check(wait(lambda: prom_held(h) == 0 and stats(h).get("held") == 0),
            "H: every stream closed: no slot left taken",
            "wymcp_listen_held %r, %r" % (prom_held(h), stats(h)))
    one = open_many(h, 1, 3000)[0]
    R.check(one.frames and not one.eof and
            wait(lambda: stats(h).get("held") == 1),
            "H: a new listen is held again", json.dumps(one.frames))
    one.close()

    # W: a hard limit below --max-listeners + 64 from the start.
    log = os.path.join(h.tmp, "w.log")
    with open(log, "wb") as f:
        w = subprocess.Popen(
            wymcp_e2e.wrap_argv([h.prog, "--listen", "unix:" + os.path.join(
                h.tmp, "w.sock"), "--workers", "1", "--module", h.moddir,
                "--max-listeners", "300"]), stdin=subprocess.DEVNULL, stdout=f, stderr=f,
            preexec_fn=lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, (64, 64)))
    try:
        R.check(wait(lambda: any(
            "open-file limit (64) is below --max-listeners + 64 (364)" in
            e[3] for e in wymcp_e2e.log_entries(log))),
            "W: under a hard limit of 64 the hub says so (64 < 364)",
            "".join(wymcp_e2e.tail(log, 5)))
    finally:
        wymcp_e2e.stop_pid(w.pid, w, 10)


if __name__ == "__main__":
    sys.exit(wymcp_e2e.run_layer(FdsHarness, body))
