"""wymcp_apache - a private Apache httpd 2.4 for the tests that put
wymcp-fcgi behind one (t/e2e/e2e_apache.py, t/oauth/oauth.py,
t/debian/e2e_debian.py): finding apache2 and its modules, the head of a
configuration of its own (ServerRoot, Listen, PidFile and logs in a
temporary directory) and the Apache class that tests, starts and stops
it by PID.

Found through PYTHONPATH=t/e2e/lib, like wymcp_e2e, which it builds on.
Python 3 standard library only.
"""

import os
import shutil
import socket
import subprocess
import time

import wymcp_e2e
from wymcp_e2e import R, Failed, alive, free_port, stop_pid, tail

MODULE_DIRS = ["/usr/lib/apache2/modules", "/usr/lib64/httpd/modules",
               "/usr/lib/httpd/modules", "/usr/libexec/apache2"]


def find_apache():
    for cand in ("/usr/sbin/apache2", shutil.which("apache2"),
                 "/usr/sbin/httpd", shutil.which("httpd")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def find_module(name):
    for d in MODULE_DIRS:
        p = os.path.join(d, "mod_%s.so" % name)
        if os.path.exists(p):
            return p
    return None


def descendants(pid):
    table = wymcp_e2e.proc_table()
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c, (pp, st, _) in table.items():
            if pp == p and st != "Z" and c not in out:
                out.add(c)
                todo.append(c)
    return out


def head_conf(d, port, modules, user=None):
    """The head of a private Apache's configuration: ServerRoot, PID
    file, runtime directory and error log in `d', Listen on
    127.0.0.1:port, a LoadModule line for each of `modules' (mod_unixd
    may be built in) and, when run as root, User and Group: `user', a
    (user, group) pair, or nobody and nogroup."""
    loads = []
    for m in modules:
        p = find_module(m)
        if p is None:
            if m == "unixd":	# built in on some systems
                continue
            raise Failed("Apache module mod_%s not found in %s" %
                         (m, ", ".join(MODULE_DIRS)))
        loads.append("LoadModule %s_module %s" % (m, p))
    who = ""
    if os.geteuid() == 0:
        who = "User %s\nGroup %s\n" % (user or ("nobody", "nogroup"))
    return """\
ServerRoot "{d}"
ServerName localhost
Listen 127.0.0.1:{port}
PidFile "{d}/httpd.pid"
DefaultRuntimeDir "{d}"
ErrorLog "{d}/error.log"
LogLevel warn
{who}{loads}
DocumentRoot "{d}/htdocs"
Timeout 60
""".format(d=d, port=port, who=who, loads="\n".join(loads))


class Apache:
    """One private Apache: config, apache2 -t, -DFOREGROUND, stop.
    `modules' are loaded by every configuration head() makes, which
    runs it as `user' (see head_conf())."""

    def __init__(self, binary, tmp, name, modules=(), user=None):
        self.bin = binary
        self.tmp = tmp
        self.name = name
        self.modules = list(modules)
        self.user = user
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)
        self.conf = os.path.join(self.dir, "httpd.conf")
        self.error_log = os.path.join(self.dir, "error.log")
        self.out = os.path.join(self.dir, "apache.out")
        self.popen = None
        self.port = None
        self.pids = set()

    def head(self, port, extra_modules=()):
        return head_conf(self.dir, port, self.modules + list(extra_modules),
                         self.user)

    def test(self):
        p = subprocess.run([self.bin, "-t", "-d", self.dir, "-f", self.conf],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           check=False)
        return p.returncode, p.stdout.decode("utf-8", "replace").strip()

    def start(self, make_conf):
        os.makedirs(os.path.join(self.dir, "htdocs"), exist_ok=True)
        for attempt in range(8):
            self.port = free_port()
            with open(self.conf, "w") as f:
                f.write(make_conf(self.port))
            rc, out = self.test()
            if rc != 0:
                raise Failed("%s: apache2 -t: %s" % (self.name, out))
            with open(self.out, "ab") as out:
                self.popen = subprocess.Popen(
                    [self.bin, "-d", self.dir, "-f", self.conf,
                     "-DFOREGROUND"], stdin=subprocess.DEVNULL,
                    stdout=out, stderr=out)
            if self.wait():
                R.note("%s: apache2 %d on 127.0.0.1:%d" %
                       (self.name, self.popen.pid, self.port))
                self.pids.update(descendants(self.popen.pid))
                return
            log = "\n".join(tail(self.error_log, 10) + tail(self.out, 10))
            self.stop()
            if "in use" not in log:
                raise Failed("%s: apache2 did not start: %s" %
                             (self.name, log))
        raise Failed("%s: no free port after 8 attempts" % self.name)

    def wait(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self):
        """SIGTERM the parent (it stops its children, and mod_fcgid its
        processes), then make sure by PID.  Returns the PIDs that had to
        be killed afterwards."""
        if self.popen is None:
            return []
        self.pids.update(descendants(self.popen.pid))
        stop_pid(self.popen.pid, self.popen, 15)
        left = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            left = [p for p in sorted(self.pids) if alive(p)]
            if not left:
                break
            time.sleep(0.05)
        for p in left:
            stop_pid(p, None, 2)
        self.popen = None
        return left
