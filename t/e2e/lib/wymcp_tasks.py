"""wymcp_tasks - what the tasks scripts share (t/e2e/e2e_tasks.py and
e2e_store.py): a client of the tasks extension (Wire), a private
PostgreSQL cluster in a temporary directory, and a bare nginx in front
of given locations.

Found through PYTHONPATH=t/e2e/lib, like wymcp_e2e, which it builds on.
Python 3 standard library only.
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import time

import wymcp_conformance
import wymcp_e2e
from wymcp_e2e import Client, enc, hlist, std_headers

EXT = {"extensions": {"io.modelcontextprotocol/tasks": {}},
       "elicitation": {}}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "e2e-tasks",
                                               "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": EXT}


class Wire:
    """JSON-RPC through nginx on `port', every request with `meta' (by
    default META: the tasks extension and form elicitation).  A call
    returns the response's JSON ({"raw", "status"} when it is not JSON);
    `last' is the whole response (wymcp_e2e.Resp), None while a request
    is in flight or when it failed."""

    def __init__(self, port, meta=None):
        self.c = Client(port)
        self.nid = 0
        self.meta = META if meta is None else meta
        self.last = None

    def call(self, method, params, name=None, path="/mcp"):
        self.nid += 1
        self.last = None
        params = dict(params)
        params["_meta"] = self.meta
        body = {"jsonrpc": "2.0", "id": self.nid, "method": method,
                "params": params}
        r = self.c.send("POST", path, enc(body),
                        hlist(std_headers(method, name)))
        self.last = r
        try:
            return json.loads(r.raw.decode("utf-8"))
        except ValueError:
            return {"raw": r.raw.decode("utf-8", "replace"),
                    "status": r.status}

    def tool(self, name, args):
        return self.call("tools/call", {"name": name, "arguments": args},
                         name)

    def get(self, tid, path="/mcp"):
        return self.call("tasks/get", {"taskId": tid}, tid, path)

    def update(self, tid, responses, path="/mcp"):
        return self.call("tasks/update", {"taskId": tid,
                                          "inputResponses": responses},
                         tid, path)

    def wait(self, tid, want, timeout=60):
        deadline = time.monotonic() + timeout
        r = None
        while time.monotonic() < deadline:
            r = self.get(tid)
            st = r.get("result", {}).get("status")
            if st in want:
                return r
            time.sleep(0.2)
        return r


# ------------------------------------------------- a private PostgreSQL

# The server's options: its unix socket in tmp/pg only, no TCP.
PG_OPTS = "-k %s -c listen_addresses= -c fsync=off"


def pg_bindir():
    """PostgreSQL's bindir (with initdb), or None: none installed, or a
    wymcp built without PostgreSQL (pg_missing() says which)."""
    if wymcp_e2e.built_without("postgresql") is not None:
        return None
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin")):
        if os.access(os.path.join(d, "initdb"), os.X_OK):
            return d
    return None


def pg_missing():
    """Why a PostgreSQL part cannot run here, or None when it can."""
    why = wymcp_e2e.built_without("postgresql")
    if why is not None:
        return why
    if pg_bindir() is None:
        return "no PostgreSQL initdb (Debian: postgresql)"
    return None


def as_user(argv):
    return (["runuser", "-u", "nobody", "--"] + argv) if os.geteuid() == 0 \
        else argv


def pg_ctl(tmp, bindir, action, *opts, check=False):
    """pg_ctl ACTION (start, stop, restart) on the cluster in tmp/pg, as
    its owner, waiting until it is done (-w); opts such as "-m", "fast".
    True when it succeeded (check: raise when not)."""
    d = os.path.join(tmp, "pg")
    argv = [os.path.join(bindir, "pg_ctl"), "-D", os.path.join(d, "data"),
            "-w"] + list(opts)
    if action != "stop":
        argv += ["-l", os.path.join(d, "server.log"), "-o", PG_OPTS % d]
    p = subprocess.run(as_user(argv + [action]), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120, check=False)
    if p.returncode != 0 and check:
        raise wymcp_e2e.Failed("pg_ctl %s exited with %d: %s" % (
            action, p.returncode, p.stdout.decode("utf-8", "replace")))
    return p.returncode == 0


def pg_start(tmp, bindir):
    """A private PostgreSQL cluster in tmp/pg, run as nobody when we are
    root, on a unix socket in tmp/pg only; the store URI."""
    d = os.path.join(tmp, "pg")
    os.makedirs(d)
    os.chmod(d, 0o755)
    if os.geteuid() == 0:
        shutil.chown(d, "nobody")
    data = os.path.join(d, "data")
    subprocess.run(as_user([os.path.join(bindir, "initdb"), "-D", data,
                            "-U", "wymcp", "-A", "trust",
                            "--no-sync"]), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    pg_ctl(tmp, bindir, "start", check=True)
    subprocess.run(as_user([os.path.join(bindir, "createdb"), "-h", d,
                            "-U", "wymcp", "tasks"]), check=True)
    return "postgresql:///tasks?host=%s&user=wymcp" % d


def pg_pid(tmp):
    """The cluster's postmaster PID (its postmaster.pid), or None."""
    try:
        with open(os.path.join(tmp, "pg", "data", "postmaster.pid")) as f:
            return int(f.readline())
    except (OSError, ValueError):
        return None


def pg_stop(tmp, bindir):
    """Stop the cluster in tmp/pg at once; its postmaster is SIGKILLed,
    by PID, if pg_ctl could not stop it."""
    if not os.path.isdir(os.path.join(tmp, "pg", "data")):
        return
    pid = pg_pid(tmp)
    try:
        pg_ctl(tmp, bindir, "stop", "-m", "immediate")
    except subprocess.TimeoutExpired:
        pass
    if pid is not None and wymcp_e2e.alive(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def wait_serving(logs, procs, timeout=30):
    """Until every instance's log ({name: path}) says it is serving;
    Failed when one of them ({name: Popen}) exited first, or after
    `timeout' seconds."""
    deadline = time.monotonic() + timeout
    while not all(any("serving " in e[3] for e in
                      wymcp_e2e.log_entries(path))
                  for path in logs.values()):
        if time.monotonic() > deadline or any(
                p.poll() is not None for p in procs.values()):
            raise wymcp_e2e.Failed("the instances did not start")
        time.sleep(0.05)


