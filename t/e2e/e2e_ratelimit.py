#!/usr/bin/env python3
"""e2e_ratelimit.py - rate limits (wymcp-fcgi --rate-limit, and the
shipped nginx recipe), through nginx.

Usage: e2e_ratelimit.py [--builddir DIR] [--keep] [--cache DIR]

Starts wymcp-fcgi (4 workers, the examples and echo modules,
--rate-limit 'echo=5/min,burst=3', count_slowly the same,
--rate-limit 'book_room=1/min,burst=1',
--rate-limit '*=100/s', --audit-log, a status page) behind a private
nginx: one server with locations for the principals alice, bob, carol,
dave and an anonymous one, and three serving the shipped
deploy/nginx/wymcp.conf, auth-basic.conf and auth-request.conf (an
identity service stub in nginx: a bearer token names the user), each
with deploy/nginx/ratelimit.conf and ratelimit-server.conf (their rate
lowered to 1r/m, burst 2, so that a test can pass it).  Proves:

  W  wymcp's own: the TypeScript client v2 (pinned as in
     e2e_sdk_listen.py) calls echo as alice: 3 calls, then JSON-RPC
     error -32029 with data.retryAfterMs; over raw HTTP the refusal is
     429 with Retry-After and the same body; bob's echo and alice's
     book_room (another principal, another tool) are unaffected;
  X  12 calls at once of a fresh principal, spread over the 4 workers
     (each admitted one holds its worker a while):
     exactly 3 admitted (one bucket for the instance), each refusal in
     the audit line (outcome rate_limited) and on the status page;
  E  a call under way is never refused: dave's book_room asks its two
     questions while dave's next book_room is refused (1/min), and the
     first completes;
  N  the nginx recipe, keyed on Mcp-Name and the principal the auth
     module established: past its burst, nginx's own 429 with
     Retry-After and a JSON-RPC -32029 body (application/json, not
     HTML); with wymcp.conf the address is the caller, whatever
     credential it sends; with auth-basic.conf alice past her limit is
     refused however she spells her credential, wrong passwords (401)
     spend no one's calls, bob and alice's other tool are unaffected;
     with auth-request.conf the user the service named is the caller
     (erin's second token shares her bucket), frank and erin's other
     tool are unaffected; no "uninitialized variable" warning.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import base64
import hashlib
import json
import os
import sys
import threading

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
import wymcp_e2e			# noqa: E402
import wymcp_observe			# noqa: E402
from wymcp_e2e import R, Client  # noqa: E402
from wymcp_observe import SRCDIR, tools_call  # noqa: E402

DEPLOY = os.path.join(SRCDIR, "deploy", "nginx")
STATUS = "/wymcp-status"

SCRIPT = r"""
// The TypeScript client v2 as alice: echo past its limit, then dave's
// book_room with a second book_room refused while its questions wait.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
const [base] = process.argv.slice(2);
const out = { echo: [] };
// What a refusal looks like to the client v2: an HTTP error (it reads
// no JSON-RPC error out of a 429) whose text is wymcp's JSON-RPC body.
function refusal(e) {
  let body = null;
  try { body = JSON.parse(e.data?.text ?? 'null'); } catch (x) { }
  return { status: e.data?.status ?? null, rpc: body?.error ?? null,
      message: String(e.message ?? e) };
}
async function client(path, caps) {
  const c = new Client({ name: 'rate-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: caps });
  await c.connect(new StreamableHTTPClientTransport(new URL(base + path)));
  return c;
}
const a = await client('/mcp-alice', {});
for (let i = 0; i < 5; i++) {
  try {
    const r = await a.callTool({ name: 'echo', arguments: { text: 'x' } });
    out.echo.push({ ok: r.content?.[0]?.text ?? null });
  } catch (e) { out.echo.push(refusal(e)); }
}
await a.close();
const d = await client('/mcp-dave', { elicitation: {} });
const d2 = await client('/mcp-dave', {});
let asked = 0;
d.setRequestHandler('elicitation/create', async () => {
  asked++;
  if (asked === 1) {
    try {
      await d2.callTool({ name: 'book_room', arguments: { day: 'x' } });
      out.second = 'admitted';
    } catch (e) { out.second = refusal(e); }
    return { action: 'accept', content: { room: 'Cirrus' } };
  }
  return { action: 'accept', content: { people: 2 } };
});
try {
  const r = await d.callTool({ name: 'book_room',
      arguments: { day: '2026-12-31' } });
  out.first = r.content?.[0]?.text ?? null;
} catch (e) { out.first = 'error ' + (e.code ?? String(e)); }
out.asked = asked;
await d.close(); await d2.close();
console.log('RESULT ' + JSON.stringify(out));
process.exit(0);
"""


def location(path, sock, principal=None):
    p = ('\t\t\tfastcgi_param WYMCP_PRINCIPAL "%s";\n' % principal
         if principal else "")
    return """\
		location = {path} {{
			include fastcgi_params;
			fastcgi_param REMOTE_USER "";
{p}			fastcgi_pass unix:{sock};
			fastcgi_keep_conn off;
			fastcgi_buffering off;
			fastcgi_intercept_errors off;
		}}
""".format(path=path, p=p, sock=sock)


class RateHarness(wymcp_observe.Harness):
    def fcgi_args(self):
        return ["--rate-limit", "echo=5/min,burst=3",
                "--rate-limit", "count_slowly=5/min,burst=3",
                "--rate-limit", "book_room=1/min,burst=1",
                "--rate-limit", "*=100/s",
                "--audit-log", self.audit,
                "--status-path", STATUS]

    def start_nginx(self):
        # Four servers: the principals' locations, and the shipped
        # wymcp.conf, auth-basic.conf and auth-request.conf, each with
        # the shipped ratelimit*.conf.
        self.write_common(self.tmp)
        self.nginx, ports = wymcp_e2e.launch_nginx(
            self.nginx_bin, self.tmp, self.nginx_log, 4, self.nginx_conf4)
        self.port, self.port2, self.port_basic, self.port_request = ports
        R.note("nginx %d on 127.0.0.1:%r" % (self.nginx.pid, ports))
        self.nginx_pids.update(wymcp_e2e.children(self.nginx.pid))

    def nginx_conf4(self, ports):
        t, sock = self.tmp, self.sock
        port, port2, port_basic, port_request = ports
        self.recipe_ok = True
        for name, text in deploy_conf(sock, t, port_request):
            with open(os.path.join(t, name), "w") as f:
                f.write(text)
            self.recipe_ok &= wymcp_e2e.DEPLOY_SOCK not in text
        with open(os.path.join(t, "htpasswd"), "w") as f:
            for u, pw in USERS.items():
                f.write("%s:{SHA}%s\n" % (u, base64.b64encode(
                    hashlib.sha1(pw.encode()).digest()).decode()))
        # The shipped recipe, its rate lowered so that a test passes it.
        with open(os.path.join(DEPLOY, "ratelimit.conf")) as f:
            http = f.read()
        with open(os.path.join(DEPLOY, "ratelimit-server.conf")) as f:
            server = f.read()
        self.recipe_ok &= "rate=10r/s;" in http and "burst=20" in server
        with open(os.path.join(t, "rl.conf"), "w") as f:
            f.write(http.replace("rate=10r/s;", "rate=1r/m;"))
        with open(os.path.join(t, "rl-server.conf"), "w") as f:
            f.write(server.replace("burst=20", "burst=2"))
        locs = "".join(location(p, sock, who) for p, who in (
            ("/mcp-alice", "alice"), ("/mcp-bob", "bob"),
            ("/mcp-carol", "carol"), ("/mcp-dave", "dave"),
            ("/mcp", None), (STATUS, None)))
        return wymcp_e2e.nginx_preamble(t) + """\
	include rl.conf;
	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
{locs}	}}
	server {{
		listen 127.0.0.1:{port2};
		server_name localhost;
		include rl-server.conf;
		include wymcp-deploy.conf;
	}}
	server {{
		listen 127.0.0.1:{port_basic};
		server_name localhost;
		include rl-server.conf;
		include auth-basic.conf;
	}}
	# The identity service stub: the bearer token names the user;
	# erin holds two tokens.  (Other users than auth-basic.conf's:
	# the zone is one for every server.)
	map $http_authorization $stub_user {{
		default "";
		"Bearer tok-erin" erin; "Bearer tok-erin2" erin;
		"Bearer tok-frank" frank;
	}}
	server {{
		listen 127.0.0.1:{port_request};
		server_name localhost;
		include rl-server.conf;
		include auth-request.conf;
		location = /stub-auth {{
			if ($stub_user = "") {{
				return 401;
			}}
			add_header X-User $stub_user;
			return 204;
		}}
	}}
}}
""".format(port=port, port2=port2, port_basic=port_basic,
           port_request=port_request, locs=locs)


USERS = {"alice": "wonderland", "bob": "the-builder"}


def deploy_conf(sock, tmp, port_request):
    """The shipped wymcp.conf, auth-basic.conf and auth-request.conf,
    their socket, password file and identity service made this test's:
    [(name, text)]."""
    out = []
    for name, src in (("wymcp-deploy.conf", "wymcp.conf"),
                      ("auth-basic.conf", "auth-basic.conf"),
                      ("auth-request.conf", "auth-request.conf")):
        with open(os.path.join(DEPLOY, src)) as f:
            text = f.read()
        text = text.replace(wymcp_e2e.DEPLOY_SOCK, "unix:" + sock) \
            .replace("/etc/nginx/wymcp.htpasswd",
                     os.path.join(tmp, "htpasswd")) \
            .replace("http://127.0.0.1:9091/auth",
                     "http://127.0.0.1:%d/stub-auth" % port_request)
        out.append((name, text))
    return out


def raw(port, path, name="echo", args=None, headers=None, rid=1):
    return tools_call(port, {"text": "x"} if args is None else args, path,
                      name, rid, headers=headers)


def refusal_ok(r):
    e = (r.json or {}).get("error") or {}
    return (r.status == 429 and (r.header("Retry-After") or "").isdigit()
            and int(r.header("Retry-After")) >= 1 and r.mime ==
            "application/json" and e.get("code") == -32029 and
            isinstance((e.get("data") or {}).get("retryAfterMs"), int) and
            e["data"]["retryAfterMs"] > 0)


def audit_lines(h):
    with open(h.audit) as f:
        return [json.loads(x) for x in f if x.strip()]


def sdk_refusal(e):
    rpc = (e or {}).get("rpc") or {}
    return (e.get("status") == 429 and rpc.get("code") == -32029 and
            (rpc.get("data") or {}).get("retryAfterMs", 0) > 0)


def section_w(h, out):
    echo = out.get("echo", [])
    R.check([("ok" in e) for e in echo] == [True] * 3 + [False] * 2 and
            all(sdk_refusal(e) for e in echo[3:]),
            "W: the client v2: 3 echo calls, then HTTP 429 with the "
            "JSON-RPC error -32029 and data.retryAfterMs (the client v2 "
            "reports a 429 as an HTTP error carrying the body)",
            json.dumps(echo)[:400])
    r = raw(h.port, "/mcp-alice")
    R.check(refusal_ok(r), "W: over HTTP the refusal is 429 with "
            "Retry-After and the JSON-RPC error", r.brief())
    r = raw(h.port, "/mcp-bob")
    R.check(r.status == 200 and "error" not in (r.json or {}),
            "W: another principal's echo is unaffected", r.brief())
    r = raw(h.port, "/mcp-alice", "book_room", {"day": "2026-01-01"})
    R.check(r.status == 200 and "error" not in (r.json or {}),
            "W: another tool of the same principal is unaffected",
            r.brief())


def section_x(h):
    n0 = len(audit_lines(h))
    res = []
    lock = threading.Lock()
    go = threading.Barrier(12)

    # count_slowly holds its worker (2 steps 300 ms apart): while one
    # admitted call runs, the others must be taken by other workers.
    def one(i):
        go.wait()
        r = raw(h.port, "/mcp-carol", "count_slowly",
                {"to": 2, "delay_ms": 300}, rid=i)
        with lock:
            res.append(r)

    ts = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok = [r for r in res if r.status == 200 and "error" not in
          (r.json or {})]
    refused = [r for r in res if refusal_ok(r)]
    lines = [x for x in audit_lines(h)[n0:] if x.get("principal") ==
             "carol"]
    workers = {x.get("worker") for x in lines}
    R.check(len(ok) == 3 and len(refused) == 9,
            "X: 12 calls at once on %d workers: exactly 3 admitted, 9 "
            "refused (one bucket for the instance)" % len(workers),
            "%d ok, %d refused: %r" % (len(ok), len(refused),
                                       [r.status for r in res]))
    R.check(len(workers) >= 2, "X: the calls were served by several "
            "workers", repr(workers))
    R.check(sum(x.get("outcome") == "rate_limited" and
                x.get("code") == -32029 and x.get("status") == 429
                for x in lines) == 9,
            "X: each refusal's audit line says rate_limited, -32029, 429",
            json.dumps(lines[:2])[:300])
    st = Client(h.port).send("GET", STATUS)
    try:
        page = json.loads(st.raw.decode())
    except ValueError:
        page = {}
    got = (page.get("rateLimits") or {}).get("refused")
    R.check(got == 2 + 1 + 9 + 1,
            "X: the status page counts the refusals", repr(page.get(
                "rateLimits")))


def section_e(out):
    R.check(out.get("first") == "Booked Cirrus for 2 on 2026-12-31." and
            sdk_refusal(out.get("second") or {}) and
            out.get("asked") == 2,
            "E: a call under way is never refused: its questions are "
            "answered while a new call of the same tool is refused",
            json.dumps({k: out.get(k) for k in ("first", "second",
                                                "asked")}))


def nginx_refusal(r):
    """nginx's own 429 (the recipe's @wymcp_rate_limited), not
    wymcp's."""
    e = (r.json or {}).get("error") or {}
    return refusal_ok(r) and e.get("message", "").endswith(
        "by the web server")


