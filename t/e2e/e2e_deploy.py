#!/usr/bin/env python3
"""e2e_deploy.py - wymcp end to end: the ways deploy/ starts wymcp-fcgi.

Usage: e2e_deploy.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi the ways deploy/README describes, each behind one
private nginx (a location per way), and talks MCP through nginx:

  S  deploy/systemd: systemd-analyze verify on wymcp.socket and
     wymcp.service (their program and module paths pointed at this
     build, as verify checks that they exist), alone and with each
     drop-in of deploy/tasks, and the offline security review of
     wymcp.service;
  A  socket activation: systemd-socket-activate creates the socket and
     runs the ExecStart= command line of wymcp.service (paths pointed at
     this build) as an unprivileged user with no_new_privs (setpriv: what
     User=, Group= and NoNewPrivileges= do), starting on the first
     connection; discover, tools/list, tools/call; the socket arrives on
     descriptor 3; ExecReload=
     (SIGHUP to the main process) under load loses no request; the stop
     signal ends every process well within TimeoutStopSec=;
  A2 the alternative wymcp.service describes: started as root with only
     CAP_SETUID and CAP_SETGID, no_new_privs, --user/--group: every
     process ends up as the user, without capabilities;
  R  restarts while a manager holds the socket (what wymcp.socket does
     for wymcp.service): the service is stopped and started again under
     load and no request fails;
  P  spawn-fcgi -n -s SOCK -u/-g/-U/-G (the man page's example): the
     socket on descriptor 0, owned by the given user and group;
  U  wymcp-fcgi --listen unix:SOCK --user --group started as root: the
     key file stays root-only, every process runs as the user, the
     socket is the user's and the group's, mode 0660.

Needs root for A (setpriv), P (spawn-fcgi -u) and U; prints "SKIP: ..."
and exits 77 when not root or nginx is missing; a section whose tool
(systemd-analyze, systemd-socket-activate, spawn-fcgi, setpriv) is
missing is skipped with a note.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise.  Python
3 standard library only; harness pieces are in t/e2e/lib/wymcp_e2e.py
and wymcp_mrtr.py (PYTHONPATH).
"""

import argparse
import grp
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_mrtr
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_mrtr"):
        raise
    print("e2e_deploy.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, Client, Failed, alive, children, enc,  # noqa
                       hlist, report, std_headers, tail)

WORKERS = 2
SYSTEMD_DIR = os.path.join(wymcp_e2e.SRCDIR, "deploy", "systemd")
UNITS = ("wymcp.socket", "wymcp.service")
RUN_USER = "nobody"
RUN_GROUP = "nogroup"
TOOLS = ["help", "echo", "whoami"]


def unit_lines(path):
    """The logical lines of a unit file (continuations joined)."""
    out, cur = [], ""
    with open(path) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if not cur and (ln.lstrip().startswith("#") or
                            ln.lstrip().startswith(";")):
                continue
            if ln.endswith("\\"):
                cur += ln[:-1] + " "
                continue
            out.append(cur + ln)
            cur = ""
    return out


def unit_values(path, key):
    return [ln.split("=", 1)[1].strip() for ln in unit_lines(path)
            if ln.split("=", 1)[0].strip() == key]


def proc_ids(pid):
    """(uids, gids, groups) of a process from /proc/PID/status."""
    ids = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                k, _, v = ln.partition(":")
                if k in ("Uid", "Gid", "Groups"):
                    ids[k] = [int(x) for x in v.split()]
    except OSError:
        return None
    return ids.get("Uid"), ids.get("Gid"), ids.get("Groups")


def unix_listening(path):
    """Whether a unix socket bound at `path' listens (/proc/net/unix's
    __SO_ACCEPTCON flag): read without connecting, which would start a
    socket-activated service."""
    with open("/proc/net/unix") as f:
        for line in f:
            w = line.split()
            if len(w) >= 8 and w[7] == path and int(w[3], 16) & 0x10000:
                return True
    return False


def proc_environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return [x.decode("utf-8", "replace") for x in raw.split(b"\0") if x]


