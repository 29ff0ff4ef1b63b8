#!/usr/bin/env python3
"""e2e_fronts.py - wymcp behind every web server deploy/ ships a config
for, each from Debian's packages, through the shipped config itself.

Usage: PYTHONPATH=t/e2e/lib python3 t/e2e/e2e_fronts.py --builddir DIR
    [--keep] [--only NAME,...] [--no-install]

One wymcp-fcgi of the build (help, echo, whoami, examples) started by
hand as an operator would (as root with --user nobody --group www-data,
no WYMCP_NOTES_DIR, no HOME: write_note must find a directory by
itself), on a unix socket, with a status page; in front of it, one at a
time, each web server on a free loopback port, run from the config in
deploy/ with only its paths and ports changed:

  nginx         deploy/nginx/auth-basic.conf and deploy/nginx/wymcp.conf
  lighttpd      deploy/lighttpd/wymcp.conf (mod_fastcgi)
  caddy         deploy/caddy/Caddyfile (reverse_proxy, transport fastcgi)
  h2o           deploy/h2o/h2o.conf (fastcgi.connect)
  apache-cgi    deploy/cgi/apache-cgi.conf and deploy/cgi/wymcp.cgi
  lighttpd-cgi  deploy/cgi/lighttpd-cgi.conf and wymcp.cgi
  busybox-cgi   deploy/cgi/busybox-httpd.conf and wymcp.cgi
  notes         write_note in CGI mode as nobody: $TMPDIR/wymcp-notes-UID
                made 0700, refused when it is a link or others may
                write in it
  wymcp-try     the built wymcp-try run as ./quickstart runs it (the
                bundled modules, --assign role=developer), as root,
                then as a user with a HOME of its own

Through each: server/discover, tools/list, echo, whoami (the principal
from the server's basic auth and the assigns it sets), book_room over
its two questions, count_slowly's progress arriving while the tool
runs (the first frame well before the result: a server that buffers
the response fails), a listen stream subscribed to a note receiving
write_note's notifications/resources/updated while open (CGI: no hub,
so the listen is acknowledged and ends), the status page where the
config has one, and oversized bodies (over --max-body, and over the
server's own limit where it answers one itself, chunked too) answered
with wymcp's JSON-RPC error (413, -32600).

A server whose Debian package is missing is installed (apt-get under
flock /work/locks/apt) and purged again at the end with whatever it
pulled in; one that cannot be installed is skipped with the reason
("skip - NAME: why"), never counted as passed.  Exit 0, 1, or 77 when
every front end was skipped.  Every server is stopped by PID.
"""

import argparse
import base64
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(HERE, "lib")]
import wymcp_apache			# noqa: E402
import wymcp_e2e			# noqa: E402
from wymcp_e2e import (R, Failed, alive, children, enc, free_port,  # noqa
                       rpc, std_headers, stop_pid, tail)

DEPLOY = os.path.join(SRCDIR, "deploy")
DEPLOY_SOCK = "/run/wymcp/wymcp.sock"
USER, PASSWORD = "alice", "wonderland"
MAX_BODY = 1048576
TOO_LARGE = {"code": -32600, "message": "Payload too large"}
APT_ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
APT_LOCK = "/work/locks/apt"
# What each front end needs from Debian.
PACKAGES = {"nginx": "nginx-light", "lighttpd": "lighttpd",
            "caddy": "caddy", "h2o": "h2o", "apache-cgi": "apache2",
            "lighttpd-cgi": "lighttpd", "busybox-cgi": "busybox",
            "wymcp-try": "nginx-light", "wymcp-try-user": "nginx-light"}
BINARIES = {"nginx-light": "/usr/sbin/nginx", "lighttpd": "/usr/sbin/lighttpd",
            "caddy": "/usr/bin/caddy", "h2o": "/usr/bin/h2o",
            "apache2": "/usr/sbin/apache2", "busybox": "/bin/busybox"}


def say(msg):
    print(msg, flush=True)


# ------------------------------------------------------------ packages

class Apt:
    """Installs what a front end needs when it is missing, and purges
    it (and what it pulled in) at the end."""

    def __init__(self, allowed):
        self.allowed = allowed
        self.before = None
        self.added = []
        self.updated = False

    def pkgset(self):
        p = subprocess.run(["dpkg-query", "-W", "-f",
                            "${binary:Package} ${db:Status-Abbrev}\n"],
                           capture_output=True, text=True)
        return {ln.split()[0] for ln in p.stdout.splitlines()
                if ln.split()[1:2] == ["ii"]}

    def run(self, argv):
        lock = ["flock", APT_LOCK] if os.path.isdir(
            os.path.dirname(APT_LOCK)) else []
        p = subprocess.run(lock + argv, env=APT_ENV, capture_output=True,
                           text=True, stdin=subprocess.DEVNULL,
                           timeout=900)
        return p.returncode, (p.stdout + p.stderr)[-800:]

    def need(self, pkg):
        """None when pkg is there (or was installed), else why not."""
        binary = BINARIES.get(pkg)
        if binary and os.access(binary, os.X_OK):
            return None
        if not self.allowed:
            return "%s is not installed (--no-install)" % pkg
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            return "%s is not installed and apt-get cannot run here" % pkg
        if self.before is None:
            self.before = self.pkgset()
            self.users = self.accounts()
        rc, out = self.run(["apt-get", "install", "-y", "-q",
                            "--no-install-recommends", pkg])
        if rc != 0 and not self.updated:
            self.updated = True
            self.run(["apt-get", "update", "-q"])
            rc, out = self.run(["apt-get", "install", "-y", "-q",
                                "--no-install-recommends", pkg])
        if rc != 0:
            return "apt-get install %s failed: %s" % (pkg, out.strip())
        self.added.append(pkg)
        R.note("installed %s (removed again at the end)" % pkg)
        return None

    @staticmethod
    def accounts():
        import grp
        return ({p.pw_name for p in pwd.getpwall()},
                {g.gr_name for g in grp.getgrall()})

    def restore(self):
        if self.before is None:
            return
        extra = sorted(self.pkgset() - self.before)
        if extra:
            rc, out = self.run(["apt-get", "purge", "-y", "-q"] + extra)
            R.note("purged what this run installed: %s" % " ".join(extra))
        # Debian keeps the system users a package made (caddy): the
        # run deletes those it caused.
        users, groups = self.accounts()
        for u in sorted(users - self.users[0]):
            subprocess.run(["deluser", "--system", "--quiet", u],
                           capture_output=True)
        for g in sorted(self.accounts()[1] - self.users[1]):
            subprocess.run(["delgroup", "--system", "--quiet", g],
                           capture_output=True)
        R.check(self.accounts() == self.users, "the users and groups are "
                "as before the run", repr(self.accounts()[0] ^
                                          self.users[0]))
        R.check(self.pkgset() == self.before, "the package set is as "
                "before the run", repr(sorted(self.pkgset() ^
                                              self.before)[:10]))


