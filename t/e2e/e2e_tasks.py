#!/usr/bin/env python3
"""e2e_tasks.py - the tasks extension end to end, through a real nginx.

Usage: e2e_tasks.py [--builddir DIR] [--keep]
       e2e_tasks.py --netns [--builddir DIR] [--keep]

Starts wymcp-fcgi (four workers, two task runners, --task-store
sqlite:TMP/tasks.db, --request-timeout 5, so a 15 s lease, the
examples and conformance
modules) behind a private nginx and proves:

  K  a task survives its runner: slow_compute (3 s) is claimed by a
     runner, which is SIGKILLed mid-run; the supervisor replaces it, the
     lease expires and the task completes on another runner (the log
     names both runners; the second attempt is another process); the
     status page (--status-path) counts the task running meanwhile;
  B  book_room as a task, through tasks/update twice, completes; the
     answers are checked against the outstanding requests (-32602 for a
     wrong shape), other keys are ignored; the status page counts it
     input_required while it waits;
  P  another principal (WYMCP_PRINCIPAL from the web server) gets "not
     found" for the task; a tampered id too;
  H  three instances sharing a PostgreSQL store (a private cluster:
     initdb into the temporary directory, a unix socket only): A and B
     have workers only, C has the runners; a task made through A is
     polled through B after A is stopped, and completes, run on C
     (skipped without PostgreSQL's initdb).  On one machine, unix
     FastCGI sockets: for machines without root.

With --netns, only this (the hosts e2e layer of runtests; root):

  N  H across hosts: A, B and C are network namespaces on one bridge
     in the root namespace (a LAN, t/e2e/lib/wymcp_netns.py), each
     wymcp-fcgi listening for FastCGI on its own address, port 9000,
     --allow-peer naming nginx's address; nginx in the root namespace
     with /a, /b and /c pinned to one host each.  The store is the
     private cluster of H, run as nobody in the root namespace on a
     unix socket only, in the temporary directory: a socket is a file,
     and every network namespace sees the same file system, so the
     three hosts reach it with no address of their own to open.
     slow_compute (6 s) is made through A, which is then stopped
     (nothing left in its namespace); polled through B it is working,
     then completed with the tool's result; only C's log (the runners)
     ran it.  Every namespace, veth and process is removed again, also
     on failure or a signal; without root, ip or initdb it prints
     "SKIP: ..." and exits 77.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
import wymcp_e2e
import wymcp_netns
from wymcp_conformance import Harness, say
from wymcp_tasks import (Wire, pg_bindir, pg_missing, pg_start, pg_stop,
                         start_nginx, stop_lan)

STATUS = "/wymcp-status"
passed = failed = 0


def check(cond, name, detail=""):
    global passed, failed
    if cond:
        passed += 1
        say("ok - %s" % name)
    else:
        failed += 1
        say("not ok - %s: %s" % (name, detail))
    return cond


class TasksHarness(Harness):
    def paths(self):
        Harness.paths(self)
        self.mods.append(os.path.join(self.builddir, "tools", ".libs",
                                      "examples.so"))

    def start_fcgi(self):
        self.tasks = True
        # The lease is at least the time limit plus 10 s: 15 s here.
        self.extra_fcgi = ["--task-lease", "2", "--request-timeout", "5",
                           "--status-path", STATUS, "-v"]
        self.status_path = STATUS
        Harness.start_fcgi(self)

    # /mcp as alice, /bob as bob: the principal is the web server's.
    mcp_params = [("WYMCP_PRINCIPAL", "alice")]

    def more_locations(self, target):
        return wymcp_e2e.wymcp_location(
            "/bob", target, [("WYMCP_PRINCIPAL", "bob")], blank_user=False,
            read_timeout="60s") + Harness.more_locations(self, target)


def task_depth(port, want, timeout=15):
    """The status page's tasks once they are `want' (or at the
    timeout), and its Prometheus text."""
    deadline = time.monotonic() + timeout
    while True:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", STATUS)
        got = json.loads(c.getresponse().read()).get("tasks")
        c.close()
        if got == want or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", STATUS + "?format=prometheus")
    prom = c.getresponse().read().decode()
    c.close()
    return got, prom


def carol(path, target):
    """A location for carol at path, as nginx passes by default."""
    return wymcp_e2e.wymcp_location(path, target,
                                    [("WYMCP_PRINCIPAL", "carol")],
                                    blank_user=False, buffering=True)


def runner_of(log, tid, attempt):
    """The pid that logged running task `tid` at `attempt`, or None."""
    pat = re.compile(r"wymcp-fcgi\[(\d+)\]: debug: \[id %s\] task %s: "
                     r"running \S+ \(attempt %d\)" % (re.escape(tid),
                                                       re.escape(tid),
                                                       attempt))
    try:
        with open(log, errors="replace") as f:
            for line in f:
                m = pat.search(line)
                if m:
                    return int(m.group(1))
    except OSError:
        pass
    return None


def section_k(h, w):
    # 3 s of work in a 5 s limit: room for a busy machine (the time a
    # lease renewal waits for the store is not the tool's).
    r = w.tool("slow_compute", {"seconds": 3, "label": "survivor"})
    tid = r.get("result", {}).get("taskId")
    if not check(tid is not None, "K: slow_compute answers a task handle",
                 json.dumps(r)[:300]):
        return
    pid = None
    deadline = time.monotonic() + 30
    while pid is None and time.monotonic() < deadline:
        pid = runner_of(h.fcgi_log, tid, 1)
        time.sleep(0.02)
    if not check(pid is not None, "K: a runner claims the task",
                 "no 'running' line in the log"):
        return
    # At once, while the tool naps: the status page is read after (the
    # lease keeps the task running until it runs out).
    os.kill(pid, signal.SIGKILL)
    say("# SIGKILLed runner %d mid-task" % pid)
    got, prom = task_depth(h.port, {"waiting": 0, "running": 1,
                                    "inputRequired": 0})
    check(got == {"waiting": 0, "running": 1, "inputRequired": 0} and
          re.search(r'(?m)^wymcp_tasks\{state="running"\} 1$', prom),
          "K: the status page counts the running task", repr(got))
    r = w.get(tid)
    check(r.get("result", {}).get("status") == "working",
          "K: the task is still working after its runner died",
          json.dumps(r)[:300])
    # The lease (15 s) runs out, then another runner runs it (3 s).
    r = w.wait(tid, ("completed", "failed", "cancelled"), 90)
    st = r.get("result", {}).get("status")
    check(st == "completed", "K: the task completes on another runner",
          json.dumps(r)[:400])
    other = runner_of(h.fcgi_log, tid, 2)
    check(other is not None and other != pid,
          "K: the second attempt ran in another process",
          "attempt 2 by %r, attempt 1 by %d" % (other, pid))
    text = json.dumps(r.get("result", {}).get("result", {}))
    check("survivor" in text, "K: its result is the tool's", text[:300])


def section_b(h, w):
    r = w.tool("book_room", {"day": "2026-12-01"})
    tid = r.get("result", {}).get("taskId")
    if not check(tid is not None, "B: book_room answers a task handle",
                 json.dumps(r)[:300]):
        return
    r = w.wait(tid, ("input_required",))
    ir = r.get("result", {}).get("inputRequests", {})
    check(list(ir) == ["elicit-1"], "B: the first question is asked",
          json.dumps(r)[:300])
    want = {"waiting": 0, "running": 0, "inputRequired": 1}
    got, prom = task_depth(h.port, want)
    check(got == want and re.search(
          r'(?m)^wymcp_tasks\{state="input_required"\} 1$', prom),
          "B: the status page counts the task waiting for input",
          repr(got))
    r = w.update(tid, {"elicit-1": {"action": "accept",
                                    "content": {"room": "Nowhere"}}})
    check(r.get("error", {}).get("code") == -32602,
          "B: an answer outside the requested schema is refused",
          json.dumps(r)[:300])
    r = w.update(tid, {"elicit-9": {"action": "accept"}})
    check(r.get("result") is not None and "taskId" not in r["result"],
          "B: an answer to a key not asked is ignored (ack)",
          json.dumps(r)[:300])
    r = w.update(tid, {"elicit-1": {"action": "accept",
                                    "content": {"room": "Cirrus"}}})
    check(r.get("result", {}).get("resultType") == "complete",
          "B: the first answer is taken", json.dumps(r)[:300])
    r = w.wait(tid, ("input_required",))
    ir = r.get("result", {}).get("inputRequests", {})
    check(list(ir) == ["elicit-2"], "B: then the second question",
          json.dumps(r)[:300])
    w.update(tid, {"elicit-2": {"action": "accept",
                                "content": {"people": 4}}})
    r = w.wait(tid, ("completed", "failed", "cancelled"))
    text = json.dumps(r.get("result", {}).get("result", {}))
    check("Booked Cirrus for 4 on 2026-12-01" in text,
          "B: book_room completes with both answers", text[:300])
    return tid


def section_p(w, tid):
    r = w.get(tid, "/bob")
    check(r.get("error", {}).get("code") == -32602,
          "P: another principal's tasks/get is not found",
          json.dumps(r)[:300])
    r = w.update(tid, {"elicit-1": {"action": "cancel"}}, "/bob")
    check(r.get("error", {}).get("code") == -32602,
          "P: another principal's tasks/update is not found",
          json.dumps(r)[:300])
    bad = tid[:-1] + ("A" if tid[-1] != "A" else "B")
    r = w.get(bad)
    check(r.get("error", {}).get("code") == -32602,
          "P: a tampered id is not found", json.dumps(r)[:300])


def section_h(h, nginx):
    bindir = pg_bindir()
    if bindir is None:
        say("# H: skipped (%s)" % pg_missing())
        return
    procs = []
    ngx = None
    try:
        uri = pg_start(h.tmp, bindir)
        socks = {}
        for name, extra in (("a", []), ("b", []),
                            ("c", ["--task-runners", "2"])):
            socks[name] = os.path.join(h.tmp, name + ".sock")
            argv = [h.prog, "--listen", "unix:" + socks[name], "--workers",
                    "2", "--task-store", uri, "--task-lease", "2", "-v",
                    "-v"] + extra
            for m in h.mods:
                argv += ["--module", m]
            log = open(os.path.join(h.tmp, name + ".log"), "wb")
            procs.append(subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=log))
        deadline = time.monotonic() + 20
        while not all(os.path.exists(s) for s in socks.values()):
            if time.monotonic() > deadline:
                raise RuntimeError("the three instances did not start")
            time.sleep(0.05)
        locs = "".join(carol("/" + n, "unix:" + s)
                       for n, s in sorted(socks.items()))
        ngx, port = start_nginx(nginx, h.tmp, "h", locs)
        w = Wire(port)
        r = w.call("tools/call", {"name": "slow_compute",
                                  "arguments": {"seconds": 2,
                                                "label": "across"}},
                   "slow_compute", "/a")
        tid = r.get("result", {}).get("taskId")
        if not check(tid is not None, "H: a task made through host A",
                     json.dumps(r)[:300]):
            return
        wymcp_e2e.stop_pid(procs[0].pid, procs[0], 10)
        check(procs[0].poll() is not None, "H: host A is stopped")
        deadline = time.monotonic() + 60
        st = None
        while time.monotonic() < deadline:
            r = w.get(tid, "/b")
            st = r.get("result", {}).get("status")
            if st in ("completed", "failed", "cancelled"):
                break
            time.sleep(0.2)
        check(st == "completed", "H: polled through host B, it completes",
              json.dumps(r)[:300])
        with open(os.path.join(h.tmp, "c.log"), errors="replace") as f:
            clog = f.read()
        check("task %s: running" % tid in clog,
              "H: it ran on host C (the runners' host)", "not in c.log")
        text = json.dumps(r.get("result", {}).get("result", {}))
        check("across" in text, "H: the result is the tool's", text[:200])
    except Exception as e:
        check(False, "H: harness", repr(e))
    finally:
        if ngx is not None:
            wymcp_e2e.stop_pid(ngx.pid, ngx, 10)
        for p in procs:
            if p.poll() is None:
                wymcp_e2e.stop_pid(p.pid, p, 10)
        pg_stop(h.tmp, bindir)


# ------------------------------------------------- hosts in namespaces

NETNS_PORT = 9000


def log_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def start_host(prog, mods, h, name, uri, tmp, extra):
    """wymcp-fcgi in host h's namespace, FastCGI on its address from
    nginx's only; (Popen, log path) once its workers are ready."""
    log = os.path.join(tmp, name + ".log")
    argv = ["ip", "netns", "exec", h["ns"], prog, "--listen",
            "%s:%d" % (h["addr"], NETNS_PORT), "--allow-peer", h["peer"],
            "--workers", "2", "--task-store", uri, "--task-lease", "2",
            "-v", "-v"] + extra
    for m in mods:
        argv += ["--module", m]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    with open(log, "wb") as f:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=f,
                             stderr=f, env=env, cwd=tmp)
    serving = "serving %s:%d with 2 workers" % (h["addr"], NETNS_PORT)
    want = 2 + (2 if extra else 0)
    deadline = time.monotonic() + 30
    while not (any(ln.endswith(serving) for ln in log_lines(log)) and
               len(wymcp_e2e.children(p.pid)) >= want):
        if p.poll() is not None:
            raise RuntimeError("%s: wymcp-fcgi exited with %d: %s" %
                               (name, p.returncode,
                                " | ".join(log_lines(log)[-5:])))
        if time.monotonic() > deadline:
            raise RuntimeError("%s: not serving after 30 s: %s" %
                               (name, " | ".join(log_lines(log)[-5:])))
        time.sleep(0.05)
    say("# host %s: namespace %s, %s:%d, supervisor %d, children %r" %
        (name, h["ns"], h["addr"], NETNS_PORT, p.pid,
         wymcp_e2e.children(p.pid)))
    return p, log


