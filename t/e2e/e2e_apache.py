#!/usr/bin/env python3
"""e2e_apache.py - wymcp end to end behind a private Apache httpd 2.4.

Usage: e2e_apache.py [--builddir DIR] [--keep] [--verbose]

Runs Debian's /usr/sbin/apache2 in the foreground with a configuration of
its own (ServerRoot, modules, logs in a temporary directory, a free
loopback port) in front of wymcp-fcgi, through the shipped
deploy/apache/*.conf files (socket, password file and command paths
substituted, nothing else changed):

  P  both shipped files pass "apache2 -t";
  A  mod_proxy_fcgi (deploy/apache/wymcp-proxy-fcgi.conf) in front of
     "wymcp-fcgi --workers 2 -vv" with the help, echo, whoami and
     examples modules: discover, tools/list, a call of each bundled
     tool, HTTP basic auth (the user becomes the principal and the
     assign remote_user, assigns from SetEnv, SetEnvIf, RewriteRule [E=]
     and ProxyFCGISetEnvIf), 401 without credentials with no request
     reaching wymcp (its -vv log is checked), smuggled headers changing
     nothing, a per-location WYMCP_TOOLS, CGIPassAuth, TRACE; the
     server card at /mcp/server-card and /mcp-public/server-card,
     without credentials;
  H  the audit headers (wymcp-fcgi --audit-headers) through the
     shipped file: a tools/call's and an HTTP error's Wymcp-* headers
     are in Apache's access log (its wymcp_audit format, from the notes
     mod_headers took) and not in the client's response;
  S  SSE passthrough: a FastCGI responder in this script writes four
     events 0.4 s apart; through the shipped worker (flushpackets=on)
     they arrive as written, through a worker without it they arrive
     together (proof that the setting matters); the same for a wymcp
     tools/call streaming progress (count_slowly, when the examples
     module has it), whose X-Accel-Buffering: no does not help Apache;
  B  e2e.py's table of malformed and hostile requests, sent with valid
     credentials to the shipped /mcp, then the workers still answer;
     Apache-only differences are listed below (APACHE_EXCEPTIONS) and
     asserted as Apache's actual behaviour;
  E  a three-round elicitation (book_room) through Apache; its state
     does not open for another user;
  F  mod_fcgid (deploy/apache/wymcp-fcgid.conf): Apache spawns
     "wymcp-fcgi --workers 0" itself: discover, tools/list, calls, basic
     auth and whoami, 401, smuggled headers, the per-location mount
     list, a three-round book_room whose process is killed between
     rounds (the state key file carries it), SSE with
     FcgidOutputBufferSize 0, the documented FcgidPassHeader hazard,
     the FcgidMaxRequestLen default and the server card, public; the
     audit headers as H;
  D  Apache stops with every process it started.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
apache2 is not installed.  Fails on any sanitizer report in a wymcp-fcgi
log (for mod_fcgid: Apache's error log, where its stderr goes).  Python 3
standard library only; the harness pieces and e2e.py's table are in
t/e2e/lib/wymcp_e2e.py (PYTHONPATH).
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_apache.py: no module wymcp_e2e: run with "
          "PYTHONPATH=t/e2e/lib, or through make", file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, Client, Failed, alive, enc,  # noqa: E402
                       free_port, hlist, judge_bare, judge_error,
                       judge_result, report, rpc, std_headers, stop_pid,
                       tail)
from wymcp_apache import Apache, descendants, find_apache  # noqa: E402

SRCDIR = wymcp_e2e.SRCDIR
PROXY_CONF = os.path.join(SRCDIR, "deploy", "apache", "wymcp-proxy-fcgi.conf")
FCGID_CONF = os.path.join(SRCDIR, "deploy", "apache", "wymcp-fcgid.conf")
SHIPPED_SOCK = "/run/wymcp/wymcp.sock"
SHIPPED_HTPASSWD = "/etc/apache2/wymcp.htpasswd"
SHIPPED_WRAPPER = re.compile(r'"/usr/local/bin/wymcp-fcgi --workers 0 [^"]*"')
MODULES = ["help", "echo", "whoami", "examples"]
BASE_TOOLS = ["help", "echo", "whoami", "book_room", "purge_cache"]
WORKERS = wymcp_e2e.WORKERS
MAX_BODY = wymcp_e2e.MAX_BODY
USERS = {"alice": "wonderland", "bob": "the-builder"}
APACHE_MODULES = ["mpm_event", "authz_core", "authn_core", "authn_file",
                  "auth_basic", "authz_user", "proxy", "proxy_fcgi",
                  "setenvif", "env", "rewrite", "headers", "unixd"]
SMUGGLE = {
    "WYMCP-Assign-Role": "admin",
    "Wymcp-Principal": "mallory",
    "Remote-User": "mallory",
    "Wymcp-Tools": "echo",
    "X-Wymcp-Assign-Tenant": "evil",
    "WYMCP_PRINCIPAL": "mallory",
    "WYMCP_ASSIGN_ROLE": "admin",
    "Wymcp_Tools": "echo",
    "X-Remote-User": "mallory",
}
ELICIT_META = dict(wymcp_e2e.META)
ELICIT_META["io.modelcontextprotocol/clientCapabilities"] = {
    "elicitation": {}}
DAY = "2026-12-01"
ROOM_Q = "Which room would you like?"
SIZE_Q = "How many people?"
ROOM = {"action": "accept", "content": {"room": "Aurora"}}
SIZE = {"action": "accept", "content": {"people": 4}}

# Where Apache answers differently from nginx for a row of e2e.py's table:
# (row-name prefix, reason, judge(rid, r) -> problems).  Empty: every row
# of the table passes through Apache unchanged; the Apache-only cases
# (TRACE, and the like) are asserted separately in Tests.apache_only().
APACHE_EXCEPTIONS = []


def basic(user, pw=None):
    pw = USERS[user] if pw is None else pw
    tok = base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()
    return "Basic " + tok


class AuthClient(Client):
    """A Client that sends HTTP basic credentials unless the request
    carries its own Authorization header."""

    def __init__(self, port, user):
        Client.__init__(self, port)
        self.user = user

    def send(self, method, path, body=None, headers=None):
        headers = list(headers or [])
        if self.user is not None and \
                not any(k.lower() == "authorization" for k, _ in headers):
            headers.append(("Authorization", basic(self.user)))
        return Client.send(self, method, path, body, headers)


def sanitizer_hits(path):
    return [ln.strip() for ln in tail(path, 1000000)
            if any(m in ln for m in wymcp_e2e.SANITIZER_MARKS)]


# ------------------------------------------------------ a FastCGI probe

def _nv_pairs(data):
    out, i = {}, 0

    def length():
        nonlocal i
        if data[i] < 128:
            i += 1
            return data[i - 1]
        v = struct.unpack(">I", data[i:i + 4])[0] & 0x7fffffff
        i += 4
        return v

    while i < len(data):
        n = length()
        v = length()
        out[data[i:i + n].decode("latin-1")] = \
            data[i + n:i + n + v].decode("latin-1")
        i += n + v
    return out


SSE_EVENTS = 4
SSE_GAP = 0.4


def fake_serve_conn(conn):
    """Serve one FastCGI request: an SSE stream of SSE_EVENTS events,
    SSE_GAP seconds apart, each carrying its send time."""
    buf = b""
    rid = 1

    def need(n):
        nonlocal buf
        while len(buf) < n:
            d = conn.recv(65536)
            if not d:
                return False
            buf += d
        return True

    try:
        while True:
            if not need(8):
                return
            _, rtype, rid, clen, plen = struct.unpack(">BBHHBx", buf[:8])
            if not need(8 + clen + plen):
                return
            buf = buf[8 + clen + plen:]
            if rtype == 5 and clen == 0:	# end of FCGI_STDIN
                break
        rec = wymcp_e2e.fcgi_record
        conn.sendall(rec(wymcp_e2e.FCGI_STDOUT, b"Status: 200 OK\r\n"
                         b"Content-Type: text/event-stream\r\n"
                         b"Cache-Control: no-cache\r\n\r\n", rid))
        for i in range(SSE_EVENTS):
            if i:
                time.sleep(SSE_GAP)
            ev = json.dumps({"n": i, "sent": time.time()})
            conn.sendall(rec(wymcp_e2e.FCGI_STDOUT,
                             ("data: %s\n\n" % ev).encode(), rid))
        conn.sendall(rec(wymcp_e2e.FCGI_STDOUT, b"", rid))
        conn.sendall(rec(wymcp_e2e.FCGI_END, struct.pack(">IB3x", 0, 0),
                         rid))
    except OSError:
        pass
    finally:
        conn.close()


class FakeFCGI:
    """The SSE probe, listening on a unix socket in a thread."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        os.chmod(path, 0o666)
        self.sock.listen(16)
        self.stop = False
        self.th = threading.Thread(target=self.loop, daemon=True)
        self.th.start()

    def loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=fake_serve_conn, args=(c,),
                             daemon=True).start()

    def close(self):
        self.stop = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def fake_fd0():
    """The SSE probe as a FastCGI program that mod_fcgid starts, with the
    listening socket on descriptor 0."""
    s = socket.socket(fileno=0)
    for sig in (signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP):
        signal.signal(sig, lambda *a: os._exit(0))
    while True:
        c, _ = s.accept()
        fake_serve_conn(c)