# ---------------------------------------------------------- the client

def basic(user, password):
    return "Basic " + base64.b64encode(
        ("%s:%s" % (user, password)).encode()).decode()


class Exchange(wymcp_e2e.RawReader):
    """One HTTP/1.0 POST on a raw socket (a loopback port, or a unix
    socket's path), its response read as it comes: the status, the
    head, the body, and for an SSE body each message with the time it
    arrived."""

    def __init__(self, port, path, body, headers, raw_head=None):
        self.t0 = time.monotonic()
        if isinstance(port, str):	# a unix socket's path
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.settimeout(10)
            self.s.connect(port)
        else:
            self.s = socket.create_connection(("127.0.0.1", port), 10)
        self.s.settimeout(None)
        if raw_head is None:
            head = "POST %s HTTP/1.0\r\nHost: localhost\r\n" % path
            for k, v in headers:
                head += "%s: %s\r\n" % (k, v)
            head += "Content-Length: %d\r\n\r\n" % len(body)
            raw_head = head.encode()
        self.buf = b""
        self.status = None
        self.head = ""
        self.body = b""
        self.frames = []		# (seconds since t0, message)
        self.eof = False
        try:
            self.s.sendall(raw_head + body)
        except OSError:
            pass			# a server may answer before it all

    def _parse(self):
        if self.status is None:
            i = self.buf.find(b"\r\n\r\n")
            if i < 0:
                return
            self.head = self.buf[:i].decode("latin-1")
            self.buf = self.buf[i + 4:]
            try:
                self.status = int(self.head.split()[1])
            except (IndexError, ValueError):
                self.status = -1
        self.body += self.buf
        if "text/event-stream" in self.head.lower():
            while True:
                text = self.buf.replace(b"\r\n", b"\n")
                i = text.find(b"\n\n")
                if i < 0:
                    break
                ev = text[:i].decode("utf-8", "replace")
                self.buf = text[i + 2:]
                for line in ev.split("\n"):
                    if line.startswith("data:"):
                        try:
                            msg = json.loads(line[5:].strip())
                        except ValueError:
                            msg = {"unparsable": line}
                        self.frames.append(
                            (time.monotonic() - self.t0, msg))
        else:
            self.buf = b""

    def finish(self, timeout=60):
        self.wait(lambda x: False, timeout)
        self.close()
        return self

    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError:
            return None

    def result(self):
        """The JSON-RPC response: the body, or the SSE message with an
        id."""
        if self.frames:
            for _, m in self.frames:
                if "id" in m:
                    return m
            return None
        return self.json()

    def brief(self):
        return "status %r, head %r, body %r" % (
            self.status, self.head[:200], self.body[:300])


# ------------------------------------------------------------ the world

class World:
    def __init__(self, builddir, keep):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = tempfile.mkdtemp(prefix="wymcp-fronts.")
        os.chmod(self.tmp, 0o755)
        self.prog = os.path.join(self.builddir, "src", "front",
                                 "wymcp-fcgi")
        self.try_prog = os.path.join(self.builddir, "src", "wymcp-try")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so")
                     for m in ("help", "echo", "whoami", "examples")]
        wymcp_e2e.need_built(self.prog, self.try_prog, *self.mods)
        self.fcgi = None
        self.sock = os.path.join(self.tmp, "run", "wymcp.sock")
        self.log = os.path.join(self.tmp, "wymcp-fcgi.log")
        # wymcp-fcgi's TMPDIR, where write_note's last resort goes.
        self.tmpdir = os.path.join(self.tmp, "tmpdir")
        self.key = os.path.join(self.tmp, "state.key")
        self.logs = [self.log]
        self.var_lib = os.path.lexists("/var/lib/wymcp")

    def start_fcgi(self):
        os.makedirs(os.path.dirname(self.sock), 0o755)
        os.makedirs(self.tmpdir)
        os.chmod(self.tmpdir, 0o1777)
        subprocess.run([self.prog, "--generate-key", self.key],
                       check=True, stdout=subprocess.DEVNULL)
        env = {k: v for k, v in os.environ.items()
               if k not in ("WYMCP_NOTES_DIR", "HOME", "XDG_STATE_HOME",
                            "STATE_DIRECTORY")}
        env["TMPDIR"] = self.tmpdir
        argv = [self.prog, "--listen", "unix:" + self.sock,
                "--workers", "3", "--user", "nobody", "--group",
                "www-data", "--state-key-file", self.key,
                "--status-path", "/wymcp-status",
                "--max-body", str(MAX_BODY), "-v"]
        for m in self.mods:
            argv += ["--module", m]
        with open(self.log, "ab") as f:
            self.fcgi = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=f, stderr=f, env=env,
                                         cwd="/")
        deadline = time.monotonic() + 30
        while not os.path.exists(self.sock):
            if self.fcgi.poll() is not None or time.monotonic() > deadline:
                raise Failed("wymcp-fcgi did not start: %s" %
                             " | ".join(tail(self.log, 10)))
            time.sleep(0.05)
        R.note("wymcp-fcgi %d on %s, as nobody:www-data, no "
               "WYMCP_NOTES_DIR, no HOME, TMPDIR=%s" %
               (self.fcgi.pid, self.sock, self.tmpdir))

    def stop(self):
        if self.fcgi is not None:
            pids = [self.fcgi.pid] + children(self.fcgi.pid)
            stop_pid(self.fcgi.pid, self.fcgi, 15)
            for p in pids:
                if alive(p):
                    stop_pid(p, None, 2)
            self.fcgi = None

    def sanitizer_reports(self):
        hits = []
        for path in self.logs:
            if not os.path.exists(path):
                continue
            for line in tail(path, 100000):
                if any(m in line for m in wymcp_e2e.SANITIZER_MARKS):
                    hits.append("%s: %s" % (os.path.basename(path),
                                            line.strip()))
        return hits

    def cleanup(self):
        if not self.var_lib and os.path.lexists("/var/lib/wymcp"):
            shutil.rmtree("/var/lib/wymcp", ignore_errors=True)
            R.note("removed /var/lib/wymcp (write_note's, made by the "
                   "run as root)")
        if self.keep or R.failed:
            R.note("files kept in %s" % self.tmp)
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


