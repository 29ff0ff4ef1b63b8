#!/usr/bin/env python3
"""e2e.py - wymcp end to end: a private nginx in front of wymcp-fcgi.

Usage: e2e.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi (two workers, the bundled help/echo/whoami modules) on a
unix socket and a private nginx on a free loopback port, then sends real
HTTP requests through nginx:

  A  the happy path (discover, tools/list, tools/call, assigns, mount
     lists, header smuggling, notifications);
  B  a table of malformed and hostile requests, each with its HTTP status
     and JSON-RPC error code, in the order of the request pipeline;
  C  a worker killed with SIGKILL while traffic runs is replaced;
  D  SIGTERM to the supervisor stops every wymcp-fcgi process;
     deploy/nginx/wymcp.conf and status.conf pass nginx -t, the first
     serving no status page, the second on loopback only;
  N  deploy/nginx/auth-basic.conf and auth-request.conf, as shipped, in
     a second nginx in front of the same workers: the authenticated
     user as principal and assigns, 401 without credentials (wymcp never
     sees the request), smuggled headers and an unchecked
     "Authorization: Basic" username ignored, per-location mount lists.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
and section B's table are in t/e2e/lib/wymcp_e2e.py (PYTHONPATH).
"""

import base64
import hashlib
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e.py: no module wymcp_e2e: run with PYTHONPATH=t/e2e/lib, "
          "or through make", file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (DEPLOY_CONF, DEPLOY_SOCK, SRCDIR, TOOLS,  # noqa
                       WORKERS, Client, Harness, R, alive, children, enc,
                       free_port, hlist, judge_error, judge_result,
                       report, rpc, run_layer, std_headers, stop_pid, tail)


