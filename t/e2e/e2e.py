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
  N  deploy/nginx/auth-basic.conf and auth-request.conf, as shipped, in
     a second nginx in front of the same workers: the authenticated
     user as principal and assigns, 401 without credentials (wymcp never
     sees the request), smuggled headers and an unchecked
     "Authorization: Basic" username ignored, per-location mount lists.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PROTO = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": PROTO,
    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
TOOLS = ["help", "echo", "whoami"]
WORKERS = 2
MAX_BODY = 65536
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEPLOY_CONF = os.path.join(SRCDIR, "deploy", "nginx", "wymcp.conf")
DEPLOY_SOCK = "unix:/run/wymcp/wymcp.sock"
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                   "runtime error:", "ERROR: UndefinedBehaviorSanitizer")

# What nginx's fastcgi_params carries, written inline so the test does not
# depend on /etc/nginx.  HTTP_HOST is deliberately not set: nginx then
# passes the client's Host header through unchanged (with its port).
FASTCGI_PARAMS = """\
fastcgi_param  QUERY_STRING       $query_string;
fastcgi_param  REQUEST_METHOD     $request_method;
fastcgi_param  CONTENT_TYPE       $content_type;
fastcgi_param  CONTENT_LENGTH     $content_length;
fastcgi_param  SCRIPT_NAME        $fastcgi_script_name;
fastcgi_param  REQUEST_URI        $request_uri;
fastcgi_param  DOCUMENT_URI       $document_uri;
fastcgi_param  DOCUMENT_ROOT      $document_root;
fastcgi_param  SERVER_PROTOCOL    $server_protocol;
fastcgi_param  REQUEST_SCHEME     $scheme;
fastcgi_param  HTTPS              $https if_not_empty;
fastcgi_param  GATEWAY_INTERFACE  CGI/1.1;
fastcgi_param  SERVER_SOFTWARE    nginx/$nginx_version;
fastcgi_param  REMOTE_ADDR        $remote_addr;
fastcgi_param  REMOTE_PORT        $remote_port;
fastcgi_param  REMOTE_USER        $remote_user;
fastcgi_param  SERVER_ADDR        $server_addr;
fastcgi_param  SERVER_PORT        $server_port;
fastcgi_param  SERVER_NAME        $server_name;
"""

# The per-location settings the deploy file also uses.
LOCATION_COMMON = """\
			include fastcgi_params;
			fastcgi_param REMOTE_USER "";
			fastcgi_pass unix:{sock};
			fastcgi_keep_conn off;
			fastcgi_buffering off;
			fastcgi_intercept_errors off;
"""

OMIT = object()		# the error must have no "id" member
EITHER = object()	# "id" absent, or equal to the request id
ANY = object()		# id not checked


class Failed(Exception):
    """A fatal setup failure: recorded, then the run stops."""


# ---------------------------------------------------------------- output

class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, name):
        self.passed += 1
        print("ok - %s" % name, flush=True)

    def fail(self, name, detail):
        self.failed += 1
        detail = " ".join(str(detail).split())
        if len(detail) > 600:
            detail = detail[:600] + "..."
        print("not ok - %s: %s" % (name, detail), flush=True)

    def check(self, cond, name, detail=""):
        if cond:
            self.ok(name)
        else:
            self.fail(name, detail)
        return cond

    def note(self, msg):
        print("# %s" % msg, flush=True)


R = Results()


# ------------------------------------------------------------- processes

def proc_table():
    """pid -> (ppid, state, comm) for every live process."""
    table = {}
    for ent in os.listdir("/proc"):
        if not ent.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % ent, "rb") as f:
                stat = f.read().decode("latin-1")
        except OSError:
            continue
        lp, rp = stat.find("("), stat.rfind(")")
        rest = stat[rp + 2:].split()
        if len(rest) < 2:
            continue
        table[int(ent)] = (int(rest[1]), rest[0], stat[lp + 1:rp])
    return table


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("latin-1")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def children(pid, table=None):
    table = proc_table() if table is None else table
    return sorted(p for p, (pp, st, _) in table.items()
                  if pp == pid and st != "Z")


