#!/usr/bin/env python3
"""e2e_soak.py - wymcp end to end: a soak with workers killed at random.

Usage: e2e_soak.py [--builddir DIR] [--seconds N] [--threads N] [--keep]

Starts wymcp-fcgi (4 workers; modules help, echo and examples) behind a
private nginx and, for N seconds (default 60), sends mixed traffic from
several client threads:

  discover   server/discover
  list       tools/list
  echo       tools/call echo (the text must come back)
  slow       count_slowly to 10, 30 ms a step (the text must come back)
  book       book_room, all three rounds (room, people, booked); a round
             that failed on a killed worker is sent again with the same
             requestState, which any worker can open
  malformed  bad JSON, a batch, a wrong or missing Mcp-Method, a missing
             protocol version, an unknown method, GET and DELETE, a
             text/plain body, a body past --max-body: each must get its
             spec-shaped 4xx
  hangup     count_slowly (100 steps of 50 ms) dropped after 0.05-0.3 s,
             or a body announced in full and sent in part

while a killer thread sends SIGKILL to a random worker (one at least a
second old, so that the supervisor's start-up back-off, which is for
workers that die before taking a connection, is not what is measured)
every 1-2 s, and a sampler reads VmRSS and the number of descriptors of
the supervisor and of every worker from /proc every second.

It asserts:

  - no request failed except those in flight on a killed worker: a
    failure is excused when the supervisor's log says the killed worker
    was serving its id, or, for a request without a readable id, when a
    kill happened during its flight;
  - every book_room call completed (a round cut by a kill is retried);
  - count_slowly noticed the clients that hung up: at least half the
    dropped calls not cut by a kill log "the client went away" (a call
    dropped before nginx passed it on never reaches a worker), none
    after its 100th step;
  - every kill was noticed (the log names the worker killed by signal 9)
    and no worker died otherwise; after each kill the pool was back to 4
    workers within 3 s (the supervisor is never stuck);
  - descriptors: a worker never holds more than it had at start plus 2
    (one FastCGI connection at a time, and slack for one descriptor
    libc opens lazily); the supervisor ends with at most the count it
    started with (a leak per respawn would show after dozens);
  - memory: no worker's VmRSS exceeds its start value plus 16 MiB (a
    request is bounded by --max-body 65536: its parse trees and arena
    are a few hundred KiB, so only a leak reaches 16 MiB), and the
    supervisor's VmRSS grows by at most 1 MiB over the run (it only
    forks and reaps);
  - after the traffic a request still succeeds; a book_room call
    completes when all 4 workers are SIGKILLed before its second and
    before its third round (the new workers open its requestState); a
    SIGTERM stops the supervisor and every worker within
    --drain-timeout (5 s) plus 2 s;
  - no sanitizer report in the log.

Under WYMCP_E2E_WRAP (make check-valgrind runs a short soak under
memcheck) the workers' VmRSS is valgrind's and is printed, not judged.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion, a summary
(requests by kind and outcome, kills, RSS and descriptor maxima) and,
last, "N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77
when nginx is not installed.  Every loop stops by itself: the threads at
the deadline, each request after its 30 s client time-out.  Python 3
standard library only.
"""

import http.client
import itertools
import json
import os
import random
import re
import signal
import socket
import sys
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_mrtr  # noqa: F401
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_mrtr"):
        raise
    print("e2e_soak.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (META, OMIT, PROTO, Client, R,  # noqa: E402
                       alive, children, enc, hlist, judge_bare,
                       judge_error, judge_result, std_headers, tail,
                       workers_of)
from wymcp_mrtr import (BOOKED, ROOM, ROOM_Q, SIZE, SIZE_Q,  # noqa: E402
                        judge_done, judge_input)

WORKERS = 4
DRAIN = 5		# --drain-timeout
RECOVER = 3.0		# seconds the pool may take to be whole after a kill
FD_SLACK = 2
RSS_SLACK_KB = 16 * 1024
SUP_RSS_SLACK_KB = 1024
KILL_MIN_AGE = 1.2	# QUICK_DEATH_MS in src/front/prefork.c is 1000
DAY = wymcp_mrtr.DAY
KILLED_RE = re.compile(r"worker (\d+) killed by signal (\d+) .*?"
                       r"\(unexpected\)(?: while serving (?:\[id (.*?)\] )?"
                       r"(.*))?$")