class Tests(wymcp_e2e.Tests):
    """Sections A, C and D; B, the table, is wymcp_e2e.Tests's."""

    # -- A: happy path

    def test_happy(self):
        self.discover("d1", ("A", "(string id)"))
        self.discover(1700000000123, ("A", "(integer id)"))

        lists = []
        for i in range(3):
            names, p, r = self.list_tools()
            if names != TOOLS:
                p.append("tools %r, want %r" % (names, TOOLS))
            report("A tools/list #%d" % (i + 1), p, r)
            lists.append(r.json["result"]["tools"]
                         if names is not None else None)
        R.check(lists[0] is not None and lists[0] == lists[1] == lists[2],
                "A tools/list is deterministic across 3 calls",
                "lists differ")

        rid, r = self.tool("help", {})
        p = judge_result(r, rid, check_compact=True)
        if not p:
            text = self.text_of(r) or ""
            for t in TOOLS:
                if t not in text:
                    p.append("help text lacks %r: %r" % (t, text))
        report("A tools/call help lists the mounted tools", p, r)

        rid, r = self.tool("echo", {"text": "hello"})
        p = judge_result(r, rid, check_compact=True)
        if not p:
            c = r.json["result"].get("content")
            if c != [{"type": "text", "text": "hello"}]:
                p.append("content %r" % (c,))
            if r.json["result"].get("isError", False) is not False:
                p.append("isError %r" % r.json["result"].get("isError"))
        report("A tools/call echo", p, r)

        rid, r = self.tool("echo", {"text": "h\u00e9llo \u4e16\u754c \"q\""},
                           rid="e-\u00e9")
        p = judge_result(r, "e-\u00e9")
        if not p and r.json["result"].get("content") != \
                [{"type": "text", "text": "h\u00e9llo \u4e16\u754c \"q\""}]:
            p.append("content %r" % (r.json["result"].get("content"),))
        report("A tools/call echo (UTF-8 text, non-ASCII string id)", p, r)

        rid, r = self.tool("echo", {"text": "x"}, rid=-7)
        report("A tools/call echo (negative integer id)",
               judge_result(r, -7), r)

        obj, p, r = self.whoami("/mcp")
        if obj is not None:
            if obj.get("principal") != "alice":
                p.append("principal %r" % (obj.get("principal"),))
            if obj.get("assigns") != {"role": "tester", "tenant": "acme"}:
                p.append("assigns %r" % (obj.get("assigns"),))
        report("A whoami shows principal alice and the nginx assigns", p, r)

        names, p, r = self.list_tools("/mcp-narrow")
        if names is not None and names != ["help", "echo"]:
            p.append("tools %r" % (names,))
        report("A /mcp-narrow tools/list is [help, echo]", p, r)

        rid, r = self.tool("whoami", {}, "/mcp-narrow")
        report("A /mcp-narrow whoami is an unknown tool (-32602)",
               judge_error(r, 200, -32602, rid), r)

        rid, r = self.tool("help", {}, "/mcp-narrow")
        p = judge_result(r, rid)
        if not p:
            text = self.text_of(r) or ""
            if "help" not in text or "echo" not in text or \
                    "whoami" in text:
                p.append("help text %r" % text)
        report("A /mcp-narrow help lists only help and echo", p, r)

        obj, p, r = self.whoami("/mcp-anon")
        if obj is not None:
            if "principal" not in obj or obj["principal"] is not None:
                p.append("principal %r" % (obj.get("principal", "<absent>"),))
            if obj.get("assigns") != {}:
                p.append("assigns %r" % (obj.get("assigns"),))
        report("A /mcp-anon whoami: principal null, assigns {}", p, r)

        # A fastcgi_param given twice: what nginx really sends.  Both
        # values, in order (a header param twice is a repeated header
        # to wymcp), and wymcp reads the last one.
        obj, p, r = self.whoami("/mcp-twice")
        if obj is not None and obj.get("principal") != "second":
            p.append("principal %r" % (obj.get("principal"),))
        report("A a param given twice: wymcp reads the last value "
               "(principal 'second', not 'first')", p, r)
        rid, r = self.call("tools/list", path="/mcp-twice-header")
        p = []
        err = (r.json or {}).get("error") if isinstance(r.json, dict) \
            else None
        if r.status != 400 or not isinstance(err, dict) or \
                err.get("code") != -32020 or \
                "repeated" not in str(err.get("message")):
            p.append("status %r, error %r" % (r.status, err))
        report("A ... and nginx sends both values: Mcp-Method passed "
               "twice is refused as a repeated header (400, -32020)", p, r)

        smuggle = {
            "WYMCP-Assign-Role": "admin",
            "Wymcp-Principal": "mallory",
            "Remote-User": "mallory",
            "Wymcp-Tools": "echo",
            "X-Wymcp-Assign-Tenant": "evil",
            "WYMCP_PRINCIPAL": "mallory",
            "WYMCP_ASSIGN_ROLE": "admin",
            "Wymcp_Tools": "echo",
        }
        obj, p, r = self.whoami("/mcp-anon", smuggle)
        if obj is not None:
            if "principal" not in obj or obj["principal"] is not None:
                p.append("principal %r" % (obj.get("principal", "<absent>"),))
            if obj.get("assigns") != {}:
                p.append("assigns %r" % (obj.get("assigns"),))
        report("A smuggled headers do not become principal or assigns",
               p, r)
        # An unchecked Basic user name: nginx makes it $remote_user, the
        # location blanks REMOTE_USER as deploy/nginx/wymcp.conf does.
        obj, p, r = self.whoami("/mcp-anon", {
            "Authorization": "Basic " + base64.b64encode(
                b"mallory:anything").decode()})
        if obj is not None:
            if "principal" not in obj or obj["principal"] is not None:
                p.append("principal %r" % (obj.get("principal", "<absent>"),))
            if obj.get("assigns") != {}:
                p.append("assigns %r" % (obj.get("assigns"),))
        report("A an unchecked Authorization: Basic user does not become "
               "the principal", p, r)
        rid, r = self.call("tools/list", path="/mcp-anon", extra=smuggle)
        p = judge_result(r, rid)
        if not p:
            names = [t.get("name") for t in r.json["result"].get("tools", [])]
            if names != TOOLS:
                p.append("tools %r, want %r" % (names, TOOLS))
        report("A smuggled Wymcp-Tools header does not change the mount "
               "list", p, r)
        obj, p, r = self.whoami("/mcp", smuggle)
        if obj is not None and (obj.get("principal") != "alice" or
                                obj.get("assigns") != {"role": "tester",
                                                       "tenant": "acme"}):
            p.append("whoami %r" % (obj,))
        report("A smuggled headers do not override nginx's params", p, r)

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

        rid, r = self.call("tools/list",
                           extra={"Mcp-Method": None,
                                  "mcp-method": "tools/list"})
        report("A header names are case-insensitive (mcp-method)",
               judge_result(r, rid), r)

        rid, r = self.call("server/discover",
                           extra={"Origin": "http://localhost:%d" %
                                  self.h.port})
        report("A Origin http://localhost:PORT -> 200",
               judge_result(r, rid), r)
        rid, r = self.call("server/discover",
                           extra={"Host": "localhost:%d" % self.h.port})
        report("A Host localhost:PORT -> 200", judge_result(r, rid), r)

        # The shipped deploy/nginx/wymcp.conf, served on its own port.
        rid, r = self.call("server/discover", client=self.c2)
        report("A deploy/nginx/wymcp.conf serves server/discover",
               judge_result(r, rid), r)
        names, p, r = self.list_tools(client=self.c2)
        if names is not None and names != TOOLS:
            p.append("tools %r" % (names,))
        report("A deploy/nginx/wymcp.conf serves tools/list", p, r)

    # -- C: kill a worker under load

    def test_kill(self):
        h = self.h
        before = h.workers()
        if not R.check(len(before) == WORKERS, "C %d workers before the kill"
                       % WORKERS, "workers %r" % (before,)):
            return
        outcomes = []
        stop = threading.Event()

        def traffic():
            for i in range(200):
                if stop.is_set():
                    break
                try:
                    rid, r = self.tool("echo", {"text": "n%d" % i},
                                       rid=10000 + i)
                    outcomes.append(not judge_result(r, rid))
                except (OSError, http.client.HTTPException):
                    outcomes.append(False)

        th = threading.Thread(target=traffic, daemon=True)
        th.start()
        deadline = time.monotonic() + 30
        while len(outcomes) < 50 and th.is_alive() and \
                time.monotonic() < deadline:
            time.sleep(0.005)
        victim = before[0]
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        R.note("SIGKILL worker %d after %d requests" %
               (victim, len(outcomes)))
        new, now = [], before
        while time.monotonic() - killed_at < 5:
            now = h.workers()
            new = [p for p in now if p not in before]
            if new and len(now) == WORKERS and victim not in now:
                break
            time.sleep(0.02)
        R.check(bool(new), "C a new worker appears within 5 s",
                "workers %r, before %r" % (now, before))
        R.check(len(now) == WORKERS and victim not in now,
                "C worker count is back to %d" % WORKERS,
                "workers %r" % (now,))
        th.join(120)
        stop.set()
        bad = outcomes.count(False)
        R.note("traffic during the kill: %d requests, %d failed" %
               (len(outcomes), bad))
        R.check(len(outcomes) == 200 and bad <= 2,
                "C traffic across the kill: at most 2 of 200 fail",
                "%d of %d failed" % (bad, len(outcomes)))
        bad = 0
        for i in range(20):
            rid, r = self.tool("echo", {"text": "after %d" % i})
            p = judge_result(r, rid)
            if p:
                bad += 1
                R.note("after-kill request %d: %s %s" % (i, p, r.brief()))
        R.check(bad == 0, "C 20 requests after the kill all succeed",
                "%d failed" % bad)

    # -- D: graceful stop

    def test_term(self):
        h = self.h
        pids = set(h.workers()) | {h.sup}
        os.kill(h.sup, signal.SIGTERM)
        deadline = time.monotonic() + 10
        left = pids
        while time.monotonic() < deadline:
            h.fcgi.poll()		# reap the supervisor if it is our child
            left = {p for p in pids if alive(p)}
            if not left:
                break
            time.sleep(0.05)
        R.check(not left, "D SIGTERM: all wymcp-fcgi processes exit "
                "within 10 s", "still running: %r" % sorted(left))
        if h.fcgi.poll() is not None:
            R.note("supervisor exit status %d" % h.fcgi.returncode)


