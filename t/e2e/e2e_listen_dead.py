#!/usr/bin/env python3
"""e2e_listen_dead.py - workers that die holding a counted place.

Usage: e2e_listen_dead.py [--builddir DIR] [--keep] [-v]

Starts wymcp-fcgi with 3 workers, --max-listeners 3,
--max-listeners-per-principal 2, --max-asking 1 and --ask-timeout 60
behind a private nginx, with a status page, and LD_PRELOAD a shim
(t/e2e/lib/stall_write.c, built here with cc) that stops a worker in
the write(2) of a listen's acknowledgement while a file exists: the
worker then holds a listen slot and its principal's share, and has not
handed the stream to the hub.  Then proves:

  K  five times (more than --max-listeners, and than alice's share):
     a listen as alice stops its worker holding the slot; the worker is
     SIGKILLed; the supervisor gives the slot and the share back (the
     status page: slotsTaken 0 and no principal in the share table
     again, listen.reclaimed counts it), and the next listen is not
     refused (0.4 leaked each: the third got 429);
  N  then, the shim off, a listen is held by the hub as usual (200 and
     its acknowledgement, slotsTaken 1, one principal in the table), and
     once closed nothing is left taken; the Prometheus text says
     wymcp_listen_reclaimed_total 5, wymcp_listen_held 0 and the listen
     table's fill (wymcp_principal_shares{table="listen"} 0, its
     capacity 16, none refused);
  H  the hub SIGSTOPped, a listen is acknowledged and handed over (its
     worker done with it: counted on the status page); every worker is SIGKILLed; the hub, SIGCONTed,
     takes the stream: slotsTaken 1 and held 1, nothing reclaimed for
     the dead workers; closed, both 0 (never given back twice);
  Q  three times: a 2025-11-25 client's book_room asks its question and
     its worker is held (heldByQuestions 1, the holder's relay socket
     PID.N in the instance's relay directory); the holder is SIGKILLed;
     its place and share come back (heldByQuestions 0, askingReclaimed,
     the asking table empty), and the next question is asked, not
     refused for --max-asking 1.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed".
Python 3 standard library only (and cc for the shim).
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_e2e
from wymcp_e2e import R, Client
from wymcp_legacy import QUESTION, book, initialize
from wymcp_listen import STATUS, HubHarness, Stream

NEEDLE = "notifications/subscriptions/acknowledged"
ROUNDS = 5
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class DeadHarness(HubHarness):
    hub_args = ["--max-listeners", "3", "--max-listeners-per-principal",
                "2", "--max-asking", "1", "--ask-timeout", "60", "-v"]

    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        self.nworkers = 3
        self.tools = ["examples"]

    def start_fcgi(self):
        """wymcp-fcgi alone gets the shim and a TMPDIR of its own (its
        relay directory is found there); nginx gets neither."""
        self.stall = os.path.join(self.tmp, "stall.d")
        self.tmpdir = os.path.join(self.tmp, "t")
        os.makedirs(self.stall)
        os.makedirs(self.tmpdir)
        shim = os.path.join(self.tmp, "stall_write.so")
        cc = os.environ.get("CC_FOR_SHIM", "cc")
        p = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", shim,
                            os.path.join(SRCDIR, "t", "e2e", "lib",
                                         "stall_write.c"), "-ldl"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise wymcp_e2e.Failed("cc stall_write.c: " + p.stderr)
        saved = dict(os.environ)
        os.environ["LD_PRELOAD"] = shim
        os.environ["WYMCP_TEST_STALL_DIR"] = self.stall
        os.environ["WYMCP_TEST_STALL_ON"] = NEEDLE
        os.environ["TMPDIR"] = self.tmpdir
        # The shim is loaded before ASan's runtime: tell ASan so.
        asan = os.environ.get("ASAN_OPTIONS",
                              "detect_leaks=1:abort_on_error=1")
        os.environ["ASAN_OPTIONS"] = asan + ":verify_asan_link_order=0"
        try:
            HubHarness.start_fcgi(self)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def page(h):
    r = Client(h.port).send("GET", STATUS)
    try:
        return json.loads(r.raw.decode())
    except ValueError:
        return {}


def prom(h):
    return Client(h.port).send("GET", STATUS + "?format=prometheus") \
        .raw.decode()


def prom_value(text, name):
    m = re.search(r"(?m)^%s (\S+)$" % re.escape(name), text)
    return float(m.group(1)) if m else None


def until(pred, timeout=30):
    """pred() once true, or at the timeout (a loaded machine is slow:
    the bound is generous, nothing is timed)."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(0.05)