def mentions(log, rid):
    return any("[id %d] " % rid in ln for ln in log_lines(log))


def section_n(prog, mods, nginx, bindir, tmp):
    """N: three hosts in network namespaces on one LAN, one store."""
    net = wymcp_netns.Net(NETNS_PORT)
    procs, logs = {}, {}
    ngx = None
    skipped = False
    try:
        uri = pg_start(tmp, bindir)
        hosts = {n[1:]: hh for n, hh in
                 net.add_lan_hosts(["h" + n for n in "abc"]).items()}
        for n, hh in sorted(hosts.items()):
            procs[n], logs[n] = start_host(
                prog, mods, hh, n, uri, tmp,
                ["--task-runners", "2"] if n == "c" else [])
        locs = "".join(carol("/" + n, "%s:%d" % (hh["addr"], NETNS_PORT))
                       for n, hh in sorted(hosts.items()))
        ngx, port = start_nginx(nginx, tmp, "n", locs)

        w = Wire(port)
        r = w.call("tools/call", {"name": "slow_compute",
                                  "arguments": {"seconds": 6,
                                                "label": "netns"}},
                   "slow_compute", "/a")
        tid = r.get("result", {}).get("taskId")
        if not check(tid is not None, "N: a task made through host A "
                     "(%s, its own network namespace)" % hosts["a"]["addr"],
                     json.dumps(r)[:300]):
            return False
        check(mentions(logs["a"], w.nid) and not mentions(logs["b"], w.nid)
              and not mentions(logs["c"], w.nid),
              "N: the tools/call is in A's log only")
        wymcp_e2e.stop_pid(procs["a"].pid, procs["a"], 10)
        left = net.pids(hosts["a"]["ns"])
        check(procs["a"].poll() is not None and not left,
              "N: host A is stopped (nothing runs in its namespace)",
              "exit %r, pids %r" % (procs["a"].poll(), sorted(left)))
        r = w.get(tid, "/b")
        st = r.get("result", {}).get("status")
        # Working, unless a busy machine took 6 s to stop A.
        check(st in ("working", "completed") and
              mentions(logs["b"], w.nid),
              "N: polled through host B (%s) with A down, it is working" %
              hosts["b"]["addr"], json.dumps(r)[:300])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and \
                st not in ("completed", "failed", "cancelled"):
            time.sleep(0.2)
            r = w.get(tid, "/b")
            st = r.get("result", {}).get("status")
        check(st == "completed", "N: polled through host B, it completes",
              json.dumps(r)[:300])
        text = json.dumps(r.get("result", {}).get("result", {}))
        check("netns" in text, "N: the result is the tool's", text[:200])
        ran = {n: any("task %s: running" % tid in ln
                      for ln in log_lines(logs[n])) for n in "abc"}
        check(ran == {"a": False, "b": False, "c": True},
              "N: it ran on host C (%s, the runners' host) only" %
              hosts["c"]["addr"], repr(ran))
    except wymcp_netns.Skip as e:
        say("SKIP: %s" % e)
        skipped = True
    except Exception as e:
        check(False, "N: harness", repr(e))
    finally:
        # Signals now would only interrupt the cleanup.
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        stop_lan(check, ngx, procs.values(), net=net, tmp=tmp,
                 bindir=bindir, what="N: ")
        bad = [ln for n in sorted(logs) for ln in log_lines(logs[n])
               if any(m in ln for m in wymcp_e2e.SANITIZER_MARKS)]
        if logs:
            check(not bad, "N: no sanitizer report in any host's log",
                  "; ".join(bad[:5]))
        if failed:
            for n in sorted(logs):
                for ln in log_lines(logs[n])[-20:]:
                    say("# %s: %s" % (n, ln))
    return skipped