def stop_pid(pid, popen=None, timeout=10.0):
    """SIGTERM, wait, then SIGKILL.  True when it went on SIGTERM."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen is not None and popen.poll() is not None:
            return True
        if popen is None and not alive(pid):
            return True
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if popen is not None:
        try:
            popen.wait(5)
        except subprocess.TimeoutExpired:
            pass
    return False


def tail(path, n=40):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError as e:
        return ["(cannot read %s: %s)" % (path, e)]
    return lines[-n:]


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def find_nginx():
    for cand in ("/usr/sbin/nginx", shutil.which("nginx")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


# ------------------------------------------------------------------ HTTP

class Resp:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers		# list of (name, value)
        self.raw = raw
        self.json = None
        self.json_error = None
        if raw:
            try:
                self.json = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                self.json_error = str(e)

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    @property
    def mime(self):
        ct = self.header("Content-Type")
        return None if ct is None else ct.split(";")[0].strip().lower()

    def brief(self):
        body = self.raw[:300].decode("utf-8", "replace")
        return "HTTP %d %s %r" % (self.status, self.header("Content-Type"),
                                  body)


class Client:
    def __init__(self, port):
        self.port = port

    def send(self, method, path, body=None, headers=None):
        """One request on a fresh connection.  headers: list of (name,
        value); a value may be bytes (sent as is).  A "Host" entry
        replaces the default one."""
        headers = list(headers or [])
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            skip_host = any(k.lower() == "host" for k, _ in headers)
            conn.putrequest(method, path, skip_host=skip_host,
                            skip_accept_encoding=True)
            for k, v in headers:
                conn.putheader(k, v)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            r = conn.getresponse()
            raw = r.read()
            return Resp(r.status, r.getheaders(), raw)
        finally:
            conn.close()


def std_headers(method, name=None):
    h = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTO,
        "Mcp-Method": method,
    }
    if name is not None:
        h["Mcp-Name"] = name
    return h


def hlist(d):
    return [(k, v) for k, v in d.items() if v is not None]


def rpc(rid, method, params=None, meta=True):
    params = dict(params or {})
    if meta:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def enc(obj):
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj)
    if isinstance(obj, str):
        return obj.encode("utf-8")
    return json.dumps(obj, separators=(",", ":")).encode("utf-8")


def compact(raw):
    """None when the JSON text has no whitespace outside strings (a single
    trailing newline is tolerated); otherwise the offending offset."""
    text = raw.decode("utf-8", "replace")
    if text.endswith("\r\n"):
        text = text[:-2]
    elif text.endswith("\n"):
        text = text[:-1]
    instr = esc = False
    for i, c in enumerate(text):
        if instr:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                instr = False
        elif c == '"':
            instr = True
        elif c in " \t\r\n":
            return "whitespace at offset %d: %r" % (i, text[max(0, i - 20):i + 20])
    return None


def same_id(got, want):
    return type(got) is type(want) and got == want


# ------------------------------------------------------------ assertions

def judge_result(r, rid, check_compact=False):
    """The problems with r as a success response; [] when none."""
    p = []
    if r.status != 200:
        p.append("status %d, want 200" % r.status)
    if r.mime != "application/json":
        p.append("Content-Type %r, want application/json" %
                 r.header("Content-Type"))
    o = r.json
    if not isinstance(o, dict):
        p.append("body is not a JSON object (%s)" % (r.json_error or "type"))
        return p
    if o.get("jsonrpc") != "2.0":
        p.append("jsonrpc %r" % o.get("jsonrpc"))
    if "id" not in o or not same_id(o["id"], rid):
        p.append("id %r, want %r" % (o.get("id", "<absent>"), rid))
    if "error" in o:
        p.append("error %s" % json.dumps(o["error"]))
    res = o.get("result")
    if not isinstance(res, dict):
        p.append("no result object")
    elif res.get("resultType") != "complete":
        p.append("resultType %r" % res.get("resultType"))
    if check_compact:
        c = compact(r.raw)
        if c:
            p.append("JSON not compact: " + c)
    return p


def judge_error(r, status, code, rid=OMIT, data=None):
    p = []
    if r.status != status:
        p.append("status %d, want %d" % (r.status, status))
    if r.mime != "application/json":
        p.append("Content-Type %r, want application/json" %
                 r.header("Content-Type"))
    o = r.json
    if not isinstance(o, dict):
        p.append("body is not a JSON object (%s)" % (r.json_error or "type"))
        return p
    if o.get("jsonrpc") != "2.0":
        p.append("jsonrpc %r" % o.get("jsonrpc"))
    if "result" in o:
        p.append("has a result")
    e = o.get("error")
    if not isinstance(e, dict):
        p.append("no error object")
        return p
    if type(e.get("code")) is not int or e.get("code") != code:
        p.append("code %r, want %d" % (e.get("code"), code))
    if not isinstance(e.get("message"), str) or not e.get("message"):
        p.append("message %r" % e.get("message"))
    if rid is OMIT:
        if "id" in o:
            p.append("id %r present, want no id" % (o["id"],))
    elif rid is EITHER:
        pass
    elif rid is not ANY:
        if "id" not in o or not same_id(o["id"], rid):
            p.append("id %r, want %r" % (o.get("id", "<absent>"), rid))
    if data is not None:
        p.extend(data(e.get("data")))
    return p


def judge_bare(r, status, rid=OMIT, allow=None):
    """A status-only rejection (403/405/413/415).  A body is optional; if
    there is one it must be a JSON-RPC error without a wrong id."""
    p = []
    if r.status != status:
        p.append("status %d, want %d" % (r.status, status))
    if allow is not None:
        a = r.header("Allow")
        if a is None or [x.strip().upper() for x in a.split(",")] != [allow]:
            p.append("Allow %r, want %r" % (a, allow))
    if r.raw.strip():
        o = r.json
        if r.mime != "application/json" or not isinstance(o, dict) or \
                not isinstance(o.get("error"), dict):
            p.append("body is not a JSON-RPC error")
        elif "id" in o and (rid is OMIT or not same_id(o["id"], rid)):
            p.append("id %r in body (never null; omit when unread)" %
                     (o["id"],))
    return p


VERBOSE = False


def report(name, problems, r=None):
    if problems:
        R.fail(name, "; ".join(problems) + ("" if r is None else
                                            " | " + r.brief()))
        return False
    R.ok(name)
    if VERBOSE and r is not None:
        R.note("  " + r.brief())
    return True


# ----------------------------------------------------------- the harness

class Harness:
    def __init__(self, builddir, keep=False):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = None
        self.nginx = None
        self.nginx_bin = None
        self.fcgi = None
        self.sup = None
        self.port = None
        self.port2 = None
        self.seen_pids = set()
        self.nginx_pids = set()

    # -- setup

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in TOOLS]
        missing = [p for p in [self.prog] + self.mods
                   if not os.path.exists(p)]
        if missing:
            raise Failed("not built: %s" % ", ".join(missing))

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-e2e.")
        os.chmod(self.tmp, 0o755)
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.start_fcgi()
        self.start_nginx()

    def start_fcgi(self):
        argv = [self.prog, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "--max-body", str(MAX_BODY)]
        for m in self.mods:
            argv += ["--module", m]
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
                raise Failed("wymcp-fcgi exited with %d before creating %s"
                             % (self.fcgi.returncode, self.sock))
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
        R.note("wymcp-fcgi supervisor %d, workers %r" %
               (self.sup, self.workers()))

    def supervisor(self):
        """The supervisor's PID.  A libtool wrapper script execs the real
        program (same PID); if a shell stays in between, descend."""
        pid = self.fcgi.pid
        for _ in range(4):
            table = proc_table()
            kids = children(pid, table)
            try:
                exe = os.path.basename(os.readlink("/proc/%d/exe" % pid))
            except OSError:
                exe = ""
            shell = {"sh", "bash", "dash"}
            if (exe in shell or table.get(pid, (0, "", ""))[2] in shell) \
                    and len(kids) == 1:
                pid = kids[0]
                continue
            break
        return pid

    def workers(self):
        w = children(self.sup)
        self.seen_pids.update(w)
        return w

    def nginx_conf(self, sock, port, port2):
        user = "user root;\n" if os.geteuid() == 0 else ""
        t = self.tmp
        common = LOCATION_COMMON.format(sock=sock)
        with open(DEPLOY_CONF) as f:
            deploy = f.read().replace(DEPLOY_SOCK, "unix:" + sock)
        with open(os.path.join(t, "wymcp-deploy.conf"), "w") as f:
            f.write(deploy)
        return """\
{user}worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/nginx-error.log notice;
events {{ worker_connections 256; }}
http {{
	access_log off;
	client_body_temp_path {t}/client_body;
	fastcgi_temp_path {t}/fastcgi_temp;
	proxy_temp_path {t}/proxy_temp;
	scgi_temp_path {t}/scgi_temp;
	uwsgi_temp_path {t}/uwsgi_temp;
	# Let header names with underscores through, so the smuggling
	# tests can try WYMCP_PRINCIPAL-style names too.
	underscores_in_headers on;

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		# Larger than --max-body: wymcp must refuse by itself.
		client_max_body_size 1m;

		location = /mcp {{
{common}			fastcgi_param WYMCP_ASSIGN_ROLE "tester";
			fastcgi_param WYMCP_ASSIGN_TENANT "acme";
			fastcgi_param WYMCP_PRINCIPAL "alice";
		}}
		location = /mcp-narrow {{
{common}			fastcgi_param WYMCP_TOOLS "help echo";
		}}
		location = /mcp-anon {{
{common}		}}
	}}

	# The deploy/nginx/wymcp.conf location block, as shipped.
	server {{
		listen 127.0.0.1:{port2};
		server_name localhost;
		include wymcp-deploy.conf;
	}}
}}
""".format(user=user, t=t, port=port, port2=port2, common=common)

    def write_common(self, confdir):
        os.makedirs(confdir, exist_ok=True)
        with open(os.path.join(confdir, "fastcgi_params"), "w") as f:
            f.write(FASTCGI_PARAMS)

    def start_nginx(self):
        self.write_common(self.tmp)
        conf = os.path.join(self.tmp, "nginx.conf")
        for attempt in range(8):
            self.port, self.port2 = free_port(), free_port()
            if self.port == self.port2:
                continue
            with open(conf, "w") as f:
                f.write(self.nginx_conf(self.sock, self.port, self.port2))
            with open(os.path.join(self.tmp, "nginx.out"), "ab") as out:
                self.nginx = subprocess.Popen(
                    [self.nginx_bin, "-p", self.tmp + "/", "-c", conf,
                     "-e", self.nginx_log, "-g", "daemon off;"],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=out)
            if self.wait_nginx():
                R.note("nginx %d on 127.0.0.1:%d and :%d" %
                       (self.nginx.pid, self.port, self.port2))
                self.nginx_pids.update(children(self.nginx.pid))
                return
            log = "\n".join(tail(self.nginx_log, 10) +
                            tail(os.path.join(self.tmp, "nginx.out"), 10))
            stop_pid(self.nginx.pid, self.nginx, 5)
            self.nginx = None
            if "in use" not in log:
                raise Failed("nginx did not start: " + log)
        raise Failed("nginx: no free port after 8 attempts")

    def wait_nginx(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.nginx.poll() is not None:
                return False
            ok = 0
            for port in (self.port, self.port2):
                try:
                    socket.create_connection(("127.0.0.1", port), 1).close()
                    ok += 1
                except OSError:
                    pass
            if ok == 2:
                return True
            time.sleep(0.05)
        return False

    # -- teardown

    def stop(self):
        if self.nginx is not None:
            self.nginx_pids.update(children(self.nginx.pid))
            stop_pid(self.nginx.pid, self.nginx, 10)
            for pid in self.nginx_pids:
                if alive(pid):
                    stop_pid(pid, None, 2)
            self.nginx = None
        if self.fcgi is not None:
            if self.sup and self.sup != self.fcgi.pid and alive(self.sup):
                self.seen_pids.update(children(self.sup))
                stop_pid(self.sup, None, 10)
            if self.fcgi.poll() is None:
                if self.sup:
                    self.seen_pids.update(children(self.sup))
                stop_pid(self.fcgi.pid, self.fcgi, 10)
            for pid in self.seen_pids:
                if alive(pid):
                    stop_pid(pid, None, 2)
            self.fcgi = None

    def cleanup(self):
        if self.tmp and not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            R.note("kept %s" % self.tmp)

    def dump_logs(self):
        if not self.tmp:
            return
        for title, path in (("wymcp-fcgi log", self.fcgi_log),
                            ("nginx error log", self.nginx_log)):
            print("# ---- tail of %s (%s)" % (title, path))
            for line in tail(path):
                print("#   " + line)

    def sanitizer_reports(self):
        hits = []
        for line in tail(self.fcgi_log, 100000):
            if any(m in line for m in SANITIZER_MARKS):
                hits.append(line.strip())
        return hits


# ----------------------------------------------------------------- tests

class Tests:
    def __init__(self, h):
        self.h = h
        self.c = Client(h.port)
        self.c2 = Client(h.port2)
        self.nid = 100

    def next_id(self):
        self.nid += 1
        return self.nid

    def post(self, path, body, headers, client=None):
        return (client or self.c).send("POST", path, enc(body),
                                       hlist(headers))

    def call(self, method, params=None, path="/mcp", rid=None, name=None,
             extra=None, client=None):
        rid = self.next_id() if rid is None else rid
        h = std_headers(method, name)
        h.update(extra or {})
        return rid, self.post(path, rpc(rid, method, params), h, client)

    def tool(self, tname, arguments=None, path="/mcp", extra=None,
             rid=None, client=None):
        params = {"name": tname}
        if arguments is not None:
            params["arguments"] = arguments
        return self.call("tools/call", params, path, rid, tname, extra,
                         client)

    # -- A: happy path

    def discover(self, rid, label):
        _, r = self.call("server/discover", rid=rid)
        p = judge_result(r, rid, check_compact=True)
        res = (r.json or {}).get("result") if isinstance(r.json, dict) \
            else None
        if isinstance(res, dict):
            sv = res.get("supportedVersions")
            if not isinstance(sv, list) or PROTO not in sv:
                p.append("supportedVersions %r" % (sv,))
            caps = res.get("capabilities")
            if not isinstance(caps, dict) or "tools" not in caps:
                p.append("capabilities %r lack tools" % (caps,))
            ttl = res.get("ttlMs")
            if type(ttl) is not int or ttl < 0:
                p.append("ttlMs %r" % (ttl,))
            if res.get("cacheScope") not in ("public", "private"):
                p.append("cacheScope %r" % (res.get("cacheScope"),))
            si = (res.get("_meta") or {}).get(
                "io.modelcontextprotocol/serverInfo")
            if not isinstance(si, dict) or \
                    not isinstance(si.get("name"), str) or \
                    not isinstance(si.get("version"), str):
                p.append("_meta serverInfo %r" % (si,))
        return report("%s discover %s" % (label[0], label[1]), p, r)

    def list_tools(self, path="/mcp", client=None):
        """(names or None, problems, response)"""
        rid, r = self.call("tools/list", path=path, client=client)
        p = judge_result(r, rid, check_compact=True)
        if p:
            return None, p, r
        res = r.json["result"]
        tools = res.get("tools")
        if not isinstance(tools, list):
            return None, ["tools %r" % (tools,)], r
        for t in tools:
            if not isinstance(t, dict) or not isinstance(t.get("name"), str):
                p.append("bad tool %r" % (t,))
                continue
            if not isinstance(t.get("description"), str) or \
                    not t["description"]:
                p.append("%s: no description" % t["name"])
            s = t.get("inputSchema")
            if not isinstance(s, dict) or s.get("type") != "object":
                p.append("%s: inputSchema %r" % (t["name"], s))
        if type(res.get("ttlMs")) is not int or res["ttlMs"] < 0:
            p.append("ttlMs %r" % (res.get("ttlMs"),))
        if res.get("cacheScope") not in ("public", "private"):
            p.append("cacheScope %r" % (res.get("cacheScope"),))
        names = [t.get("name") for t in tools if isinstance(t, dict)]
        return names, p, r

    def text_of(self, r):
        res = r.json["result"]
        content = res.get("content")
        if not isinstance(content, list):
            return None
        texts = [b.get("text") for b in content
                 if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(t for t in texts if isinstance(t, str))

    def whoami(self, path, extra=None, label=""):
        rid, r = self.tool("whoami", {}, path, extra)
        p = judge_result(r, rid)
        if p:
            return None, p, r
        res = r.json["result"]
        if "structuredContent" in res:
            obj = res["structuredContent"]
            text = self.text_of(r)
            try:
                if text and json.loads(text) != obj:
                    p.append("text block %r != structuredContent" % text)
            except ValueError:
                p.append("text block is not JSON: %r" % text)
        else:
            try:
                obj = json.loads(self.text_of(r) or "")
            except ValueError:
                return None, ["whoami text is not JSON: %r" %
                              self.text_of(r)], r
        if not isinstance(obj, dict):
            return None, ["whoami output %r" % (obj,)], r
        return obj, p, r

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

    # -- B: the hostile table

    def table(self):
        """(name, send, judge): send() -> (rid, Resp)."""
        port = self.h.port
        cases = []

        def add(name, send, judge):
            cases.append((name, send, judge))

        def raw(method="POST", body=None, headers=None, path="/mcp"):
            def send():
                b = None if body is None else enc(body)
                return None, self.c.send(method, path, b, hlist(headers or
                                                              {}))
            return send

        def req(method, params=None, rid=None, extra=None, name=None,
                meta=True, body_over=None):
            def send():
                i = self.next_id() if rid is None else rid
                h = std_headers(method, name)
                h.update(extra or {})
                b = rpc(i, method, params, meta)
                if body_over:
                    b = body_over(b)
                return i, self.post("/mcp", b, h)
            return send

        def err(status, code, idmode="echo", data=None):
            def judge(rid, r):
                want = rid if idmode == "echo" else idmode
                return judge_error(r, status, code, want, data)
            return judge

        def bare(status, allow=None):
            return lambda rid, r: judge_bare(r, status, OMIT, allow)

        def success(rid, r):
            return judge_result(r, rid)

        disc = rpc(1, "server/discover")
        dh = std_headers("server/discover")

        # 1. Host / Origin -> 403, before anything else.
        add("Host evil.example.com -> 403",
            raw(body=disc, headers=dict(dh, Host="evil.example.com")),
            bare(403))
        add("Host evil.example.com:PORT -> 403",
            raw(body=disc, headers=dict(dh, Host="evil.example.com:%d" %
                                        port)), bare(403))
        add("Origin http://evil.example.com -> 403",
            raw(body=disc, headers=dict(dh, Origin="http://evil.example.com")),
            bare(403))
        add("Origin http://evil.example.com:PORT -> 403",
            raw(body=disc, headers=dict(dh, Origin="http://evil.example.com:%d"
                                        % port)), bare(403))
        add("order: GET with a foreign Origin -> 403 before 405",
            raw("GET", headers={"Origin": "http://evil.example.com"}),
            bare(403))
        # 2. Method -> 405.
        add("GET /mcp -> 405 Allow: POST",
            raw("GET", headers={"Accept": "text/event-stream"}),
            bare(405, "POST"))
        add("DELETE /mcp -> 405 Allow: POST", raw("DELETE"),
            bare(405, "POST"))
        add("PUT /mcp -> 405 Allow: POST",
            raw("PUT", body=disc, headers=dh), bare(405, "POST"))
        # Size and media type.
        big = rpc(1, "tools/call", {"name": "echo",
                                    "arguments": {"text": "x" * 70000}})
        add("body of 70000 bytes (--max-body 65536) -> 413",
            raw(body=big, headers=std_headers("tools/call", "echo")),
            bare(413))
        add("Content-Type text/plain -> 415",
            raw(body=disc, headers=dict(dh, **{"Content-Type":
                                               "text/plain"})), bare(415))
        add("Content-Type application/json; charset=utf-8 -> 200",
            req("server/discover", rid=41,
                extra={"Content-Type": "application/json; charset=utf-8"}),
            success)
        # 3. Parse -> -32700, no id.
        add("body '{not json' -> 400 -32700 no id",
            raw(body="{not json", headers=dh), err(400, -32700, OMIT))
        add("empty body -> 400 -32700 no id",
            raw(body="", headers=dh), err(400, -32700, OMIT))
        add("truncated JSON with a readable-looking id -> 400 -32700 no id",
            raw(body='{"jsonrpc":"2.0","id":5,"method":"server/discover"',
                headers=dh), err(400, -32700, OMIT))
        add("order: bad JSON without Mcp-Method -> -32700, not -32020",
            raw(body="{not json", headers=dict(dh, **{"Mcp-Method": None})),
            err(400, -32700, OMIT))
        # Envelope -> -32600.
        add("body [] -> 400 -32600 no id",
            raw(body="[]", headers=dh), err(400, -32600, OMIT))
        add("batch [request] -> 400 -32600 no id",
            raw(body=[disc], headers=dh), err(400, -32600, OMIT))
        add("body 42 -> 400 -32600 no id",
            raw(body="42", headers=dh), err(400, -32600, OMIT))
        add("body true -> 400 -32600 no id",
            raw(body="true", headers=dh), err(400, -32600, OMIT))
        add("body \"str\" -> 400 -32600 no id",
            raw(body='"server/discover"', headers=dh),
            err(400, -32600, OMIT))
        add('jsonrpc "1.0" -> 400 -32600, id echoed',
            req("server/discover", rid=7,
                body_over=lambda b: dict(b, jsonrpc="1.0")),
            err(400, -32600))
        add("jsonrpc missing -> 400 -32600, id echoed",
            req("server/discover", rid="no-jsonrpc",
                body_over=lambda b: {k: v for k, v in b.items()
                                     if k != "jsonrpc"}),
            err(400, -32600))
        add("id null -> 400 -32600 no id",
            req("server/discover", body_over=lambda b: dict(b, id=None)),
            err(400, -32600, OMIT))
        add("id 1.5 -> 400 -32600 no id",
            req("server/discover", body_over=lambda b: dict(b, id=1.5)),
            err(400, -32600, OMIT))
        add("id true -> 400 -32600 no id",
            req("server/discover", body_over=lambda b: dict(b, id=True)),
            err(400, -32600, OMIT))
        add("id {} -> 400 -32600 no id",
            req("server/discover", body_over=lambda b: dict(b, id={})),
            err(400, -32600, OMIT))
        add("method 7 -> 400 -32600, id echoed",
            req("server/discover", rid=8,
                body_over=lambda b: dict(b, method=7)),
            err(400, -32600))
        add("method missing -> 400 -32600, id echoed",
            req("server/discover", rid="no-method",
                body_over=lambda b: {k: v for k, v in b.items()
                                     if k != "method"}),
            err(400, -32600))
        add("a response object -> 400 -32600",
            raw(body={"jsonrpc": "2.0", "id": 1, "result": {}}, headers=dh),
            err(400, -32600, EITHER))
        add("an error response object -> 400 -32600",
            raw(body={"jsonrpc": "2.0", "id": 2,
                      "error": {"code": 1, "message": "x"}}, headers=dh),
            err(400, -32600, EITHER))
        # 4. Mcp-Method -> -32020.
        add("Mcp-Method missing -> 400 -32020",
            req("tools/list", rid="mm-1", extra={"Mcp-Method": None}),
            err(400, -32020))
        add("Mcp-Method TOOLS/LIST -> 400 -32020",
            req("tools/list", extra={"Mcp-Method": "TOOLS/LIST"}),
            err(400, -32020))
        add("Mcp-Method prompts/list for tools/list -> 400 -32020",
            req("tools/list", extra={"Mcp-Method": "prompts/list"}),
            err(400, -32020))
        add("order: Mcp-Method missing and no _meta -> -32020 before -32602",
            req("tools/list", meta=False, extra={"Mcp-Method": None}),
            err(400, -32020))
        # 5. Mcp-Name -> -32020.
        echo = {"name": "echo", "arguments": {"text": "hi"}}
        add("tools/call without Mcp-Name -> 400 -32020",
            req("tools/call", echo), err(400, -32020))
        add("Mcp-Name wrong -> 400 -32020",
            req("tools/call", echo, name="wrong"), err(400, -32020))
        add("Mcp-Name 'Echo' (case differs) -> 400 -32020",
            req("tools/call", echo, name="Echo"), err(400, -32020))
        add("Mcp-Name '  echo  ' -> accepted",
            req("tools/call", echo, name="  echo  "), success)
        add("Mcp-Name =?base64?ZWNobw==?= -> accepted",
            req("tools/call", echo, name="=?base64?ZWNobw==?="), success)
        add("Mcp-Name =?base64?ZWNobw?= (bad padding) -> 400 -32020",
            req("tools/call", echo, name="=?base64?ZWNobw?="),
            err(400, -32020))
        add("Mcp-Name =?base64?ZW!obw==?= (bad chars) -> 400 -32020",
            req("tools/call", echo, name="=?base64?ZW!obw==?="),
            err(400, -32020))
        add("Mcp-Name with a byte >= 0x80 -> 400 -32020",
            req("tools/call", {"name": "ech\u00f6", "arguments": {}},
                name="ech\u00f6".encode("utf-8")), err(400, -32020))
        add("order: Mcp-Name wrong and no _meta -> -32020 before -32602",
            req("tools/call", echo, name="wrong", meta=False),
            err(400, -32020))
        # 7. _meta -> -32602.
        add("params {} (no _meta) -> 400 -32602",
            req("tools/list", meta=False), err(400, -32602))
        add("params missing -> 400 -32602",
            req("tools/list", rid="no-params",
                body_over=lambda b: {k: v for k, v in b.items()
                                     if k != "params"}),
            err(400, -32602))
        add("_meta not an object -> 400 -32602",
            req("tools/list", {"_meta": "x"}, meta=False),
            err(400, -32602))

        def meta_without(key):
            m = {k: v for k, v in META.items()
                 if k != "io.modelcontextprotocol/" + key}
            return {"_meta": m}

        add("_meta without protocolVersion -> 400 -32602",
            req("tools/list", meta_without("protocolVersion"), meta=False),
            err(400, -32602))
        add("_meta without clientCapabilities -> 400 -32602",
            req("tools/list", meta_without("clientCapabilities"),
                meta=False), err(400, -32602))
        add("_meta clientCapabilities not an object -> 400 -32602",
            req("tools/list", {"_meta": dict(
                META, **{"io.modelcontextprotocol/clientCapabilities": 1})},
                meta=False), err(400, -32602))
        add("_meta without clientInfo -> 200",
            req("tools/list", meta_without("clientInfo"), meta=False),
            success)
        # 8/9. Protocol version.
        add("MCP-Protocol-Version missing -> 400 -32020",
            req("tools/list", extra={"MCP-Protocol-Version": None}),
            err(400, -32020))
        meta999 = {"_meta": dict(
            META, **{"io.modelcontextprotocol/protocolVersion": "v999"})}
        add("header 2026-07-28, _meta v999 -> 400 -32020",
            req("tools/list", meta999, meta=False), err(400, -32020))
        add("header v999, _meta 2026-07-28 -> 400 -32020",
            req("tools/list", extra={"MCP-Protocol-Version": "v999"}),
            err(400, -32020))

        def unsupported(data):
            p = []
            if not isinstance(data, dict):
                return ["error.data %r" % (data,)]
            sup = data.get("supported")
            if not isinstance(sup, list) or PROTO not in sup or \
                    not all(isinstance(s, str) for s in sup):
                p.append("data.supported %r" % (sup,))
            if data.get("requested") != "v999":
                p.append("data.requested %r" % (data.get("requested"),))
            return p

        add("version v999 in header and _meta -> 400 -32022 + data",
            req("tools/list", meta999, meta=False,
                extra={"MCP-Protocol-Version": "v999"}),
            err(400, -32022, data=unsupported))
        add("server/discover with version v999 -> 400 -32022",
            req("server/discover", meta999, meta=False, rid="dv",
                extra={"MCP-Protocol-Version": "v999"}),
            err(400, -32022, data=unsupported))
        # 10. Unknown and removed methods -> 404 -32601.
        for m in ("unknown/method", "initialize", "ping", "logging/setLevel",
                  "resources/subscribe"):
            params = {"level": "info"} if m == "logging/setLevel" else \
                {"uri": "file:///x"} if m == "resources/subscribe" else None
            add("%s -> 404 -32601" % m, req(m, params), err(404, -32601))
        # tools/call params -> -32602 (HTTP 200: not a transport error).
        add("tools/call unknown tool -> 200 -32602",
            req("tools/call", {"name": "nosuch", "arguments": {}},
                name="nosuch"), err(200, -32602))
        add("echo {text: 5} (wrong type) -> 200 -32602",
            req("tools/call", {"name": "echo", "arguments": {"text": 5}},
                name="echo"), err(200, -32602))
        add('echo arguments "x" (not an object) -> 200 -32602',
            req("tools/call", {"name": "echo", "arguments": "x"},
                name="echo"), err(200, -32602))
        add("echo without required text -> 200 -32602",
            req("tools/call", {"name": "echo", "arguments": {}},
                name="echo"), err(200, -32602))
        return cases

    def test_table(self):
        cases = self.table()
        for i, (name, send, judge) in enumerate(cases, 1):
            try:
                rid, r = send()
            except (OSError, http.client.HTTPException) as e:
                R.fail("B%02d %s" % (i, name), "request failed: %r" % e)
                continue
            report("B%02d %s" % (i, name), judge(rid, r), r)
        R.note("%d hostile-request cases" % len(cases))
        R.check(alive(self.h.sup) and len(self.h.workers()) == WORKERS,
                "B workers are all alive after the table",
                "workers %r" % (self.h.workers(),))
        self.discover("after-table", ("B", "after the table"))
        names, p, r = self.list_tools()
        if names is not None and names != TOOLS:
            p.append("tools %r" % (names,))
        report("B tools/list after the table", p, r)
        rid, r = self.tool("echo", {"text": "still here"})
        p = judge_result(r, rid)
        if not p and r.json["result"].get("content") != \
                [{"type": "text", "text": "still here"}]:
            p.append("content %r" % (r.json["result"].get("content"),))
        report("B tools/call echo after the table", p, r)

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
}}
""".format(user=user, d=d, port=free_port()))
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