# --------------------------------------------------------- front ends

def rewrite(text, repl):
    for a, b in repl:
        text = text.replace(a, b)
    return text


def deploy_text(*parts):
    with open(os.path.join(DEPLOY, *parts)) as f:
        return f.read()


def wait_port(port, proc, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class Front:
    """A web server in front of wymcp-fcgi: start(), the port, the
    endpoint's path, how it authenticates, what whoami must show."""

    name = "?"
    path = "/mcp"
    cgi = False
    auth = True			# basic auth as alice
    principal = USER
    assigns = {"remote_user": USER, "tenant": "acme"}
    own_limit = None		# a body size past the server's own limit
    status = True		# serves the status page on status_port

    def __init__(self, w):
        self.w = w
        self.dir = os.path.join(w.tmp, self.name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)
        # Servers that drop to www-data before opening their logs.
        pw = pwd.getpwnam("www-data")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.proc = None
        self.port = None
        self.status_port = None
        self.pids = set()
        self.logs = []

    def headers(self, method, name=None):
        h = list(std_headers(method, name).items())
        if self.auth:
            h.append(("Authorization", basic(USER, PASSWORD)))
        return h

    def spawn(self, argv, log, env=None, cwd=None):
        with open(log, "ab") as f:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=f, stderr=f, env=env,
                                         cwd=cwd or self.dir)
        if log not in self.logs:
            self.logs.append(log)

    def start_with_ports(self, make):
        """make(port, status_port) starts the server; retried on new
        ports when it does not come up."""
        last = ""
        for _ in range(6):
            self.port, self.status_port = free_port(), free_port()
            if self.port == self.status_port:
                continue
            make(self.port, self.status_port)
            if wait_port(self.port, self.proc) and (
                    not self.status or self.cgi or
                    wait_port(self.status_port, self.proc, 5)):
                R.note("%s: pid %d on 127.0.0.1:%d" %
                       (self.name, self.proc.pid, self.port))
                return
            last = " | ".join(sum((tail(p, 8) for p in self.logs), []))
            self.stop()
        raise Failed("%s did not start: %s" % (self.name, last))

    def stop(self):
        if self.proc is None:
            return
        self.pids.update(wymcp_apache.descendants(self.proc.pid))
        stop_pid(self.proc.pid, self.proc, 15)
        for p in sorted(self.pids):
            if alive(p):
                stop_pid(p, None, 2)
        self.proc = None


def write_413(path):
    """The file a server answers its own 413 with: wymcp's error."""
    with open(path, "w") as f:
        f.write(json.dumps({"jsonrpc": "2.0", "error": TOO_LARGE},
                           separators=(",", ":")))
    os.chmod(path, 0o644)


def htpasswd_apr1(path):
    out = subprocess.run(["openssl", "passwd", "-apr1", PASSWORD],
                         capture_output=True, text=True, check=True).stdout
    with open(path, "w") as f:
        f.write("%s:%s\n" % (USER, out.strip()))
    os.chmod(path, 0o644)


class Nginx(Front):
    """deploy/nginx/auth-basic.conf (alice, the assign tenant) at /mcp,
    and deploy/nginx/wymcp.conf as shipped (anonymous) on a second
    port."""

    name = "nginx"
    own_limit = 3 * MAX_BODY

    def start(self):
        d = self.dir
        for sub in ("client_body", "fastcgi_temp", "proxy_temp",
                    "scgi_temp", "uwsgi_temp"):
            os.makedirs(os.path.join(d, sub))
        shutil.copy("/etc/nginx/fastcgi_params", d)
        htpasswd_apr1(os.path.join(d, "htpasswd"))
        repl = [(DEPLOY_SOCK, self.w.sock),
                ("/etc/nginx/wymcp.htpasswd", os.path.join(d, "htpasswd"))]
        with open(os.path.join(d, "auth-basic.conf"), "w") as f:
            f.write(rewrite(deploy_text("nginx", "auth-basic.conf"), repl))
        with open(os.path.join(d, "wymcp.conf"), "w") as f:
            f.write(rewrite(deploy_text("nginx", "wymcp.conf"), repl))
        self.status = False
        self.logs.append(os.path.join(d, "nginx-error.log"))

        def conf(ports):
            self.port, self.anon_port = ports
            return wymcp_e2e.nginx_preamble(d, user="www-data") + """\
	server {{
		listen 127.0.0.1:{p1};
		server_name localhost;
		include {d}/auth-basic.conf;
	}}
	server {{
		listen 127.0.0.1:{p2};
		server_name localhost;
		include {d}/wymcp.conf;
	}}
}}
""".format(p1=ports[0], p2=ports[1], d=d)
        self.proc, _ = wymcp_e2e.launch_nginx(
            "/usr/sbin/nginx", d, os.path.join(d, "nginx-error.log"), 2,
            conf)
        R.note("nginx: pid %d on 127.0.0.1:%d (auth-basic.conf) and :%d "
               "(wymcp.conf)" % (self.proc.pid, self.port, self.anon_port))