def main_netns(args, nginx):
    """--netns: N only; 77 when it cannot run here."""
    why = wymcp_netns.unavailable()
    bindir = pg_bindir()
    if why is None and bindir is None:
        why = pg_missing()
    if why is not None:
        say("SKIP: %s" % why)
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    h = TasksHarness(args.builddir, args.keep)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="wymcp-tasks-netns.")
    os.chmod(tmp, 0o755)
    skipped = False
    try:
        h.paths()
        skipped = section_n(h.prog, h.mods, nginx, bindir, tmp)
    except KeyboardInterrupt as e:
        check(False, "interrupted", str(e) or "KeyboardInterrupt")
    except Exception as e:
        check(False, "harness", repr(e))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            say("# kept %s" % tmp)
    if skipped and failed == 0:
        return 77
    say("# run time %.1f s" % (time.monotonic() - started))
    say("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--netns", action="store_true",
                    help="only N: hosts in network namespaces")
    args = ap.parse_args()
    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        say("SKIP: nginx is not installed")
        return 77
    if args.netns:
        return main_netns(args, nginx)
    # Without --netns the instance's store is SQLite.
    if wymcp_e2e.built_without("sqlite", args.builddir) is not None:
        say("SKIP: %s" % wymcp_e2e.built_without("sqlite", args.builddir))
        return 77
    h = TasksHarness(args.builddir, args.keep)
    h.nginx_bin = nginx
    try:
        h.paths()
        h.start()
        w = Wire(h.port)
        section_k(h, w)
        tid = section_b(h, w)
        if tid:
            section_p(w, tid)
        section_h(h, nginx)
    except Exception as e:
        import traceback
        traceback.print_exc()
        check(False, "harness", repr(e))
    finally:
        h.stop()
        if h.tmp:
            hits = h.sanitizer_reports()
            check(not hits, "no sanitizer report in the wymcp-fcgi log",
                  "; ".join(hits[:5]))
        if failed:
            h.dump_logs()
        if h.tmp and not args.keep:
            shutil.rmtree(h.tmp, ignore_errors=True)
        elif h.tmp:
            say("# kept %s" % h.tmp)
    say("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
