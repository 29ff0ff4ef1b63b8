#!/usr/bin/env python3
"""e2e_mrtr.py - wymcp end to end: Multi Round-Trip Requests through nginx.

Usage: e2e_mrtr.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi instances serving the bundled examples module
(book_room, purge_cache) behind a private nginx, and runs elicitation
over several rounds where every round may land on another process:

  E  one instance, two workers, no key file: a three-round book_room
     call whose rounds are served by alternating workers (the other
     worker is held with SIGSTOP), then a missing answer, answers sent
     ahead of their questions (a first round has no answers: ignored,
     nothing booked), a decline and a client without the elicitation
     capability;
  F  two instances sharing one key file made with --generate-key,
     behind one round-robin nginx upstream and behind two pinned
     locations (rounds alternate A, B, A);
  G  a key mismatch (-32602 and a warning naming --state-key-file),
     then key rotation: a state sealed with the old key still opens
     after --generate-key put a new key first, and no longer once the
     old key is removed;
  H  without --state-key-file the supervisor warns at startup and its
     workers share its random key (E's cross-worker call).

Every instance runs with -vv: the debug line "[id N] tools/call -> 200"
names the process that served request N.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
pieces are in t/e2e/lib/wymcp_mrtr.py and wymcp_e2e.py (PYTHONPATH).
"""