def listen_fig(h):
    st = page(h).get("listen", {})
    return (st.get("slotsTaken"), (st.get("shares") or {}).get("used"))


def stalled(h):
    return [int(f.rsplit(".", 1)[1]) for f in
            glob.glob(os.path.join(h.stall, "stalled.*"))]


def k_section(h):
    open(os.path.join(h.stall, "stall"), "w").close()
    gave = 0
    for i in range(ROUNDS):
        s = Stream(h.port, {"toolsListChanged": True}, "k%d" % i)
        pids = until(lambda: stalled(h) or (s.pump(0.01) or
                                            s.status is not None), 60)
        if not isinstance(pids, list) or len(pids) != 1:
            s.pump(0.5)
            R.fail("K: listen %d stops its worker holding a slot" % (i + 1),
                   "status %r %r, stalled %r, %r" % (
                       s.status, s.headers[:200], stalled(h), page(h)
                       .get("listen")))
            s.close()
            break
        pid = pids[0]
        R.check(listen_fig(h) == (1, 1),
                "K: listen %d holds a slot and alice's share in worker %d "
                "before the handoff" % (i + 1, pid), repr(listen_fig(h)))
        os.kill(pid, signal.SIGKILL)
        os.unlink(os.path.join(h.stall, "stalled.%d" % pid))
        s.close()
        got = until(lambda: listen_fig(h) == (0, 0))
        R.check(got, "K: worker %d SIGKILLed: its slot and share are given "
                "back (slotsTaken 0, no principal in the table)" % pid,
                repr(listen_fig(h)))
        if got:
            gave += 1
    st = page(h).get("listen", {})
    R.check(gave == ROUNDS and st.get("reclaimed") == ROUNDS and
            st.get("refused") == 0,
            "K: %d workers died holding a slot, more than --max-listeners "
            "(3): none refused, each counted as reclaimed" % ROUNDS,
            json.dumps(st))
    os.unlink(os.path.join(h.stall, "stall"))


def n_section(h):
    s = Stream(h.port, {"toolsListChanged": True}, "n")
    s.wait(lambda x: len(x.frames) >= 1, 30)
    R.check(s.status == 200 and s.frames and s.frames[0].get("method") ==
            NEEDLE and until(lambda: page(h).get("listen", {})
                             .get("held") == 1),
            "N: a listen after them is held by the hub",
            "%r %r" % (s.status, s.frames[:1]))
    st = page(h).get("listen", {})
    R.check(st.get("slotsTaken") == 1 and st.get("shares") ==
            {"used": 1, "capacity": 16, "refusedNoRoom": 0},
            "N: the status page: one slot taken, one principal in the "
            "table of 16", json.dumps(st))
    s.close()
    R.check(until(lambda: listen_fig(h) == (0, 0)),
            "N: closed: nothing left taken", repr(listen_fig(h)))
    t = prom(h)
    want = {"wymcp_listen_reclaimed_total": ROUNDS,
            "wymcp_listen_held": 0,
            'wymcp_principal_shares{table="listen"}': 0,
            'wymcp_principal_shares_capacity{table="listen"}': 16,
            'wymcp_principal_shares_refused_total{table="listen"}': 0,
            'wymcp_principal_shares{table="asking"}': 0,
            'wymcp_principal_shares_capacity{table="asking"}': 16}
    got = {k: prom_value(t, k) for k in want}
    R.check(got == want, "N: the Prometheus text says so", repr(got))
    R.check(len(re.findall(r"(?m)^# TYPE wymcp_principal_shares ", t)) == 1,
            "N: one TYPE line for the family, both tables under it")


def others(h):
    """Requests of methods not counted by name (a listen is one),
    counted by the worker once the library is done with each."""
    return sum(page(h).get("requests", {}).get("other", {}).values())