# ---------------------------------- N: nginx auth_basic and auth_request

AUTH_BASIC_CONF = os.path.join(SRCDIR, "deploy", "nginx", "auth-basic.conf")
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


def run_layer(make, body, label="the wymcp-fcgi log"):
    """The main() of an end-to-end script: options (--builddir, --keep,
    -v), skip (77) without nginx, SIGTERM/SIGHUP as interrupts, then
    h = make(builddir, keep) and body(h); whatever happens, h is stopped
    and cleaned up, sanitizer reports in its logs count as a failure,
    and the last line is "N passed, M failed".  Returns the exit code."""
    global VERBOSE
    ap = argparse.ArgumentParser(
        description=sys.modules["__main__"].__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every response")
    args = ap.parse_args()
    VERBOSE = args.verbose

    nginx = find_nginx()
    if nginx is None:
        print("SKIP: nginx is not installed (Debian: apt-get install "
              "nginx-light)")
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    h = make(args.builddir, args.keep)
    h.nginx_bin = nginx
    interrupted = False
    started = time.monotonic()
    try:
        body(h)
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
            h.stop()
            if h.tmp:
                hits = h.sanitizer_reports()
                R.check(not hits, "no sanitizer reports in " + label,
                        "; ".join(hits[:5]))
            if R.failed:
                h.dump_logs()
        finally:
            h.cleanup()
    R.note("run time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    return 0 if R.failed == 0 else 1


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