UNEXPECTED_RE = re.compile(r"worker (\d+) .*\(unexpected\)")
WENT_RE = re.compile(r"count_slowly: the client went away after (\d+) of "
                     r"100 steps")

RIDS = itertools.count(1)


def rid():
    return next(RIDS)


class Soak(wymcp_e2e.Harness):
    def __init__(self, builddir, keep=False):
        super().__init__(builddir, keep)
        self.nworkers = WORKERS
        self.tools = ["help", "echo", "examples"]
        # -v: the info lines, among them count_slowly's "the client
        # went away" (one per dropped call it noticed).
        self.extra_args = ["-v", "--drain-timeout", str(DRAIN)]


class Ledger:
    """What happened: requests, kills, samples.  Thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reqs = []		# dicts: kind, rid, t0, t1, problems
        self.kills = []		# (t, pid)
        self.pool_kills = []	# pids, the whole pool between rounds
        self.recover = []	# seconds each kill took to heal
        self.stuck = []		# kills after which the pool did not heal
        self.books = {"completed": 0, "retried": 0, "failed": [],
                      "cut": 0}
        self.hangups = {"count_slowly": 0, "partial body": 0}

    def add(self, kind, rid_, t0, t1, problems):
        q = {"kind": kind, "rid": rid_, "t0": t0, "t1": t1,
             "problems": problems}
        with self.lock:
            self.reqs.append(q)
        return q

    def kill_during(self, t0, t1):
        with self.lock:
            return any(t0 <= t <= t1 for t, _ in self.kills)


# ---------------------------------------------------------------- traffic

class Traffic:
    def __init__(self, h, ledger, end):
        self.h = h
        self.c = Client(h.port)
        self.L = ledger
        self.end = end

    def send(self, kind, method, body, headers, http_method="POST",
             judge=None, rid_=None):
        """One request; its outcome goes to the ledger.  Returns the
        ledger entry."""
        t0 = time.monotonic()
        r = None
        try:
            r = self.c.send(http_method, "/mcp",
                            None if body is None else enc(body),
                            hlist(headers))
            problems = judge(r)
            if problems:
                problems = problems + [r.brief()]
        except (OSError, http.client.HTTPException) as e:
            problems = ["no response: %r" % e]
        return self.L.add(kind, rid_, t0, time.monotonic(), problems)

    def rpc(self, kind, method, params, name=None, judge=None):
        i = rid()
        p = dict(params or {})
        p["_meta"] = META
        body = {"jsonrpc": "2.0", "id": i, "method": method, "params": p}
        return self.send(kind, method, body, std_headers(method, name),
                         judge=lambda r: judge(r, i), rid_=i)

    def discover(self):
        def judge(r, i):
            p = judge_result(r, i)
            if not p and PROTO not in \
                    r.json["result"].get("supportedVersions", []):
                p.append("supportedVersions lack %s" % PROTO)
            return p
        self.rpc("discover", "server/discover", {}, judge=judge)

    def list(self):
        def judge(r, i):
            p = judge_result(r, i)
            if not p:
                names = {t.get("name") for t in
                         r.json["result"].get("tools", [])}
                if not {"echo", "help", "book_room",
                        "count_slowly"} <= names:
                    p.append("tools %r" % sorted(names))
            return p
        self.rpc("list", "tools/list", {}, judge=judge)

    def echo(self):
        text = "soak %d" % random.randrange(1 << 30)

        def judge(r, i):
            p = judge_result(r, i)
            if not p and r.json["result"].get("content") != \
                    [{"type": "text", "text": text}]:
                p.append("content %r" % (r.json["result"].get("content"),))
            return p
        self.rpc("echo", "tools/call", {"name": "echo",
                                        "arguments": {"text": text}},
                 name="echo", judge=judge)

    def slow(self):
        """count_slowly to 10, 30 ms a step: long enough in flight for
        the kills to hit some."""
        def judge(r, i):
            p = judge_result(r, i)
            if not p and r.json["result"].get("content") != \
                    [{"type": "text", "text": "Counted to 10."}]:
                p.append("content %r" % (r.json["result"].get("content"),))
            return p
        self.rpc("slow", "tools/call", {"name": "count_slowly", "arguments":
                                        {"to": 10, "delay_ms": 30}},
                 name="count_slowly", judge=judge)

    def book_round(self, state, responses, want):
        """One round: (ledger entry, requestState or None)."""
        i = rid()
        params = {"name": "book_room", "arguments": {"day": DAY},
                  "_meta": dict(META, **{
                      "io.modelcontextprotocol/clientCapabilities":
                      {"elicitation": {}}})}
        if state is not None:
            params["requestState"] = state
        if responses is not None:
            params["inputResponses"] = responses
        body = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": params}
        out = {}

        def judge(r):
            if want is None:
                return judge_done(r, i, BOOKED)
            p, st = judge_input(r, i, want)
            out["state"] = st
            return p
        q = self.send("book", "tools/call", body,
                      std_headers("tools/call", "book_room"), judge=judge,
                      rid_=i)
        return q, out.get("state")

    def book(self):
        rounds = [(None, {"elicit-1": ROOM_Q}),
                  ({"elicit-1": ROOM}, {"elicit-2": SIZE_Q}),
                  ({"elicit-2": SIZE}, None)]
        state = None
        retried = False
        for n, (responses, want) in enumerate(rounds):
            for attempt in range(3):
                q, st = self.book_round(state, responses, want)
                if not q["problems"]:
                    break
                # Retry only what a kill may explain; the judgement of
                # excuses is made at the end, from the log.
                if not self.L.kill_during(q["t0"], q["t1"] + 0.5):
                    with self.L.lock:
                        self.L.books["failed"].append(
                            "round %d: %s" % (n + 1, q["problems"]))
                    return
                retried = True
                with self.L.lock:
                    self.L.books["cut"] += 1
            else:
                with self.L.lock:
                    self.L.books["failed"].append(
                        "round %d failed 3 times" % (n + 1))
                return
            if want is not None:
                state = st
        with self.L.lock:
            self.L.books["completed"] += 1
            if retried:
                self.L.books["retried"] += 1

    MALFORMED = None

    def malformed(self):
        dh = std_headers("server/discover")
        disc = {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                "params": {"_meta": META}}

        def err(status, code, want_id=OMIT):
            return lambda r: judge_error(r, status, code, want_id)

        def bare(status, allow=None):
            return lambda r: judge_bare(r, status, OMIT, allow)
        i = rid()
        tl = {"jsonrpc": "2.0", "id": i, "method": "tools/list",
              "params": {"_meta": META}}
        cases = [
            ("POST", "{not json", dh, err(400, -32700)),
            ("POST", '{"jsonrpc":"2.0","id":5,"method":"server/disc',
             dh, err(400, -32700)),
            ("POST", [disc], dh, err(400, -32600)),
            ("POST", tl, dict(std_headers("tools/list"),
                              **{"Mcp-Method": "prompts/list"}),
             err(400, -32020, i)),
            ("POST", tl, {k: v for k, v in std_headers("tools/list").items()
                          if k != "Mcp-Method"}, err(400, -32020, i)),
            ("POST", tl, {k: v for k, v in std_headers("tools/list").items()
                          if k != "MCP-Protocol-Version"},
             err(400, -32020, i)),
            ("POST", dict(tl, method="no/such"), std_headers("no/such"),
             err(404, -32601, i)),
            ("GET", None, {"Accept": "text/event-stream"},
             bare(405, "POST")),
            ("DELETE", None, {}, bare(405, "POST")),
            ("POST", disc, dict(dh, **{"Content-Type": "text/plain"}),
             bare(415)),
            ("POST", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "echo", "_meta": META,
                                 "arguments": {"text": "x" * 70000}}},
             std_headers("tools/call", "echo"), bare(413)),
        ]
        method, body, headers, judge = random.choice(cases)
        self.send("malformed", None, body, headers, http_method=method,
                  judge=judge, rid_=i if isinstance(body, dict) and
                  body.get("id") == i else None)

    def hangup(self):
        port = self.h.port
        if random.random() < 0.6:
            body = json.dumps({
                "jsonrpc": "2.0", "id": rid(), "method": "tools/call",
                "params": {"name": "count_slowly", "_meta": META,
                           "arguments": {"to": 100, "delay_ms": 50}}}
            ).encode()
            hdrs = std_headers("tools/call", "count_slowly")
            part = body
            kind = "count_slowly"
        else:
            body = json.dumps({
                "jsonrpc": "2.0", "id": rid(), "method": "tools/call",
                "params": {"name": "echo", "_meta": META,
                           "arguments": {"text": "y" * 400}}}).encode()
            hdrs = std_headers("tools/call", "echo")
            part = body[:len(body) // 3]
            kind = "partial body"
        head = ["POST /mcp HTTP/1.1", "Host: localhost:%d" % port]
        head += ["%s: %s" % kv for kv in hdrs.items()]
        head += ["Content-Length: %d" % len(body), "Connection: close"]
        try:
            s = socket.create_connection(("127.0.0.1", port), 5)
            try:
                s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + part)
                time.sleep(random.uniform(0.05, 0.3))
            finally:
                s.close()
        except OSError:
            pass
        with self.L.lock:
            self.L.hangups[kind] += 1

    KINDS = [("discover", 2), ("list", 2), ("echo", 4), ("book", 3),
             ("malformed", 3), ("slow", 1), ("hangup", 1)]

    def run(self, seed, most):
        """Requests until the deadline, and at most `most` of them."""
        random.seed(seed)
        kinds = [k for k, w in self.KINDS for _ in range(w)]
        for _ in range(most):
            if time.monotonic() >= self.end:
                break
            getattr(self, random.choice(kinds))()


# ------------------------------------------------------ killer, sampler

def stat_fields(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        s = f.read().decode("latin-1")
    return s[s.rfind(")") + 2:].split()


def ident(pid):
    """(pid, start time): a process, not a number the kernel reuses
    (pid_max may be 32768, and a long soak wraps it); None when gone."""
    try:
        f = stat_fields(pid)
    except OSError:
        return None
    return None if f[0] == "Z" else (pid, f[19])


def ident_alive(i):
    return ident(i[0]) == i


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def nfds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


class Sampler:
    def __init__(self, h):
        self.h = h
        self.first = {}		# ident -> (t, rss, fds) at first sight
        self.last = {}		# ident -> (t, rss, fds) last sample
        self.max_rss = {}
        self.max_fds = {}
        self.sup_series = []	# (t, rss, fds)
        self.n = 0

    def sample(self):
        now = time.monotonic()
        self.n += 1
        try:
            self.sup_series.append((now, rss_kb(self.h.sup),
                                    nfds(self.h.sup)))
        except OSError:
            pass
        for pid in workers_of(self.h.sup):
            i = ident(pid)
            try:
                v = (now, rss_kb(pid), nfds(pid))
            except OSError:
                continue	# it died in between
            if i is None or ident(pid) != i:
                continue
            self.first.setdefault(i, v)
            self.last[i] = v
            self.max_rss[i] = max(self.max_rss.get(i, 0), v[1])
            self.max_fds[i] = max(self.max_fds.get(i, 0), v[2])

    def age(self, pid):
        f = self.first.get(ident(pid))
        return 0.0 if f is None else time.monotonic() - f[0]


def killer(h, L, S, end, lock):
    """SIGKILL a random worker every 1-2 s until end; after each, wait
    (at most 5 s) for the pool to be whole again."""
    for _ in range(int((end - time.monotonic()) / 1.0) + 1):
        time.sleep(random.uniform(1.0, 2.0))
        if time.monotonic() >= end:
            return
        with lock:
            S.sample()
        ws = [p for p in workers_of(h.sup) if S.age(p) >= KILL_MIN_AGE]
        if not ws:
            continue
        victim = random.choice(ws)
        t = time.monotonic()
        with L.lock:
            L.kills.append((t, victim))
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
        deadline = t + 5.0
        while time.monotonic() < deadline:
            ws = workers_of(h.sup)
            if victim not in ws and len(ws) == WORKERS:
                break
            time.sleep(0.02)
        took = time.monotonic() - t
        with L.lock:
            L.recover.append(took)
            if took > RECOVER:
                L.stuck.append((victim, round(took, 2), ws))


def sampler(S, end, lock):
    for _ in range(int(end - time.monotonic()) + 1):
        if time.monotonic() >= end:
            return
        with lock:
            S.sample()
        time.sleep(1.0)


# ------------------------------------------------------------- the soak

def parse_log(h):
    """(deaths: pid -> [what it was serving, in log order]: the id of
    the request, "" for a request whose id it had not read yet, None for
    none (a list: the PID may have been reused); the other unexpected
    deaths; the step of each "client went away" line)."""
    killed, other, went = {}, [], []
    for line in tail(h.fcgi_log, 10 ** 7):
        m = KILLED_RE.search(line)
        if m and m.group(2) == "9":
            if m.group(3) is not None:
                v = m.group(3).strip('"')
            elif m.group(4) is not None:
                v = ""
            else:
                v = None
            killed.setdefault(int(m.group(1)), []).append(v)
        elif UNEXPECTED_RE.search(line):
            other.append(line.strip())
        else:
            m = WENT_RE.search(line)
            if m:
                went.append(int(m.group(1)))
    return killed, other, went


def layer(h):
    args = wymcp_e2e.ARGS
    h.paths()
    h.start()
    L = Ledger()
    S = Sampler(h)
    lock = threading.Lock()
    time.sleep(0.5)
    S.sample()
    base = {i: S.first[i] for i in map(ident, workers_of(h.sup))
            if i in S.first}
    base_fds = max(v[2] for v in base.values())
    base_rss = max(v[1] for v in base.values())
    R.note("start: supervisor %d rss %d kB fds %d; %d workers, rss <= %d "
           "kB, fds <= %d" % (h.sup, S.sup_series[0][1], S.sup_series[0][2],
                              len(base), base_rss, base_fds))

    t_start = time.monotonic()
    end = t_start + args.seconds
    tr = Traffic(h, L, end)
    # At most 2000 requests a second per thread (ten times what one
    # does here): the loops end by count as well as by time.
    most = int(args.seconds * 2000) + 1
    threads = [threading.Thread(target=tr.run, args=(k, most), daemon=True)
               for k in range(args.threads)]
    threads.append(threading.Thread(target=killer, args=(h, L, S, end,
                                                         lock),
                                    daemon=True))
    threads.append(threading.Thread(target=sampler, args=(S, end, lock),
                                    daemon=True))
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, end - time.monotonic()) + 40)
    late = [t for t in threads if t.is_alive()]
    R.check(not late, "every client, the killer and the sampler stopped "
            "by themselves", "%d threads still running" % len(late))
    elapsed = time.monotonic() - t_start

    # The pool is whole and serves.
    deadline = time.monotonic() + RECOVER
    while len(workers_of(h.sup)) != WORKERS and time.monotonic() < deadline:
        time.sleep(0.05)
    S.sample()
    ws = workers_of(h.sup)
    R.check(alive(h.sup) and len(ws) == WORKERS,
            "after the soak the supervisor has %d workers" % WORKERS,
            "workers %r" % (ws,))
    n0 = len(L.reqs)
    tr.discover()
    tr.echo()
    R.check(all(not q["problems"] for q in L.reqs[n0:]),
            "after the soak discover and echo succeed",
            "%r" % [q["problems"] for q in L.reqs[n0:]])

    # A call whose every round outlives the whole pool: the state is in
    # requestState, sealed with the supervisor's key, which every new
    # worker has.
    ok_rounds = []
    state = None
    for n, (responses, want) in enumerate(
            [(None, {"elicit-1": ROOM_Q}), ({"elicit-1": ROOM},
                                            {"elicit-2": SIZE_Q}),
             ({"elicit-2": SIZE}, None)]):
        if n > 0:
            old = workers_of(h.sup)
            for p in old:
                os.kill(p, signal.SIGKILL)
            deadline = time.monotonic() + RECOVER
            while time.monotonic() < deadline:
                ws = workers_of(h.sup)
                if len(ws) == WORKERS and not set(ws) & set(old):
                    break
                time.sleep(0.02)
            L.pool_kills.extend(old)
        q, st = tr.book_round(state, responses, want)
        ok_rounds.append(not q["problems"])
        if q["problems"]:
            break
        state = st
    R.check(ok_rounds == [True] * 3, "a book_room call completes when "
            "every worker is SIGKILLed before each of its rounds 2 and 3",
            "rounds %r: %s" % (ok_rounds, L.reqs[-1]["problems"]))

    # Final SIGTERM: everything stops within the drain time.
    procs = {ident(p) for p in children(h.sup) + [h.sup]} - {None}
    t0 = time.monotonic()
    os.kill(h.sup, signal.SIGTERM)
    left = None
    while time.monotonic() < t0 + DRAIN + 2:
        left = [i[0] for i in procs if ident_alive(i)]
        if h.fcgi.poll() is not None and not left:
            break
        time.sleep(0.02)
    took = time.monotonic() - t0
    left = [i[0] for i in procs if ident_alive(i)]
    R.check(not left and h.fcgi.poll() is not None,
            "SIGTERM stops the supervisor and every worker within %d s "
            "(took %.2f s)" % (DRAIN + 2, took), "alive %r" % (left,))

    # Judge the requests.
    killed, other, went = parse_log(h)
    serving = {v for vs in killed.values() for v in vs if v}
    # Each kill, in order, takes the next death line of its PID.
    queues = {p: list(vs) for p, vs in killed.items()}
    what, missing = [], []
    for t, p in L.kills + [(None, p) for p in L.pool_kills]:
        if queues.get(p):
            what.append((t, queues[p].pop(0)))
        else:
            missing.append(p)
    kill_pids = [p for _, p in L.kills]
    by = {}
    unexcused = []
    ex_log = ex_read = ex_time = 0
    for q in L.reqs:
        k = by.setdefault(q["kind"], {"ok": 0, "excused": 0, "failed": 0})
        if not q["problems"]:
            k["ok"] += 1
        elif q["rid"] is not None and str(q["rid"]) in serving:
            k["excused"] += 1
            ex_log += 1
        elif any(t is not None and q["t0"] <= t <= q["t1"] and v == ""
                 for t, v in what):
            # A kill during its flight of a worker still reading a
            # request ("a request being read"): the log cannot know its
            # id (and bad JSON or a GET has none).
            k["excused"] += 1
            ex_read += 1
        elif any(t is not None and q["t0"] <= t <= q["t1"] and v is None
                 for t, v in what):
            # A kill during its flight of a worker whose board showed no
            # request: one that had accepted the connection and not yet
            # marked itself busy, or had written the response and not
            # yet closed the connection.
            k["excused"] += 1
            ex_time += 1
        else:
            k["failed"] += 1
            unexcused.append(q)
    R.check(not unexcused, "no failed request except those in flight on "
            "a killed worker (excused: %d by the log naming the request, "
            "%d by the kill of a worker reading a request, %d by the kill "
            "of a worker between requests, during the flight)" %
            (ex_log, ex_read, ex_time),
            "; ".join("%s id %r (%.3f-%.3f s; kills near: %s): %s" % (
                q["kind"], q["rid"], q["t0"] - t_start, q["t1"] - t_start,
                ", ".join("%.3f s serving %r" % (t - t_start, v)
                          for t, v in what if t is not None and
                          q["t0"] - 1 <= t <= q["t1"] + 1) or "none",
                " ".join(q["problems"])) for q in unexcused[:5]))
    n_ex = ex_log + ex_read + ex_time
    R.check(n_ex <= len(L.kills), "excused failures (%d) are at most one "
            "per kill (%d kills): a worker serves one request at a time" %
            (n_ex, len(L.kills)), "too many")
    b = L.books
    R.check(not b["failed"] and b["completed"] > 0,
            "every book_room call completed all its rounds (%d, %d after "
            "retrying a round cut by a kill)" % (b["completed"],
                                                 b["retried"]),
            "; ".join(b["failed"][:5]))
    R.check(len(L.kills) >= max(1, int(args.seconds / 2.5)),
            "the killer killed %d workers in %.0f s" % (len(L.kills),
                                                       elapsed),
            "too few kills")
    R.check(not missing, "the supervisor logged each of the %d kills "
            "('killed by signal 9')" % (len(kill_pids) + len(L.pool_kills)),
            "not logged: %r" % (missing,))
    R.check(not other, "no worker died of anything but the killer",
            "; ".join(other[:5]))
    # A call dropped before nginx passed it on never reaches a worker,
    # and a kill may cut one: most, not all, must be noticed, and none
    # may have run to its end (100 steps, 5 s).
    dropped = L.hangups["count_slowly"]
    R.check(len(went) >= 0.5 * (dropped - len(L.kills)) and
            max(went or [0]) < 100,
            "workers notice clients that hang up: %d of %d dropped "
            "count_slowly calls logged 'the client went away', after at "
            "most %d of 100 steps" % (len(went), dropped, max(went or [0])),
            "too few, or one ran to the end")
    R.check(not L.stuck, "after every kill the pool was back to %d "
            "workers within %.0f s (slowest %.2f s)" %
            (WORKERS, RECOVER, max(L.recover or [0])),
            "stuck: %r" % (L.stuck[:5],))

    # Bounds.
    fd_bound = base_fds + FD_SLACK
    rss_bound = base_rss + RSS_SLACK_KB
    max_fds = max(S.max_fds.values())
    max_rss = max(S.max_rss.values())
    R.check(max_fds <= fd_bound, "worker descriptors stay <= %d (start "
            "%d + %d); max %d" % (fd_bound, base_fds, FD_SLACK, max_fds),
            "per worker: %r" % sorted(S.max_fds.items(),
                                      key=lambda x: -x[1])[:5])
    if os.environ.get("WYMCP_E2E_WRAP"):
        # valgrind's translations and shadow memory grow with the code
        # a worker runs: its VmRSS says nothing about wymcp's.
        R.note("worker VmRSS not judged under WYMCP_E2E_WRAP; max %d kB "
               "(start %d)" % (max_rss, base_rss))
    else:
        R.check(max_rss <= rss_bound, "worker VmRSS stays <= %d kB (start "
                "%d + 16 MiB); max %d kB" % (rss_bound, base_rss, max_rss),
                "per worker: %r" % sorted(S.max_rss.items(),
                                          key=lambda x: -x[1])[:5])
    s0, s1 = S.sup_series[0], S.sup_series[-1]
    sup_max_rss = max(x[1] for x in S.sup_series)
    sup_max_fds = max(x[2] for x in S.sup_series)
    R.check(s1[2] <= s0[2], "supervisor descriptors end where they "
            "started after %d respawns (%d -> %d, max %d)" %
            (len(L.kills), s0[2], s1[2], sup_max_fds), "grew")
    R.check(s1[1] <= s0[1] + SUP_RSS_SLACK_KB,
            "supervisor VmRSS grows by <= 1 MiB (%d -> %d kB, max %d)" %
            (s0[1], s1[1], sup_max_rss), "grew")
    oldest = max(S.first, key=lambda p: S.last[p][0] - S.first[p][0])
    f, la = S.first[oldest], S.last[oldest]

    # The summary.
    R.note("summary: %.0f s, %d client threads, %d requests (%.0f/s)" %
           (elapsed, args.threads, len(L.reqs), len(L.reqs) / elapsed))
    for kind in sorted(by):
        k = by[kind]
        R.note("summary:   %-9s %6d ok %4d excused %3d failed" %
               (kind, k["ok"], k["excused"], k["failed"]))
    R.note("summary:   book_room calls %d completed (%d retried a cut "
           "round, %d rounds cut), %d failed" %
           (b["completed"], b["retried"], b["cut"], len(b["failed"])))
    R.note("summary:   hang-ups: %d count_slowly dropped (%d logged "
           "'the client went away'), %d partial bodies" %
           (L.hangups["count_slowly"], len(went),
            L.hangups["partial body"]))
    R.note("summary: kills %d (log named the request for %d), pool whole "
           "again after max %.2f s, mean %.2f s; %d workers seen" %
           (len(L.kills), len([v for t, v in what if t is not None and v]),
            max(L.recover or [0]),
            sum(L.recover) / max(1, len(L.recover)), len(S.first)))
    R.note("summary: workers: max VmRSS %d kB (start %d), max fds %d "
           "(start %d); longest-lived %d (%.0f s): %d -> %d kB, %d -> %d "
           "fds" % (max_rss, base_rss, max_fds, base_fds, oldest[0],
                    la[0] - f[0], f[1], la[1], f[2], la[2]))
    R.note("summary: supervisor: VmRSS %d -> %d kB (max %d), fds %d -> %d "
           "(max %d); %d samples; SIGTERM stop %.2f s" %
           (s0[1], s1[1], sup_max_rss, s0[2], s1[2], sup_max_fds, S.n,
            took))


def options(ap):
    ap.add_argument("--seconds", type=float, default=60.0,
                    help="how long the traffic runs (default 60)")
    ap.add_argument("--threads", type=int, default=6,
                    help="client threads (default 6)")


def main():
    return wymcp_e2e.run_layer(Soak, layer, options=options)


if __name__ == "__main__":
    sys.exit(main())