def stop_lan(check, nginx=None, procs=(), grace=10, strays=None, net=None,
             tmp=None, bindir=None, what=""):
    """Stop hosts on a LAN with a private PostgreSQL, in the one order:
    nginx (a Popen), the instances (Popen objects, None skipped) each
    given `grace' seconds, then strays() (what outlived them), the
    network namespaces (wymcp_netns.Net.close(check, what)), and the
    PostgreSQL cluster in tmp/pg."""
    if nginx is not None:
        wymcp_e2e.stop_pid(nginx.pid, nginx, 10)
    for p in procs:
        if p is not None and p.poll() is None:
            wymcp_e2e.stop_pid(p.pid, p, grace)
    if strays is not None:
        strays()
    if net is not None:
        net.close(check, what)
    if tmp:
        pg_stop(tmp, bindir)


# ------------------------------------------------------------ the nginx

def start_nginx(nginx, tmp, tag, locs, conns=64, http_head=""):
    """nginx on a free loopback port with `locs' (its config and error
    log in tmp, named by tag; `conns' worker_connections; `http_head'
    in its http block, such as an upstream), once it answers: (Popen,
    port).  tmp/fastcgi_params, which locs include, is written."""
    wymcp_e2e.write_fastcgi_params(tmp)
    head = ("user root;\n" if os.geteuid() == 0 else "") + \
        "worker_rlimit_nofile %d;\n" % (conns + 100)

    def conf(ports):
        return ("%sworker_processes 1;\npid %s/nginx-%s.pid;\n"
                "error_log %s/nginx-%s-error.log notice;\n"
                "events { worker_connections %d; }\nhttp {\n"
                "\taccess_log off;\n"
                "\tclient_body_temp_path %s/client_body;\n"
                "\tfastcgi_temp_path %s/fastcgi_temp;\n"
                "\tproxy_temp_path %s/proxy_temp;\n"
                "\tscgi_temp_path %s/scgi_temp;\n"
                "\tuwsgi_temp_path %s/uwsgi_temp;\n%s"
                "\tserver {\n\t\tlisten 127.0.0.1:%d;\n%s\t}\n}\n" %
                ((head, tmp, tag, tmp, tag, conns) + (tmp,) * 5 +
                 (http_head, ports[0], locs)))

    ngx, (port,) = wymcp_e2e.launch_nginx(
        nginx, tmp, os.path.join(tmp, "nginx-%s-error.log" % tag), 1, conf,
        "nginx-%s.conf" % tag)
    return ngx, port


class LedgerHarness(wymcp_conformance.Harness):
    """wymcp-fcgi with t/lib/ledger.c's one tool and task store `store',
    in its own directory `tmp' (the ledger file there, in
    WYMCP_TEST_LEDGER), as `user' when given, its files made under
    umask 022; nginx in front.  For e2e_store.py and e2e_quota.py."""

    def __init__(self, builddir, tmp, store, extra, user=None):
        wymcp_conformance.Harness.__init__(self, builddir)
        self.dir = tmp
        self.tasks = True
        self.task_store = store
        self.user = user
        self.extra_fcgi = ["--request-timeout", "5"] + list(extra)
        if user is not None:
            self.extra_fcgi += ["--user", user]

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "t", "lib", ".libs",
                                  "ledger.so")]
        wymcp_e2e.need_built(self.prog, *self.mods,
                             hint=" (make check-store builds them)")

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.tmp = self.dir
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.ledger = os.path.join(self.tmp, "ledger.txt")
        open(self.ledger, "w").close()
        if self.user is not None:
            shutil.chown(self.ledger, self.user)
        os.environ["WYMCP_TEST_LEDGER"] = self.ledger
        old = os.umask(0o022)
        try:
            self.start_fcgi()
        finally:
            os.umask(old)
        self.start_nginx()