# ------------------------------------------------------------ processes

class Server(wymcp_mrtr.Instance):
    """One way of starting wymcp-fcgi: argv, a log and its processes."""

    def __init__(self, world, name, argv, env=None, lazy=False):
        super().__init__(world, name)
        self.argv = argv
        self.envx = env or {}
        self.lazy = lazy		# starts on the first connection
        self.sock = os.path.join(world.tmp, name + ".sock")

    def start(self, keyfile="same"):
        self.gen += 1
        self.log = os.path.join(self.w.tmp, "%s-%d.log" % (self.name,
                                                          self.gen))
        self.w.logs.append(self.log)
        env = dict(self.w.env)
        env.update(self.envx)
        with open(self.log, "wb") as log:
            self.fcgi = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=log,
                stderr=log, env=env, cwd=self.w.tmp)
        self.sup = None
        deadline = time.monotonic() + 30
        # A socket manager binds, then listens: a connection between
        # the two is refused (a busy machine widens the gap).
        while not (os.path.exists(self.sock) and
                   (not self.lazy or unix_listening(self.sock))):
            if self.fcgi.poll() is not None:
                raise Failed("%s: exited with %d: %s" %
                             (self.name, self.fcgi.returncode,
                              " | ".join(tail(self.log, 5))))
            if time.monotonic() > deadline:
                raise Failed("%s: no listening socket after 30 s" %
                             self.name)
            time.sleep(0.03)
        if not self.lazy:
            self.wait_workers()

    def wait_workers(self):
        deadline = time.monotonic() + 30
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("%s: exited with %d: %s" %
                             (self.name, self.fcgi.returncode,
                              " | ".join(tail(self.log, 5))))
            self.sup = self.supervisor()
            ready = {e[0] for e in self.entries()
                     if e[3] == "worker ready"}
            ws = self.workers()
            if len(ws) >= WORKERS and set(ws) <= ready:
                break
            if time.monotonic() > deadline:
                raise Failed("%s: %d workers not ready after 30 s: %s" %
                             (self.name, WORKERS,
                              " | ".join(tail(self.log, 5))))
            time.sleep(0.03)
        R.note("%s: supervisor %d, workers %r, log %s" %
               (self.name, self.sup, self.workers(),
                os.path.basename(self.log)))

    def stop(self):
        super().stop()
        if self.lazy and os.path.exists(self.sock):
            os.unlink(self.sock)


class Holder:
    """A socket manager in the way of systemd with wymcp.socket: it
    creates the listening socket once and starts the service on it (fd
    3, LISTEN_PID, LISTEN_FDS=1) as often as asked, keeping the socket
    open in between."""

    def __init__(self, world, name, argv):
        self.w = world
        self.name = name
        self.argv = argv
        self.sock = os.path.join(world.tmp, name + ".sock")
        self.lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.lsock.bind(self.sock)
        os.chmod(self.sock, 0o660)
        self.lsock.listen(128)
        self.inst = None

    def start(self):
        # sh puts the socket (its stdin) on 3 and execs the service
        # with its own pid in LISTEN_PID, as systemd does.
        tramp = ['sh', '-c', 'exec 3<&0 0</dev/null; LISTEN_PID=$$ '
                 'LISTEN_FDS=1 LISTEN_FDNAMES=wymcp.socket exec "$@"',
                 'sh'] + self.argv
        inst = Server(self.w, self.name, tramp)
        inst.gen = 0 if self.inst is None else self.inst.gen
        inst.sock = self.sock
        self.inst = inst
        self.w.instances.append(inst)
        env = dict(self.w.env)
        inst.gen += 1
        inst.log = os.path.join(self.w.tmp, "%s-%d.log" % (self.name,
                                                          inst.gen))
        self.w.logs.append(inst.log)
        with open(inst.log, "wb") as log:
            inst.fcgi = subprocess.Popen(
                tramp, stdin=self.lsock.fileno(), stdout=log, stderr=log,
                env=env, cwd=self.w.tmp)
        inst.wait_workers()
        return inst

    def stop_service(self):
        """SIGTERM to the main process only (KillMode=mixed), and wait.
        Returns the seconds it took."""
        t0 = time.monotonic()
        inst = self.inst
        inst.seen_pids.update(children(inst.sup))
        os.kill(inst.sup, signal.SIGTERM)
        inst.fcgi.wait(60)
        deadline = time.monotonic() + 10
        while any(alive(p) for p in inst.seen_pids) and \
                time.monotonic() < deadline:
            time.sleep(0.02)
        return time.monotonic() - t0

    def close(self):
        if self.inst is not None:
            self.inst.stop()
        self.lsock.close()
        try:
            os.unlink(self.sock)
        except OSError:
            pass