def test_deploy_conf(h):
    """deploy/nginx/wymcp.conf passes nginx -t inside a minimal server."""
    d = os.path.join(h.tmp, "conftest")
    h.write_common(d)
    with open(DEPLOY_CONF) as f:
        text = f.read()
    if not R.check(DEPLOY_SOCK in text,
                   "deploy/nginx/wymcp.conf names %s" % DEPLOY_SOCK,
                   "socket path not found"):
        return
    with open(os.path.join(d, "wymcp.conf"), "w") as f:
        f.write(text.replace(DEPLOY_SOCK, "unix:" + os.path.join(d, "s.sock")))
    user = "user root;\n" if os.geteuid() == 0 else ""
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write("""{user}pid {d}/nginx.pid;
error_log {d}/error.log;
events {{}}
http {{
	access_log off;
	client_body_temp_path {d}/cb;
	fastcgi_temp_path {d}/ft;
	proxy_temp_path {d}/pt;
	scgi_temp_path {d}/st;
	uwsgi_temp_path {d}/ut;
	server {{
		listen 127.0.0.1:{port};
		include wymcp.conf;
	}}
	include status.conf;
}}
""".format(user=user, d=d, port=free_port()))
    # deploy/nginx/status.conf beside it, on a port of this run.
    with open(STATUS_CONF) as f:
        status = f.read()
    sport = free_port()
    with open(os.path.join(d, "status.conf"), "w") as f:
        f.write(status.replace(DEPLOY_SOCK, "unix:" + os.path.join(
            d, "s.sock")).replace(":9181;", ":%d;" % sport))
    p = subprocess.run([h.nginx_bin, "-t", "-p", d + "/", "-c",
                        os.path.join(d, "nginx.conf"), "-e",
                        os.path.join(d, "error.log")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False)
    out = p.stdout.decode("utf-8", "replace")
    R.check(p.returncode == 0 and "test is successful" in out,
            "deploy/nginx/wymcp.conf passes nginx -t", out)
    for word in ("fastcgi_keep_conn off", "fastcgi_buffering off",
                 "fastcgi_intercept_errors off", "client_max_body_size",
                 "WYMCP_PRINCIPAL", "WYMCP_ASSIGN_", "WYMCP_TOOLS"):
        R.check(word in text, "deploy/nginx/wymcp.conf has %s" % word,
                "missing")
    # Behind a same-host proxy every client is loopback: the public
    # server serves no status page; status.conf's listener is loopback
    # only, and passes the status path alone.
    R.check("location = /wymcp-status" not in text and
            "status.conf" in text, "deploy/nginx/wymcp.conf serves no "
            "status page (it points at status.conf)")
    listens = re.findall(r"(?m)^\s*listen\s+([^;]+);", status)
    R.check(listens and all(a.startswith(("127.0.0.1:", "[::1]:"))
                            for a in listens) and
            "location = /wymcp-status" in status and
            "return 404" in status,
            "deploy/nginx/status.conf listens on loopback only and "
            "routes the status path alone", repr(listens))


# ---------------------------------- N: nginx auth_basic and auth_request

AUTH_BASIC_CONF = os.path.join(SRCDIR, "deploy", "nginx", "auth-basic.conf")
STATUS_CONF = os.path.join(SRCDIR, "deploy", "nginx", "status.conf")
AUTH_REQUEST_CONF = os.path.join(SRCDIR, "deploy", "nginx",
                                 "auth-request.conf")
AUTH_HTPASSWD = "/etc/nginx/wymcp.htpasswd"
AUTH_SERVICE = "http://127.0.0.1:9091/auth"
AUTH_USERS = {"alice": "wonderland", "bob": "the-builder"}
AUTH_SMUGGLE = {
    "WYMCP-Assign-Role": "admin", "Wymcp-Principal": "mallory",
    "Remote-User": "mallory", "Wymcp-Tools": "echo",
    "WYMCP_PRINCIPAL": "mallory", "WYMCP_ASSIGN_ROLE": "admin",
    "X-User": "mallory", "X-Role": "root",
}


class HeaderClient(Client):
    """A Client adding fixed headers a request does not set itself."""

    def __init__(self, port, extra):
        Client.__init__(self, port)
        self.extra = list(extra.items())

    def send(self, method, path, body=None, headers=None):
        headers = list(headers or [])
        have = {k.lower() for k, _ in headers}
        headers += [(k, v) for k, v in self.extra if k.lower() not in have]
        return Client.send(self, method, path, body, headers)


def basic_auth(user, pw=None):
    pw = AUTH_USERS[user] if pw is None else pw
    return "Basic " + base64.b64encode(("%s:%s" % (user, pw)).encode()) \
        .decode()


def nginx_auth_conf(h, d, p1, p2):
    with open(AUTH_BASIC_CONF) as f:
        basic = f.read().replace(DEPLOY_SOCK, "unix:" + h.sock) \
            .replace(AUTH_HTPASSWD, os.path.join(d, "htpasswd"))
    with open(AUTH_REQUEST_CONF) as f:
        request = f.read().replace(DEPLOY_SOCK, "unix:" + h.sock) \
            .replace(AUTH_SERVICE, "http://127.0.0.1:%d/stub-auth" % p2)
    for name, text in (("auth-basic.conf", basic),
                       ("auth-request.conf", request)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    user = "user root;\n" if os.geteuid() == 0 else ""
    return """\
{user}worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log notice;
events {{ worker_connections 128; }}
http {{
	access_log off;
	client_body_temp_path {d}/client_body;
	fastcgi_temp_path {d}/fastcgi_temp;
	proxy_temp_path {d}/proxy_temp;
	scgi_temp_path {d}/scgi_temp;
	uwsgi_temp_path {d}/uwsgi_temp;
	underscores_in_headers on;

	# The identity service stub: X-Test-Token names the user and role.
	# tok-echo is a careless service that echoes the X-User it receives.
	map $http_x_test_token $stub_ok {{
		default 0; tok-alice 1; tok-bob 1; tok-echo 1;
	}}
	map $http_x_test_token $stub_user {{
		default ""; tok-alice alice; tok-bob bob; tok-echo $http_x_user;
	}}
	map $http_x_test_token $stub_role {{
		default ""; tok-alice admin; tok-bob user;
	}}

	server {{
		listen 127.0.0.1:{p1};
		server_name localhost;
		include auth-basic.conf;

		# Test-only: the hazard auth-basic.conf warns about, the
		# stock fastcgi_params where no auth_basic runs.
		location = /hazard {{
			include fastcgi_params;
			fastcgi_pass unix:{sock};
		}}
	}}
	server {{
		listen 127.0.0.1:{p2};
		server_name localhost;
		include auth-request.conf;

		location = /stub-auth {{
			if ($stub_ok = 0) {{
				return 401;
			}}
			add_header X-User $stub_user;
			add_header X-Role $stub_role;
			return 204;
		}}
	}}
}}
""".format(user=user, d=d, p1=p1, p2=p2, sock=h.sock)


def test_nginx_auth(h):
    """N: the auth examples, as shipped, through a second nginx."""
    d = os.path.join(h.tmp, "nginx-auth")
    h.write_common(d)
    with open(os.path.join(d, "htpasswd"), "w") as f:
        for u, pw in AUTH_USERS.items():
            f.write("%s:{SHA}%s\n" % (u, base64.b64encode(
                hashlib.sha1(pw.encode()).digest()).decode()))
    conf = os.path.join(d, "nginx.conf")
    nginx = None
    try:
        for _ in range(8):
            p1, p2 = free_port(), free_port()
            if p1 == p2:
                continue
            with open(conf, "w") as f:
                f.write(nginx_auth_conf(h, d, p1, p2))
            with open(os.path.join(d, "nginx.out"), "ab") as out:
                nginx = subprocess.Popen(
                    [h.nginx_bin, "-p", d + "/", "-c", conf, "-e",
                     os.path.join(d, "error.log"), "-g", "daemon off;"],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=out)
            up, deadline = False, time.monotonic() + 15
            while not up and nginx.poll() is None and \
                    time.monotonic() < deadline:
                try:
                    for p in (p1, p2):
                        socket.create_connection(("127.0.0.1", p), 1).close()
                    up = True
                except OSError:
                    time.sleep(0.05)
            if up:
                break
            log = "\n".join(tail(os.path.join(d, "error.log"), 10) +
                            tail(os.path.join(d, "nginx.out"), 10))
            stop_pid(nginx.pid, nginx, 5)
            nginx = None
            if "in use" not in log:
                R.fail("N nginx with the auth examples starts", log)
                return
        if nginx is None:
            R.fail("N nginx with the auth examples starts", "no free port")
            return
        R.ok("N nginx accepts deploy/nginx/auth-basic.conf and "
             "auth-request.conf")
        R.note("auth nginx %d on 127.0.0.1:%d (basic), :%d (auth_request)"
               % (nginx.pid, p1, p2))
        h.nginx_pids.update(children(nginx.pid))
        auth_tests(h, p1, p2)
    finally:
        if nginx is not None:
            kids = children(nginx.pid)
            stop_pid(nginx.pid, nginx, 10)
            for pid in kids:
                if alive(pid):
                    stop_pid(pid, None, 2)


def auth_tests(h, p1, p2):
    t = Tests(h)
    nref = [0]

    def who(label, port, extra, principal, assigns, path="/mcp"):
        t.c = HeaderClient(port, extra)
        obj, p, r = t.whoami(path)
        if obj is not None:
            if "principal" not in obj or obj["principal"] != principal:
                p.append("principal %r, want %r" %
                         (obj.get("principal", "<absent>"), principal))
            if obj.get("assigns") != assigns:
                p.append("assigns %r, want %r" % (obj.get("assigns"),
                                                   assigns))
        report(label, p, r)

    def refused(label, port, extra, status, path="/mcp"):
        """status from nginx, and wymcp never saw the request: it is
        sent with a Host wymcp would refuse with a logged warning."""
        nref[0] += 1
        host = "unauth-%d.example.com" % nref[0]
        hdrs = dict(std_headers("tools/call", "whoami"), Host=host)
        hdrs.update(extra)
        r = Client(port).send("POST", path, enc(rpc(1, "tools/call", {
            "name": "whoami", "arguments": {}})), hlist(hdrs))
        p = [] if r.status == status else ["status %d, want %d" %
                                           (r.status, status)]
        if r.mime == "application/json":
            p.append("a JSON body: wymcp answered")
        time.sleep(0.3)
        seen = [ln for ln in tail(h.fcgi_log, 100000) if host in ln]
        if seen:
            p.append("wymcp logged it: %r" % seen[:2])
        report(label, p, r)

    alice = {"Authorization": basic_auth("alice")}
    who("N basic: whoami as alice: principal alice, assigns remote_user "
        "and tenant", p1, alice, "alice",
        {"remote_user": "alice", "tenant": "acme"})
    who("N basic: whoami as bob", p1, {"Authorization": basic_auth("bob")},
        "bob", {"remote_user": "bob", "tenant": "acme"})
    # The detector works: with credentials, the foreign Host reaches
    # wymcp, which refuses it and logs the host.
    nref[0] += 1
    host = "unauth-%d.example.com" % nref[0]
    r = Client(p1).send("POST", "/mcp", enc(rpc(1, "server/discover")),
                        hlist(dict(std_headers("server/discover"),
                                   Host=host, **alice)))
    time.sleep(0.3)
    seen = [ln for ln in tail(h.fcgi_log, 100000) if host in ln]
    R.check(r.status == 403 and seen, "N (control) with credentials a "
            "foreign Host reaches wymcp: 403 and a log line naming it",
            "status %d, log %r" % (r.status, seen))
    refused("N basic: no credentials -> nginx's 401, wymcp never sees it",
            p1, {}, 401)
    refused("N basic: a wrong password -> 401, wymcp never sees it", p1,
            {"Authorization": basic_auth("alice", "nope")}, 401)
    who("N basic: smuggled headers change nothing", p1,
        dict(AUTH_SMUGGLE, **alice), "alice",
        {"remote_user": "alice", "tenant": "acme"})
    t.c = HeaderClient(p1, alice)
    names, p, r = t.list_tools("/mcp")
    if not p and r.json["result"].get("cacheScope") != "private":
        p.append("cacheScope %r" % r.json["result"].get("cacheScope"))
    report("N (control) tools/list with a principal is cacheScope private",
           p, r)
    t.c = Client(p1)
    names, p, r = t.list_tools("/mcp-public")
    if names is not None and names != ["help", "echo"]:
        p.append("tools %r" % (names,))
    report("N basic: /mcp-public (anonymous) tools/list is [help, echo]",
           p, r)
    t.c = HeaderClient(p1, dict(AUTH_SMUGGLE, Authorization=basic_auth(
        "mallory", "x")))
    names, p, r = t.list_tools("/mcp-public")
    if names is not None and names != ["help", "echo"]:
        p.append("tools %r" % (names,))
    if not p and r.json["result"].get("cacheScope") != "public":
        p.append("cacheScope %r: the request has a principal" %
                 r.json["result"].get("cacheScope"))
    report("N basic: /mcp-public with an unchecked 'Authorization: Basic "
           "mallory' and smuggled headers: no principal (cacheScope "
           "public), same mount list", p, r)
    who("N basic (documented hazard): where no auth_basic runs, the stock "
        "fastcgi_params makes an unchecked Basic username REMOTE_USER",
        p1, {"Authorization": basic_auth("mallory", "x")}, "mallory",
        {"remote_user": "mallory"}, "/hazard")

    tok = {"X-Test-Token": "tok-alice"}
    who("N auth_request: whoami with alice's token: principal alice, "
        "assigns remote_user and role", p2, tok, "alice",
        {"remote_user": "alice", "role": "admin"})
    who("N auth_request: whoami with bob's token", p2,
        {"X-Test-Token": "tok-bob"}, "bob",
        {"remote_user": "bob", "role": "user"})
    refused("N auth_request: no token -> 401, wymcp never sees it", p2, {},
            401)
    refused("N auth_request: a bad token -> 401, wymcp never sees it", p2,
            {"X-Test-Token": "tok-nobody"}, 401)
    who("N auth_request: smuggled headers, X-User/X-Role and an unchecked "
        "Basic username change nothing", p2,
        dict(AUTH_SMUGGLE, Authorization=basic_auth("mallory", "x"), **tok),
        "alice", {"remote_user": "alice", "role": "admin"})
    who("N auth_request: a service echoing X-User never sees the client's "
        "(proxy_set_header X-User \"\"): no principal", p2,
        {"X-Test-Token": "tok-echo", "X-User": "mallory"}, None, {})
    t.c = HeaderClient(p2, tok)
    names, p, r = t.list_tools("/mcp-readonly")
    if names is not None and names != ["help", "whoami"]:
        p.append("tools %r" % (names,))
    report("N auth_request: /mcp-readonly tools/list is [help, whoami]",
           p, r)
    who("N auth_request: /mcp-readonly whoami", p2, tok, "alice",
        {"remote_user": "alice", "role": "admin"}, "/mcp-readonly")



def layer(h):
    """This script's tests: sections A-D and N."""
    h.paths()
    h.start()
    test_deploy_conf(h)
    t = Tests(h)
    t.test_happy()
    test_nginx_auth(h)
    t.test_table()
    t.test_kill()
    t.test_term()


def main():
    return run_layer(Harness, layer)


if __name__ == "__main__":
    sys.exit(main())