class Lighttpd(Front):
    name = "lighttpd"
    conf = ("lighttpd", "wymcp.conf")
    own_limit = 17 * MAX_BODY	# server.max-request-size 16384 (KiB)

    def start(self):
        d = self.dir
        htpasswd_apr1(os.path.join(d, "htpasswd"))
        www = os.path.join(d, "www")
        os.makedirs(www)
        write_413(os.path.join(d, "wymcp-413.html"))

        def make(port, sport):
            text = rewrite(deploy_text(*self.conf), [
                (DEPLOY_SOCK, self.w.sock),
                ("/etc/lighttpd/wymcp.htpasswd",
                 os.path.join(d, "htpasswd")),
                ("/usr/lib/cgi-bin/wymcp.cgi", self.w.cgi_script),
                ("/etc/lighttpd/wymcp-", os.path.join(d, "wymcp-")),
                ("127.0.0.1:9181", "127.0.0.1:%d" % sport)])
            with open(os.path.join(d, "wymcp.conf"), "w") as f:
                f.write(text)
            with open(os.path.join(d, "lighttpd.conf"), "w") as f:
                f.write('server.document-root = "%s"\n'
                        'server.bind = "127.0.0.1"\n'
                        'server.port = %d\n'
                        'server.username = "www-data"\n'
                        'server.groupname = "www-data"\n'
                        'server.pid-file = "%s/lighttpd.pid"\n'
                        'server.errorlog = "%s/error.log"\n'
                        'server.upload-dirs = ( "%s" )\n'
                        'include "%s/wymcp.conf"\n' %
                        (www, port, d, d, d, d))
            self.spawn(["/usr/sbin/lighttpd", "-D", "-f",
                        os.path.join(d, "lighttpd.conf")],
                       os.path.join(d, "lighttpd.out"))
            if os.path.join(d, "error.log") not in self.logs:
                self.logs.append(os.path.join(d, "error.log"))
        self.start_with_ports(make)


class LighttpdCgi(Lighttpd):
    name = "lighttpd-cgi"
    conf = ("cgi", "lighttpd-cgi.conf")
    cgi = True
    status = False


class Caddy(Front):
    name = "caddy"
    own_limit = 17 * MAX_BODY	# request_body max_size 16MB

    def start(self):
        d = self.dir
        hashed = subprocess.run(
            ["/usr/bin/caddy", "hash-password", "--plaintext", PASSWORD],
            capture_output=True, text=True, check=True).stdout.strip()
        env = dict(os.environ, HOME=d, XDG_DATA_HOME=d,
                   XDG_CONFIG_HOME=d)

        def make(port, sport):
            text = deploy_text("caddy", "Caddyfile")
            text = re.sub(r"(?m)^(\t\talice ).*$",
                          lambda m: m.group(1) + hashed, text)
            text = rewrite(text, [("unix/" + DEPLOY_SOCK,
                                   "unix/" + self.w.sock),
                                  ("\n:8080 {", "\n:%d {" % port),
                                  ("\n:9181 {", "\n:%d {" % sport)])
            with open(os.path.join(d, "Caddyfile"), "w") as f:
                f.write(text)
            self.spawn(["/usr/bin/caddy", "run", "--config",
                        os.path.join(d, "Caddyfile"), "--adapter",
                        "caddyfile"], os.path.join(d, "caddy.log"),
                       env=env)
        self.start_with_ports(make)


class H2o(Front):
    name = "h2o"
    own_limit = 17 * MAX_BODY	# limit-request-body 16777216

    def start(self):
        d = self.dir
        # H2O 2.2.5's htpasswd.rb takes {SHA} entries (see the config).
        import hashlib
        sha = base64.b64encode(hashlib.sha1(PASSWORD.encode()).digest())
        with open(os.path.join(d, "htpasswd"), "w") as f:
            f.write("%s:{SHA}%s\n" % (USER, sha.decode()))
        write_413(os.path.join(d, "wymcp-413.json"))
        for n in ("htpasswd", "wymcp-413.json"):
            os.chmod(os.path.join(d, n), 0o644)

        def make(port, sport):
            text = rewrite(deploy_text("h2o", "h2o.conf"), [
                (DEPLOY_SOCK, self.w.sock),
                ("/etc/h2o/wymcp.htpasswd", os.path.join(d, "htpasswd")),
                ("/etc/h2o/wymcp-413.json",
                 os.path.join(d, "wymcp-413.json")),
                ("8080", str(port)), ("9181", str(sport))])
            text += ("user: www-data\npid-file: %s/h2o.pid\n"
                     "error-log: %s/error.log\n" % (d, d))
            with open(os.path.join(d, "h2o.conf"), "w") as f:
                f.write(text)
            self.spawn(["/usr/bin/h2o", "-c", os.path.join(d, "h2o.conf")],
                       os.path.join(d, "h2o.out"))
            if os.path.join(d, "error.log") not in self.logs:
                self.logs.append(os.path.join(d, "error.log"))
        self.start_with_ports(make)


class ApacheCgi(Front):
    name = "apache-cgi"
    cgi = True
    status = False
    own_limit = MAX_BODY + 4096	# LimitRequestBody = --max-body

    def start(self):
        binary = wymcp_apache.find_apache()
        d = self.dir
        htpasswd_apr1(os.path.join(d, "htpasswd"))
        self.apache = wymcp_apache.Apache(
            binary, d, "apache", ["mpm_event", "unixd", "authz_core",
                                  "authn_core", "authn_file", "authz_user",
                                  "auth_basic", "alias", "cgid", "env",
                                  "headers"], ("www-data", "www-data"))
        text = rewrite(deploy_text("cgi", "apache-cgi.conf"), [
            ("/usr/lib/cgi-bin/wymcp.cgi", self.w.cgi_script),
            ("/etc/apache2/wymcp.htpasswd", os.path.join(d, "htpasswd"))])
        self.apache.start(lambda port: self.apache.head(port) +
                          'ScriptSock "%s/cgid.sock"\n' % self.apache.dir +
                          text)
        self.port = self.apache.port
        self.logs.append(self.apache.error_log)
        self.proc = self.apache.popen

    def stop(self):
        if self.proc is not None:
            self.apache.stop()
            self.proc = None


