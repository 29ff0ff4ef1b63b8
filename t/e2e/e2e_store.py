#!/usr/bin/env python3
"""e2e_store.py - the task store's faults end to end, through a real nginx.

Usage: e2e_store.py [--builddir DIR] [--keep] [-v]

Issue 19, "the task store survives its database".  wymcp-fcgi (4
workers, 2 task runners, --request-timeout 5, so a 15 s lease,
--status-path /wymcp-status, -v -v) loads t/lib/ledger.c's one tool,
ledger, which records each of its runs, and once per idempotency key a
write, in the file $WYMCP_TEST_LEDGER names; a private nginx is in
front.  Client threads (4, then 3) make ledger tasks (no question, or
one or two answered through tasks/update when input_required; 300 to
1500 ms of work) and poll them, while the store is made to fail:

  PG  a private PostgreSQL cluster (wymcp_tasks.pg_start: initdb in the
      temporary directory, a unix socket only, as nobody when root).
      Over 30 s of load: pg_ctl restart -m fast, restart -m immediate,
      then stop -m fast (once a runner runs a 3 s ledger task made
      for it, so that a tool finishes while the store is away even
      when the clients' tasks all wait for a claim), 10 s down,
      start; and a random task runner
      (a child of the supervisor its log calls one) SIGKILLed every 4 s,
      but not from just before the stop until 3 s after the start (the
      runners that finish tools meanwhile must live to store them).
      During the 10 s down: a tools/call making a task, tasks/get,
      tasks/update and tasks/cancel get HTTP 503 with Retry-After and
      JSON-RPC -32603 saying the task store is unavailable; the status
      page answers, taskStore.up false.  A probe task with 3 questions
      has its runner SIGKILLed twice in its final run (6 claims, 2
      runner deaths): it completes (attempts count deaths, not claims).
  S   SQLite (--task-store sqlite:DIR/tasks.db) with --user nobody, so
      that file permissions apply (root ignores them): over 12 s of
      load, the directory and its files are made read-only for 4 s and
      a task runner is SIGKILLed then: its replacement cannot open the
      store until they are writable again, and must say so at most 3
      times, not at each look.  First, the idempotency key of a call
      that is not a task (I): its last round sent twice has one key
      (written, then already written), a new call another.

  L   after PG, on the same cluster (its own database): a slow store
      is not the tool's time.  --request-timeout 2 (a 12 s lease), 2
      runners; a ledger task of 1 s whose row a psql session holds
      (SELECT ... FOR UPDATE, from the moment it is claimed) for 3 s,
      so that its lease renewal (wymcp_cancelled()) waits 3 s: it
      completes with the tool's text, no time-limit line in the log
      (fea4807 failed it "Task timed out").  Then one held 14 s, longer
      than the lease: it completes (another runner may take it over,
      and finds its effect done), one warning "renewing its lease took
      N ms, longer than the lease", taskStore.slowRenewals 1 and
      wymcp_task_store_slow_renewals_total 1.  --lease-only runs L
      alone (about 25 s).

After each load (PG, S), once everything settled (60 s at most), the accounting:

  - every task whose creation was acknowledged (a taskId) completed
    with the tool's text ("ledger ID written" or "ledger ID already
    written"), and was never "not found";
  - each is read 8 more times by 4 readers at once: completed, the same
    text, and every worker answered some of the reads;
  - no HTTP 500, no 5xx but 503, every request answered; every 503
    carries Retry-After: <1-60 s> and -32603 "... task store ...
    unavailable ...", and came during an outage or within 5 s of its
    end; every tools/call got a task handle or a 503;
  - the ledger: one write line per key; one id per key and one key per
    id (a base64url key of 22 to 32 characters); every run line of a
    key but its last comes from a process the test SIGKILLed before it
    ran anything else (a tool that finished is never run again, but
    when its runner died holding the outcome); some tools finished
    while PostgreSQL was stopped;
  - the supervisor has its 2 runners, and both take some of 4 new
    tasks;
  - PG: the status page's taskStore afterwards: up true, downSince
    null, reconnects >= 1, outages >= 1 (and wymcp_task_store_up,
    _reconnects_total, _outages_total in its Prometheus text); the log
    says "task store unreachable: ..." and "task store reachable again
    after N s" (warnings, once for the pool: the last of them says it is
    back, and there are a few, not one a request), and no process logged
    more than 3 warnings or errors naming the task store (but
    "reachable again") per outage.

Every process it starts (PostgreSQL, wymcp-fcgi, nginx) is stopped by
PID, on failure or a signal too; it binds 127.0.0.1 and unix sockets
only.  About 105 s (longer when tasks do not complete: it waits 60 s
for them).  Prints "ok - NAME" or "not ok - NAME: DETAIL" per
assertion and, last, "N passed, M failed".  Exit 0 when nothing failed,
1 otherwise, 77 when nginx is not installed.  Without PostgreSQL's
initdb, PG and L are skipped (said so) and S runs.  Python 3 standard library
only.
"""

import collections
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
import wymcp_e2e
from wymcp_e2e import R, children, log_entries, number
from wymcp_tasks import (LedgerHarness, Wire, as_user, pg_bindir, pg_ctl,
                         pg_missing, pg_start, pg_stop)

STATUS = "/wymcp-status"
LEASE_S = 15		# --request-timeout 5 + 10: the shortest lease
RECOVERY_S = 5.0	# 503 still allowed this long after an outage
POLL_S = 0.25		# a client's pause between two tasks/get
DRIVE_S = 6.0		# a client leaves a task unfinished after this
SETTLE_S = 60.0		# everything must be done this long after the load
READERS = 4		# threads reading every task at the end...
PASSES = 2		# ...this many times each
KEY_RE = re.compile(r"^[A-Za-z0-9_-]{22,32}$")
UNAVAILABLE_RE = re.compile(r"task store.*unavailable", re.I)
RUNNER_RE = re.compile(r"^started task runner (\d+)$")
TERMINAL = ("completed", "failed", "cancelled")
CONFIRM = {"action": "accept", "content": {"confirm": True}}
# A call that is not a task: form elicitation, no tasks extension.
SYNC_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
             "io.modelcontextprotocol/clientInfo": {"name": "e2e-store",
                                                    "version": "1"},
             "io.modelcontextprotocol/clientCapabilities":
             {"elicitation": {}}}
HALT = threading.Event()	# set: every thread stops


def note(msg):
    R.note(msg)


# ------------------------------------------------------------ the servers

