"""wymcp_e2e - what the end-to-end scripts share: a private nginx in front
of wymcp-fcgi (its preamble, its fastcgi_params, the locations that
serve wymcp, the shipped deploy/nginx/wymcp.conf), a run's world and how
it ends, an HTTP client, a reader of raw responses, the pinned clients'
results, the judges of a response, section B's table of hostile
requests, and run_layer(), the main() of a script.

It also speaks FastCGI itself, for the tests that must see what a web
server would (fcgi_request() and its pieces).

Imported by t/e2e/e2e*.py, t/conformance/run.py and inspector.py, which
find it through PYTHONPATH=t/e2e/lib (the make targets set it).  The
tests themselves live in those scripts; the Tests class here holds what
they reuse against other servers (e2e_apache.py runs section B through
Apache).  Python 3 standard library only.
"""

import argparse
import http.client
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

import wymcp_schema

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
    os.path.dirname(os.path.abspath(__file__)))))
DEPLOY_CONF = os.path.join(SRCDIR, "deploy", "nginx", "wymcp.conf")
DEPLOY_SOCK = "unix:/run/wymcp/wymcp.sock"
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                   "runtime error:", "ERROR: UndefinedBehaviorSanitizer")



def backend_env(builddir):
    """Point $WYMCP_BACKEND_DIR at the task store's back ends of the
    build tree (src/store/.libs: sqlite.so, pg.so), which every
    wymcp-fcgi started from here loads, unless it is set already."""
    os.environ.setdefault("WYMCP_BACKEND_DIR", os.path.join(
        os.path.abspath(builddir), "src", "store", ".libs"))


def _argv_builddir(argv):
    """The value of --builddir in argv, or "." (the scripts' default)."""
    for i, a in enumerate(argv):
        if a == "--builddir" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--builddir="):
            return a.split("=", 1)[1]
    return "."


# Every script takes --builddir: its back ends, before anything starts.
backend_env(_argv_builddir(sys.argv))

BACKENDS = {"sqlite": ("WITH_SQLITE", "SQLite", "--without-sqlite"),
            "postgresql": ("WITH_POSTGRESQL", "PostgreSQL",
                           "--without-postgresql")}


def built_without(what, builddir=None):
    """Why the build (builddir, or --builddir's) cannot run a test that
    needs the task store's back end `what` ("sqlite", "postgresql"):
    "this wymcp was built without SQLite (configure --without-sqlite)",
    or None when it has it (config.h says WITH_SQLITE, WITH_POSTGRESQL)."""
    macro, name, switch = BACKENDS[what]
    path = os.path.join(builddir or _argv_builddir(sys.argv), "config.h")
    try:
        with open(path, encoding="utf-8") as f:
            if re.search(r"^#define %s 1$" % macro, f.read(), re.M):
                return None
    except OSError:
        return None		# no config.h: let the test find out
    return "this wymcp was built without %s (configure %s)" % (name,
                                                                 switch)


def wrap_argv(argv):
    """argv behind the words of $WYMCP_E2E_WRAP (shell-split), the
    prefix make check-valgrind uses to run wymcp-fcgi under valgrind
    through libtool --mode=execute; argv unchanged when it is unset."""
    return shlex.split(os.environ.get("WYMCP_E2E_WRAP", "")) + list(argv)


# What nginx's fastcgi_params carries, written inline so the test does not
# depend on /etc/nginx (write_fastcgi_params() writes it).  HTTP_HOST is
# deliberately not set: nginx then passes the client's Host header
# through unchanged (with its port).
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


def number(v):
    """Whether a decoded JSON value is a number: an int or a float (a
    whole number has no fraction on the wire and loads as an int), not
    a bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("latin-1")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def comm(pid):
    """A process's name (/proc/PID/comm), or "" once it is gone."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def workers_of(sup):
    """A supervisor's children but its hub (comm "wymcp-hub"): the
    workers and task runners."""
    return [p for p in children(sup) if comm(p) != "wymcp-hub"]


def children(pid, table=None):
    table = proc_table() if table is None else table
    return sorted(p for p, (pp, st, _) in table.items()
                  if pp == pid and st != "Z")


def descendants(pid):
    """pid's live descendants, from /proc: (pid, comm) pairs, parents
    before their children."""
    table = proc_table()
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        for q, (pp, st, name) in table.items():
            if pp == p and st != "Z":
                found.append((q, name))
                todo.append(q)
    return found


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