def read_events(port, path, headers, body, timeout=30):
    """POST and read an SSE response line by line: (status, content type,
    [(arrival time, parsed data)], error or None)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest("POST", path, skip_accept_encoding=True)
        for k, v in headers:
            conn.putheader(k, v)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        r = conn.getresponse()
        events = []
        while True:
            line = r.readline()
            if not line:
                break
            now = time.monotonic()
            line = line.decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("data:"):
                try:
                    events.append((now, json.loads(line[5:].strip())))
                except ValueError:
                    events.append((now, line))
        return r.status, r.getheader("Content-Type"), events, None
    except (OSError, http.client.HTTPException) as e:
        return None, None, [], repr(e)
    finally:
        conn.close()


def judge_spread(events, want_streamed):
    """Streamed: the first event arrived at least 2 gaps before the last.
    Buffered: all within a quarter of a gap."""
    if len(events) < 2:
        return ["%d events" % len(events)], 0.0
    spread = events[-1][0] - events[0][0]
    need = (len(events) - 2) * SSE_GAP if want_streamed else 0
    if want_streamed and spread < max(need, 2 * SSE_GAP) * 0.9:
        return ["events arrived within %.2f s of each other: buffered" %
                spread], spread
    if not want_streamed and spread > SSE_GAP / 4:
        return ["events spread over %.2f s: not buffered" % spread], spread
    return [], spread


# ---------------------------------------------------------------- Apache

# ------------------------------------------------------------ the world

class World(wymcp_e2e.Harness):
    """The temporary directory, wymcp-fcgi (for mod_proxy_fcgi), the
    Apache instances and the SSE probe."""

    def __init__(self, builddir, keep, apache_bin):
        wymcp_e2e.Harness.__init__(self, builddir, keep)
        self.apache_bin = apache_bin
        self.proxy = None
        self.fcgid = None
        self.fake = None
        self.fcgid_log = None
        self.root = os.geteuid() == 0

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in MODULES]
        wymcp_e2e.need_built(self.prog, *self.mods)

    def setup(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-e2e-apache.")
        os.chmod(self.tmp, 0o755)
        # The socket's directory belongs to the user wymcp-fcgi runs as,
        # like /run/wymcp in the shipped files, so that it can remove
        # the socket when it stops.
        run = os.path.join(self.tmp, "run")
        os.makedirs(run)
        os.chmod(run, 0o755)
        if self.root:
            os.chown(run, *self.nobody())
        self.sock = os.path.join(run, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.htpasswd = os.path.join(self.tmp, "htpasswd")
        with open(self.htpasswd, "w") as f:
            for u, pw in USERS.items():
                digest = base64.b64encode(hashlib.sha1(pw.encode())
                                          .digest()).decode()
                f.write("%s:{SHA}%s\n" % (u, digest))
        os.chmod(self.htpasswd, 0o644)
        self.env = dict(os.environ)
        self.env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        self.env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")

    def start_fcgi(self):
        argv = [self.prog, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "--max-body", str(MAX_BODY), "-vv",
                "--audit-headers"]
        if self.root:
            # Apache's children run as nobody; the socket is 0660.
            argv += ["--user", "nobody", "--group", "nogroup"]
        for m in self.mods:
            argv += ["--module", m]
        with open(self.fcgi_log, "wb") as log:
            self.fcgi = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log,
                                         env=self.env, cwd=self.tmp)
        deadline = time.monotonic() + 30
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("wymcp-fcgi exited with %d: %s" %
                             (self.fcgi.returncode,
                              " | ".join(tail(self.fcgi_log, 5))))
            if os.path.exists(self.sock):
                self.sup = self.supervisor()
                if len(self.workers()) >= WORKERS:
                    break
            if time.monotonic() > deadline:
                raise Failed("no socket and %d workers after 30 s" % WORKERS)
            time.sleep(0.05)
        R.note("wymcp-fcgi supervisor %d, workers %r" %
               (self.sup, self.workers()))

    # -- configuration

    def shipped_proxy(self, sock=None):
        with open(PROXY_CONF) as f:
            text = f.read()
        return text.replace(SHIPPED_SOCK, sock or self.sock) \
            .replace(SHIPPED_HTPASSWD, self.htpasswd)

    def proxy_conf(self, port):
        a = self.proxy
        path = os.path.join(a.dir, "wymcp-proxy-fcgi.conf")
        with open(path, "w") as f:
            f.write(self.shipped_proxy())
        fake = self.fake.path
        return a.head(port) + """