class StoreHarness(LedgerHarness):
    """The ledger harness (wymcp_tasks.LedgerHarness) with the status
    page."""

    def __init__(self, builddir, tmp, store, user=None):
        # With the harness's own -v: debug, which names the runners
        # ("started task runner PID") and the claims.
        LedgerHarness.__init__(self, builddir, tmp, store,
                               ["--task-lease", "2", "--status-path",
                                STATUS, "-v"], user)
        self.status_path = STATUS

    def started_runners(self):
        """Every task runner the supervisor has started, by its log."""
        out = set()
        for pid, _, _, msg in log_entries(self.fcgi_log):
            m = RUNNER_RE.match(msg)
            if pid == self.sup and m:
                out.add(int(m.group(1)))
        return out

    def runners(self):
        return sorted(self.started_runners() & set(children(self.sup)))

    def live_workers(self):
        """The supervisor's children but the runners and the hub."""
        return sorted(p for p in set(children(self.sup)) -
                      self.started_runners()
                      if wymcp_e2e.comm(p) != "wymcp-hub")

    def log_size(self):
        """Where the log's last whole line ends: a mark for
        log_slice()."""
        try:
            with open(self.fcgi_log, "rb") as f:
                end = f.seek(0, os.SEEK_END)
                f.seek(max(0, end - 4096))
                tail = f.read(end - max(0, end - 4096))
        except OSError:
            return 0
        return end - len(tail) + tail.rfind(b"\n") + 1

    def follow(self, pos):
        """(the log's entries since mark pos, the mark now)."""
        end = self.log_size()
        return self.log_slice(pos, end), max(pos, end)

    def log_slice(self, start, end=None):
        """The log's entries (as wymcp_e2e.log_entries()) between two
        marks of log_size()."""
        with open(self.fcgi_log, "rb") as f:
            f.seek(start)
            data = f.read() if end is None else f.read(max(0, end - start))
        out = []
        for line in data.decode("utf-8", "replace").splitlines():
            m = wymcp_e2e.LOG_RE.search(line)
            if m:
                out.append((int(m.group(1)), m.group(2), m.group(3),
                            m.group(4)))
        return out


class World:
    """What run_layer() stops and cleans up: the harnesses of the
    sections, the PostgreSQL cluster, modes to put back."""

    def __init__(self, builddir, keep=False):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = None
        self.nginx_bin = None
        self.hs = []
        self.bindir = None
        self.undo = []		# functions putting modes back
        self.threads = []
        self.procs = []		# psql sessions (L)

    def stop(self):
        HALT.set()
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        while self.undo:
            self.undo.pop()()
        for t in self.threads:
            t.join(35)
        for h in self.hs:
            h.stop()
        if self.bindir is not None and self.tmp is not None:
            pg_stop(self.tmp, self.bindir)

    def sanitizer_reports(self):
        return [x for h in self.hs if h.tmp for x in h.sanitizer_reports()]

    def dump_logs(self):
        for h in self.hs:
            h.dump_logs()
        if self.tmp is not None:
            path = os.path.join(self.tmp, "pg", "server.log")
            if os.path.exists(path):
                note("---- tail of the PostgreSQL log (%s)" % path)
                for line in wymcp_e2e.tail(path, 15):
                    note("  " + line)

    def cleanup(self):
        if self.tmp and not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            note("kept %s" % self.tmp)


# ------------------------------------------------------------ the traffic

class Task:
    def __init__(self, label, tid, questions, ms):
        self.label = label
        self.tid = tid
        self.questions = questions
        self.ms = ms
        self.status = None	# once terminal
        self.text = None
        self.notfound = 0
        self.errors = []
        self.owned = False	# a thread of its own drives it
        self.probe_kills = []


def text_of(res):
    """The text of a task's result (its CallToolResult's text blocks)."""
    out = (res or {}).get("result") or {}
    return " ".join(c.get("text", "") for c in out.get("content", [])
                    if isinstance(c, dict))


class Traffic:
    """One section's requests: what they got, the tasks acknowledged,
    the runners killed, the outages."""

    def __init__(self, tag, h):
        self.tag = tag
        self.h = h
        self.lock = threading.Lock()
        self.codes = collections.Counter()
        self.refusals = []	# 503s: (t0, t1, method, Retry-After, body)
        self.bad = []		# other 5xx: (t0, method, status, text)
        self.lost = []		# no HTTP answer: (t0, method, error)
        self.creates = collections.Counter()
        self.odd = []		# tools/call answered neither task nor 503
        self.tasks = []
        self.killed = {}	# pid -> seconds after the start
        self.outages = []	# (name, begin, end), monotonic
        self.t0 = time.monotonic()

    def rel(self, t=None):
        return (time.monotonic() if t is None else t) - self.t0

    def rpc(self, w, method, params, name):
        """One request through w: (HTTP status, JSON), (None, None) when
        no HTTP answer came."""
        t0 = time.monotonic()
        try:
            body = w.call(method, params, name)
        except (OSError, http.client.HTTPException) as e:
            with self.lock:
                self.lost.append((self.rel(t0), method, repr(e)))
            return None, None
        r = w.last
        with self.lock:
            self.codes[r.status] += 1
            if r.status == 503:
                self.refusals.append((t0, time.monotonic(), method,
                                      r.header("Retry-After"), body))
            elif r.status >= 500:
                self.bad.append((self.rel(t0), method, r.status,
                                 r.raw[:200].decode("utf-8", "replace")))
        return r.status, body

    @staticmethod
    def pause(w):
        """After a 503: what Retry-After says, a second at most."""
        ra = w.last.header("Retry-After") if w.last is not None else None
        s = int(ra) if ra is not None and ra.strip().isdigit() else 1
        time.sleep(min(max(s, 0.2), 1.0))

    def create(self, w, label, questions, ms):
        """tools/call ledger as a task: the Task when acknowledged."""
        st, body = self.rpc(w, "tools/call", {
            "name": "ledger", "arguments": {"id": label,
                                            "questions": questions,
                                            "ms": ms}}, "ledger")
        tid = None
        if st == 200 and isinstance(body, dict):
            tid = (body.get("result") or {}).get("taskId")
        with self.lock:
            if tid is not None:
                t = Task(label, tid, questions, ms)
                self.tasks.append(t)
                self.creates["task"] += 1
                return t
            self.creates[st] += 1
            if st != 503:
                self.odd.append((label, st, json.dumps(body)[:200]))
        return None

    def step(self, w, t):
        """One tasks/get of t, and tasks/update when it asks: True once
        it is done."""
        st, body = self.rpc(w, "tasks/get", {"taskId": t.tid}, t.tid)
        if st is None or st == 503 or not isinstance(body, dict):
            return False
        err = body.get("error")
        if err is not None:
            with self.lock:
                if err.get("code") == -32602 and \
                        "not found" in str(err.get("message", "")).lower():
                    t.notfound += 1
                else:
                    t.errors.append(json.dumps(err)[:200])
            return False
        res = body.get("result") or {}
        s = res.get("status")
        if s == "input_required":
            keys = list(res.get("inputRequests") or {})
            if keys:
                self.rpc(w, "tasks/update", {
                    "taskId": t.tid,
                    "inputResponses": {k: CONFIRM for k in keys}}, t.tid)
            return False
        if s in TERMINAL:
            with self.lock:
                t.status = s
                t.text = text_of(res)
                if s != "completed":
                    t.errors.append(str(res.get("statusMessage")))
            return True
        return False

    def drive(self, w, t, until):
        while not HALT.is_set() and time.monotonic() < until:
            if self.step(w, t):
                return True
            time.sleep(POLL_S)
        return False

    def client(self, n, until):
        """A client thread: tasks one after the other until `until'; a
        task not done in DRIVE_S is left to settle()."""
        w = Wire(self.h.port)
        rnd = random.Random("%s-%d" % (self.tag, n))
        k = 0
        while not HALT.is_set() and time.monotonic() < until:
            k += 1
            t = self.create(w, "%s%d-%d" % (self.tag.lower(), n, k),
                            rnd.choice((0, 0, 1, 2)),
                            rnd.randint(300, 1500))
            if t is None:
                self.pause(w)
                continue
            self.drive(w, t, min(time.monotonic() + DRIVE_S, until))

    def start_clients(self, world, n, until):
        for i in range(n):
            th = threading.Thread(target=self.client, args=(i + 1, until),
                                  daemon=True)
            th.start()
            world.threads.append(th)
        return world.threads[-n:]

    def settle(self, timeout=SETTLE_S):
        """Drive every unfinished task until all are done; True then."""
        w = Wire(self.h.port)
        deadline = time.monotonic() + timeout
        while not HALT.is_set():
            with self.lock:
                left = [t for t in self.tasks if t.status is None and
                        not t.owned]
            if not left:
                return True
            if time.monotonic() > deadline:
                return False
            for t in left:
                self.step(w, t)
            time.sleep(POLL_S)
        return False

    def kill_runner(self, pid=None):
        """SIGKILL runner `pid', or a random one: its PID, or None."""
        if pid is None:
            rs = self.h.runners()
            if not rs:
                return None
            pid = random.choice(rs)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return None
        with self.lock:
            self.killed[pid] = self.rel()
        note("%s: SIGKILLed task runner %d at +%.1f s" %
             (self.tag, pid, self.rel()))
        return pid