# wymcp-fcgi's log lines: (pid, level, request id or None, message),
# found wherever they start (Apache's error log puts its own prefix).
LOG_RE = re.compile(r"wymcp-fcgi\[(\d+)\]: (error|warning|info|debug): "
                    r"(?:\[id (.*?)\] )?(.*)$")


def log_entries(path):
    """[(pid, level, reqid or None, message)] of the wymcp-fcgi lines in
    the log at path, wymcp-fcgi's own or Apache's error log ([] when it
    cannot be read)."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        m = LOG_RE.search(line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3),
                        m.group(4)))
    return out


def wait_log(entries, pred, timeout=5.0, least=1):
    """Poll entries() until at least `least` entries match pred: the
    matches (fewer after the timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        hits = [e for e in entries() if pred(e)]
        if len(hits) >= least or time.monotonic() > deadline:
            return hits
        time.sleep(0.02)


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


def need_built(*paths, hint=""):
    """Raise Failed naming those of `paths' that do not exist."""
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise Failed("not built%s: %s" % (hint, ", ".join(missing)))


def nginx_preamble(tmp, user=None, conns=256, access_log="off"):
    """The head of a private nginx's configuration, as text: its user
    (`user' names one; None: root when run as root, else none), one
    worker with `conns' worker_connections, the PID file, error log
    (notice) and the five temporary directories in `tmp', and the
    opening of the http block with `access_log'.  The caller adds its
    servers and the closing brace."""
    if user is None:
        user = "root" if os.geteuid() == 0 else ""
    return """\
{user}worker_processes 1;
pid {t}/nginx.pid;
error_log {t}/nginx-error.log notice;
events {{ worker_connections {conns}; }}
http {{
	access_log {log};
	client_body_temp_path {t}/client_body;
	fastcgi_temp_path {t}/fastcgi_temp;
	proxy_temp_path {t}/proxy_temp;
	scgi_temp_path {t}/scgi_temp;
	uwsgi_temp_path {t}/uwsgi_temp;
""".format(user="user %s;\n" % user if user else "", t=tmp, conns=conns,
           log=access_log)


def launch_nginx(nginx_bin, tmp, errlog, nports, conf_text,
                 conf_name="nginx.conf"):
    """Start nginx (in the foreground, prefix tmp) on `nports' free
    loopback ports: conf_text(ports) gives its configuration.  Waits up
    to 15 s until every port answers; a port another process took
    meanwhile is retried with new ones (8 attempts).  Returns (Popen,
    ports); raises Failed, with the end of its logs, when it does not
    start."""
    conf = os.path.join(tmp, conf_name)
    out_path = os.path.join(tmp, "nginx.out")
    for _ in range(8):
        ports = [free_port() for _ in range(nports)]
        if len(set(ports)) != nports:
            continue
        with open(conf, "w") as f:
            f.write(conf_text(ports))
        with open(out_path, "ab") as out:
            proc = subprocess.Popen(
                [nginx_bin, "-p", tmp + "/", "-c", conf, "-e", errlog,
                 "-g", "daemon off;"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                for port in ports:
                    socket.create_connection(("127.0.0.1", port),
                                             1).close()
                return proc, ports
            except OSError:
                time.sleep(0.05)
        log = "\n".join(tail(errlog, 10) + tail(out_path, 10))
        stop_pid(proc.pid, proc, 5)
        if "in use" not in log:
            raise Failed("nginx did not start: " + log)
    raise Failed("nginx: no free port after 8 attempts")


def find_nginx():
    for cand in ("/usr/sbin/nginx", shutil.which("nginx")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


# ------------------------------------------- nginx: what serves wymcp
#
# The pieces of an nginx configuration every script writes the same
# way: the fastcgi_params file its locations include, a location that
# serves wymcp-fcgi as deploy/nginx/wymcp.conf's does, and the shipped
# file itself with the socket of the test.

def write_fastcgi_params(confdir):
    """Write confdir/fastcgi_params (FASTCGI_PARAMS: what Debian's
    /etc/nginx/fastcgi_params carries, which deploy/nginx/wymcp.conf
    includes, but HTTP_HOST), the file every location of
    wymcp_location() includes.  Returns its path."""
    os.makedirs(confdir, exist_ok=True)
    path = os.path.join(confdir, "fastcgi_params")
    with open(path, "w") as f:
        f.write(FASTCGI_PARAMS)
    return path


def wymcp_location(path, target, params=(), blank_user=True,
                   buffering=False, read_timeout=None, extra=""):
    """The text of an nginx location (`location = path`, at a server
    block's indent) passing to wymcp-fcgi at `target' (fastcgi_pass's
    argument: "unix:/path", "127.0.0.1:9000", an upstream's name) as
    deploy/nginx/wymcp.conf's location = /mcp does: the fastcgi_params
    include (write_fastcgi_params()); with blank_user, REMOTE_USER ""
    after it (the shipped block's blanking of $remote_user); one
    FastCGI connection a request; responses passed as written (with
    buffering, nginx's default buffering instead, as a location
    without that line has it); wymcp's own error bodies kept.  Then
    fastcgi_read_timeout `read_timeout' when given, a fastcgi_param
    line for each (name, value) of `params' (value as nginx reads it:
    '"alice"', '$request_id'), and `extra', directive lines ending in
    a newline."""
    lines = ["location = %s {" % path, "\tinclude fastcgi_params;"]
    if blank_user:
        lines.append('\tfastcgi_param REMOTE_USER "";')
    lines += ["\tfastcgi_pass %s;" % target, "\tfastcgi_keep_conn off;"]
    if not buffering:
        lines.append("\tfastcgi_buffering off;")
    lines.append("\tfastcgi_intercept_errors off;")
    if read_timeout is not None:
        lines.append("\tfastcgi_read_timeout %s;" % read_timeout)
    lines += ["\tfastcgi_param %s %s;" % p for p in params]
    text = "".join("\t\t%s\n" % line for line in lines)
    return text + extra + "\t\t}\n"


def instance_locations(where):
    """For each instance of `where' (name -> fastcgi_pass target), in
    the order of the names: /NAME, serving it, and /NAME-status, its
    status page (--status-path /NAME-status) as nginx passes it by
    default (buffered); no REMOTE_USER blanking."""
    return "".join(
        wymcp_location("/" + n, w, blank_user=False) +
        wymcp_location("/%s-status" % n, w, blank_user=False,
                       buffering=True)
        for n, w in sorted(where.items()))


def write_deploy_conf(confdir, sock, name="wymcp-deploy.conf"):
    """Write deploy/nginx/wymcp.conf as shipped into confdir/name, its
    socket (/run/wymcp/wymcp.sock) replaced by `sock' (a path), for a
    server block to include.  Returns the name."""
    with open(DEPLOY_CONF) as f:
        text = f.read().replace(DEPLOY_SOCK, "unix:" + sock)
    with open(os.path.join(confdir, name), "w") as f:
        f.write(text)
    return name


# ------------------------------------------------- clients: node scripts

def node_result(node, cache, script, url, name, timeout=180):
    """Run the client `script' (in `cache', where its packages are)
    with `node' against url; the object of its "RESULT {json}" line,
    or None after a failure named `name': "the client finishes"."""
    try:
        p = subprocess.run([node, script, url], cwd=cache,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        R.fail("%s: the client finishes" % name,
               "no exit after %d s" % timeout)
        return None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    R.fail("%s: the client finishes" % name, "exit %d: %s %s" % (
        p.returncode, p.stdout[-600:], p.stderr[-600:]))
    return None


class RawReader:
    """A response read from a raw socket as it comes (a listen stream,
    an SSE body): the subclass connects self.s, sets self.buf = b""
    and self.eof = False, and takes what self.buf holds in _parse()."""

    def pump(self, timeout):
        """Read what comes within `timeout' s."""
        end = time.monotonic() + timeout
        while not self.eof:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.s], [], [], left)
            if not r:
                break
            try:
                b = self.s.recv(65536)
            except OSError:
                b = b""
            if not b:
                self.eof = True
                break
            self.buf += b
            self._parse()
        self._parse()

    def wait(self, pred, timeout=5):
        """Read until pred(self) holds, the peer closes, or `timeout' s:
        pred(self) then."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and not self.eof:
            if pred(self):
                return True
            self.pump(min(0.2, max(0.01, end - time.monotonic())))
        return pred(self)

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def interrupt_try(proc):
    """Ctrl-C to a running wymcp-try (Popen proc): SIGINT, then check
    "SIGINT stops wymcp-try: exit 130" within 30 s (killed after)."""
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
        proc.kill()
        proc.wait()
    R.check(rc == 130, "SIGINT stops wymcp-try: exit 130", "exit %r" % rc)


def try_log_verdict(text, tail_lines, detail=True):
    """Judge wymcp-try's log (`text'): "no sanitizer report" (ASan's
    and UBSan's, with the log's end as the detail unless not
    `detail'), and after any failure its last `tail_lines' lines as
    notes."""
    R.check("ERROR: AddressSanitizer" not in text and
            "runtime error:" not in text, "no sanitizer report",
            text[-2000:] if detail else "")
    if R.failed:
        for line in text.splitlines()[-tail_lines:]:
            R.note("wymcp-try: " + line)


# --------------------------------------------------------------- FastCGI

FCGI_BEGIN, FCGI_END, FCGI_PARAMS, FCGI_STDIN, FCGI_STDOUT = 1, 3, 4, 5, 6


def fcgi_record(rtype, content=b"", rid=1):
    """One FastCGI record (no padding)."""
    return struct.pack("!BBHHBx", 1, rtype, rid, len(content), 0) + content


def fcgi_params(params):
    """A dict as the name-value pairs of FCGI_PARAMS."""
    out = b""
    for k, v in params.items():
        k, v = k.encode(), v.encode()
        for n in (len(k), len(v)):
            out += bytes([n]) if n < 128 else struct.pack("!I", n | 1 << 31)
        out += k + v
    return out


def fcgi_head(params, keep=False):
    """BEGIN_REQUEST (responder; FCGI_KEEP_CONN with keep) and the
    params, ended: what a web server sends before the body."""
    return (fcgi_record(FCGI_BEGIN, struct.pack("!HB5x", 1,
                                                1 if keep else 0)) +
            fcgi_record(FCGI_PARAMS, fcgi_params(params)) +
            fcgi_record(FCGI_PARAMS))


def fcgi_request(params, body, keep=False):
    """A whole request: head, the body in records of at most 65535
    bytes, the empty record that ends stdin."""
    out = fcgi_head(params, keep)
    for i in range(0, len(body), 65535):
        out += fcgi_record(FCGI_STDIN, body[i:i + 65535])
    return out + fcgi_record(FCGI_STDIN)


def mcp_params(method, name=None, body=b"", extra=None):
    """The params nginx would pass for a 2026-07-28 POST of body."""
    p = {"REQUEST_METHOD": "POST", "CONTENT_TYPE": "application/json",
         "CONTENT_LENGTH": str(len(body)), "HTTP_HOST": "localhost",
         "HTTP_ACCEPT": "application/json, text/event-stream",
         "HTTP_MCP_PROTOCOL_VERSION": PROTO, "HTTP_MCP_METHOD": method,
         "SERVER_NAME": "localhost", "SCRIPT_NAME": "/mcp",
         "REQUEST_URI": "/mcp", "SERVER_PROTOCOL": "HTTP/1.1"}
    if name is not None:
        p["HTTP_MCP_NAME"] = name
    p.update(extra or {})
    return p


def fcgi_response(s):
    """Read records from socket s up to END_REQUEST; the stdout bytes,
    or None when the connection ended (or reset) before it."""
    buf, out = b"", b""
    while True:
        while len(buf) >= 8:
            _, rtype, _, clen, pad = struct.unpack("!BBHHBx", buf[:8])
            if len(buf) < 8 + clen + pad:
                break
            if rtype == FCGI_STDOUT:
                out += buf[8:8 + clen]
            buf = buf[8 + clen + pad:]
            if rtype == FCGI_END:
                return out
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            return None
        if not b:
            return None
        buf += b


def cgi_status(out):
    """The status of a CGI response head (200 when it names none)."""
    m = re.search(rb"^Status: (\d+)", out or b"", re.M)
    return int(m.group(1)) if m else 200


# ------------------------------------------------------------------ HTTP

class HeaderList:
    """A response's header lines (self.headers, [(name, value)]) looked
    up by name, case-insensitively."""

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    @property
    def mime(self):
        ct = self.header("Content-Type")
        return None if ct is None else ct.split(";")[0].strip().lower()


class Resp(HeaderList):
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
            resp = Resp(r.status, r.getheaders(), raw)
        finally:
            conn.close()
        schema_check(body, headers, resp)
        return resp


def schema_check(body, headers, resp):
    """Every response is checked against the schema of the revision its
    request spoke (wymcp_schema.py): a failure of its own when not."""
    probs, rev = wymcp_schema.check_exchange(body, headers, resp)
    if rev is None:
        if not wymcp_schema.C.ready and not schema_check.noted:
            schema_check.noted = True
            R.note("responses not checked against schema.json: %s" %
                   wymcp_schema.C.why)
        return
    if probs:
        try:
            method = json.loads(body).get("method")
        except (ValueError, AttributeError, TypeError):
            method = None
        R.fail("%s response to %s matches schema.json" % (rev, method),
               "; ".join(probs) + " -- " + resp.brief())


schema_check.noted = False


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
            return "whitespace at offset %d: %r" % (
                i, text[max(0, i - 20):i + 20])
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


# ------------------------------------------- the harness: a run's world

def sanitizer_lines(path, n=1000000):
    """The lines among the last n of the log at path that carry a
    sanitizer's report (SANITIZER_MARKS), stripped."""
    return [ln.strip() for ln in tail(path, n)
            if any(m in ln for m in SANITIZER_MARKS)]


class World:
    """What a script's run holds (Harness and the scripts' own worlds):
    the build directory, a temporary directory (self.tmp), nginx
    (self.nginx, its Popen; self.nginx_pids, its workers), and how it
    ends: nginx stopped, the tails of the logs printed, the directory
    removed, or kept with --keep."""

    def __init__(self, builddir, keep=False):
        self.builddir = os.path.abspath(builddir)
        self.keep = keep
        self.tmp = None
        self.nginx = None
        self.nginx_bin = None
        self.nginx_pids = set()

    def stop_nginx(self):
        if self.nginx is None:
            return
        self.nginx_pids.update(children(self.nginx.pid))
        stop_pid(self.nginx.pid, self.nginx, 10)
        for pid in sorted(self.nginx_pids):
            if alive(pid):
                stop_pid(pid, None, 2)
        self.nginx = None

    def print_tails(self, paths, n=40):
        """The last n lines of each log (path, or (title, path))."""
        if not self.tmp:
            return
        for path in paths:
            title, path = path if isinstance(path, tuple) else (None, path)
            print("# ---- tail of %s" % (path if title is None else
                                         "%s (%s)" % (title, path)))
            for line in tail(path, n):
                print("#   " + line)

    def cleanup(self):
        if self.tmp and not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            R.note("kept %s" % self.tmp)


class LogWatch:
    """Reading a wymcp-fcgi's log (self.log) as it grows."""

    def entries(self):
        """[(pid, level, reqid or None, message)] of the log."""
        return log_entries(self.log)

    def wait_for(self, pred, timeout=5.0, least=1):
        """The log's entries that match pred, once there are at least
        `least` (fewer after the timeout)."""
        return wait_log(self.entries, pred, timeout, least)


# ----------------------------------------------------------- the harness

class Harness(World):
    status_path = None	# where nginx_conf() serves the status page

    def __init__(self, builddir, keep=False):
        World.__init__(self, builddir, keep)
        self.fcgi = None
        self.sup = None
        self.port = None
        self.port2 = None
        self.seen_pids = set()
        # What a script may change before start(): the pool size, the
        # bundled modules loaded and further options.
        self.nworkers = WORKERS
        self.tools = TOOLS
        self.extra_args = []

    # -- setup

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in self.tools]
        need_built(self.prog, *self.mods)

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
                "--workers", str(self.nworkers), "--max-body", str(MAX_BODY)]
        for m in self.mods:
            argv += ["--module", m]
        argv = wrap_argv(argv + list(self.extra_args))
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
            if len(self.workers()) >= self.nworkers:
                break
            if time.monotonic() > deadline:
                raise Failed("supervisor %d has workers %r, want %d" %
                             (self.sup, self.workers(), self.nworkers))
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
        """The supervisor's children but the hub (comm "wymcp-hub"),
        which holds listen streams and takes no FastCGI connection."""
        self.seen_pids.update(children(self.sup))
        return workers_of(self.sup)

    def hub(self):
        """The hub's PID, or None."""
        kids = children(self.sup)
        self.seen_pids.update(kids)
        return next((p for p in kids if comm(p) == "wymcp-hub"), None)

    def nginx_conf(self, sock, port, port2):
        t = self.tmp
        deploy = write_deploy_conf(t, sock)
        target = "unix:" + sock
        locs = (wymcp_location("/mcp", target, [
                    ("WYMCP_ASSIGN_ROLE", '"tester"'),
                    ("WYMCP_ASSIGN_TENANT", '"acme"'),
                    ("WYMCP_PRINCIPAL", '"alice"')]) +
                wymcp_location("/mcp-narrow", target,
                               [("WYMCP_TOOLS", '"help echo"')]) +
                self.more_locations(target) +
                wymcp_location("/mcp-anon", target) +
                "\t\t# A param given twice (deploy/README, deploy/nginx): "
                "nginx sends\n"
                "\t\t# both, in order, and wymcp reads the last; a header "
                "param\n"
                "\t\t# given twice is a repeated header.\n" +
                wymcp_location("/mcp-twice", target, [
                    ("WYMCP_PRINCIPAL", '"first"'),
                    ("WYMCP_PRINCIPAL", '"second"')]) +
                wymcp_location("/mcp-twice-header", target, [
                    ("HTTP_MCP_METHOD", "$http_mcp_method"),
                    ("HTTP_MCP_METHOD", "$http_mcp_method")]))
        return nginx_preamble(t) + """\
	# Let header names with underscores through, so the smuggling
	# tests can try WYMCP_PRINCIPAL-style names too.
	underscores_in_headers on;

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		# Larger than --max-body: wymcp must refuse by itself.
		client_max_body_size 1m;

{locs}	}}

	# The deploy/nginx/wymcp.conf location block, as shipped.
	server {{
		listen 127.0.0.1:{port2};
		server_name localhost;
		include {deploy};
	}}
}}
""".format(port=port, port2=port2, locs=locs, deploy=deploy)

    def write_common(self, confdir):
        write_fastcgi_params(confdir)

    def more_locations(self, target):
        """Locations a subclass adds to nginx_conf()'s server (wymcp-fcgi
        at target): by default, with status_path set, wymcp-fcgi's
        status page there (--status-path), as nginx passes it by
        default (buffered, $remote_user as it is)."""
        if self.status_path is None:
            return ""
        return wymcp_location(self.status_path, target, blank_user=False,
                              buffering=True)

    def start_nginx(self):
        self.write_common(self.tmp)
        self.nginx, (self.port, self.port2) = launch_nginx(
            self.nginx_bin, self.tmp, self.nginx_log, 2,
            lambda ports: self.nginx_conf(self.sock, *ports))
        R.note("nginx %d on 127.0.0.1:%d and :%d" %
               (self.nginx.pid, self.port, self.port2))
        self.nginx_pids.update(children(self.nginx.pid))

    # -- teardown

    def stop(self):
        self.stop_nginx()
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

    def dump_logs(self):
        self.print_tails([("wymcp-fcgi log", self.fcgi_log),
                          ("nginx error log", self.nginx_log)])

    def sanitizer_reports(self):
        return sanitizer_lines(self.fcgi_log, 100000)


# ----------------------------------------------------------------- tests

class Tests:
    """Requests through the harness's nginx, the helpers every section
    uses and section B, e2e.py's table of hostile requests (e2e_apache.py
    runs it through Apache).  The scripts add their own sections in a
    subclass."""

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

    # -- discover, tools/list, whoami: for every section

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
        R.check(alive(self.h.sup) and
                len(self.h.workers()) == self.h.nworkers,
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


ARGS = None		# run_layer()'s parsed options, for the scripts


def run_layer(make, body, label="the wymcp-fcgi log", options=None):
    """The main() of an end-to-end script: options (--builddir, --keep,
    -v, and those options(parser) adds; parsed into ARGS), skip (77)
    without nginx, SIGTERM/SIGHUP as interrupts, then
    h = make(builddir, keep) and body(h); whatever happens, h is stopped
    and cleaned up, sanitizer reports in its logs count as a failure,
    and the last line is "N passed, M failed".  Returns the exit code."""
    global VERBOSE, ARGS
    ap = argparse.ArgumentParser(
        description=sys.modules["__main__"].__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every response")
    if options is not None:
        options(ap)
    args = ap.parse_args()
    VERBOSE = args.verbose
    ARGS = args

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
