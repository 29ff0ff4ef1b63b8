#!/usr/bin/env python3
"""e2e_bus.py - events across instances on a PostgreSQL bus.

Usage: e2e_bus.py [--builddir DIR] [--keep] [--netns]

Three wymcp-fcgi instances, A, B and C (two workers each, the examples
module, --bus naming one private PostgreSQL cluster: initdb into the
temporary directory, a unix socket only, run as nobody when root),
each on its own unix socket behind one nginx (/a, /b, /c), prove:

  X  a note written through A reaches the listeners held by B's and
     C's hubs (notifications/resources/updated, tagged with each
     stream's own subscription id) and A's own, once each; a listener
     that asked for another URI hears nothing;
  P  PostgreSQL restarted (-m fast): the hubs' status pages show the bus
     down, then up again with one connection more; the streams that
     were open during the outage end gracefully (their result: they may
     have missed events), a note written through A while the bus was
     down still reaches A's own listeners, and listeners opened after
     the restart get events across hosts again; nothing crashes;
  Q  wymcp-fcgi --publish "updated URI" --bus ... (a cron job, a
     trigger: NOTIFY) reaches the listeners of every instance.

With --netns (the hosts e2e layer of runtests; root) A, B and C are
hosts: network namespaces on one bridge (t/e2e/lib/wymcp_netns.py),
each wymcp-fcgi listening for FastCGI on its own address with
--allow-peer naming nginx's; the database is on a unix socket in the
temporary directory, which every namespace sees.  Every namespace, veth
and process is removed again.

Without PostgreSQL's initdb it prints "SKIP: ..." and exits 77, as
without nginx (and, with --netns, without root or ip).  Every process it starts is stopped by PID, on failure
or a signal too.  Prints "ok - NAME" / "not ok - NAME: DETAIL" and
"N passed, M failed".  Python 3 standard library only.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
import wymcp_e2e
import wymcp_netns
import wymcp_tasks
from wymcp_e2e import R, Client, enc, hlist, rpc, std_headers
from wymcp_listen import SUB, Stream

NAMES = ("a", "b", "c")
PORT = 9000		# --netns: FastCGI on each host's own address


class BusHarness:
    """Not wymcp_e2e.Harness: three instances and a database."""

    def __init__(self, builddir, keep=False, netns=None):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.netns = wymcp_e2e.ARGS.netns if netns is None else netns
        self.extra = []		# more wymcp-fcgi options (listenbench.py)
        self.conns = 64		# nginx's worker_connections
        self.tmp = None
        self.nginx_bin = None
        self.nginx = None
        self.procs = {}
        self.logs = {}
        self.bindir = None
        self.net = None

    def begin(self, prefix):
        """What every bus harness starts with: wymcp-fcgi and the
        examples module built, a private directory (self.tmp), a private
        PostgreSQL (self.uri) and psql on it (self.psql)."""
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mod = os.path.join(self.builddir, "tools", ".libs",
                                "examples.so")
        wymcp_e2e.need_built(self.prog, self.mod)
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.tmp, 0o755)
        self.uri = wymcp_tasks.pg_start(self.tmp, self.bindir)
        self.psql = [os.path.join(self.bindir, "psql"), "-h",
                     os.path.join(self.tmp, "pg"), "-d", "tasks", "-v",
                     "ON_ERROR_STOP=1", "-q"]

    def start(self):
        self.begin("wymcp-bus.")
        notes = os.path.join(self.tmp, "notes")
        os.makedirs(notes)
        env = dict(os.environ, WYMCP_NOTES_DIR=notes)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        where = {}		# name -> what nginx passes to
        if self.netns:
            self.net = wymcp_netns.Net(PORT)
            hosts = self.net.add_lan_hosts(["h" + n for n in NAMES])
        for n in NAMES:
            self.logs[n] = os.path.join(self.tmp, n + ".log")
            if self.net is not None:
                hh = hosts["h" + n]
                listen = ["--listen", "%s:%d" % (hh["addr"], PORT),
                          "--allow-peer", hh["peer"]]
                where[n] = "%s:%d" % (hh["addr"], PORT)
                pre = ["ip", "netns", "exec", hh["ns"]]
            else:
                sock = os.path.join(self.tmp, n + ".sock")
                listen = ["--listen", "unix:" + sock]
                where[n] = "unix:" + sock
                pre = []
            argv = pre + wymcp_e2e.wrap_argv([
                self.prog] + listen + ["--workers", "2",
                "--module", self.mod, "--bus", self.uri,
                "--status-path", "/%s-status" % n, "-v", "-v"] +
                self.extra)
            with open(self.logs[n], "wb") as log:
                self.procs[n] = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    env=env, cwd=self.tmp)
        wymcp_tasks.wait_serving(self.logs, self.procs)
        locs = wymcp_e2e.instance_locations(where)
        self.nginx, self.port = wymcp_tasks.start_nginx(
            self.nginx_bin, self.tmp, "bus", locs, self.conns)

    def stop(self):
        wymcp_tasks.stop_lan(R.check, self.nginx, self.procs.values(),
                             net=self.net, tmp=self.tmp, bindir=self.bindir)
        self.nginx = self.net = None

    def sanitizer_reports(self):
        hits = []
        for path in self.logs.values():
            for line in wymcp_e2e.tail(path, 100000):
                if any(m in line for m in wymcp_e2e.SANITIZER_MARKS):
                    hits.append(line.strip())
        return hits

    def dump_logs(self):
        for n, path in sorted(self.logs.items()):
            print("# ---- tail of %s" % path)
            for line in wymcp_e2e.tail(path, 20):
                print("#   " + line)

    def cleanup(self):
        if self.tmp and not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


def bus_of(h, n):
    r = Client(h.port).send("GET", "/%s-status" % n)
    try:
        return json.loads(r.raw.decode()).get("listen", {}).get("bus", {})
    except ValueError:
        return {}


def wait_bus(h, n, pred, timeout=15):
    end = time.monotonic() + timeout
    b = {}
    while time.monotonic() < end:
        b = bus_of(h, n)
        if pred(b):
            return b
        time.sleep(0.1)
    return b


def write(h, via, name, text):
    return Client(h.port).send(
        "POST", "/" + via, enc(rpc(1, "tools/call", {
            "name": "write_note", "arguments": {"name": name,
                                                "text": text}})),
        hlist(std_headers("tools/call", "write_note")))


def listen(h, n, uri, rid):
    s = Stream(h.port, {"resourceSubscriptions": [uri]}, rid, "/" + n)
    s.wait(lambda x: len(x.frames) >= 1)
    return s


def updates(s):
    return s.notes("notifications/resources/updated")


def body(h):
    h.bindir = wymcp_tasks.pg_bindir()
    h.start()
    for n in NAMES:
        b = wait_bus(h, n, lambda b: b.get("up") is True)
        R.check(b.get("up") is True, "%s: the hub listens on the bus" %
                n.upper(), json.dumps(b))

    # X: across instances.
    ls = {n: listen(h, n, "note://x", "x-" + n) for n in NAMES}
    other = listen(h, "b", "note://y", "y-b")
    r = write(h, "a", "x", "one")
    R.check(r.status == 200, "X: write_note through A", r.brief())
    for n in NAMES:
        ok = ls[n].wait(lambda s: len(updates(s)) >= 1)
        u = updates(ls[n])
        R.check(ok and len(u) == 1 and u[0]["params"]["uri"] ==
                "note://x" and u[0]["params"]["_meta"][SUB] == "x-" + n,
                "X: the note written through A reaches %s's listener, "
                "tagged with its id" % n.upper(), json.dumps(ls[n].frames))
    other.pump(0.5)
    R.check(len(updates(other)) == 0, "X: a listener of another URI "
            "hears nothing", json.dumps(other.frames))
    for n in NAMES:
        ls[n].pump(0.3)
        R.check(len(updates(ls[n])) == 1, "X: %s heard it once" %
                n.upper(), json.dumps(updates(ls[n])))
    sent = bus_of(h, "a").get("eventsSent", 0)
    got = [bus_of(h, n).get("eventsReceived", 0) for n in NAMES]
    R.check(sent >= 1 and all(g >= 1 for g in got),
            "X: the status pages count the bus's events",
            "A sent %r, received %r" % (sent, got))

    # P: PostgreSQL restarted.
    before = [bus_of(h, n).get("connects", 0) for n in NAMES]
    wymcp_tasks.pg_ctl(h.tmp, h.bindir, "stop", "-m", "fast")
    down = wait_bus(h, "a", lambda b: b.get("up") is False, 10)
    R.check(down.get("up") is False and down.get("lastError"),
            "P: with the database stopped, A's status page shows the bus "
            "down, and why", json.dumps(down))
    r = write(h, "a", "x", "two")
    ls["a"].wait(lambda s: len(updates(s)) >= 2, 5)
    R.check(r.status == 200 and len(updates(ls["a"])) == 2,
            "P: meanwhile a note written through A reaches A's own "
            "listener", json.dumps(updates(ls["a"])))
    wymcp_tasks.pg_ctl(h.tmp, h.bindir, "start", check=True)
    for i, n in enumerate(NAMES):
        b = wait_bus(h, n, lambda b: b.get("up") is True and
                     b.get("connects", 0) > before[i], 20)
        R.check(b.get("up") is True and b.get("connects", 0) > before[i],
                "P: %s's hub listens on the bus again" % n.upper(),
                json.dumps(b))
    for n in NAMES:
        ok = ls[n].wait(lambda s: s.eof, 10)
        res = [f for f in ls[n].frames if "result" in f]
        R.check(ok and len(res) == 1 and res[0]["id"] == "x-" + n,
                "P: %s's stream open during the outage ends gracefully "
                "(listen again)" % n.upper(), json.dumps(ls[n].frames[-2:]))
    fresh = {n: listen(h, n, "note://z", "z-" + n) for n in NAMES}
    write(h, "c", "z", "three")
    for n in NAMES:
        ok = fresh[n].wait(lambda s: len(updates(s)) >= 1)
        R.check(ok, "P: after the restart a note written through C "
                "reaches %s's new listener" % n.upper(),
                json.dumps(fresh[n].frames))
    # Q: anything else publishes with NOTIFY (wymcp-fcgi --publish).
    q = subprocess.run(wymcp_e2e.wrap_argv([h.prog, "--publish",
                                            "updated note://z", "--bus",
                                            h.uri]),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for n in NAMES:
        ok = fresh[n].wait(lambda s: len(updates(s)) >= 2)
        R.check(q.returncode == 0 and ok, "Q: wymcp-fcgi --publish "
                "--bus reaches %s's listener" % n.upper(),
                "%d %r" % (q.returncode, q.stdout[-200:]))
    for s in list(ls.values()) + list(fresh.values()) + [other]:
        s.close()
    for n in NAMES:
        R.check(h.procs[n].poll() is None, "P: instance %s is still "
                "running" % n.upper(), "exited %r" % h.procs[n].poll())


def options(ap):
    ap.add_argument("--netns", action="store_true",
                    help="A, B and C in network namespaces (root)")


def main():
    if wymcp_tasks.pg_missing() is not None:
        print("SKIP: %s" % wymcp_tasks.pg_missing())
        return 77
    if "--netns" in sys.argv and wymcp_netns.unavailable() is not None:
        print("SKIP: %s" % wymcp_netns.unavailable())
        return 77
    return wymcp_e2e.run_layer(BusHarness, body, label="the instances' logs",
                               options=options)


if __name__ == "__main__":
    sys.exit(main())