# ----------------------------------------------------------- the judges

def judge_traffic(tr):
    """Statuses, 503s, creations."""
    tag = tr.tag
    codes = dict(sorted(tr.codes.items()))
    note("%s: HTTP statuses %r; tools/call: %r" %
         (tag, codes, dict(tr.creates)))
    R.check(tr.codes.get(500, 0) == 0,
            "%s: no HTTP 500 (%d responses)" % (tag, sum(codes.values())),
            "%d x 500, first: %r" % (tr.codes.get(500, 0),
                                     [b for b in tr.bad if b[2] == 500][:3]))
    R.check(not [b for b in tr.bad if b[2] != 500],
            "%s: no 5xx status but 503" % tag,
            repr([b for b in tr.bad if b[2] != 500][:3]))
    R.check(not tr.lost, "%s: every request got an HTTP response" % tag,
            "%d without: %r" % (len(tr.lost), tr.lost[:3]))
    shape = []
    for t0, t1, method, ra, body in tr.refusals:
        err = body.get("error") if isinstance(body, dict) else None
        why = []
        if ra is None or not ra.strip().isdigit() or \
                not 1 <= int(ra) <= 60:
            why.append("Retry-After %r" % ra)
        if not isinstance(err, dict) or err.get("code") != -32603 or \
                not UNAVAILABLE_RE.search(str(err.get("message", ""))):
            why.append("error %s" % json.dumps(err)[:150])
        if why:
            shape.append("%s at +%.1f s: %s" % (method, tr.rel(t0),
                                                 "; ".join(why)))
    R.check(not shape, "%s: every 503 (%d) carries Retry-After: <1-60> and "
            "-32603 saying the task store is unavailable" %
            (tag, len(tr.refusals)), "; ".join(shape[:3]))
    late = ["%s at +%.1f s" % (m, tr.rel(t0))
            for t0, t1, m, _, _ in tr.refusals
            if not any(t0 <= e + RECOVERY_S and t1 >= b
                       for _, b, e in tr.outages)]
    R.check(not late, "%s: 503 only during an outage or within %g s of "
            "its end (outages at %s)" % (
                tag, RECOVERY_S, ", ".join("+%.1f-%.1f s" % (
                    tr.rel(b), tr.rel(e)) for _, b, e in tr.outages) or
                "none"), "%d outside: %s" % (len(late), ", ".join(late[:5])))
    R.check(not tr.odd, "%s: every tools/call got a task handle or a 503" %
            tag, repr(tr.odd[:3]))


def judge_tasks(tr, settled):
    tag = tr.tag
    n = len(tr.tasks)
    R.check(n >= 10, "%s: at least 10 tasks acknowledged (%d)" % (tag, n),
            "only %d" % n)
    bad = ["%s (%s): %s %r%s" % (t.label, t.tid, t.status, t.text,
                                 " errors %s" % t.errors[:2]
                                 if t.errors else "")
           for t in tr.tasks if t.status != "completed" or t.text not in (
               "ledger %s written" % t.label,
               "ledger %s already written" % t.label)]
    R.check(settled and not bad, "%s: every acknowledged task completed "
            "with the tool's text" % tag,
            "%d of %d not: %s" % (len(bad), n, "; ".join(bad[:4])))
    lost = ["%s x%d" % (t.label, t.notfound) for t in tr.tasks if t.notfound]
    R.check(not lost, "%s: no acknowledged task was ever 'not found'" % tag,
            ", ".join(lost[:8]))