def admitted(r):
    return r.status == 200 and "error" not in (r.json or {})


def burst(port, path, name, args, headers, n=5):
    """n calls: True for each admitted, "429" for each nginx refusal,
    else the status."""
    got = [raw(port, path, name, args, headers) for _ in range(n)]
    return ([True if admitted(r) else "429" if nginx_refusal(r) else
             r.status for r in got], got)


def section_n(h):
    R.check(h.recipe_ok, "N: the recipe's rate and burst, the snippets' "
            "socket, as the test expects to replace them", "")
    # purge_cache: limited by wymcp only at 100/s ('*'); it answers a
    # client that cannot be asked with a tool error (a result).
    slow = {}
    got, rs = burst(h.port2, "/mcp", "purge_cache", slow, [])
    R.check(got == [True] * 3 + ["429"] * 2 and
            all(r.header("Content-Type") == "application/json" and
                b"<html" not in r.raw for r in rs[3:]),
            "N: wymcp.conf: nginx's limit_req, past its burst: 429 with "
            "Retry-After and a JSON-RPC -32029 body, not HTML",
            "; ".join(r.brief() for r in rs))
    r = raw(h.port2, "/mcp")
    R.check(admitted(r), "N: wymcp.conf: another tool is unaffected",
            r.brief())
    r = raw(h.port2, "/mcp", "purge_cache", slow,
            [("Authorization", "Bearer other")])
    R.check(nginx_refusal(r), "N: wymcp.conf: no one authenticated, the "
            "address is the caller, whatever credential it sends",
            r.brief())