class World(wymcp_mrtr.World):
    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = {m: os.path.join(self.builddir, "tools", ".libs",
                                     m + ".so")
                     for m in TOOLS + ["examples"]}
        wymcp_e2e.need_built(self.prog, *self.mods.values())
        self.examples = self.mods["examples"]

    def setup(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-deploy.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")

    def nginx_conf(self, socks, port):
        t = self.tmp
        locs = ""
        for name, sock in sorted(socks.items()):
            locs += wymcp_e2e.wymcp_location(
                "/" + name, "unix:" + sock, [
                    ("WYMCP_PRINCIPAL", '"alice"'),
                    ("WYMCP_ASSIGN_ROLE", '"tester"')], blank_user=False)
        return wymcp_e2e.nginx_preamble(t) + """\

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		client_max_body_size 1m;
{locs}	}}
}}
""".format(port=port, locs=locs)

    def exec_start(self, keyfile):
        """wymcp.service's ExecStart= as argv, pointed at this build."""
        vals = unit_values(os.path.join(SYSTEMD_DIR, "wymcp.service"),
                           "ExecStart")
        if len(vals) != 1:
            raise Failed("wymcp.service: %d ExecStart= lines" % len(vals))
        argv = shlex.split(vals[0])
        # -vv: the log names the workers as they get ready.
        out = [self.prog, "-vv"]
        i = 1
        while i < len(argv):
            a = argv[i]
            if a == "--module":
                out += [a, self.mods[os.path.basename(argv[i + 1])[:-3]]]
                i += 2
            elif a == "--state-key-file":
                out += [a, keyfile]
                i += 2
            elif a == "--workers":
                out += [a, str(WORKERS)]
                i += 2
            else:
                out.append(a)
                i += 1
        return argv, out


# ----------------------------------------------------------------- tests

class Tests(wymcp_mrtr.Tests):
    def __init__(self, w):
        super().__init__(w)
        self.nid = 20000

    def simple(self, path, method, params=None, name=None, caps=None):
        rid = self.rid()
        p = dict(params or {})
        p["_meta"] = wymcp_mrtr.meta(caps or {})
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}
        return rid, self.c.send("POST", path, enc(body),
                                hlist(std_headers(method, name)))

    def basics(self, path, label, tools):
        rid, r = self.simple(path, "server/discover")
        report("%s server/discover" % label, wymcp_e2e.judge_result(r, rid), r)
        rid, r = self.simple(path, "tools/list")
        p = wymcp_e2e.judge_result(r, rid)
        if not p:
            names = [t.get("name") for t in r.json["result"]["tools"]]
            if names != tools:
                p.append("tools %r, want %r" % (names, tools))
        report("%s tools/list: %s" % (label, ", ".join(tools)), p, r)
        rid, r = self.simple(path, "tools/call", {
            "name": "echo", "arguments": {"text": "deployed"}}, "echo")
        p = wymcp_e2e.judge_result(r, rid)
        if not p and wymcp_mrtr.text_of(r) != "deployed":
            p.append("text %r" % wymcp_mrtr.text_of(r))
        report("%s tools/call echo" % label, p, r)
        if "whoami" in tools:
            rid, r = self.simple(path, "tools/call", {
                "name": "whoami", "arguments": {}}, "whoami")
            p = wymcp_e2e.judge_result(r, rid)
            if not p:
                sc = r.json["result"].get("structuredContent")
                if sc != {"principal": "alice",
                          "assigns": {"role": "tester"}}:
                    p.append("structuredContent %r" % (sc,))
            report("%s tools/call whoami sees nginx's principal and "
                   "assign" % label, p, r)

    def load(self, path, stop, stats):
        c = Client(self.w.port)
        k = 0
        while not stop.is_set():
            k += 1
            rid = 3000000 + k
            body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "x"},
                               "_meta": wymcp_mrtr.meta({})}}
            try:
                r = c.send("POST", path, enc(body),
                           hlist(std_headers("tools/call", "echo")))
                if wymcp_e2e.judge_result(r, rid):
                    stats["bad"].append(r.brief())
                else:
                    stats["ok"] += 1
            except OSError as ex:
                stats["bad"].append(repr(ex))

    def under_load(self, path, fn, nthreads=3):
        stop = threading.Event()
        stats = {"ok": 0, "bad": []}
        ths = [threading.Thread(target=self.load, args=(path, stop, stats))
               for _ in range(nthreads)]
        for th in ths:
            th.start()
        try:
            time.sleep(0.3)
            val = fn()
            time.sleep(0.3)
        finally:
            stop.set()
            for th in ths:
                th.join(60)
        return val, stats["ok"], stats["bad"]

    def ids_are(self, pids, uid, gid, label):
        bad = []
        for pid in pids:
            ids = proc_ids(pid)
            if ids is None:
                bad.append("%d gone" % pid)
                continue
            uids, gids, groups = ids
            if set(uids) != {uid} or set(gids) != {gid} or \
                    (groups and set(groups) != {gid}):
                bad.append("%d: uid %r gid %r groups %r" % (pid, uids, gids,
                                                           groups))
        R.check(pids and not bad, "%s: every process (%d) runs as uid %d "
                "gid %d (real, effective, saved, fs), no other group" %
                (label, len(pids), uid, gid), "; ".join(bad) or "none")