def read_all(tr):
    """Each task read PASSES times by READERS threads at once."""
    tag, h = tr.tag, tr.h
    start = h.log_size()
    fails, lock = [], threading.Lock()
    base = 900000

    def reader(k):
        w = Wire(h.port)
        w.nid = base + k * 10000
        for _ in range(PASSES):
            for t in list(tr.tasks):
                st, body = tr.rpc(w, "tasks/get", {"taskId": t.tid}, t.tid)
                res = (body or {}).get("result") or {}
                if st != 200 or res.get("status") != "completed" or \
                        text_of(res) != t.text:
                    with lock:
                        fails.append("%s: %s %s" % (t.label, st,
                                                    json.dumps(body)[:150]))

    ths = [threading.Thread(target=reader, args=(k,), daemon=True)
           for k in range(READERS)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(120)
    R.check(not fails and tr.tasks, "%s: every task read %d more times by "
            "%d readers at once: completed, the same text" %
            (tag, READERS * PASSES, READERS),
            "%d reads failed: %s" % (len(fails), "; ".join(fails[:3])))
    served = set()
    for pid, _, rid, msg in h.log_slice(start):
        if msg.startswith("tasks/get -> ") and rid is not None and \
                rid.isdigit() and int(rid) >= base:
            served.add(pid)
    workers = h.live_workers()
    R.check(set(workers) <= served, "%s: each of the %d workers answered "
            "some of the reads" % (tag, len(workers)),
            "workers %r, the reads' (by the log) %r" %
            (workers, sorted(served)))


def judge_ledger(tr, sync=()):
    """The ledger file against the tasks and the kills."""
    tag = tr.tag
    lines, malformed = [], []
    with open(tr.h.ledger, errors="replace") as f:
        for ln in f:
            p = ln.split()
            if len(p) == 4 and p[0] in ("run", "write") and p[2].isdigit():
                lines.append((p[0], p[1], int(p[2]), p[3]))
            else:
                malformed.append(ln.rstrip("\n"))
    note("%s: the ledger holds %d lines" % (tag, len(lines)))
    R.check(not malformed, "%s: every ledger line is 'run|write KEY PID ID'"
            % tag, repr(malformed[:3]))
    writes = collections.Counter(k for w, k, _, _ in lines if w == "write")
    keys = {k for _, k, _, _ in lines}
    twice = ["%s x%d" % (k, writes[k]) for k in sorted(keys)
             if writes[k] != 1]
    R.check(keys and not twice, "%s: one write line per key (%d keys)" %
            (tag, len(keys)), "; ".join(twice[:5]))
    ids_of, keys_of = collections.defaultdict(set), \
        collections.defaultdict(set)
    for _, k, _, i in lines:
        ids_of[k].add(i)
        keys_of[i].add(k)
    shared = ["%s: %s" % (k, sorted(v)) for k, v in ids_of.items()
              if len(v) > 1]
    split = ["%s: %d keys" % (i, len(v)) for i, v in keys_of.items()
             if len(v) > 1 and i not in sync]
    R.check(not shared and not split, "%s: one key per call, and every run "
            "of a task has its key" % tag, "; ".join((shared + split)[:4]))
    odd = sorted(k for k in keys if not KEY_RE.match(k))
    R.check(not odd, "%s: every key is base64url, 22 to 32 characters" % tag,
            repr(odd[:3]))
    # A run followed by another of its key is excused only when its
    # runner was SIGKILLed holding the outcome: killed, and with no run
    # of its own after it (a runner that ran something else had let go
    # of the outcome, stored or dropped).  A call that is not a task
    # runs again when a round is sent again: not judged.
    last = {}
    for n, (w, k, pid, _) in enumerate(lines):
        if w == "run":
            last[pid] = n
    rerun = []
    for k in keys - {k for _, k, _, i in lines if i in sync}:
        runs = [(n, pid) for n, (w, kk, pid, _) in enumerate(lines)
                if w == "run" and kk == k]
        for n, pid in runs[:-1]:
            if pid not in tr.killed:
                rerun.append("%s by %d, alive" % (k, pid))
            elif last[pid] != n:
                rerun.append("%s by %d, which ran another after it" %
                             (k, pid))
    R.check(not rerun, "%s: a key is run again only when its runner was "
            "SIGKILLed before it could store the outcome (%d kills)" %
            (tag, len(tr.killed)), "a finished tool ran again: %s "
            "(killed: %s)" % ("; ".join(rerun[:4]), sorted(tr.killed)))
    labels = {i for w, _, _, i in lines if w == "write"}
    unwritten = [t.label for t in tr.tasks if t.status == "completed" and
                 t.label not in labels]
    R.check(not unwritten, "%s: every completed task has its write line" %
            tag, ", ".join(unwritten[:5]))


def fresh_tasks(tr):
    """After it all: the supervisor's 2 runners take new tasks."""
    tag, h = tr.tag, tr.h
    rs = h.runners()
    R.check(len(rs) == 2, "%s: the supervisor has its 2 task runners" % tag,
            "runners %r" % rs)
    w = Wire(h.port)
    new = []
    deadline = time.monotonic() + 30
    for k in range(4):
        while time.monotonic() < deadline:
            # 2 s of work each: one runner is still busy with the
            # first when the second is made, however slow the machine.
            t = tr.create(w, "%sfresh-%d" % (tag.lower(), k + 1), 0, 2000)
            if t is not None:
                new.append(t)
                break
            tr.pause(w)
    deadline = time.monotonic() + 60
    for t in new:
        tr.drive(w, t, deadline)
    done = [t for t in new if t.status == "completed"]
    pids = set()
    with open(h.ledger, errors="replace") as f:
        for ln in f:
            p = ln.split()
            if len(p) == 4 and p[0] == "run" and \
                    p[3] in {t.label for t in new}:
                pids.add(int(p[2]))
    R.check(len(done) == 4 and set(rs) <= pids and rs,
            "%s: both runners take some of 4 new tasks, which complete" %
            tag, "%d of %d made, %d completed; ran in %r, runners %r" % (
                len(new), 4, len(done), sorted(pids), rs))


def store_lines(entries):
    """pid -> the warnings and errors naming the task store, but
    'reachable again'."""
    out = collections.defaultdict(list)
    for pid, lvl, _, msg in entries:
        if lvl in ("warning", "error") and "task store" in msg and \
                "reachable again" not in msg:
            out[pid].append(msg)
    return out


# ------------------------------------------------------------- PG and S

def status_page(port, prom=False):
    """(HTTP status, text) of the status page; (None, why) when it could
    not be read."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", STATUS + ("?format=prometheus" if prom else ""))
        r = c.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException) as e:
        return None, repr(e)
    finally:
        c.close()


def task_store_member(port):
    st, text = status_page(port)
    try:
        page = json.loads(text) if st == 200 else None
    except ValueError:
        page = None
    return st, (page or {}).get("taskStore") if isinstance(page, dict) \
        else None, text


def prom_value(text, name):
    m = re.search(r"(?m)^%s (\d+(?:\.\d+)?)$" % re.escape(name), text or "")
    return float(m.group(1)) if m else None


def down_checks(tr, w, since, tid):
    """During the 10 s stop: what a request needing the store gets, and
    the status page."""
    tag = tr.tag
    fake = "A" * 24
    for method, params, name in (
            ("tools/call", {"name": "ledger", "arguments": {
                "id": "pgdown", "ms": 0}}, "ledger"),
            ("tasks/get", {"taskId": tid}, tid),
            ("tasks/update", {"taskId": tid, "inputResponses": {
                "elicit-9": CONFIRM}}, tid),
            ("tasks/cancel", {"taskId": fake}, fake)):
        st, body = tr.rpc(w, method, params, name)
        ra = w.last.header("Retry-After") if w.last is not None else None
        err = (body or {}).get("error") or {}
        R.check(st == 503 and ra is not None and ra.strip().isdigit() and
                err.get("code") == -32603 and
                UNAVAILABLE_RE.search(str(err.get("message", ""))),
                "%s: with PostgreSQL stopped, %s gets 503, Retry-After, "
                "-32603 'task store ... unavailable'" % (tag, method),
                "HTTP %s Retry-After %r %s" % (st, ra,
                                               json.dumps(body)[:200]))
    seen = []
    ok = False
    for _ in range(4):
        st, ts, text = task_store_member(tr.h.port)
        seen.append("HTTP %s %s" % (st, json.dumps(ts) if ts is not None
                                     else text[:120]))
        if st == 200 and isinstance(ts, dict) and ts.get("up") is False \
                and number(ts.get("downSince")) and \
                since - 5 <= ts["downSince"] <= time.time() + 5 and \
                isinstance(ts.get("lastError"), str) and ts["lastError"] \
                and number(ts.get("lastErrorAt")):
            ok = True
            break
        time.sleep(0.3)
    R.check(ok, "%s: with PostgreSQL stopped, the status page answers, "
            "taskStore up false, downSince, lastError, lastErrorAt" % tag,
            " | ".join(seen))
    st, text = status_page(tr.h.port, prom=True)
    R.check(st == 200 and prom_value(text, "wymcp_task_store_up") == 0,
            "%s: ... and wymcp_task_store_up 0" % tag,
            "HTTP %s, wymcp_task_store_up %r" % (
                st, prom_value(text, "wymcp_task_store_up")))


def up_checks(tr):
    tag = tr.tag
    seen, ok = [], True
    for _ in range(4):
        st, ts, text = task_store_member(tr.h.port)
        seen.append("HTTP %s %s" % (st, json.dumps(ts) if ts is not None
                                     else text[:120]))
        if not (st == 200 and isinstance(ts, dict) and
                ts.get("up") is True and ts.get("downSince") is None and
                number(ts.get("reconnects")) and ts["reconnects"] >= 1 and
                number(ts.get("outages")) and ts["outages"] >= 1 and
                (ts.get("lastError") is None or
                 isinstance(ts.get("lastError"), str)) and
                (ts.get("lastErrorAt") is None or
                 number(ts.get("lastErrorAt")))):
            ok = False
    R.check(ok, "%s: afterwards the status page says taskStore up true, "
            "downSince null, reconnects >= 1, outages >= 1" % tag,
            " | ".join(seen))
    st, text = status_page(tr.h.port, prom=True)
    vals = {n: prom_value(text, n) for n in (
        "wymcp_task_store_up", "wymcp_task_store_reconnects_total",
        "wymcp_task_store_outages_total")}
    R.check(st == 200 and vals["wymcp_task_store_up"] == 1 and
            (vals["wymcp_task_store_reconnects_total"] or 0) >= 1 and
            (vals["wymcp_task_store_outages_total"] or 0) >= 1,
            "%s: ... and in Prometheus text: wymcp_task_store_up 1, "
            "_reconnects_total and _outages_total >= 1" % tag,
            "HTTP %s %r" % (st, vals))


def probe(tr, ready):
    """The attempts probe: 3 questions answered, then its runner
    SIGKILLed twice in its final run (ms 2500)."""
    h = tr.h
    w = Wire(h.port)
    t = None
    deadline = time.monotonic() + 15
    while t is None and time.monotonic() < deadline and not HALT.is_set():
        t = tr.create(w, "attempts", 3, 2500)
        if t is None:
            tr.pause(w)
    if t is not None:
        t.owned = True
    ready.append(t)
    if t is None:
        return
    mark = "task %s: running" % t.tid
    seen, pos = [], [0]

    def running():
        """The PIDs that logged claiming t, so far."""
        new, pos[0] = h.follow(pos[0])
        seen.extend(pid for pid, _, _, msg in new if msg.startswith(mark))
        return list(seen)

    answered, before = 0, None
    deadline = time.monotonic() + 40
    while answered < 3 and time.monotonic() < deadline and \
            not HALT.is_set():
        st, body = tr.rpc(w, "tasks/get", {"taskId": t.tid}, t.tid)
        res = (body or {}).get("result") or {}
        keys = list(res.get("inputRequests") or {})
        if st == 200 and res.get("status") == "input_required" and keys:
            n = len(running())
            st, body = tr.rpc(w, "tasks/update", {
                "taskId": t.tid,
                "inputResponses": {k: CONFIRM for k in keys}}, t.tid)
            if st == 200 and "result" in (body or {}):
                answered += 1
                before = n
                note("PG: probe %s: answer %d taken at +%.1f s" %
                     (t.tid, answered, tr.rel()))
        elif res.get("status") in TERMINAL:
            break
        time.sleep(0.2)
    t.owned = False
    if answered < 3:
        return
    for _ in range(2):
        deadline = time.monotonic() + LEASE_S + 25
        pid = None
        while time.monotonic() < deadline and not HALT.is_set():
            ran = running()
            if len(ran) > before:
                pid, before = ran[-1], len(ran)
                break
            time.sleep(0.1)
        if pid is None:
            return
        time.sleep(0.7)		# in its 2.5 s of work
        # The random kills may have been first: a death all the same.
        if tr.kill_runner(pid) is not None or pid in tr.killed:
            t.probe_kills.append(pid)


def working(tr):
    """A tool working when the store goes away, so that one finishes
    while it is down: the clients' tasks may all be waiting for a claim
    at that moment on a busy machine, so one more ledger task of 3 s is
    made, and this returns once a runner logs running it (at most
    20 s)."""
    h, w = tr.h, Wire(tr.h.port)
    pos = h.log_size()
    deadline = time.monotonic() + 20
    t = None
    while t is None and time.monotonic() < deadline and not HALT.is_set():
        t = tr.create(w, "pgdown-run", 0, 3000)
        if t is None:
            tr.pause(w)
    mark = "task %s: running" % (t.tid if t is not None else "-")
    while t is not None and time.monotonic() < deadline and \
            not HALT.is_set():
        new, pos = h.follow(pos)
        if any(msg.startswith(mark) for _, _, _, msg in new):
            note("PG: task pgdown-run runs at +%.1f s" % tr.rel())
            return
        time.sleep(0.05)
    note("PG: no runner took task pgdown-run in 20 s (%s)" %
         ("not created" if t is None else "not claimed"))


def section_pg(world):
    bindir = pg_bindir()
    if bindir is None:
        note("PG: skipped (%s)" % pg_missing())
        return
    world.bindir = bindir
    uri = pg_start(world.tmp, bindir)
    h = StoreHarness(world.builddir, os.path.join(world.tmp, "pg-fcgi"),
                     uri)
    h.nginx_bin = world.nginx_bin
    world.hs.append(h)
    h.paths()
    h.start()
    tr = Traffic("PG", h)
    load = 30.0
    until = tr.t0 + load
    clients = tr.start_clients(world, 4, until)
    ready = []
    pth = threading.Thread(target=probe, args=(tr, ready), daemon=True)
    pth.start()
    world.threads.append(pth)
    # No kill from just before the stop until 3 s after the start: the
    # runners that finish a tool meanwhile live to store its outcome
    # (and to run others after it), so that a re-run is the bug.
    next_kill = [tr.t0 + 3.0]
    quiet = [tr.t0 + 12.5, float("inf")]

    def idle_until(when):
        while time.monotonic() < when and not HALT.is_set():
            now = time.monotonic()
            if now >= next_kill[0] and now < until - 2 and \
                    not quiet[0] <= now < quiet[1]:
                tr.kill_runner()
                next_kill[0] = now + 4.0
            time.sleep(0.1)

    def outage(name, *steps):
        b = time.monotonic()
        for action, opts in steps:
            if not pg_ctl(world.tmp, bindir, action, *opts):
                R.fail("PG: pg_ctl %s %s" % (action, " ".join(opts)),
                       "failed")
        e = time.monotonic()
        tr.outages.append((name, b, e))
        note("PG: %s from +%.1f to +%.1f s" % (name, tr.rel(b), tr.rel(e)))

    marks = []
    idle_until(tr.t0 + 2.0)
    marks.append(h.log_size())
    outage("restart -m fast", ("restart", ("-m", "fast")))
    idle_until(tr.t0 + 8.0)
    marks.append(h.log_size())
    outage("restart -m immediate", ("restart", ("-m", "immediate")))
    idle_until(tr.t0 + 14.0)
    marks.append(h.log_size())
    working(tr)
    b = time.monotonic()
    since = time.time()
    pg_ctl(world.tmp, bindir, "stop", "-m", "fast")
    note("PG: stopped at +%.1f s" % tr.rel(b))
    led = os.path.getsize(h.ledger)
    idle_until(b + 3.0)
    with tr.lock:
        some = [t for t in tr.tasks]
    w = Wire(h.port)
    down_checks(tr, w, since, some[0].tid if some else "B" * 24)
    idle_until(b + 10.0)
    with open(h.ledger, "rb") as f:
        f.seek(led)
        during = f.read().decode("utf-8", "replace").count("run ")
    if not pg_ctl(world.tmp, bindir, "start"):
        R.fail("PG: pg_ctl start", "failed")
    e = time.monotonic()
    quiet[1] = e + 3.0
    tr.outages.append(("stop, 10 s down, start", b, e))
    note("PG: started again at +%.1f s" % tr.rel(e))
    idle_until(until)
    for th in clients:
        th.join(DRIVE_S + 35)
    note("PG: load over at +%.1f s, %d tasks acknowledged" %
         (tr.rel(), len(tr.tasks)))
    settled = tr.settle()
    pth.join(LEASE_S + 30)
    note("PG: settled at +%.1f s%s" % (tr.rel(), "" if settled else
                                       " (not all: timed out)"))
    marks.append(h.log_size())

    judge_tasks(tr, settled)
    R.check(during >= 1, "PG: tools finished while PostgreSQL was stopped "
            "(%d), their outcomes to be stored later" % during,
            "none: the case of a finished tool meeting a store away was "
            "not exercised")
    p = ready[0] if ready else None
    R.check(p is not None and len(getattr(p, "probe_kills", [])) == 2 and
            p.status == "completed",
            "PG: a task with 3 questions whose runner is SIGKILLed twice "
            "in its final run (6 claims, 2 deaths) completes",
            "no probe task" if p is None else "runners killed %r, %s %r" %
            (getattr(p, "probe_kills", []), p.status, p.text))
    read_all(tr)
    up_checks(tr)
    fresh_tasks(tr)
    judge_traffic(tr)
    judge_ledger(tr)
    judge_pg_log(tr, marks)


# ------------------------------------------------------------------ L

LEASE_TIMEOUT_S = 2	# L's --request-timeout: a 12 s lease
LEASE_L_S = LEASE_TIMEOUT_S + 10


def hold_row(world, db, tid, seconds, tag):
    """A psql session (as the cluster's owner) that waits until task
    `tid' is claimed (its lease set), then holds its row (SELECT ... FOR
    UPDATE) for `seconds' and lets it go: every renewal of the lease
    waits for it, deterministically.  It touches tmp/pg/TAG.locked once
    it holds the row.  (Popen, the mark's path)."""
    d = os.path.join(world.tmp, "pg")
    mark = os.path.join(d, "%s.locked" % tag)
    script = os.path.join(d, "%s.sql" % tag)
    with open(script, "w") as f:
        f.write("BEGIN;\n"
                "DO $$ DECLARE n int := 0; BEGIN\n"
                "  LOOP\n"
                "    PERFORM 1 FROM wymcp_tasks WHERE id = '%s' AND\n"
                "        lease > 0 AND queued = 1 FOR UPDATE;\n"
                "    EXIT WHEN FOUND;\n"
                "    n := n + 1;\n"
                "    IF n > 3000 THEN RAISE 'never claimed'; END IF;\n"
                "    PERFORM pg_sleep(0.01);\n"
                "  END LOOP;\n"
                "END $$;\n"
                "\\! touch %s\n"
                "SELECT pg_sleep(%g);\n"
                "COMMIT;\n" % (tid, mark, seconds))
    os.chmod(script, 0o644)
    p = subprocess.Popen(as_user([os.path.join(world.bindir, "psql"), "-X",
                                  "-q", "-v", "ON_ERROR_STOP=1", "-h", d,
                                  "-U", "wymcp", "-d", db, "-f", script]),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    world.procs.append(p)
    return p, mark


def held_task(world, h, w, db, label, ms, hold):
    """A ledger task of `ms' whose row another session holds for `hold'
    s from its claim on: (tasks/get's final answer, seconds from the
    lock to the end, psql's exit status and output)."""
    r = w.tool("ledger", {"id": label, "questions": 0, "ms": ms})
    tid = (r.get("result") or {}).get("taskId")
    if tid is None:
        return r, None, None, "no task handle"
    p, mark = hold_row(world, db, tid, hold, label)
    deadline = time.monotonic() + 30
    while not os.path.exists(mark) and p.poll() is None and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    locked = time.monotonic() if os.path.exists(mark) else None
    r = w.wait(tid, TERMINAL, hold + 60)
    took = time.monotonic() - locked if locked is not None else None
    try:
        out = p.communicate(timeout=hold + 30)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()[0]
    return r, took, p.returncode, out.decode("utf-8", "replace")


def section_lease(world):
    """L: a store slower than the tool is not the tool's failure.  Its
    own database on the PG cluster, 2 runners, --request-timeout 2 (a
    12 s lease); ledger tasks of 1 s whose row a psql session holds from
    their claim on, so that their lease renewals (wymcp_cancelled(),
    every 250 ms) wait: for 3 s (longer than the time limit: on fea4807
    "Task timed out"), then for 13 s (longer than the lease: a warning
    and taskStore.slowRenewals, not a failure; shorter than the lease
    plus the watch's 2 s grace, which stops a runner stuck in a store
    past its lease)."""
    d = os.path.join(world.tmp, "pg")
    subprocess.run(as_user([os.path.join(world.bindir, "createdb"), "-h", d,
                            "-U", "wymcp", "lease"]), check=True)
    h = StoreHarness(world.builddir, os.path.join(world.tmp, "lease-fcgi"),
                     "postgresql:///lease?host=%s&user=wymcp" % d)
    h.extra_fcgi[h.extra_fcgi.index("--request-timeout") + 1] = \
        str(LEASE_TIMEOUT_S)
    h.nginx_bin = world.nginx_bin
    world.hs.append(h)
    h.paths()
    h.start()
    w = Wire(h.port)
    for label, hold in (("L1", 3.0), ("L2", LEASE_L_S + 2.0)):
        r, took, rc, out = held_task(world, h, w, "lease", label, 1000, hold)
        res = r.get("result") or {}
        R.check(rc == 0, "L: psql held %s's row for %g s from its claim" %
                (label, hold), "exit %r: %s" % (rc, out[-300:]))
        # L2's lease runs out: another runner may take it over, and
        # find its effect done ("already written").
        R.check(res.get("status") == "completed" and
                re.search(r"ledger %s (already )?written" % label,
                          json.dumps(res.get("result"))),
                "L: %s (1 s of work, limit %d s, renewals held %g s) "
                "completes with the tool's text" % (label, LEASE_TIMEOUT_S,
                                                     hold),
                json.dumps(r)[:300])
        # Not vacuous: the tool's end waited for the row.
        R.check(took is not None and took >= hold - 0.5,
                "L: %s ended after the row was let go" % label,
                "%r s after the lock" % took)
    text = open(h.fcgi_log, errors="replace").read()
    R.check("Task timed out" not in text and
            "still running" not in text,
            "L: no time-limit line in the log", "")
    R.check(len(re.findall(r"\(attempt 1\)", text)) == 2 and
            len(re.findall(r"\(attempt 2\)", text)) <= 1,
            "L: L1 ran once (attempt 1); L2 at most twice", "")
    with open(h.ledger) as f:
        writes = [ln.split()[3] for ln in f if ln.startswith("write ")]
    R.check(sorted(writes) == ["L1", "L2"], "L: each wrote once",
            repr(writes))
    m = re.findall(r"warning: task store: task \S+: renewing its lease "
                   r"took (\d+) ms, longer than the lease \((\d+) ms\)",
                   text)
    R.check(len(m) == 1 and int(m[0][0]) > int(m[0][1]) ==
            LEASE_L_S * 1000,
            "L: the renewal longer than the lease is one warning", repr(m))
    st, ts, page = task_store_member(h.port)
    R.check(ts is not None and ts.get("slowRenewals") == 1,
            "L: taskStore.slowRenewals is 1", page[:300])
    st, prom = status_page(h.port, prom=True)
    R.check(prom_value(prom, "wymcp_task_store_slow_renewals_total") == 1,
            "L: wymcp_task_store_slow_renewals_total is 1", "")


def judge_pg_log(tr, marks):
    h = tr.h
    entries = log_entries(h.fcgi_log)
    unreach = [(pid, lvl, msg) for pid, lvl, _, msg in entries
               if msg.startswith("task store unreachable: ")]
    again = [(pid, lvl, msg) for pid, lvl, _, msg in entries
             if re.match(r"^task store reachable again after \d+ s$", msg)]
    R.check(unreach and all(lvl == "warning" for _, lvl, _ in unreach),
            "PG: the log says 'task store unreachable: ...' (warning)",
            "%d such lines, levels %r" % (len(unreach),
                                          sorted({x[1] for x in unreach})))
    R.check(again and all(lvl == "warning" for _, lvl, _ in again),
            "PG: the log says 'task store reachable again after N s' "
            "(warning)", "%d such lines" % len(again))
    # The pool logs an outage once, from whichever process saw it start
    # or end: the last of these lines says the store is back.
    last = None
    for pid, _, _, msg in entries:
        if msg.startswith("task store unreachable: "):
            last = ("down", pid)
        elif msg.startswith("task store reachable again"):
            last = ("up", pid)
    R.check(last is not None and last[0] == "up",
            "PG: the pool's last word on the store is 'reachable again'",
            "last: %r" % (last,))
    R.check(len(unreach) <= 3 * 3 and len(again) <= 3 * 3,
            "PG: the pool logs each outage about once, not once a request "
            "(%d unreachable, %d reachable again lines for 3 outages)" %
            (len(unreach), len(again)), "")
    worst = []
    names = ("restart -m fast", "restart -m immediate", "stop and start")
    for i in range(3):
        for pid, msgs in store_lines(h.log_slice(marks[i],
                                                 marks[i + 1])).items():
            if len(msgs) > 3:
                worst.append("%d x%d in '%s': %s" % (pid, len(msgs),
                                                     names[i], msgs[0]))
    R.check(not worst, "PG: no process logs more than 3 warnings or errors "
            "naming the task store per outage", "; ".join(worst[:4]))


def sync_idempotency(tr):
    """I: a call that is not a task, its last round sent twice, then a
    new call."""
    w = Wire(tr.h.port, meta=SYNC_META)
    label = "sync-1"
    args = {"id": label, "questions": 1}
    texts = []
    for _ in range(2):
        st, body = tr.rpc(w, "tools/call", {"name": "ledger",
                                            "arguments": args}, "ledger")
        res = (body or {}).get("result") or {}
        state = res.get("requestState")
        if res.get("resultType") != "input_required" or not state:
            R.fail("I: the first round asks", "HTTP %s %s" % (
                st, json.dumps(body)[:200]))
            return (label,)
        last = {"name": "ledger", "arguments": args,
                "inputResponses": {"elicit-1": CONFIRM},
                "requestState": state}
        for _ in range(2 if not texts else 1):
            st, body = tr.rpc(w, "tools/call", last, "ledger")
            texts.append(text_of(body))
    R.check(texts[:2] == ["ledger sync-1 written",
                          "ledger sync-1 already written"],
            "I: the last round of a call, sent twice: written, then "
            "already written (one key)", repr(texts[:2]))
    R.check(texts[2:] == ["ledger sync-1 written"],
            "I: a new call with the same arguments has a key of its own: "
            "written", repr(texts[2:]))
    return (label,)


def section_sqlite(world):
    user = "nobody" if os.geteuid() == 0 else None
    base = os.path.join(world.tmp, "sqlite-fcgi")
    store = os.path.join(base, "store")
    os.makedirs(store)
    os.chmod(base, 0o755)
    if user is not None:
        shutil.chown(store, user)
    else:
        note("S: not root: wymcp-fcgi runs as this user, whom the "
             "permissions bind already")
    h = StoreHarness(world.builddir, base,
                     "sqlite:" + os.path.join(store, "tasks.db"), user)
    h.nginx_bin = world.nginx_bin
    world.hs.append(h)
    h.paths()
    h.start()
    tr = Traffic("S", h)
    sync = sync_idempotency(tr)
    tr.t0 = time.monotonic()
    load = 12.0
    until = tr.t0 + load
    clients = tr.start_clients(world, 3, until)
    time.sleep(3.0)

    files = [os.path.join(store, f) for f in sorted(os.listdir(store))]
    modes = [(p, os.stat(p).st_mode & 0o7777) for p in [store] + files]

    def restore():
        for p, m in modes:
            try:
                os.chmod(p, m)
            except OSError:
                pass

    world.undo.append(restore)
    b = time.monotonic()
    ro = h.log_size()
    for p in files:
        os.chmod(p, 0o444)
    os.chmod(store, 0o555)
    note("S: %s and %s read-only at +%.1f s" % (
        store, ", ".join(os.path.basename(p) for p in files), tr.rel(b)))
    time.sleep(0.2)
    killed = tr.kill_runner()
    # Read-only for 4 s at least, and until the runner that replaces the
    # killed one has tried the store and said so (on a busy machine it
    # starts later), 30 s at most.
    least, deadline = time.monotonic() + 4.0, time.monotonic() + 30.0
    while True:
        seen = h.log_slice(ro)
        new = sorted(int(m.group(1)) for pid, _, _, msg in seen
                     for m in [RUNNER_RE.match(msg)] if m and pid == h.sup)
        said = store_lines(seen)
        now = time.monotonic()
        if now >= least and (any(p in said for p in new) or
                             now > deadline):
            break
        time.sleep(0.2)
    world.undo.remove(restore)
    restore()
    rw = h.log_size()
    e = time.monotonic()
    tr.outages.append(("read-only", b, e))
    note("S: writable again at +%.1f s; runners started meanwhile: %r" %
         (tr.rel(e), new))
    while time.monotonic() < until and not HALT.is_set():
        time.sleep(0.1)
    for th in clients:
        th.join(DRIVE_S + 35)
    settled = tr.settle()
    note("S: settled at +%.1f s%s" % (tr.rel(), "" if settled else
                                      " (not all: timed out)"))
    end = h.log_size()

    met = store_lines(h.log_slice(ro, rw))
    R.check(killed is not None and new and any(p in met for p in new),
            "S: the new runner could not open the read-only store (it "
            "said so)", "killed %r, new runners %r, task store lines by "
            "%r" % (killed, new, sorted(met)))
    many = ["%d x%d: %s" % (pid, len(msgs), msgs[0]) for pid, msgs in
            store_lines(h.log_slice(ro, end)).items() if len(msgs) > 3]
    R.check(not many, "S: no process logs more than 3 warnings or errors "
            "naming the task store for the outage (not one per look)",
            "; ".join(many[:4]))
    judge_tasks(tr, settled)
    read_all(tr)
    fresh_tasks(tr)
    judge_traffic(tr)
    judge_ledger(tr, sync)


def layer(world):
    world.tmp = tempfile.mkdtemp(prefix="wymcp-store.")
    os.chmod(world.tmp, 0o755)
    started = time.monotonic()
    try:
        if not wymcp_e2e.ARGS.lease_only:
            section_pg(world)
        else:
            world.bindir = pg_bindir()
            pg_start(world.tmp, world.bindir)
        if world.bindir is not None:
            HALT.set()
            for h in world.hs:
                h.stop()
            HALT.clear()
            section_lease(world)
    except wymcp_e2e.Failed as e:
        R.fail("PG: setup", str(e))
    # The first section's processes go before the second starts.
    HALT.set()
    for h in world.hs:
        h.stop()
    if world.bindir is not None:
        pg_stop(world.tmp, world.bindir)
    world.threads = []
    HALT.clear()
    note("PG and L took %.1f s" % (time.monotonic() - started))
    if wymcp_e2e.ARGS.lease_only:
        return
    if wymcp_e2e.built_without("sqlite") is not None:
        note("S: skipped (%s)" % wymcp_e2e.built_without("sqlite"))
        return
    section_sqlite(world)


def main():
    # A wymcp built with neither back end has nothing to test here.
    if wymcp_e2e.built_without("sqlite") is not None and \
            pg_missing() is not None:
        print("SKIP: %s; %s" % (wymcp_e2e.built_without("sqlite"),
                                pg_missing()))
        return 77
    return wymcp_e2e.run_layer(World, layer, "the wymcp-fcgi logs",
                               options=lambda ap: ap.add_argument(
                                   "--lease-only", action="store_true",
                                   help="only L (needs PostgreSQL)"))


if __name__ == "__main__":
    sys.exit(main())