def h_section(h):
    """A stream handed over while the hub is stopped: the workers die
    after the handoff, and it is the hub's, not given back for them."""
    hub = h.hub()
    before = page(h).get("listen", {}).get("reclaimed")
    served = others(h)
    os.kill(hub, signal.SIGSTOP)
    try:
        s = Stream(h.port, {"toolsListChanged": True}, "h")
        s.wait(lambda x: len(x.frames) >= 1, 30)
        # Counted once the library is done with it: handed over.
        idle = until(lambda: others(h) > served)
        R.check(s.status == 200 and s.frames and idle,
                "H: the hub stopped, a listen is acknowledged and its "
                "worker is done with it (handed over, not yet taken)",
                "%r %r" % (s.status, s.frames[:1]))
        pids = h.workers()
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        until(lambda: not any(wymcp_e2e.alive(p) for p in pids))
        # Reaped: nothing of theirs to give back.
        until(lambda: len(set(h.workers()) - set(pids)) >= h.nworkers)
    finally:
        os.kill(hub, signal.SIGCONT)
    got = until(lambda: page(h).get("listen", {}).get("held") == 1)
    st = page(h).get("listen", {})
    R.check(got and st.get("slotsTaken") == 1 and
            st.get("reclaimed") == before and not s.eof,
            "H: every worker SIGKILLed after the handoff: the hub takes "
            "the stream once it runs again, its slot is not given back "
            "for them (slotsTaken 1, reclaimed unchanged)", json.dumps(st))
    s.close()
    R.check(until(lambda: listen_fig(h) == (0, 0) and page(h)
                  .get("listen", {}).get("held") == 0),
            "H: closed: nothing taken, nothing given back twice",
            repr(listen_fig(h)))


def holder(h):
    """The PIDs of the workers holding a question: their relay sockets
    PID.N in the instance's relay directory."""
    out = []
    for p in glob.glob(os.path.join(h.tmpdir, "wymcp-relay.*", "*")):
        m = re.match(r"(\d+)\.\d+$", os.path.basename(p))
        if m:
            out.append(int(m.group(1)))
    return out


def q_section(h):
    session = initialize(h.port, "alice")
    R.check(session is not None, "Q: a 2025-11-25 session")
    for i in range(3):
        b = book(h.port, "alice", session, 10 + i)
        q = b.until(QUESTION, 30)
        pids = until(lambda: holder(h), 10)
        st = page(h)
        R.check(q is not None and len(pids) == 1 and
                st.get("heldByQuestions") == 1 and
                st.get("askingShares", {}).get("used") == 1,
                "Q: question %d asked; its worker holds the place and "
                "alice's share" % (i + 1), "%r %r %s" % (
                    pids, b.buf[-200:], json.dumps(st)[:400]))
        if len(pids) != 1:
            b.close()
            break
        os.kill(pids[0], signal.SIGKILL)
        b.close()
        R.check(until(lambda: page(h).get("heldByQuestions") == 0 and
                      page(h).get("askingShares", {}).get("used") == 0),
                "Q: its worker SIGKILLed: the place and share are given "
                "back", json.dumps(page(h))[:400])
    st = page(h)
    R.check(st.get("askingReclaimed") == 3 and st.get("askingShares") ==
            {"used": 0, "capacity": 16, "refusedNoRoom": 0} and
            prom_value(prom(h), "wymcp_asking_reclaimed_total") == 3,
            "Q: askingReclaimed 3, the asking table empty (capacity 16)",
            json.dumps(st)[:600])


def body(h):
    h.paths()
    h.start()
    st = page(h)
    R.check(st.get("listen", {}).get("shares") ==
            {"used": 0, "capacity": 16, "refusedNoRoom": 0} and
            st.get("askingShares") ==
            {"used": 0, "capacity": 16, "refusedNoRoom": 0},
            "the status page shows both tables' fill, empty",
            json.dumps(st)[:600])
    k_section(h)
    n_section(h)
    h_section(h)
    q_section(h)


if __name__ == "__main__":
    sys.exit(wymcp_e2e.run_layer(DeadHarness, body))