def basic(user, pw=None, scheme="Basic "):
    pw = USERS[user] if pw is None else pw
    return [("Authorization", scheme + base64.b64encode(
        ("%s:%s" % (user, pw)).encode()).decode())]


SLOW = {"to": 1, "delay_ms": 1}


def bearer(tok):
    return [("Authorization", "Bearer " + tok)]


def section_auth(tag, conf, port, bad, who, again, other):
    """An authenticating snippet (`conf' on `port'): the key is the
    principal its auth module established.  Each of `bad' (refused
    credentials), `who' (the caller past the limit), `again' (the same
    caller, otherwise credentialed) and `other' (another principal) is
    (label, headers)."""
    def say(text):
        return "%s: %s: %s" % (tag, conf, text)

    got, rs = burst(port, "/mcp", "purge_cache", {}, bad[1])
    R.check(all(r.status == 401 for r in rs),
            say("%s is refused by the auth module (401), 5 times" %
                bad[0]), "; ".join(r.brief() for r in rs))
    got, rs = burst(port, "/mcp", "purge_cache", {}, who[1])
    R.check(got == [True] * 3 + ["429"] * 2,
            say("%s past the limit on purge_cache: 429 with Retry-After "
                "and a JSON-RPC -32029 body, not HTML" % who[0]),
            "; ".join(r.brief() for r in rs))
    r = raw(port, "/mcp", "purge_cache", {}, again[1])
    R.check(nginx_refusal(r), say("%s with %s is still %s: keyed on the "
                                  "principal, not the credential" %
                                  (who[0], again[0], who[0])), r.brief())
    got, rs = burst(port, "/mcp", "purge_cache", {}, other[1], 3)
    R.check(got == [True] * 3,
            say("%s's purge_cache is unaffected (and the refused "
                "credentials spent none of his calls)" % other[0]),
            "; ".join(r.brief() for r in rs))
    r = raw(port, "/mcp", "count_slowly", SLOW, who[1])
    R.check(admitted(r), say("%s's other tool is unaffected" % who[0]),
            r.brief())


def sections(h, out):
    section_w(h, out)
    section_e(out)
    section_x(h)
    section_n(h)
    section_auth("NB", "auth-basic.conf", h.port_basic,
                 ("a wrong password under bob's name",
                  basic("bob", "wrong")),
                 ("alice", basic("alice")),
                 ("her credential spelt otherwise",
                  basic("alice", scheme="basic   ")),
                 ("bob", basic("bob")))
    section_auth("NR", "auth-request.conf", h.port_request,
                 ("an unknown token", bearer("tok-nobody")),
                 ("erin", bearer("tok-erin")),
                 ("her other token", bearer("tok-erin2")),
                 ("frank", bearer("tok-frank")))
    log = wymcp_e2e.tail(h.nginx_log, 400)
    R.check(not [x for x in log if "uninitialized" in x],
            "N: nginx warns of no uninitialized variable",
            "; ".join(x for x in log if "uninitialized" in x)[:300])


if __name__ == "__main__":
    sys.exit(wymcp_observe.main(RateHarness, sections, "ratelimit.mjs",
                                SCRIPT, e2e_sdk_listen.provision))