<VirtualHost 127.0.0.1:{port}>
	ServerName localhost

	# The shipped file, as shipped (socket and password file paths
	# substituted).
	Include "{path}"
	# Its audit headers' notes, in the log format it ships.
	CustomLog "{audit}" wymcp_audit

	# Test-only locations.
	# CGIPassAuth, as the shipped file's comment describes it.
	<Location "/mcp-passauth">
		SetHandler "proxy:unix:{sock}|fcgi://wymcp/"
		ProxyFCGIBackendType GENERIC
		AuthType Basic
		AuthName "MCP"
		AuthBasicProvider file
		AuthUserFile "{htpasswd}"
		Require valid-user
		CGIPassAuth On
	</Location>
	# LimitRequestBody, which the shipped file says mod_proxy_fcgi
	# does not apply.
	<Location "/mcp-limit">
		SetHandler "proxy:unix:{sock}|fcgi://wymcp/"
		ProxyFCGIBackendType GENERIC
		Require all granted
		LimitRequestBody 1024
	</Location>
	# The SSE probe through the shipped worker (flushpackets=on) ...
	<Location "/sse-flush">
		SetHandler "proxy:unix:{fake}|fcgi://wymcp/"
		ProxyFCGIBackendType GENERIC
		Require all granted
	</Location>
	# ... and through a worker without flushpackets, also for wymcp.
	<Location "/mcp-noflush">
		SetHandler "proxy:unix:{sock}|fcgi://noflush/"
		ProxyFCGIBackendType GENERIC
		Require all granted
	</Location>
	<Location "/sse-noflush">
		SetHandler "proxy:unix:{fake}|fcgi://noflush/"
		ProxyFCGIBackendType GENERIC
		Require all granted
	</Location>
</VirtualHost>
""".format(port=port, path=path, sock=self.sock, htpasswd=self.htpasswd,
           fake=fake, audit=self.audit_log(a))

    def audit_log(self, apache=None):
        return os.path.join((apache or self.proxy).dir, "audit.log")

    def fcgid_conf(self, port):
        a = self.fcgid
        ipc = os.path.join(a.dir, "ipc")
        os.makedirs(ipc, exist_ok=True)
        if self.root:
            os.chown(ipc, *self.nobody())
        with open(FCGID_CONF) as f:
            text = f.read()
        text, n = SHIPPED_WRAPPER.subn('"%s"' % self.wrapper, text)
        if n != 2:
            raise Failed("wymcp-fcgid.conf: %d FcgidWrapper command lines "
                         "matched, want 2" % n)
        text = text.replace(SHIPPED_HTPASSWD, self.htpasswd)
        path = os.path.join(a.dir, "wymcp-fcgid.conf")
        with open(path, "w") as f:
            f.write(text)
        env = "".join('FcgidInitialEnv %s "%s"\n' % (k, self.env[k])
                      for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS")
                      if self.env.get(k))
        return a.head(port, ["fcgid"]) + """
FcgidIPCDir "{ipc}"
FcgidProcessTableFile "{d}/fcgid_shm"
{env}
# The shipped file, as shipped (command line and password file paths
# substituted), at server level as it says.
Include "{path}"
# Its audit headers' notes, in the log format it ships.
CustomLog "{audit}" wymcp_audit

# Test-only: the SSE probe as a mod_fcgid program, under the shipped
# FcgidOutputBufferSize 0.
<Location "/sse-fcgid">
	SetHandler fcgid-script
	Options +ExecCGI
	FcgidWrapper "{probe}" virtual
	Require all granted
</Location>

# Test-only: wymcp-fcgi without --state-key-file, to show what the shipped
# file warns about.
<Location "/mcp-nokey">
	SetHandler fcgid-script
	Options +ExecCGI
	FcgidWrapper "{nokey}" virtual
	AuthType Basic
	AuthName "MCP"
	AuthUserFile "{htpasswd}"
	Require valid-user
</Location>