def test_s(w):
    sa = shutil.which("systemd-analyze")
    if sa is None:
        R.note("S skipped: systemd-analyze is not installed")
        return
    d = os.path.join(w.tmp, "units")
    os.makedirs(d)
    for u in UNITS:
        with open(os.path.join(SYSTEMD_DIR, u)) as f:
            text = f.read()
        text = text.replace("/usr/local/bin/wymcp-fcgi", w.prog)
        text = re.sub(r"/usr/local/lib/wymcp/(\w+)\.so",
                      lambda m: w.mods[m.group(1)], text)
        with open(os.path.join(d, u), "w") as f:
            f.write(text)
    def verify(name):
        p = subprocess.run([sa, "verify", "--man=no"] +
                           [os.path.join(d, u) for u in UNITS],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           check=False, cwd=d)
        out = p.stdout.decode("utf-8", "replace").strip()
        R.check(p.returncode == 0 and out == "",
                "S systemd-analyze verify: " + name,
                "rc %d: %s" % (p.returncode, out))

    verify("wymcp.socket and wymcp.service without a warning")
    # The drop-ins of deploy/tasks, each in wymcp.service.d/ beside them.
    tasks = os.path.join(os.path.dirname(SYSTEMD_DIR), "tasks")
    dropd = os.path.join(d, "wymcp.service.d")
    os.makedirs(dropd)
    for name in sorted(os.listdir(tasks)):
        with open(os.path.join(tasks, name)) as f:
            text = f.read()
        text = text.replace("/usr/local/bin/wymcp-fcgi", w.prog)
        text = re.sub(r"/usr/local/lib/wymcp/(\w+)\.so",
                      lambda m: w.mods[m.group(1)], text)
        with open(os.path.join(dropd, "tasks.conf"), "w") as f:
            f.write(text)
        verify("wymcp.service with deploy/tasks/%s" % name)
    os.unlink(os.path.join(dropd, "tasks.conf"))
    os.rmdir(dropd)
    p = subprocess.run([sa, "security", "--offline=yes", "--no-pager",
                        os.path.join(d, "wymcp.service")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False, cwd=d)
    out = p.stdout.decode("utf-8", "replace")
    m = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", out)
    if m:
        R.note("S systemd-analyze security --offline: %s %s" %
               (m.group(1), m.group(2)))
        R.check(float(m.group(1)) <= 2.5, "S wymcp.service exposure "
                "level at most 2.5 (systemd-analyze security)",
                m.group(0))
    else:
        R.note("S systemd-analyze security --offline gave no score: %s" %
               " | ".join(out.splitlines()[-3:]))
    svc = os.path.join(SYSTEMD_DIR, "wymcp.service")
    sock = os.path.join(SYSTEMD_DIR, "wymcp.socket")
    want = {svc: {"ExecReload": "/bin/kill -HUP $MAINPID",
                  "KillSignal": "SIGTERM", "KillMode": "mixed",
                  "NoNewPrivileges": "yes", "ProtectSystem": "strict",
                  "PrivateTmp": "yes", "User": "wymcp"},
            sock: {"ListenStream": "/run/wymcp/wymcp.sock",
                   "Accept": "no", "SocketMode": "0660"}}
    for path, kv in want.items():
        for k, v in kv.items():
            got = unit_values(path, k)
            R.check(got == [v], "S %s: %s=%s" % (os.path.basename(path), k,
                                                v), "got %r" % got)
    ts = unit_values(svc, "TimeoutStopSec")
    R.check(len(ts) == 1 and int(ts[0].rstrip("s")) > 30,
            "S wymcp.service: TimeoutStopSec above the 30 s drain",
            "got %r" % ts)
    ex = unit_values(svc, "ExecStart")
    R.check(len(ex) == 1 and "--listen" not in ex[0] and
            "--state-key-file" in ex[0],
            "S wymcp.service: ExecStart= takes the socket from systemd "
            "(no --listen) and names a key file", "%r" % ex)


def test_a(w, t, keyfile):
    ssa = shutil.which("systemd-socket-activate")
    setpriv = shutil.which("setpriv")
    if ssa is None or setpriv is None:
        R.note("A skipped: systemd-socket-activate or setpriv missing")
        return
    unit_argv, argv = w.exec_start(keyfile)
    R.note("A ExecStart= of wymcp.service: %s" % " ".join(unit_argv))
    pw = pwd.getpwnam(RUN_USER)
    gr = grp.getgrnam(RUN_GROUP)
    os.chown(keyfile, pw.pw_uid, gr.gr_gid)
    srv = w.servers["sd"]
    asan = ["-E", "ASAN_OPTIONS=" + w.env.get("ASAN_OPTIONS", ""),
            "-E", "UBSAN_OPTIONS=" + w.env.get("UBSAN_OPTIONS", "")]
    srv.argv = ([ssa, "-l", srv.sock] + asan +
                [setpriv, "--reuid", str(pw.pw_uid), "--regid",
                 str(gr.gr_gid), "--clear-groups", "--no-new-privs",
                 "--"] + argv)
    srv.start()
    R.check(srv.fcgi.poll() is None and not srv.entries(),
            "A before the first connection only the socket exists "
            "(wymcp-fcgi not started yet)", " | ".join(tail(srv.log, 3)))
    t.basics("/sd", "A socket activation: first request starts the "
             "service;", ["help", "echo", "whoami"])
    srv.wait_workers()
    R.check(any(e[3] == "serving the systemd socket with %d workers" %
                WORKERS for e in srv.entries()),
            "A wymcp-fcgi says it serves the systemd socket",
            " | ".join(tail(srv.log, 5)))
    sup = srv.sup
    R.check(sup == srv.fcgi.pid, "A the supervisor is the activated "
            "process itself (LISTEN_PID)", "sup %d pid %d" %
            (sup, srv.fcgi.pid))
    fds = os.listdir("/proc/%d/fd" % sup)
    R.check("3" in fds and os.readlink("/proc/%d/fd/3" % sup)
            .startswith("socket:"), "A the supervisor has the socket on "
            "descriptor 3", "fds %r" % fds)
    t.ids_are([sup] + srv.workers(), pw.pw_uid, gr.gr_gid,
              "A (User=, Group= via setpriv)")
    with open("/proc/%d/status" % srv.workers()[0]) as f:
        nnp = [ln.split()[1] for ln in f if ln.startswith("NoNewPrivs:")]
    R.check(nnp == ["1"], "A workers run with no_new_privs",
            "NoNewPrivs %r" % nnp)

    # ExecReload=: SIGHUP to $MAINPID under load.
    old = set(srv.workers())

    def reload():
        os.kill(sup, signal.SIGHUP)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            now = set(srv.workers())
            if len(now) == WORKERS and not (now & old) and \
                    not any(alive(p) for p in old):
                return now
            time.sleep(0.05)
        return set(srv.workers())

    new, ok, bad = t.under_load("/sd", reload)
    R.note("A reload under load: %d ok, %d failed" % (ok, len(bad)))
    R.check(len(new) == WORKERS and not (new & old),
            "A ExecReload= (SIGHUP): %d new workers replaced the old ones" %
            WORKERS, "old %r new %r" % (sorted(old), sorted(new)))
    R.check(ok > 20 and not bad, "A no request failed during the reload",
            "%d ok, %r" % (ok, bad[:3]))
    srv.seen_pids.update(new)
    t.basics("/sd", "A after the reload:", ["help", "echo", "whoami"])

    # KillSignal=SIGTERM to the main process (KillMode=mixed).
    ts = int(unit_values(os.path.join(SYSTEMD_DIR, "wymcp.service"),
                         "TimeoutStopSec")[0].rstrip("s"))
    pids = [sup] + children(sup)
    t0 = time.monotonic()
    os.kill(sup, signal.SIGTERM)
    try:
        srv.fcgi.wait(ts)
    except subprocess.TimeoutExpired:
        pass
    while any(alive(p) for p in pids) and time.monotonic() - t0 < ts:
        time.sleep(0.02)
    took = time.monotonic() - t0
    R.check(not any(alive(p) for p in pids) and srv.fcgi.returncode == 0,
            "A SIGTERM: every process exits, status 0, within "
            "TimeoutStopSec=%ds (took %.2f s)" % (ts, took),
            "rc %r, alive %r" % (srv.fcgi.returncode,
                                 [p for p in pids if alive(p)]))


def test_a2(w, t, keyfile):
    """wymcp.service's alternative: started as root with only CAP_SETUID
    and CAP_SETGID in the bounding set, no_new_privs, --user/--group."""
    ssa = shutil.which("systemd-socket-activate")
    setpriv = shutil.which("setpriv")
    if ssa is None or setpriv is None:
        R.note("A2 skipped: systemd-socket-activate or setpriv missing")
        return
    _, argv = w.exec_start(keyfile)
    os.chown(keyfile, 0, 0)
    pw = pwd.getpwnam(RUN_USER)
    gr = grp.getgrnam(RUN_GROUP)
    srv = w.servers["sdroot"]
    srv.argv = ([ssa, "-l", srv.sock,
                 "-E", "ASAN_OPTIONS=" + w.env.get("ASAN_OPTIONS", ""),
                 "-E", "UBSAN_OPTIONS=" + w.env.get("UBSAN_OPTIONS", ""),
                 setpriv, "--bounding-set", "-all,+setuid,+setgid",
                 "--inh-caps", "-all", "--no-new-privs", "--"] + argv +
                ["--user", RUN_USER, "--group", RUN_GROUP])
    srv.start()
    t.basics("/sdroot", "A2 root with CapabilityBoundingSet=CAP_SETUID "
             "CAP_SETGID, --user/--group, root-owned key file:",
             ["help", "echo", "whoami"])
    srv.wait_workers()
    pids = [srv.sup] + srv.workers()
    t.ids_are(pids, pw.pw_uid, gr.gr_gid, "A2")
    caps = []
    for pid in pids:
        with open("/proc/%d/status" % pid) as f:
            caps += ["%d %s" % (pid, ln.strip()) for ln in f
                     if ln.startswith(("CapEff:", "CapPrm:")) and
                     int(ln.split()[1], 16) != 0]
    R.check(not caps, "A2 no process keeps a capability after the switch",
            "; ".join(caps))
    srv.stop()


def test_r(w, t, keyfile):
    _, argv = w.exec_start(keyfile)
    h = w.holder
    inst = h.start()
    t.basics("/held", "R socket held by a manager:", ["help", "echo",
                                                      "whoami"])
    first = inst.sup

    def restart():
        took = h.stop_service()
        h.start()
        return took

    took, ok, bad = t.under_load("/held", restart)
    R.note("R restart under load (stop took %.2f s): %d ok, %d failed" %
           (took, ok, len(bad)))
    R.check(h.inst.sup != first and alive(h.inst.sup) and
            not alive(first), "R the service was stopped and started "
            "again (new supervisor)", "old %d new %d" % (first, h.inst.sup))
    R.check(ok > 20 and not bad, "R no request failed while the service "
            "restarted: connections waited in the held socket's queue",
            "%d ok, %r" % (ok, bad[:3]))


def test_p(w, t, keyfile):
    sf = shutil.which("spawn-fcgi")
    if sf is None:
        R.note("P skipped: spawn-fcgi is not installed")
        return
    pw = pwd.getpwnam(RUN_USER)
    gr = grp.getgrnam(RUN_GROUP)
    srv = w.servers["spawn"]
    os.chown(keyfile, pw.pw_uid, gr.gr_gid)
    srv.argv = [sf, "-n", "-s", srv.sock, "-M", "0660",
                "-u", RUN_USER, "-g", RUN_GROUP,
                "-U", RUN_USER, "-G", RUN_GROUP, "--",
                w.prog, "--workers", str(WORKERS), "-vv",
                "--state-key-file", keyfile,
                "--module", w.mods["help"], "--module", w.mods["echo"],
                "--module", w.mods["whoami"]]
    srv.start()
    R.check(any(e[3] == "serving the socket on fd 0 with %d workers" %
                WORKERS for e in srv.entries()),
            "P wymcp-fcgi says it serves the socket on fd 0",
            " | ".join(tail(srv.log, 5)))
    st = os.stat(srv.sock)
    R.check(st.st_uid == pw.pw_uid and st.st_gid == gr.gr_gid and
            st.st_mode & 0o777 == 0o660,
            "P spawn-fcgi -M 0660 -U -G: the socket is %s:%s, mode 0660" %
            (RUN_USER, RUN_GROUP), "uid %d gid %d mode %03o" %
            (st.st_uid, st.st_gid, st.st_mode & 0o777))
    sup = srv.sup
    R.check(os.readlink("/proc/%d/fd/0" % sup).startswith("socket:"),
            "P the supervisor has the socket on descriptor 0",
            os.readlink("/proc/%d/fd/0" % sup))
    t.ids_are([sup] + srv.workers(), pw.pw_uid, gr.gr_gid,
              "P (spawn-fcgi -u -g)")
    t.basics("/spawn", "P spawn-fcgi:", ["help", "echo", "whoami"])
    pids = [sup] + srv.workers()
    os.kill(sup, signal.SIGTERM)
    try:
        srv.fcgi.wait(45)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    R.check(not any(alive(p) for p in pids) and srv.fcgi.returncode == 0,
            "P SIGTERM stops every process, status 0",
            "rc %r" % srv.fcgi.returncode)
    srv.fcgi = None


def test_u(w, t, keyfile):
    pw = pwd.getpwnam(RUN_USER)
    gr = grp.getgrnam(RUN_GROUP)
    os.chown(keyfile, 0, 0)
    os.chmod(keyfile, 0o600)
    srv = w.servers["user"]
    srv.argv = [w.prog, "--listen", "unix:" + srv.sock, "--workers",
                str(WORKERS), "-vv", "--state-key-file", keyfile,
                "--user", RUN_USER, "--group", RUN_GROUP,
                "--module", w.mods["help"], "--module", w.mods["echo"],
                "--module", w.mods["whoami"]]
    srv.start()
    st = os.stat(srv.sock)
    R.check(st.st_uid == pw.pw_uid and st.st_gid == gr.gr_gid and
            st.st_mode & 0o777 == 0o660,
            "U --listen unix: with --user/--group: the socket is %s:%s, "
            "mode 0660" % (RUN_USER, RUN_GROUP),
            "uid %d gid %d mode %03o" % (st.st_uid, st.st_gid,
                                         st.st_mode & 0o777))
    R.check(any(e[3] == "running as uid %d, gid %d" % (pw.pw_uid,
                                                     gr.gr_gid)
                for e in srv.entries()),
            "U wymcp-fcgi logs the identity it switched to",
            " | ".join(tail(srv.log, 5)))
    t.ids_are([srv.sup] + srv.workers(), pw.pw_uid, gr.gr_gid,
              "U (--user/--group)")
    t.basics("/user", "U privileges dropped; the key file is root's, "
             "read before the switch;", ["help", "echo", "whoami"])
    # Reading the key file as the user would have failed.
    p = subprocess.run(["setpriv", "--reuid", str(pw.pw_uid), "--regid",
                        str(gr.gr_gid), "--clear-groups", "--", "cat",
                        keyfile], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    R.check(p.returncode != 0, "U the key file is not readable by %s" %
            RUN_USER, "cat succeeded")
    srv.stop()
    # Only root may switch.
    p = subprocess.run(["setpriv", "--reuid", str(pw.pw_uid), "--regid",
                        str(gr.gr_gid), "--clear-groups", "--", w.prog,
                        "--listen", "unix:" + srv.sock, "--user", "root",
                        "--module", w.mods["echo"]],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=w.env, check=False)
    out = p.stdout.decode("utf-8", "replace")
    R.check(p.returncode == 1 and "only root" in out,
            "U --user as a non-root user: exit 1, 'only root can switch "
            "users'", "rc %d: %s" % (p.returncode, out.strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every response")
    args = ap.parse_args()
    wymcp_e2e.VERBOSE = args.verbose

    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        print("SKIP: nginx is not installed (Debian: apt-get install "
              "nginx-light)")
        return 77
    if os.geteuid() != 0:
        print("SKIP: needs root (users to switch to, spawn-fcgi -u)")
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)

    w = World(args.builddir, args.keep)
    w.nginx_bin = nginx
    interrupted = False
    started = time.monotonic()
    holder = None
    try:
        w.paths()
        w.setup()
        keys = {}
        for k in ("sd", "sdroot", "held", "spawn", "user"):
            keys[k] = os.path.join(w.tmp, k + ".key")
            rc, out = w.generate_key(keys[k])
            if rc != 0:
                raise Failed("--generate-key: %s" % out)
        w.servers = {n: Server(w, n, [], lazy=n.startswith("sd"))
                     for n in ("sd", "sdroot", "spawn", "user")}
        for s in w.servers.values():
            w.instances.append(s)
        _, argv = w.exec_start(keys["held"])
        holder = w.holder = Holder(w, "held", argv)
        socks = {n: s.sock for n, s in w.servers.items()}
        socks["held"] = holder.sock
        w.start_nginx(socks)
        t = Tests(w)
        test_s(w)
        test_a(w, t, keys["sd"])
        test_a2(w, t, keys["sdroot"])
        test_r(w, t, keys["held"])
        test_p(w, t, keys["spawn"])
        test_u(w, t, keys["user"])
    except Failed as ex:
        R.fail("setup", str(ex))
    except KeyboardInterrupt as ex:
        R.fail("interrupted", str(ex) or "KeyboardInterrupt")
        interrupted = True
    except Exception as ex:	# a harness bug must still clean up and count
        import traceback
        traceback.print_exc()
        R.fail("harness", repr(ex))
    finally:
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        try:
            w.stop()
            if holder is not None:
                holder.close()
            if w.tmp:
                hits = w.sanitizer_reports()
                R.check(not hits, "no sanitizer reports in any wymcp-fcgi "
                        "log", "; ".join(hits[:5]))
            if R.failed:
                w.dump_logs()
        finally:
            w.cleanup()
    R.note("run time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