class BusyboxCgi(Front):
    name = "busybox-cgi"
    path = "/cgi-bin/mcp"
    cgi = True
    status = False
    assigns = {"remote_user": USER, "tenant": "acme"}

    def start(self):
        d = self.dir
        home = os.path.join(d, "home")
        os.makedirs(os.path.join(home, "cgi-bin"))
        os.symlink(self.w.cgi_script, os.path.join(home, "cgi-bin", "mcp"))
        text = rewrite(deploy_text("cgi", "busybox-httpd.conf"), [
            ("alice:wonderland", "%s:%s" % (USER, PASSWORD))])
        with open(os.path.join(d, "httpd.conf"), "w") as f:
            f.write(text)

        def make(port, sport):
            self.spawn(["/bin/busybox", "httpd", "-f", "-vv", "-p",
                        "127.0.0.1:%d" % port, "-u", "www-data:www-data",
                        "-h", home, "-c", os.path.join(d, "httpd.conf")],
                       os.path.join(d, "httpd.log"))
        self.start_with_ports(make)


class Try(Front):
    """The built wymcp-try as ./quickstart runs it: the bundled modules,
    --assign role=developer, its own nginx, no WYMCP_NOTES_DIR."""

    name = "wymcp-try"
    auth = False
    principal = None
    assigns = {"role": "developer"}
    status = False
    own_limit = 3 * MAX_BODY
    as_user = None		# a user of its own, HOME its own

    def start(self):
        # What ./quickstart runs (it builds first, so it is not run
        # itself): the same modules and assign, no WYMCP_NOTES_DIR.
        with open(os.path.join(SRCDIR, "quickstart")) as f:
            qs = f.read()
        R.check("for m in help echo whoami examples; do" in qs and
                "--assign role=developer" in qs and
                "WYMCP_NOTES_DIR" not in qs and '"$try"' in qs,
                "%s: ./quickstart runs wymcp-try with help, echo, "
                "whoami, examples and role=developer, no "
                "WYMCP_NOTES_DIR, as here" % self.name)
        env = {k: v for k, v in os.environ.items()
               if k not in ("WYMCP_NOTES_DIR", "STATE_DIRECTORY",
                            "XDG_STATE_HOME")}
        # As ./quickstart runs it: the build's wymcp-fcgi.
        env["WYMCP_FCGI"] = self.w.prog
        env["WYMCP_NGINX"] = "/usr/sbin/nginx"
        env["TMPDIR"] = self.dir
        # wymcp-fcgi refuses a key in a directory another user owns.
        os.chown(self.dir, 0, 0)
        argv = [self.w.try_prog, "--assign", "role=developer"] + \
            self.w.mods
        if self.as_user is not None:
            self.home = os.path.join(self.dir, "home")
            os.makedirs(self.home)
            pw = pwd.getpwnam(self.as_user)
            os.chown(self.home, pw.pw_uid, pw.pw_gid)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            env["HOME"] = self.home
            argv = ["setpriv", "--reuid", self.as_user, "--regid",
                    str(pw.pw_gid), "--clear-groups", "--"] + argv
        else:
            env["HOME"] = "/root"
        log = os.path.join(self.dir, "wymcp-try.log")
        self.spawn(argv, log, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.poll() is None:
            m = re.search(r"endpoint http://127\.0\.0\.1:(\d+)/mcp",
                          "\n".join(tail(log, 200)))
            if m:
                self.port = int(m.group(1))
                R.note("%s: pid %d on 127.0.0.1:%d" %
                       (self.name, self.proc.pid, self.port))
                return
            time.sleep(0.1)
        raise Failed("wymcp-try did not print its endpoint: %s" %
                     " | ".join(tail(log, 10)))

    def stop(self):
        if self.proc is None:
            return
        self.pids.update(wymcp_apache.descendants(self.proc.pid))
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            pass
        Front.stop(self)


class TryUser(Try):
    name = "wymcp-try-user"
    as_user = "nobody"


FRONTS = [Nginx, Lighttpd, Caddy, H2o, ApacheCgi, LighttpdCgi, BusyboxCgi,
          Try, TryUser]


# --------------------------------------------------------------- checks

class Checks:
    def __init__(self, w, f):
        self.w = w
        self.f = f
        self.rid = 100

    def label(self, what):
        return "%s: %s" % (self.f.name, what)

    def post(self, method, params=None, name=None, port=None, body=None,
             timeout=60):
        self.rid += 1
        if body is None:
            body = enc(rpc(self.rid, method, params))
        x = Exchange(port or self.f.port, self.f.path, body,
                     self.f.headers(method, name))
        return x.finish(timeout)

    def tool(self, name, args):
        params = {"name": name, "arguments": args}
        x = self.post("tools/call", params, name)
        return x, x.result()

    def text(self, res):
        try:
            return "\n".join(b.get("text", "") for b in
                             res["result"]["content"])
        except (KeyError, TypeError):
            return None

    def run(self):
        self.discover()
        self.tools_list()
        self.echo()
        self.whoami()
        self.book_room()
        self.progress()
        self.listen()
        self.status()
        if not isinstance(self.f, BusyboxCgi):
            self.chunked()
        self.too_large()

    def discover(self):
        x = self.post("server/discover")
        r = x.result() or {}
        info = r.get("result", {}).get("_meta", {}).get(
            "io.modelcontextprotocol/serverInfo", {})
        R.check(x.status == 200 and info.get("name") == "wymcp",
                self.label("server/discover"), x.brief())

    def tools_list(self):
        x = self.post("tools/list")
        try:
            names = [t["name"] for t in x.result()["result"]["tools"]]
        except (KeyError, TypeError):
            names = []
        want = ["help", "echo", "whoami", "book_room", "count_slowly",
                "write_note"]
        R.check(all(n in names for n in want), self.label(
            "tools/list lists %s" % ", ".join(want)), x.brief())

    def echo(self):
        x, res = self.tool("echo", {"text": "hello from %s" % self.f.name})
        R.check(x.status == 200 and self.text(res) ==
                "hello from %s" % self.f.name,
                self.label("tools/call echo"), x.brief())

    def whoami(self):
        x, res = self.tool("whoami", {})
        try:
            got = res["result"]["structuredContent"]
        except (KeyError, TypeError):
            got = None
        want = {"principal": self.f.principal, "assigns": self.f.assigns}
        if self.f.principal is None:
            want.pop("principal")
            if isinstance(got, dict):
                got = dict(got)
                if got.get("principal") is None:
                    got.pop("principal", None)
        R.check(got == want, self.label(
            "whoami: principal %s and the assigns %s, from the server" %
            (self.f.principal or "none (anonymous)",
             json.dumps(self.f.assigns, sort_keys=True))),
            "got %r; %s" % (got, x.brief()))

    def book_room(self):
        caps = {"elicitation": {"form": {}}}
        meta = dict(wymcp_e2e.META)
        meta["io.modelcontextprotocol/clientCapabilities"] = caps
        state, probs = None, []
        answers = [None, {"elicit-1": {"action": "accept", "content":
                                       {"room": "Aurora"}}},
                   {"elicit-2": {"action": "accept", "content":
                                 {"people": 4}}}]
        res = None
        for n in range(3):
            self.rid += 1
            params = {"name": "book_room",
                      "arguments": {"day": "2026-12-01"}, "_meta": meta}
            if state is not None:
                params["requestState"] = state
                params["inputResponses"] = answers[n]
            body = enc({"jsonrpc": "2.0", "id": self.rid,
                        "method": "tools/call", "params": params})
            x = self.post("tools/call", name="book_room", body=body)
            res = (x.result() or {}).get("result", {})
            if n < 2:
                want = "elicit-%d" % (n + 1)
                if res.get("resultType") != "input_required" or \
                        want not in (res.get("inputRequests") or {}):
                    probs.append("round %d: %s" % (n + 1, x.brief()))
                    break
                state = res.get("requestState")
        else:
            txt = self.text({"result": res})
            if txt != "Booked Aurora for 4 on 2026-12-01.":
                probs.append("round 3: %r" % (res,))
        R.check(not probs, self.label("book_room: two questions, then "
                                      "the booking"), "; ".join(probs))

    def progress(self):
        """count_slowly 4 steps 400 ms apart: the first progress frame
        must come at least a step's worth before the result."""
        self.rid += 1
        meta = dict(wymcp_e2e.META, progressToken="p%d" % self.rid)
        body = enc({"jsonrpc": "2.0", "id": self.rid,
                    "method": "tools/call", "params": {
                        "name": "count_slowly",
                        "arguments": {"to": 4, "delay_ms": 400},
                        "_meta": meta}})
        x = Exchange(self.f.port, self.f.path, body,
                     self.f.headers("tools/call", "count_slowly"))
        x.finish(60)
        prog = [t for t, m in x.frames
                if m.get("method") == "notifications/progress"]
        done = [t for t, m in x.frames if "id" in m]
        ok = len(prog) == 4 and len(done) == 1
        gap = done[0] - prog[0] if ok else 0
        R.check(ok and gap >= 0.8, self.label(
            "count_slowly: 4 progress frames, the first %.2f s before the "
            "result (streamed, not buffered: at least 0.8 s)" % gap),
            "progress at %r, result at %r; %s" % (prog, done, x.brief()))

    def listen(self):
        name = "n%s" % re.sub(r"[^A-Za-z0-9]", "", self.f.name)
        uri = "note://" + name
        self.rid += 1
        rid = self.rid
        body = enc(rpc(rid, "subscriptions/listen", {
            "notifications": {"resourceSubscriptions": [uri]}}))
        s = Exchange(self.f.port, self.f.path, body,
                     self.f.headers("subscriptions/listen"))
        try:
            s.wait(lambda x: len(x.frames) >= 1, 15)
            if self.f.cgi:
                s.wait(lambda x: False, 15)
                R.check(s.status == 200 and s.eof and s.frames,
                        self.label("subscriptions/listen (CGI, no hub): "
                                   "acknowledged, then the response ends"),
                        s.brief())
                x, res = self.tool("write_note", {"name": name,
                                                  "text": "cgi"})
                R.check(x.status == 200 and "written" in (
                    self.text(res) or ""),
                    self.label("write_note writes under CGI"), x.brief())
                return
            R.check(s.status == 200 and s.frames and not s.eof,
                    self.label("subscriptions/listen: acknowledged, the "
                               "stream stays open"), s.brief())
            x, res = self.tool("write_note", {"name": name,
                                              "text": "from %s" %
                                              self.f.name})
            R.check(x.status == 200 and "written" in (self.text(res) or "")
                    and not (res or {}).get("result", {}).get("isError"),
                    self.label("write_note with no WYMCP_NOTES_DIR"),
                    x.brief())
            got = s.wait(lambda x: any(
                m.get("method") == "notifications/resources/updated" and
                m.get("params", {}).get("uri") == uri
                for _, m in x.frames), 15)
            R.check(got and not s.eof, self.label(
                "the open listen stream receives write_note's "
                "notifications/resources/updated"),
                "frames %r; %s" % ([m for _, m in s.frames][:5],
                                   s.brief()))
        finally:
            s.close()

    def status(self):
        if not self.f.status:
            return
        c = socket.create_connection(("127.0.0.1", self.f.status_port), 10)
        c.sendall(b"GET /wymcp-status HTTP/1.0\r\nHost: localhost\r\n\r\n")
        raw = b""
        while True:
            b = c.recv(65536)
            if not b:
                break
            raw += b
        c.close()
        head, _, body = raw.partition(b"\r\n\r\n")
        try:
            st = json.loads(body.decode())
        except ValueError:
            st = None
        R.check(head.split()[1:2] == [b"200"] and isinstance(st, dict) and
                "workers" in st, self.label(
                    "the status page on its loopback listener"),
                repr(raw[:300]))

    def chunked(self):
        """A small body sent chunked (no Content-Length) is served."""
        self.rid += 1
        body = enc(rpc(self.rid, "tools/call", {
            "name": "echo", "arguments": {"text": "chunked"}}))
        head = "POST %s HTTP/1.1\r\nHost: localhost\r\n" \
            "Connection: close\r\nTransfer-Encoding: chunked\r\n" % \
            self.f.path
        for k, v in self.f.headers("tools/call", "echo"):
            head += "%s: %s\r\n" % (k, v)
        payload = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
        x = Exchange(self.f.port, self.f.path, payload, None,
                     raw_head=(head + "\r\n").encode())
        x.finish(30)
        raw = x.body
        if "transfer-encoding: chunked" in x.head.lower():
            raw = dechunk(raw)
        if isinstance(self.f, Caddy):
            R.check(x.status == 400 and b"bad CONTENT_LENGTH" in raw,
                    self.label("(documented trap) a body sent chunked "
                               "gets wymcp's JSON 400: Caddy sends "
                               "CONTENT_LENGTH -1"), x.brief())
            return
        R.check(x.status == 200 and b'"text":"chunked"' in raw,
                self.label("a body sent chunked (no Content-Length) is "
                           "served"), x.brief())

    def too_large(self):
        sizes = [("over --max-body", MAX_BODY + 4096, False)]
        if self.f.own_limit:
            sizes.append(("over the server's own limit",
                          self.f.own_limit, False))
            sizes.append(("chunked, over the server's own limit",
                          self.f.own_limit, True))
        elif not self.f.cgi:
            sizes.append(("chunked, over --max-body", MAX_BODY + 4096,
                          True))
        for what, n, chunked in sizes:
            body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call",' \
                b'"params":{"name":"echo","arguments":{"text":"' + \
                b"x" * n + b'"}}}'
            if chunked:
                head = "POST %s HTTP/1.1\r\nHost: localhost\r\n" \
                    "Connection: close\r\nTransfer-Encoding: chunked\r\n" % \
                    self.f.path
                for k, v in self.f.headers("tools/call", "echo"):
                    head += "%s: %s\r\n" % (k, v)
                head = (head + "\r\n").encode()
                step = 65536
                payload = b"".join(
                    b"%x\r\n" % len(body[i:i + step]) + body[i:i + step] +
                    b"\r\n" for i in range(0, len(body), step)) + \
                    b"0\r\n\r\n"
                x = Exchange(self.f.port, self.f.path, payload, None,
                             raw_head=head)
            else:
                x = Exchange(self.f.port, self.f.path, body,
                             self.f.headers("tools/call", "echo"))
            x.finish(60)
            body_text = x.body
            if "transfer-encoding: chunked" in x.head.lower():
                body_text = dechunk(x.body)
            try:
                got = json.loads(body_text.decode())
            except ValueError:
                got = None
            ok = x.status == 413 and isinstance(got, dict) and \
                got.get("error") == TOO_LARGE and \
                "application/json" in x.head.lower()
            R.check(ok, self.label("a body %s (%d bytes) gets wymcp's "
                                   "JSON-RPC 413, -32600" % (what, n)),
                    x.brief())


def dechunk(b):
    out = b""
    while b:
        line, _, rest = b.partition(b"\r\n")
        try:
            n = int(line.split(b";")[0], 16)
        except ValueError:
            return out + b
        if n == 0:
            break
        out += rest[:n]
        b = rest[n + 2:]
    return out


def anon_snippet(w, f):
    """deploy/nginx/wymcp.conf as shipped: anonymous, and the 413s."""
    g = Front.__new__(Front)
    g.__dict__.update(f.__dict__)
    g.name, g.auth, g.principal, g.assigns = "nginx wymcp.conf", False, \
        None, {}
    g.port = f.anon_port
    g.own_limit = f.own_limit
    c = Checks(w, g)
    c.discover()
    c.whoami()
    c.too_large()


def notes_where(w, f):
    """Where write_note put the notes: the defaults, no
    WYMCP_NOTES_DIR."""
    if f.name == "wymcp-try":
        d = "/var/lib/wymcp/notes"
        why = "run as root: /var/lib/wymcp/notes"
    elif f.name == "wymcp-try-user":
        d = os.path.join(f.home, ".local", "state", "wymcp", "notes")
        why = "run as nobody with a HOME: ~/.local/state/wymcp/notes"
    elif f.cgi:
        return
    else:
        d = os.path.join(w.tmpdir, "wymcp-notes-%d" %
                         pwd.getpwnam("nobody").pw_uid)
        why = "wymcp-fcgi as nobody, no HOME: $TMPDIR/wymcp-notes-UID"
    name = "n%s.txt" % re.sub(r"[^A-Za-z0-9]", "", f.name)
    try:
        st = os.stat(d)
        ok = os.path.exists(os.path.join(d, name)) and \
            st.st_mode & 0o077 == 0
    except OSError:
        ok = False
    R.check(ok, "%s: write_note's note in %s (%s), mode 0700" %
            (f.name, d, why), repr(os.listdir(os.path.dirname(d))
                                   if os.path.isdir(os.path.dirname(d))
                                   else d))


def cgi_write_note(w, tmpdir, name):
    """write_note through wymcp-fcgi in CGI mode (one request, no
    server), as nobody, no HOME, TMPDIR=tmpdir: the tool's text."""
    body = enc(rpc(1, "tools/call", {"name": "write_note", "arguments": {
        "name": name, "text": "x"}}))
    env = {k: v for k, v in os.environ.items()
           if k.startswith(("ASAN_", "UBSAN_", "LD_", "PATH"))}
    env.update(wymcp_e2e.mcp_params("tools/call", "write_note", body))
    env["TMPDIR"] = tmpdir
    argv = ["setpriv", "--reuid", "nobody", "--regid", "nogroup",
            "--clear-groups", "--", w.prog, "--module",
            [m for m in w.mods if m.endswith("examples.so")][0]]
    p = subprocess.run(argv, input=body, env=env, capture_output=True,
                       timeout=60, cwd="/")
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    R.check(not any(m in err for m in wymcp_e2e.SANITIZER_MARKS),
            "write_note in CGI mode (%s): no sanitizer report" % name,
            err[-500:])
    try:
        res = json.loads(out.partition("\r\n\r\n")[2])["result"]
        return "\n".join(b.get("text", "") for b in res["content"])
    except (ValueError, KeyError, TypeError):
        return "(no result: %r %r)" % (out[:300], p.stderr[-300:])


def notes_hostile(w):
    """$TMPDIR/wymcp-notes-UID, write_note's last resort, is taken only
    when it is nobody else's: a link to a directory of the same user,
    or a directory others may write, is refused and nothing written."""
    nobody = pwd.getpwnam("nobody")
    base = os.path.join(w.tmp, "hostile")
    os.makedirs(base)
    os.chmod(base, 0o1777)
    d = os.path.join(base, "wymcp-notes-%d" % nobody.pw_uid)
    elsewhere = os.path.join(w.tmp, "elsewhere")
    os.makedirs(elsewhere)
    os.chown(elsewhere, nobody.pw_uid, nobody.pw_gid)
    os.chmod(elsewhere, 0o700)
    os.symlink(elsewhere, d)
    text = cgi_write_note(w, base, "linked")
    R.check("could not be written" in text and
            not os.listdir(elsewhere), "write_note (CGI, as nobody) "
            "refuses $TMPDIR/wymcp-notes-UID when it is a symbolic link",
            "%r; %r" % (text, os.listdir(elsewhere)))
    os.unlink(d)
    os.makedirs(d)
    os.chown(d, nobody.pw_uid, nobody.pw_gid)
    os.chmod(d, 0o777)
    text = cgi_write_note(w, base, "open")
    R.check("could not be written" in text and not os.listdir(d),
            "write_note refuses $TMPDIR/wymcp-notes-UID when others may "
            "write in it (mode 0777)", "%r; %r" % (text, os.listdir(d)))
    os.rmdir(d)
    text = cgi_write_note(w, base, "fresh")
    st = os.lstat(d) if os.path.lexists(d) else None
    R.check("written" in text and st is not None and
            st.st_mode & 0o7777 == 0o700 and st.st_uid == nobody.pw_uid and
            os.path.exists(os.path.join(d, "fresh.txt")),
            "write_note (CGI, as nobody, no HOME) makes "
            "$TMPDIR/wymcp-notes-UID itself, mode 0700, and writes",
            "%r; %r" % (text, st))


def write_cgi(w):
    """deploy/cgi/wymcp.cgi with the build's program, modules and a key
    of www-data's; ASan's settings and a TMPDIR of the test's."""
    key = os.path.join(w.tmp, "cgi.key")
    shutil.copy(w.key, key)
    pw = pwd.getpwnam("www-data")
    os.chown(key, pw.pw_uid, pw.pw_gid)
    os.chmod(key, 0o600)
    text = deploy_text("cgi", "wymcp.cgi")
    mods = "".join(" \\\n    --module %s" % m for m in w.mods)
    text = re.sub(r"\nexec \S*wymcp-fcgi .*", "\nexec %s "
                  "--state-key-file %s --max-body %d%s" %
                  (w.prog, key, MAX_BODY, mods), text, flags=re.S)
    envs = "".join("%s='%s'; export %s\n" % (k, os.environ[k], k)
                   for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS")
                   if k in os.environ)
    text = text.replace("\nexec ", "\n%sTMPDIR=%s; export TMPDIR\n"
                        "WYMCP_ASSIGN_TENANT=acme; export "
                        "WYMCP_ASSIGN_TENANT\nexec " % (envs, w.tmpdir), 1)
    w.cgi_script = os.path.join(w.tmp, "wymcp.cgi")
    with open(w.cgi_script, "w") as f:
        f.write(text)
    os.chmod(w.cgi_script, 0o755)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--only", default="",
                    help="comma-separated front ends to run")
    ap.add_argument("--no-install", action="store_true",
                    help="skip a front end whose package is missing")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (web servers as www-data, wymcp-fcgi "
              "--user nobody, packages)")
        return 77
    for u in ("nobody", "www-data"):
        try:
            pwd.getpwnam(u)
        except KeyError:
            print("SKIP: no user %s" % u)
            return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    only = [n for n in a.only.split(",") if n]
    started = time.monotonic()
    apt = Apt(not a.no_install)
    w = World(a.builddir, a.keep)
    ran, skipped, interrupted = [], [], False
    try:
        w.start_fcgi()
        write_cgi(w)
        if not only or "notes" in only:
            notes_hostile(w)
        for cls in FRONTS:
            if only and cls.name not in only:
                continue
            why = apt.need(PACKAGES[cls.name])
            if why is not None:
                say("skip - %s: %s" % (cls.name, why))
                skipped.append(cls.name)
                continue
            f = cls(w)
            try:
                f.start()
                Checks(w, f).run()
                if isinstance(f, Nginx):
                    anon_snippet(w, f)
                notes_where(w, f)
            except Failed as e:
                R.fail("%s: setup" % cls.name, str(e))
            finally:
                f.stop()
                w.logs.extend(f.logs)
                left = [p for p in f.pids if alive(p)]
                R.check(not left, "%s: stopped, no process of its left" %
                        cls.name, repr(left))
            ran.append(cls.name)
    except Failed as e:
        R.fail("setup", str(e))
    except KeyboardInterrupt as e:
        R.fail("interrupted", str(e))
        interrupted = True
    finally:
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        w.stop()
        hits = w.sanitizer_reports()
        R.check(not hits, "no sanitizer reports in wymcp-fcgi's and the "
                "servers' logs", "; ".join(hits[:5]))
        if R.failed:
            for p in sorted(set(w.logs)):
                for ln in tail(p, 15):
                    R.note("%s: %s" % (os.path.relpath(p, w.tmp), ln))
        w.cleanup()
        apt.restore()
    R.note("front ends run: %s; skipped: %s; %.1f s" % (
        " ".join(ran) or "none", " ".join(skipped) or "none",
        time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    if R.failed:
        return 1
    return 77 if not ran else 0


if __name__ == "__main__":
    sys.exit(main())