# Test-only, a deliberate misconfiguration: the FcgidPassHeader hazard
# the shipped file warns about.
FcgidPassHeader WYMCP_ASSIGN_PASSED
""".format(ipc=ipc, d=a.dir, env=env, path=path, probe=self.probe,
           nokey=self.wrapper_nokey, htpasswd=self.htpasswd,
           audit=self.audit_log(a))

    def nobody(self):
        import pwd
        import grp
        pw = pwd.getpwnam("nobody")
        try:
            gid = grp.getgrnam("nogroup").gr_gid
        except KeyError:
            gid = pw.pw_gid
        return pw.pw_uid, gid

    def write_wrappers(self):
        """The mod_fcgid command lines: wymcp-fcgi with the modules and a
        key file (longer than FcgidWrapper's 511 bytes, hence a script,
        as the shipped file suggests), and the SSE probe."""
        self.keyfile = os.path.join(self.tmp, "state.key")
        p = subprocess.run([self.prog, "--generate-key", self.keyfile],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=self.env, check=False)
        if p.returncode != 0:
            raise Failed("--generate-key: %s" % p.stdout.decode())
        if self.root:
            os.chown(self.keyfile, *self.nobody())
        args = [self.prog, "--workers", "0", "-vv", "--max-body",
                str(MAX_BODY), "--state-key-file", self.keyfile,
                "--audit-headers"]
        for m in self.mods:
            args += ["--module", m]
        self.wrapper = os.path.join(self.tmp, "wymcp-fcgid-wrapper")
        self.wrapper_nokey = os.path.join(self.tmp, "wymcp-fcgid-nokey")
        nokey = [a for a in args if a not in ("--state-key-file",
                                              self.keyfile)]
        for path, argv in ((self.wrapper, args),
                           (self.wrapper_nokey, nokey)):
            with open(path, "w") as f:
                f.write("#!/bin/sh\nexec %s\n" % " ".join(argv))
            os.chmod(path, 0o755)
        py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) \
            else sys.executable
        # mod_fcgid passes no PYTHONPATH: the probe names the library's.
        lib = os.path.dirname(os.path.abspath(wymcp_e2e.__file__))
        self.probe = os.path.join(self.tmp, "sse-probe")
        with open(self.probe, "w") as f:
            f.write("#!/bin/sh\nPYTHONPATH=%s\nexport PYTHONPATH\n"
                    "exec %s %s --fake-fcgi-fd0\n" %
                    (lib, py, os.path.abspath(__file__)))
        os.chmod(self.probe, 0o755)

    # -- teardown

    def stop_all(self):
        for a in (self.proxy, self.fcgid):
            if a is not None:
                left = a.stop()
                if left:
                    R.fail("D %s: every process stops with Apache" % a.name,
                           "had to kill %r" % left)
        if self.fake is not None:
            self.fake.close()
            self.fake = None
        wymcp_e2e.Harness.stop(self)

    def dump_logs(self):
        if not self.tmp:
            return
        logs = [("wymcp-fcgi log", self.fcgi_log)]
        for a in (self.proxy, self.fcgid):
            if a is not None:
                logs.append(("%s error log" % a.name, a.error_log))
                logs.append(("%s output" % a.name, a.out))
        for title, path in logs:
            print("# ---- tail of %s (%s)" % (title, path))
            for line in tail(path):
                print("#   " + line)


# ----------------------------------------------------------------- tests

class Tests(wymcp_e2e.Tests):
    def __init__(self, w):
        self.w = w
        self.h = w
        self.nid = 3000
        self.use(w.proxy.port)

    def use(self, port):
        self.port = port
        self.w.port = port		# e2e's table puts it in Host/Origin
        self.c = AuthClient(port, "alice")
        self.anon = Client(port)
        self.bob = AuthClient(port, "bob")
        self.c2 = self.c

    # -- helpers

    def served(self, log, rid, timeout=3.0):
        """The PIDs whose log lines end request rid ("... -> STATUS")."""
        rs = str(rid)
        deadline = time.monotonic() + timeout
        while True:
            pids = sorted({e[0] for e in wymcp_e2e.log_entries(log)
                           if e[2] == rs and " -> " in e[3]})
            if pids or time.monotonic() > deadline:
                return pids
            time.sleep(0.02)

    def mentions(self, log, rid):
        rs = str(rid)
        return [e for e in wymcp_e2e.log_entries(log) if e[2] == rs]

    def ended(self, log):
        """How many requests the log says ended, once that number is
        stable: wymcp logs a request's end after writing its response, so
        the line for the previous request may still be on its way."""
        n = -1
        deadline = time.monotonic() + 3
        while True:
            m = len([e for e in wymcp_e2e.log_entries(log)
                     if " -> " in e[3]])
            if m == n or time.monotonic() > deadline:
                return m
            n = m
            time.sleep(0.2)

    def check_tools(self, label, client=None, path="/mcp", want=None):
        names, p, r = self.list_tools(path, client)
        if names is not None:
            if want is not None and names != want:
                p.append("tools %r, want %r" % (names, want))
            if want is None and names[:len(BASE_TOOLS)] != BASE_TOOLS:
                p.append("tools %r, want %r first" % (names, BASE_TOOLS))
        report(label, p, r)
        return names

    def whoami_is(self, label, path, client, principal, assigns, extra=None):
        saved = self.c
        self.c = client
        try:
            obj, p, r = self.whoami(path, extra)
        finally:
            self.c = saved
        if obj is not None:
            if "principal" not in obj or obj["principal"] != principal:
                p.append("principal %r, want %r" %
                         (obj.get("principal", "<absent>"), principal))
            if obj.get("assigns") != assigns:
                p.append("assigns %r, want %r" % (obj.get("assigns"),
                                                   assigns))
        return report(label, p, r)

    def never_reached(self, label, log, rid, before):
        time.sleep(0.3)
        m = self.mentions(log, rid)
        after = self.ended(log)
        R.check(not m and after == before, label,
                "log lines for id %r: %r; requests ended before %d, "
                "after %d" % (rid, m, before, after))

    def book(self, client, path, state=None, responses=None, rid=None):
        rid = self.next_id() if rid is None else rid
        params = {"name": "book_room", "arguments": {"day": DAY},
                  "_meta": ELICIT_META}
        if responses is not None:
            params["inputResponses"] = responses
        if state is not None:
            params["requestState"] = state
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": params}
        r = client.send("POST", path, enc(body),
                        hlist(std_headers("tools/call", "book_room")))
        return rid, r

    def asks(self, r, rid, key, question):
        p = []
        if r.status != 200 or not isinstance(r.json, dict):
            return ["status %d / body %r" % (r.status, r.raw[:200])], None
        res = r.json.get("result")
        if not isinstance(res, dict) or \
                res.get("resultType") != "input_required":
            return ["not input_required: %r" % (r.json,)], None
        ir = res.get("inputRequests") or {}
        if sorted(ir) != [key]:
            p.append("inputRequests %r, want [%s]" % (sorted(ir), key))
        elif ((ir[key].get("params") or {}).get("message")) != question:
            p.append("question %r" % (ir[key],))
        st = res.get("requestState")
        if not isinstance(st, str) or not st:
            p.append("requestState %r" % (st,))
            st = None
        return p, st

    def done(self, r, rid, text):
        p = judge_result(r, rid)
        if not p:
            got = self.text_of(r)
            if got != text:
                p.append("text %r, want %r" % (got, text))
        return p

    # -- A: mod_proxy_fcgi, the shipped file

    def test_audit_headers(self, apache, tag):
        """wymcp-fcgi --audit-headers behind a shipped file (`apache'
        runs it): its Wymcp-* headers reach Apache's log (the
        wymcp_audit format), never the client."""
        audit = self.w.audit_log(apache)
        rid, r = self.tool("echo", {"text": "audit"})
        leak = [(k, v) for k, v in r.headers
                if k.lower().startswith("wymcp-")]
        R.check(r.status == 200 and not leak,
                tag + " the client sees none of the Wymcp-* audit "
                "headers",
                "%s %r" % (r.brief(), leak))
        line, deadline = None, time.monotonic() + 10
        while line is None and time.monotonic() < deadline:
            for ln in tail(audit, 1000):
                try:
                    x = json.loads(ln)
                except ValueError:
                    continue
                if x.get("target") == "echo" and \
                        x.get("args_digest") not in (None, "-"):
                    line = x
            if line is None:
                time.sleep(0.05)
        line = line or {}
        R.check(line.get("principal") == "alice" and
                line.get("client", "").startswith("e2e/") and
                line.get("round") == "0" and
                line.get("outcome") == "complete" and
                line.get("code") == "-" and line.get("status") == 200 and
                line.get("mcp_method") == "tools/call" and
                re.fullmatch(r"[0-9a-f]{32}", line.get("args_digest", "")),
                tag + " Apache's access log carries the call's audit "
                "headers (principal, client, target, round, outcome, digest)",
                json.dumps(line) + " | " + " | ".join(
                    tail(audit, 3)))
        # An HTTP error (Mcp-Name not the body's tool: 400): wymcp's
        # headers are in the same table, and go the same way.
        n = len(tail(audit, 1000))
        rid, r = self.call("tools/call", {"name": "echo", "arguments": {}},
                           name="whoami")
        leak = [k for k, _ in r.headers if k.lower().startswith("wymcp-")]
        got = []
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            got = tail(audit, 1000)[n:]
            if not got:
                time.sleep(0.05)
        try:
            x = json.loads(got[-1])
        except (ValueError, IndexError):
            x = {}
        R.check(r.status == 400 and not leak and x.get("status") == 400 and
                x.get("outcome") == "error" and x.get("code", "-") != "-",
                tag + " an HTTP error's headers too: logged, not sent",
                "%s %r %r" % (r.brief(), leak, got[-1:]))

    def test_proxy(self):
        w = self.w
        log = w.fcgi_log
        self.discover("ap-d1", ("A", "(string id, basic auth alice)"))
        self.discover(1700000000123, ("A", "(integer id)"))
        lists = []
        for i in range(3):
            lists.append(self.check_tools("A tools/list #%d" % (i + 1)))
        R.check(lists[0] is not None and lists[0] == lists[1] == lists[2],
                "A tools/list is deterministic across 3 calls",
                "lists differ: %r" % (lists,))
        tools = lists[0] or BASE_TOOLS
        wymcp_e2e.TOOLS = list(tools)	# what wymcp_e2e.Tests compares against

        rid, r = self.tool("help", {})
        p = judge_result(r, rid, check_compact=True)
        if not p:
            text = self.text_of(r) or ""
            p += ["help text lacks %r" % t for t in tools if t not in text]
        report("A tools/call help lists the mounted tools", p, r)
        self.test_audit_headers(self.w.proxy, "H")

        rid, r = self.tool("echo", {"text": "h\u00e9llo \"q\""})
        p = judge_result(r, rid, check_compact=True)
        if not p and r.json["result"].get("content") != \
                [{"type": "text", "text": "h\u00e9llo \"q\""}]:
            p.append("content %r" % (r.json["result"].get("content"),))
        report("A tools/call echo", p, r)
        rid, r = self.book(self.c, "/mcp")
        p, st = self.asks(r, rid, "elicit-1", ROOM_Q)
        report("A tools/call book_room asks its first question", p, r)
        rid, r = self.call("tools/call", {"name": "purge_cache",
                                          "arguments": {},
                                          "_meta": ELICIT_META},
                           name="purge_cache")
        # call() adds the default _meta over ours: no elicitation
        # capability, so the tool answers with its own isError result.
        p = judge_result(r, rid)
        if not p and r.json["result"].get("isError") is not True:
            p.append("isError %r" % r.json["result"].get("isError"))
        report("A tools/call purge_cache without the elicitation "
               "capability: isError result", p, r)

        # Basic auth: principal and assigns.
        alice = {"remote_user": "alice", "tenant": "acme", "role": "admin",
                 "network": "internal", "account": "alice"}
        bob = dict(alice, remote_user="bob", role="user", account="bob")
        self.whoami_is("A whoami as alice: principal alice; assigns from "
                       "REMOTE_USER, SetEnv, ProxyFCGISetEnvIf, SetEnvIf, "
                       "RewriteRule", "/mcp", self.c, "alice", alice)
        self.whoami_is("A whoami as bob: principal bob, role user", "/mcp",
                       self.bob, "bob", bob)

        # No or wrong credentials: Apache's 401, wymcp never runs.
        for label, client in (("no credentials", self.anon),
                              ("a wrong password", None)):
            before = self.ended(log)
            rid = "unauth-%d" % self.next_id()
            h = std_headers("tools/call", "whoami")
            if client is None:
                h["Authorization"] = basic("alice", "not-the-password")
                client = self.anon
            body = rpc(rid, "tools/call", {"name": "whoami",
                                           "arguments": {}})
            r = client.send("POST", "/mcp", enc(body), hlist(h))
            p = []
            if r.status != 401:
                p.append("status %d, want 401" % r.status)
            wa = r.header("WWW-Authenticate") or ""
            if not wa.startswith("Basic "):
                p.append("WWW-Authenticate %r" % wa)
            report("A %s -> Apache's 401 with WWW-Authenticate: Basic" %
                   label, p, r)
            self.never_reached("A %s: wymcp never saw the request (no log "
                               "line for its id, no request ended)" % label,
                               log, rid, before)

        # Smuggled headers.
        self.whoami_is("A smuggled headers change nothing for alice",
                       "/mcp", self.c, "alice", alice, SMUGGLE)
        self.whoami_is("A smuggled headers change nothing on "
                       "/mcp-passauth (no assigns configured there)",
                       "/mcp-passauth", self.c, "alice",
                       {"remote_user": "alice"}, SMUGGLE)
        names, p, r = self.list_tools("/mcp-public", self.anon)
        if names is not None and names != ["help", "echo"]:
            p.append("tools %r" % (names,))
        report("A /mcp-public (WYMCP_TOOLS \"help echo\", anonymous) "
               "tools/list is [help, echo]", p, r)
        rid, r = self.call("tools/list", path="/mcp-public",
                           extra=SMUGGLE, client=self.anon)
        p = judge_result(r, rid)
        if not p:
            names = [t.get("name") for t in r.json["result"]["tools"]]
            if names != ["help", "echo"]:
                p.append("tools %r" % (names,))
        report("A /mcp-public: a smuggled Wymcp-Tools header does not "
               "change the mount list", p, r)
        # /mcp-public sets the assign tenant: its tools/list may differ
        # from another location's by assigns alone, so it is private.
        rid, r = self.call("tools/list", path="/mcp-public",
                           client=self.anon)
        p = judge_result(r, rid)
        if not p and r.json["result"].get("cacheScope") != "private":
            p.append("cacheScope %r" % r.json["result"].get("cacheScope"))
        report("A /mcp-public (an assign, no principal) tools/list is "
               "cacheScope private", p, r)
        # Apache sends REMOTE_USER only for a user an auth module
        # checked: an unchecked Basic username on a location without
        # auth (the test-only /mcp-limit, all tools mounted) gives no
        # principal and no assign.
        saved, self.c = self.c, self.anon
        obj, p, r = self.whoami("/mcp-limit",
                                {"Authorization": basic("mallory", "x")})
        self.c = saved
        if obj is not None and (obj.get("principal") is not None or
                                obj.get("assigns") != {}):
            p.append("whoami %r" % (obj,))
        report("A /mcp-limit with an unchecked 'Authorization: Basic "
               "mallory': no principal, no assigns", p, r)
        # Apache passes a repeated header as one param, the values
        # joined with ", ": Mcp-Name whoami then echo is refused.
        rid = self.next_id()
        body = wymcp_e2e.rpc(rid, "tools/call", {
            "name": "echo", "arguments": {"text": "x"}})
        r = self.anon.send("POST", "/mcp-limit", enc(body),
                           wymcp_e2e.hlist(std_headers("tools/call",
                                                       "whoami")) +
                           [("Mcp-Name", "echo")])
        p = judge_error(r, 400, -32020, rid)
        if not p and "repeated" not in r.json["error"]["message"]:
            p.append("message %r" % r.json["error"]["message"])
        report("A Mcp-Name: whoami, then Mcp-Name: echo (Apache joins "
               "them): 400 -32020", p, r)
        rid, r = self.call("tools/list", path="/mcp")
        p = judge_result(r, rid)
        if not p and r.json["result"].get("cacheScope") != "private":
            p.append("cacheScope %r" % r.json["result"].get("cacheScope"))
        report("A (control) tools/list as alice is cacheScope private", p, r)
        saved, self.c = self.c, self.anon
        rid, r = self.tool("whoami", {}, "/mcp-public")
        report("A /mcp-public whoami is an unknown tool (-32602)",
               judge_error(r, 200, -32602, rid), r)
        rid, r = self.tool("help", {}, "/mcp-public", extra=SMUGGLE)
        p = judge_result(r, rid)
        if not p:
            text = self.text_of(r) or ""
            if "echo" not in text or "whoami" in text:
                p.append("help text %r" % text)
        report("A /mcp-public help lists only help and echo", p, r)
        self.c = saved

        # CGIPassAuth On: the token reaches FastCGI as HTTP_AUTHORIZATION
        # and nothing of it becomes an assign or the principal.
        rid, r = self.tool("whoami", {}, "/mcp-passauth")
        p = judge_result(r, rid)
        if not p and "Basic" in r.raw.decode("utf-8", "replace"):
            p.append("the Authorization value shows in the result")
        report("A CGIPassAuth On: the Authorization header becomes neither "
               "an assign nor the principal", p, r)

        # Notifications and a few methods.
        r = self.post("/mcp", {"jsonrpc": "2.0",
                               "method": "notifications/initialized",
                               "params": {}},
                      std_headers("notifications/initialized"))
        p = []
        if r.status != 202:
            p.append("status %d, want 202" % r.status)
        if r.raw:
            p.append("body %r, want empty" % r.raw[:200])
        report("A notification -> 202 with empty body", p, r)
        self.card()
        self.apache_only()

    def card(self):
        """The server card through the shipped <Location>s: public."""
        for path in ("/mcp", "/mcp-public"):
            r = self.anon.send("GET", path + "/server-card", None, [])
            c = r.json if isinstance(r.json, dict) else {}
            want = "http://127.0.0.1:%d%s" % (self.port, path)
            p = [] if r.status == 200 else ["status %d" % r.status]
            if r.header("Access-Control-Allow-Origin") != "*" or \
                    not r.header("ETag"):
                p.append("headers %r" % (r.headers,))
            if c.get("name") != "127.0.0.1/wymcp" or \
                    (c.get("remotes") or [{}])[0].get("url") != want:
                p.append("card %r" % (c,))
            report("A GET %s/server-card without credentials: the card, "
                   "remote %s" % (path, want), p, r)
        r = self.anon.send("POST", "/mcp/server-card", b"{}",
                           [("Content-Type", "application/json")])
        p = [] if r.status == 405 and r.header("Allow") == \
            "GET, HEAD, OPTIONS" else ["got %s %r" % (r.brief(), r.headers)]
        report("A POST /mcp/server-card -> 405, Allow: GET, HEAD, OPTIONS",
               p, r)

    def apache_only(self):
        """Requests Apache answers itself, or passes on differently."""
        log = self.w.fcgi_log
        before = self.ended(log)
        r = self.c.send("TRACE", "/mcp", None, [])
        p = []
        if r.status != 405:
            p.append("status %d, want 405" % r.status)
        report("A (Apache) TRACE /mcp -> 405 from Apache itself "
               "(TraceEnable off; with Apache's default it echoes the "
               "request with 200)", p, r)
        self.never_reached("A (Apache) TRACE never reaches wymcp", log,
                           "-", before)
        r = self.c.send("OPTIONS", "/mcp", None, [])
        report("A OPTIONS /mcp reaches wymcp: 405 Allow: POST",
               judge_bare(r, 405, allow="POST"), r)
        # A chunked request body: mod_proxy_fcgi reads it all and sends
        # CONTENT_LENGTH (the table sends only Content-Length bodies).
        rid = self.next_id()
        body = enc(rpc(rid, "tools/call", {"name": "echo", "arguments":
                                           {"text": "chunked"}}))
        st, raw = self.raw_request(
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
            b"Connection: close\r\nTransfer-Encoding: chunked\r\n" +
            self.raw_headers(std_headers("tools/call", "echo")) + b"\r\n" +
            b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        R.check(st == 200 and b'"text":"chunked"' in raw,
                "A a chunked request body (no Content-Length) -> 200",
                "status %r %r" % (st, raw[-300:]))
        rid, r = self.tool("echo", {"text": "y" * 5000}, "/mcp-limit")
        report("A (Apache) LimitRequestBody 1024 does not stop a 5000-byte "
               "body through mod_proxy_fcgi: 200", judge_result(r, rid), r)
        # Bodies above --max-body: Apache does not apply LimitRequestBody
        # to proxied requests, so wymcp's own 413 answers them, also a
        # chunked one (mod_proxy_fcgi then sends no CONTENT_LENGTH and
        # wymcp reads up to --max-body + 1 bytes).
        big = b"x" * 3000000
        st, raw = self.raw_request(
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n" % len(big) +
            self.raw_headers(std_headers("tools/call", "echo")) + b"\r\n" +
            big)
        head = raw.split(b"\r\n\r\n")[0].lower()
        R.check(st == 413 and b"application/json" in head,
                "A (Apache) a 3000000-byte body -> wymcp's JSON 413 "
                "(LimitRequestBody does not apply to mod_proxy_fcgi)",
                "status %r %r" % (st, raw[:300]))
        st, raw = self.raw_request(
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
            b"Connection: close\r\nTransfer-Encoding: chunked\r\n" +
            self.raw_headers(std_headers("tools/call", "echo")) + b"\r\n" +
            b"".join(b"%x\r\n%s\r\n" % (65536, big[:65536])
                     for _ in range(40)) + b"0\r\n\r\n")
        head = raw.split(b"\r\n\r\n")[0].lower()
        R.check(st == 413 and b"application/json" in head,
                "A (Apache) a chunked body of 2621440 bytes -> wymcp's "
                "JSON 413", "status %r %r" % (st, raw[:300]))
        # A header sent twice is joined with ", " by Apache: a mismatch.
        rid = self.next_id()
        h = hlist(std_headers("tools/list")) + [("Mcp-Method",
                                                 "tools/list")]
        r = self.c.send("POST", "/mcp", enc(rpc(rid, "tools/list")), h)
        report("A Mcp-Method sent twice -> 400 -32020 (joined with ', ')",
               judge_error(r, 400, -32020, rid), r)

    def raw_headers(self, h):
        h = dict(h)
        h["Authorization"] = basic("alice")
        return b"".join(("%s: %s\r\n" % (k, v)).encode()
                        for k, v in h.items())

    def raw_request(self, data):
        """Send bytes on a fresh connection; (status or None, response)."""
        s = socket.create_connection(("127.0.0.1", self.port), 10)
        out = b""
        try:
            try:
                s.sendall(data)
            except OSError:
                pass		# the server may answer before reading it all
            s.settimeout(10)
            while True:
                try:
                    d = s.recv(65536)
                except OSError:
                    break
                if not d:
                    break
                out += d
        finally:
            s.close()
        m = re.match(rb"HTTP/1\.[01] (\d{3})", out)
        return (int(m.group(1)) if m else None), out

    def table(self):
        """e2e.py's table; a row Apache answers differently gets the
        judge from APACHE_EXCEPTIONS, and its name says so."""
        cases = []
        for name, send, judge in wymcp_e2e.Tests.table(self):
            for prefix, why, apache_judge in APACHE_EXCEPTIONS:
                if name.startswith(prefix):
                    name = "%s [Apache: %s]" % (name, why)
                    judge = apache_judge
                    break
            cases.append((name, send, judge))
        return cases

    # -- S: SSE passthrough

    def test_sse(self, port, locations, label):
        for path, streamed, why in locations:
            st, ct, events, err = read_events(
                port, path, [("Accept", "text/event-stream")], b"{}")
            p = [] if err is None else [err]
            if st != 200:
                p.append("status %r" % st)
            if (ct or "").split(";")[0] != "text/event-stream":
                p.append("Content-Type %r" % ct)
            if len(events) != SSE_EVENTS:
                p.append("%d events, want %d" % (len(events), SSE_EVENTS))
            q, spread = judge_spread(events, streamed)
            p += q
            R.note("%s %s: %d events over %.2f s" % (label, path,
                                                     len(events), spread))
            R.check(not p, "%s %s: events arrive %s (%s)" %
                    (label, path, "as written" if streamed else
                     "all at once", why), "; ".join(p))

    def test_wymcp_sse(self, label, tools, port, path="/mcp",
                       streamed=True, why="as they are written"):
        if "count_slowly" not in (tools or []):
            R.note("%s wymcp SSE check not run: this examples.so has no "
                   "count_slowly" % label)
            return
        rid = self.next_id()
        meta = dict(wymcp_e2e.META, progressToken="p-%d" % rid)
        body = enc({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                    "params": {"name": "count_slowly",
                               "arguments": {"to": SSE_EVENTS,
                                             "delay_ms": int(SSE_GAP * 1000)},
                               "_meta": meta}})
        h = hlist(std_headers("tools/call", "count_slowly"))
        h.append(("Authorization", basic("alice")))
        st, ct, events, err = read_events(port, path, h, body)
        p = [] if err is None else [err]
        if st != 200:
            p.append("status %r" % st)
        if (ct or "").split(";")[0] != "text/event-stream":
            p.append("Content-Type %r" % ct)
        prog = [e for e in events if isinstance(e[1], dict) and
                e[1].get("method") == "notifications/progress"]
        final = [e for e in events if isinstance(e[1], dict) and
                 e[1].get("id") == rid]
        if len(prog) != SSE_EVENTS or len(final) != 1:
            p.append("%d progress events and %d responses" %
                     (len(prog), len(final)))
        elif streamed and \
                final[0][0] - prog[0][0] < (SSE_EVENTS - 1) * SSE_GAP * 0.8:
            p.append("first progress %.2f s before the result: buffered" %
                     (final[0][0] - prog[0][0]))
        elif not streamed and final[0][0] - prog[0][0] > SSE_GAP / 4:
            p.append("first progress %.2f s before the result: streamed" %
                     (final[0][0] - prog[0][0]))
        report("%s %s: tools/call count_slowly with a progressToken: its "
               "events arrive %s" % (label, path, why), p)

    # -- E: three rounds through Apache

    def test_elicit(self, label, path="/mcp", between=None):
        """book_room over three rounds as alice; `between(n)` runs before
        round n (2 and 3).  Returns the round-1 state (or None)."""
        rid, r = self.book(self.c, path)
        p, st1 = self.asks(r, rid, "elicit-1", ROOM_Q)
        if not report("%s round 1: input_required asking elicit-1" % label,
                      p, r):
            return None
        if between:
            between(2)
        rid, r = self.book(self.c, path, st1, {"elicit-1": ROOM})
        p, st2 = self.asks(r, rid, "elicit-2", SIZE_Q)
        if not report("%s round 2: input_required asking elicit-2" % label,
                      p, r):
            return st1
        if between:
            between(3)
        rid, r = self.book(self.c, path, st2, {"elicit-2": SIZE})
        report("%s round 3: booked" % label,
               self.done(r, rid, "Booked Aurora for 4 on %s." % DAY), r)
        return st1

    def test_e(self):
        log = self.w.fcgi_log
        st1 = self.test_elicit("E book_room through Apache,")
        booked = [e for e in wymcp_e2e.log_entries(log)
                  if e[3].startswith("booked ")]
        R.check(len(booked) == 1 and "(by alice)" in booked[0][3],
                "E the log shows 'booked ... (by alice)' exactly once",
                "%r" % (booked,))
        if st1 is not None:
            rid, r = self.book(self.bob, "/mcp", st1, {"elicit-1": ROOM})
            p = judge_error(r, 200, -32602, rid)
            report("E alice's requestState does not open for bob "
                   "(principal from Apache's auth is bound): -32602", p, r)

    # -- F: mod_fcgid

    def fcgid_procs(self):
        """PIDs of the wymcp-fcgi processes mod_fcgid runs now."""
        a = self.w.fcgid
        out = []
        for pid in descendants(a.popen.pid):
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if any(x.endswith(b"wymcp-fcgi") for x in argv[:1]) and \
                    b"--workers" in argv:
                out.append(pid)
        return sorted(out)

    def test_fcgid(self):
        w = self.w
        a = w.fcgid
        log = a.error_log
        self.use(a.port)
        self.discover("fcgid-d1", ("F", "(mod_fcgid, basic auth alice)"))
        tools = self.check_tools("F tools/list")
        rid, r = self.tool("echo", {"text": "through mod_fcgid"})
        p = judge_result(r, rid)
        if not p and r.json["result"].get("content") != \
                [{"type": "text", "text": "through mod_fcgid"}]:
            p.append("content %r" % (r.json["result"].get("content"),))
        report("F tools/call echo", p, r)
        self.test_audit_headers(w.fcgid, "F")
        served = self.served(log, rid)
        procs = self.fcgid_procs()
        R.check(served and set(served) <= set(procs),
                "F the call was served by a wymcp-fcgi process mod_fcgid "
                "started", "served by %r, mod_fcgid's processes %r" %
                (served, procs))
        alice = {"remote_user": "alice", "tenant": "acme", "role": "admin"}
        self.whoami_is("F whoami as alice: principal alice, assigns from "
                       "REMOTE_USER, SetEnv, RewriteRule", "/mcp", self.c,
                       "alice", alice)
        self.whoami_is("F whoami as bob: no role", "/mcp", self.bob, "bob",
                       {"remote_user": "bob", "tenant": "acme"})
        self.whoami_is("F smuggled headers change nothing", "/mcp", self.c,
                       "alice", alice, SMUGGLE)
        before = self.ended(log)
        rid = "unauth-%d" % self.next_id()
        body = rpc(rid, "tools/call", {"name": "whoami",
                                       "arguments": {}})
        r = self.anon.send("POST", "/mcp", enc(body),
                           hlist(std_headers("tools/call", "whoami")))
        report("F no credentials -> 401",
               [] if r.status == 401 else ["status %d" % r.status], r)
        self.never_reached("F no credentials: no wymcp-fcgi process saw "
                           "the request", log, rid, before)
        before = self.ended(log)
        r = self.c.send("TRACE", "/mcp", None, [])
        report("F (Apache) TRACE /mcp -> 405 from Apache (TraceEnable off)",
               [] if r.status == 405 else ["status %d" % r.status], r)
        self.never_reached("F (Apache) TRACE never reaches wymcp", log, "-",
                           before)
        r = self.anon.send("GET", "/mcp/server-card", None, [])
        c = r.json if isinstance(r.json, dict) else {}
        want = "http://127.0.0.1:%d/mcp" % self.port
        report("F GET /mcp/server-card without credentials: the card, "
               "remote %s" % want, [] if r.status == 200 and
               (c.get("remotes") or [{}])[0].get("url") == want else
               ["card %r" % (c,)], r)
        names, p, r = self.list_tools("/mcp-public", self.anon)
        if names is not None and names != ["help", "echo"]:
            p.append("tools %r" % (names,))
        report("F /mcp-public tools/list is [help, echo] (same processes, "
               "another WYMCP_TOOLS)", p, r)

        # The documented hazard: FcgidPassHeader copies a header under its
        # own name.
        self.whoami_is("F (documented hazard) FcgidPassHeader "
                       "WYMCP_ASSIGN_PASSED makes a client header "
                       "'WYMCP_ASSIGN_PASSED: client' an assign", "/mcp",
                       self.c, "alice", dict(alice, passed="client"),
                       {"WYMCP_ASSIGN_PASSED": "client"})

        # FcgidMaxRequestLen (shipped 2097152) is above --max-body: wymcp
        # answers an oversized body with its own 413.
        big = rpc(self.next_id(), "tools/call",
                  {"name": "echo", "arguments": {"text": "x" * 200000}})
        r = self.c.send("POST", "/mcp", enc(big),
                        hlist(std_headers("tools/call", "echo")))
        report("F a 200000-byte body (above mod_fcgid's default "
               "FcgidMaxRequestLen 131072) -> wymcp's 413",
               judge_bare(r, 413), r)
        # Past FcgidMaxRequestLen itself (2097152), mod_fcgid would
        # answer an HTML 500: the shipped LimitRequestBody and
        # ErrorDocument 413 answer wymcp's JSON-RPC error instead.
        for chunked in (False, True):
            big = b"x" * 3000000
            if chunked:
                body = b"".join(b"%x\r\n%s\r\n" % (65536, big[:65536])
                                for _ in range(46)) + b"0\r\n\r\n"
                te = b"Transfer-Encoding: chunked\r\n"
            else:
                body, te = big, b"Content-Length: %d\r\n" % len(big)
            st, raw = self.raw_request(
                b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
                b"Connection: close\r\n" + te +
                self.raw_headers(std_headers("tools/call", "echo")) +
                b"\r\n" + body)
            head, _, rest = raw.partition(b"\r\n\r\n")
            try:
                err = json.loads(rest.decode()).get("error")
            except (ValueError, AttributeError):
                err = None
            if chunked:
                R.check(st == 500, "F (documented trap) a chunked body "
                        "of 3000000 bytes (past FcgidMaxRequestLen) -> "
                        "mod_fcgid's own 500", "status %r %r" %
                        (st, raw[:300]))
                continue
            R.check(st == 413 and b"application/json" in head.lower() and
                    err == {"code": -32600, "message": "Payload too large"},
                    "F a body of 3000000 bytes (past FcgidMaxRequestLen) "
                    "-> wymcp's JSON-RPC 413, from the shipped "
                    "ErrorDocument", "status %r %r" % (st, raw[:300]))

        # Three rounds; the process that served a round is stopped
        # before the next, so every round is a fresh process: only the
        # key file carries the state.
        killed = []

        def kill_server(n):
            ps = self.fcgid_procs()
            for pid in ps:
                os.kill(pid, signal.SIGTERM)
                killed.append(pid)
            deadline = time.monotonic() + 10
            while any(alive(x) for x in ps) and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            # Let mod_fcgid's process manager notice.
            time.sleep(0.5)

        self.test_elicit("F book_room, each round on a fresh process "
                         "(--state-key-file),", between=kill_server)
        R.note("F stopped wymcp-fcgi processes %r between rounds" %
               (killed,))
        rounds = [e for e in wymcp_e2e.log_entries(log)
                  if e[3].startswith("booked ")]
        R.check(len(rounds) == 1 and all(p not in killed
                                          for p in [rounds[0][0]]),
                "F 'booked' logged once, by a process started after the "
                "others were stopped", "%r (killed %r)" % (rounds, killed))
        # The same without --state-key-file: each fresh process makes
        # its own random key, and round 2 cannot open round 1's state.
        rid, r = self.book(self.c, "/mcp-nokey")
        p, st = self.asks(r, rid, "elicit-1", ROOM_Q)
        report("F without --state-key-file, round 1 asks elicit-1", p, r)
        if st is not None:
            kill_server(2)
            rid, r = self.book(self.c, "/mcp-nokey", st, {"elicit-1": ROOM})
            p = judge_error(r, 200, -32602, rid)
            report("F without --state-key-file, round 2 on a fresh process "
                   "-> -32602 (what the shipped file warns about)", p, r)
        self.test_wymcp_sse("F", tools, a.port)

    # -- D

    def test_stop(self):
        w = self.w
        for a in (w.proxy, w.fcgid):
            if a is None or a.popen is None:
                continue
            pids = descendants(a.popen.pid) | {a.popen.pid}
            left = a.stop()
            R.check(not left and not any(alive(p) for p in pids),
                    "D %s: SIGTERM to Apache stops all %d of its processes"
                    % (a.name, len(pids)), "left %r" % (left,))


REQUIRED_WORDS = {
    PROXY_CONF: ["flushpackets=on", "ProxyFCGIBackendType GENERIC",
                 "ProxyErrorOverride Off", "CGIPassAuth",
                 "ProxyFCGISetEnvIf", "AuthType Basic", "WYMCP_PRINCIPAL",
                 "WYMCP_ASSIGN_", "WYMCP_TOOLS", "RequestHeader unset",
                 SHIPPED_SOCK, SHIPPED_HTPASSWD],
    FCGID_CONF: ["--workers 0", "--state-key-file",
                 "FcgidOutputBufferSize 0", "FcgidIOTimeout",
                 "FcgidMaxProcesses", "FcgidMaxRequestLen", "FcgidPassHeader",
                 "AuthType Basic", "WYMCP_TOOLS", SHIPPED_HTPASSWD],
}


def test_words():
    for path, words in REQUIRED_WORDS.items():
        with open(path) as f:
            text = f.read()
        for word in words:
            R.check(word in text, "P deploy/apache/%s has %s" %
                    (os.path.basename(path), word), "missing")


def main():
    if "--fake-fcgi-fd0" in sys.argv:
        fake_fd0()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every response")
    args = ap.parse_args()
    wymcp_e2e.VERBOSE = args.verbose

    apache = find_apache()
    if apache is None:
        print("SKIP: apache2 is not installed (Debian: apt-get install "
              "apache2 libapache2-mod-fcgid)")
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    w = World(args.builddir, args.keep, apache)
    interrupted = False
    try:
        w.paths()
        w.setup()
        w.proxy = Apache(apache, w.tmp, "proxy", APACHE_MODULES)
        w.fcgid = Apache(apache, w.tmp, "fcgid", APACHE_MODULES)
        test_words()
        w.start_fcgi()
        w.fake = FakeFCGI(os.path.join(w.tmp, "sse-probe.sock"))
        w.write_wrappers()
        w.proxy.start(w.proxy_conf)
        R.ok("P apache2 -t accepts deploy/apache/wymcp-proxy-fcgi.conf "
             "inside a <VirtualHost>")
        t = Tests(w)
        t.test_proxy()
        t.test_sse(w.proxy.port, [
            ("/sse-flush", True, "the shipped worker, flushpackets=on"),
            ("/sse-noflush", False, "a worker without flushpackets")],
            "S mod_proxy_fcgi")
        t.test_wymcp_sse("S", wymcp_e2e.TOOLS, w.proxy.port)
        t.test_wymcp_sse("S", wymcp_e2e.TOOLS, w.proxy.port,
                         "/mcp-noflush", False,
                         "all at once without flushpackets "
                         "(X-Accel-Buffering: no or not)")
        t.test_table()
        t.test_e()
        w.fcgid.start(w.fcgid_conf)
        R.ok("P apache2 -t accepts deploy/apache/wymcp-fcgid.conf at "
             "server level")
        t.test_fcgid()
        t.test_sse(w.fcgid.port, [
            ("/sse-fcgid", True, "FcgidOutputBufferSize 0")],
            "S mod_fcgid")
        t.test_stop()
    except Failed as e:
        R.fail("setup", str(e))
    except KeyboardInterrupt as e:
        R.fail("interrupted", str(e) or "KeyboardInterrupt")
        interrupted = True
    except Exception as e:	# a harness bug must still clean up and count
        import traceback
        traceback.print_exc()
        R.fail("harness", repr(e))
    finally:
        try:
            w.stop_all()
            if w.tmp:
                hits = sanitizer_hits(w.fcgi_log)
                if w.fcgid is not None:
                    hits += sanitizer_hits(w.fcgid.error_log)
                R.check(not hits, "no sanitizer reports in the wymcp-fcgi "
                        "logs", "; ".join(hits[:5]))
            if R.failed:
                w.dump_logs()
        finally:
            w.cleanup()
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