import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_mrtr
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_mrtr", "wymcp_e2e"):
        raise
    print("e2e_mrtr.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import Failed, R, report, tail  # noqa: E402
from wymcp_mrtr import (BOOKED, DAY, ROOM, ROOM_Q, SIZE, SIZE_Q,  # noqa
                        WORKERS, World, judge_bad_state, judge_done,
                        judge_input, key_id, read_keys, token_key_id,
                        write_keyfile)

PURGE_Q = "Purge the whole cache? This cannot be undone."
NO_ELICIT = ("This tool needs a client that can ask the user questions "
             "(form elicitation).")


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("latin-1")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[0]


class Tests(wymcp_mrtr.Tests):
    """Sections E, F, G and H."""

    # -- pinning a round to one worker

    def pinned(self, inst, target, fn):
        """Run fn() while every worker of inst but target is stopped."""
        others = [p for p in inst.workers() if p != target]
        try:
            for p in others:
                inst.stopped.add(p)
                os.kill(p, signal.SIGSTOP)
            deadline = time.monotonic() + 5
            while any(proc_state(p) not in ("T", "t") for p in others):
                if time.monotonic() > deadline:
                    raise Failed("workers %r did not stop" % (others,))
                time.sleep(0.005)
            return fn()
        finally:
            for p in others:
                try:
                    os.kill(p, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                inst.stopped.discard(p)

    # -- E

    def test_e(self, e):
        ws = e.workers()
        if not R.check(len(ws) == WORKERS, "E %d workers" % WORKERS,
                       "workers %r" % (ws,)):
            return False
        order = [ws[0], ws[1], ws[0]]
        R.note("E rounds pinned to workers %r" % (order,))
        states = []
        rids = []

        rid, r = self.pinned(e, order[0], lambda: self.book("/mcp-e"))
        rids.append(rid)
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        if st is not None:
            room = r.json["result"]["inputRequests"].get("elicit-1", {})
            enum = (((room.get("params") or {}).get("requestedSchema") or {})
                    .get("properties") or {}).get("room", {}).get("enum")
            if enum != ["Aurora", "Borealis", "Cirrus"]:
                p.append("room enum %r" % (enum,))
        report("E round 1: input_required asking elicit-1 (room)", p, r)
        states.append(st)
        if st is None:
            return False

        rid, r = self.pinned(e, order[1], lambda: self.book(
            "/mcp-e", states[0], {"elicit-1": ROOM}))
        rids.append(rid)
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        report("E round 2: input_required asking elicit-2 (people)", p, r)
        states.append(st)
        if st is None:
            return False
        R.check(states[0] != states[1],
                "E round 1 and round 2 requestState differ", "same token")

        rid, r = self.pinned(e, order[2], lambda: self.book(
            "/mcp-e", states[1], {"elicit-2": SIZE}))
        rids.append(rid)
        done = report("E round 3: complete, %r" % BOOKED,
                      judge_done(r, rid, BOOKED), r)

        served = [e.served(x) for x in rids]
        for n, (x, want, got) in enumerate(zip(rids, order, served), 1):
            R.check(got == [want], "E round %d (id %d) was served by "
                    "worker %d" % (n, x, want),
                    "log names PIDs %r for id %d" % (got, x))
        R.check(len({tuple(s) for s in served[:2]}) == 2 and
                len({tuple(s) for s in served[1:]}) == 2,
                "E consecutive rounds were served by different processes",
                "served %r" % (served,))
        booked = [x for x in e.entries() if x[3].startswith("booked ")]
        want = "booked Aurora for 4 on %s (by alice)" % DAY
        R.check(len(booked) == 1 and booked[0][3] == want and
                booked[0][2] == str(rids[2]) and booked[0][0] == order[2],
                "E the log shows 'booked' exactly once, in round 3",
                "booked lines %r" % (booked,))
        self.e_done = done and served == [[p] for p in order]

        # A round without the answer asks the same question again.
        rid, r = self.book("/mcp-e", states[0])
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        report("E round-1 state without inputResponses re-asks elicit-1",
               p, r)
        rid, r = self.book("/mcp-e", states[1])
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        report("E round-2 state without inputResponses re-asks elicit-2 "
               "only", p, r)

        # A first round has no answers: answers sent ahead of their
        # questions (0.4 booked at once) are ignored, and only the
        # questions a state asked take answers.
        n_before = len(e.entries())
        rid, r = self.book("/mcp-e", None, {"elicit-1": ROOM,
                                            "elicit-2": SIZE})
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        report("E book_room with inputResponses for elicit-1 and elicit-2 "
               "and no requestState asks elicit-1 (a first round has no "
               "answers)", p, r)
        rid, r = self.book("/mcp-e", states[0], {"elicit-1": ROOM,
                                                 "elicit-2": SIZE})
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        report("E the round-1 state asked elicit-1 only: elicit-2 sent "
               "ahead is ignored and asked", p, r)
        booked = [x for x in e.entries()[n_before:]
                  if x[3].startswith("booked ")]
        ignored = [x for x in e.entries()[n_before:]
                   if "inputResponses ignored" in x[3]]
        R.check(not booked and len(ignored) == 2,
                "E answers sent ahead booked nothing, and each round "
                "logged what it ignored", "booked %r ignored %r" %
                (booked, ignored))

        # Decline is an answer.
        rid, r = self.call("/mcp-e", "purge_cache", {})
        p, st = judge_input(r, rid, {"elicit-1": PURGE_Q})
        report("E purge_cache round 1 asks for confirmation", p, r)
        if st is not None:
            rid, r = self.call("/mcp-e", "purge_cache", {}, st,
                               {"elicit-1": {"action": "decline"}})
            report("E purge_cache decline completes with 'You declined' "
                   "and no further question",
                   judge_done(r, rid, "You declined; the cache was left "
                              "alone."), r)
        purged = [x for x in e.entries() if x[3] == "cache purged"]
        R.check(not purged, "E a declined purge_cache purged nothing",
                "log %r" % (purged,))

        # No elicitation capability: the tool's own isError result.
        n_before = len(e.entries())
        rid, r = self.book("/mcp-e", caps={})
        report("E book_room without the elicitation capability: isError "
               "result, no question",
               judge_done(r, rid, NO_ELICIT, is_error=True), r)
        rid, r = self.book("/mcp-e", caps={"sampling": {}})
        report("E book_room with only sampling declared: isError result, "
               "no question",
               judge_done(r, rid, NO_ELICIT, is_error=True), r)
        booked = [x for x in e.entries()[n_before:]
                  if x[3].startswith("booked ")]
        R.check(not booked, "E capability-less calls booked nothing",
                "%r" % (booked,))
        return True

    # -- H

    def test_h(self, e, others):
        warn = e.wait_for(lambda x: x[1] == "warning" and
                          "no --state-key-file" in x[3], 2)
        R.check(len(warn) == 1 and warn[0][0] == e.sup,
                "H without --state-key-file the supervisor warns "
                "'no --state-key-file' once at startup",
                "warnings %r (supervisor %d)" % (warn, e.sup))
        R.check(getattr(self, "e_done", False),
                "H rounds on different workers of one instance complete "
                "with the supervisor's random key", "see E above")
        for i in others:
            bad = [x for x in i.entries() if "no --state-key-file" in x[3]]
            R.check(not bad, "H %s (with --state-key-file) does not warn "
                    "about a missing key file" % i.name, "%r" % (bad,))

    # -- F

    def test_f(self, a, b):
        insts = [a, b]
        # Pinned locations: A, B, A.
        rids, p, r = self.three_rounds(["/mcp-a", "/mcp-b", "/mcp-a"],
                                       day="2026-12-02")
        report("F pinned /mcp-a, /mcp-b, /mcp-a: three rounds complete",
               p, r)
        got = [self.where(insts, x) for x in rids]
        R.check(got == [["A"], ["B"], ["A"]],
                "F pinned rounds were served by A, then B, then A",
                "instances per round %r (ids %r)" % (got, rids))
        bk = [x for i in insts for x in i.entries()
              if x[3].startswith("booked ") and "2026-12-02" in x[3]]
        R.check(len(bk) == 1 and bk[0][2] == str(rids[2]),
                "F pinned call: 'booked' logged once in total, by round 3",
                "%r" % (bk,))

        # The round-robin upstream: several sequential calls.
        pattern, crossed, ok, n = [], 0, 0, 4
        for k in range(n):
            day = "2027-01-%02d" % (k + 1)
            rids, p, r = self.three_rounds(["/mcp-ab"] * 3, day=day)
            got = [self.where(insts, x) for x in rids]
            pattern.append(got)
            for x, y in zip(got, got[1:]):
                if len(x) == 1 and len(y) == 1 and x != y:
                    crossed += 1
            bk = [x for i in insts for x in i.entries()
                  if x[3].startswith("booked ") and day in x[3]]
            if p:
                R.note("upstream call %d: %s %s" % (k, p, r.brief()))
            elif len(bk) != 1 or bk[0][2] != str(rids[-1]):
                R.note("upstream call %d: booked lines %r" % (k, bk))
            else:
                ok += 1
        R.note("F upstream instances per round: %s" %
               " | ".join(",".join("+".join(g) or "?" for g in c)
                          for c in pattern))
        R.check(ok == n, "F upstream: %d sequential three-round calls all "
                "complete, each booked once" % n,
                "%d of %d" % (ok, n))
        flat = [g for c in pattern for g in c]
        R.check(all(len(g) == 1 for g in flat),
                "F upstream: every round is in exactly one instance's log",
                "%r" % (pattern,))
        R.check(["A"] in flat and ["B"] in flat,
                "F upstream: both instances served rounds", "%r" % (flat,))
        R.check(crossed > 0, "F upstream: some round's requestState was "
                "opened by the other instance",
                "no round crossed instances: %r" % (pattern,))

    # -- G

    def test_g(self, a, b, shared):
        w = self.w
        k1 = read_keys(shared)
        # Key mismatch: B gets a key file of its own.
        kb_path = os.path.join(w.tmp, "b-only.key")
        rc, out = w.generate_key(kb_path)
        R.check(rc == 0 and os.path.exists(kb_path),
                "G --generate-key makes B's own key file",
                "rc %d: %s" % (rc, out))
        kb = read_keys(kb_path)
        b.restart(kb_path)
        s = self.round1("/mcp-a", "G round 1 on A (shared key)")
        if s is None:
            return
        R.check(token_key_id(s) == key_id(k1[0]),
                "G A's token carries the shared key's id",
                "%r vs %r" % (token_key_id(s), key_id(k1[0])))
        rid, r = self.book("/mcp-b", s, {"elicit-1": ROOM})
        report("G round 2 on B (other key): -32602 'Invalid requestState'",
               judge_bad_state(r, rid), r)
        hits = self.warned(b, rid)
        R.check(bool(hits), "G B logs a warning naming --state-key-file "
                "for that request", "B log tail %r" % (tail(b.log, 5),))
        bk = [x for x in b.entries() if x[3].startswith("booked ")]
        R.check(not bk, "G B booked nothing", "%r" % (bk,))
        # And the other way round.
        s_b = self.round1("/mcp-b", "G round 1 on B (its own key)")
        if s_b is not None:
            R.check(token_key_id(s_b) == key_id(kb[0]),
                    "G B's token carries B's key id", "differs")
            rid, r = self.book("/mcp-a", s_b, {"elicit-1": ROOM})
            report("G B's state on A: -32602 'Invalid requestState'",
                   judge_bad_state(r, rid), r)
            R.check(bool(self.warned(a, rid)), "G A logs a warning naming "
                    "--state-key-file", "A log tail %r" % (tail(a.log, 5),))

        # Rotation: a round-1 state sealed by A with the old key ...
        s_pre = self.round1("/mcp-a", "G pre-rotation round 1 on A")
        if s_pre is None:
            return
        rc, out = w.generate_key(shared)
        k2 = read_keys(shared)
        R.check(rc == 0 and len(k2) == 2 and k2[1] == k1[0] and
                k2[0] != k1[0],
                "G --generate-key on the shared file puts a new key "
                "first and keeps the old one second",
                "rc %d %s; keys before %d, after %d" %
                (rc, out.strip(), len(k1), len(k2)))
        mode = os.stat(shared).st_mode & 0o777
        R.check(mode == 0o600, "G the rotated key file is mode 0600",
                "mode %03o" % mode)
        a.restart()
        b.restart(shared)
        # ... still opens on B, and the new state is sealed with the new key.
        rid2, s2 = self.step("/mcp-b", s_pre, "elicit-1",
                             "G after rotation: the pre-rotation state "
                             "opens on B (asks elicit-2)",
                             {"elicit-2": SIZE_Q})
        if s2 is not None:
            R.check(token_key_id(s_pre) == key_id(k1[0]) and
                    token_key_id(s2) == key_id(k2[0]),
                    "G pre-rotation token is sealed with the old key, "
                    "post-rotation token with the new key",
                    "ids %r %r, old %r new %r" % (
                        token_key_id(s_pre), token_key_id(s2),
                        key_id(k1[0]), key_id(k2[0])))
            rid, r = self.book("/mcp-a", s2, {"elicit-2": SIZE})
            report("G round 3 on A with B's post-rotation state completes",
                   judge_done(r, rid, BOOKED), r)
        self.step("/mcp-a", s_pre, "elicit-1",
                  "G after rotation: the pre-rotation state opens on A too",
                  {"elicit-2": SIZE_Q})
        # A state sealed after the rotation opens on both.
        t_a = self.round1("/mcp-a", "G post-rotation round 1 on A")
        t_b = self.round1("/mcp-b", "G post-rotation round 1 on B")
        if t_a is not None:
            self.step("/mcp-b", t_a, "elicit-1",
                      "G A's post-rotation state opens on B",
                      {"elicit-2": SIZE_Q})
            self.step("/mcp-a", t_a, "elicit-1",
                      "G A's post-rotation state opens on A",
                      {"elicit-2": SIZE_Q})
        if t_b is not None:
            self.step("/mcp-a", t_b, "elicit-1",
                      "G B's post-rotation state opens on A",
                      {"elicit-2": SIZE_Q})

        # Only the new key left: the pre-rotation state is refused.
        write_keyfile(shared, [k2[0]])
        R.check(read_keys(shared) == [k2[0]],
                "G the key file now holds only the new key", "differs")
        a.restart()
        b.restart()
        for inst, path in ((b, "/mcp-b"), (a, "/mcp-a")):
            rid, r = self.book(path, s_pre, {"elicit-1": ROOM})
            report("G old key removed: the pre-rotation state on %s -> "
                   "-32602 'Invalid requestState'" % inst.name,
                   judge_bad_state(r, rid), r)
            R.check(bool(self.warned(inst, rid)), "G old key removed: %s "
                    "logs a warning naming --state-key-file" % inst.name,
                    "log tail %r" % (tail(inst.log, 5),))
        if t_a is not None:
            self.step("/mcp-b", t_a, "elicit-1",
                      "G old key removed: a post-rotation state still "
                      "opens on B", {"elicit-2": SIZE_Q})


def layer(w):
    """This script's tests."""
    w.paths()
    w.setup()
    shared = os.path.join(w.tmp, "shared.key")
    rc, out = w.generate_key(shared)
    if not R.check(rc == 0 and os.path.exists(shared),
                   "--generate-key creates the shared key file",
                   "rc %d: %s" % (rc, out)):
        raise Failed("no key file")
    keys = read_keys(shared)
    R.check(len(keys) == 1 and re.fullmatch("[0-9a-f]{64}", keys[0])
            is not None and os.stat(shared).st_mode & 0o777 == 0o600,
            "the new key file holds one 64-hex-digit key, mode 0600",
            "keys %r mode %03o" % (keys, os.stat(shared).st_mode))
    e = w.instance("E")
    a = w.instance("A", shared)
    b = w.instance("B", shared)
    for i in (e, a, b):
        i.start()
    w.start_nginx({"e": e.sock, "a": a.sock, "b": b.sock})
    t = Tests(w)
    t.test_e(e)
    t.test_h(e, [a, b])
    t.test_f(a, b)
    t.test_g(a, b, shared)


def main():
    return wymcp_e2e.run_layer(World, layer, 'any wymcp-fcgi log')


if __name__ == "__main__":
    sys.exit(main())
