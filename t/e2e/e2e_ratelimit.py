#!/usr/bin/env python3
"""e2e_ratelimit.py - rate limits (wymcp-fcgi --rate-limit, and the
shipped nginx recipe), through nginx.

Usage: e2e_ratelimit.py [--builddir DIR] [--keep] [--cache DIR]

Starts wymcp-fcgi (4 workers, the examples and echo modules,
--rate-limit 'echo=5/min,burst=3', count_slowly the same,
--rate-limit 'book_room=1/min,burst=1',
--rate-limit '*=100/s', --audit-log, a status page) behind a private
nginx: one server with locations for the principals alice, bob, carol,
dave and an anonymous one, and one serving the shipped
deploy/nginx/wymcp.conf with deploy/nginx/ratelimit.conf and
ratelimit-server.conf (their rate lowered to 1r/m, burst 2, so that a
test can pass it).  Proves:

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
  N  the nginx recipe: past its burst, nginx's own 429 with
     Retry-After and a JSON-RPC -32029 body (application/json, not
     HTML); another credential and another tool are unaffected.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import json
import os
import shutil
import subprocess
import sys
import threading

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
import wymcp_e2e			# noqa: E402
from wymcp_e2e import R, Client, enc, hlist, std_headers  # noqa: E402

SRCDIR = os.path.dirname(os.path.dirname(HERE))
DEPLOY = os.path.join(SRCDIR, "deploy", "nginx")
STATUS = "/wymcp-status"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}

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


class RateHarness(wymcp_e2e.Harness):
    def __init__(self, builddir, keep=False):
        wymcp_e2e.Harness.__init__(self, builddir, keep)
        self.nworkers = 4
        self.tools = ["examples", "echo"]

    def start_fcgi(self):
        self.audit = os.path.join(self.tmp, "audit.log")
        os.environ["WYMCP_NOTES_DIR"] = self.tmp
        self.extra_args = ["--rate-limit", "echo=5/min,burst=3",
                           "--rate-limit", "count_slowly=5/min,burst=3",
                           "--rate-limit", "book_room=1/min,burst=1",
                           "--rate-limit", "*=100/s",
                           "--audit-log", self.audit,
                           "--status-path", STATUS]
        wymcp_e2e.Harness.start_fcgi(self)

    def nginx_conf(self, sock, port, port2):
        t = self.tmp
        with open(wymcp_e2e.DEPLOY_CONF) as f:
            deploy = f.read().replace(wymcp_e2e.DEPLOY_SOCK, "unix:" + sock)
        with open(os.path.join(t, "wymcp-deploy.conf"), "w") as f:
            f.write(deploy)
        # The shipped recipe, its rate lowered so that a test passes it.
        with open(os.path.join(DEPLOY, "ratelimit.conf")) as f:
            http = f.read()
        with open(os.path.join(DEPLOY, "ratelimit-server.conf")) as f:
            server = f.read()
        self.recipe_ok = "rate=10r/s;" in http and "burst=20" in server
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
}}
""".format(port=port, port2=port2, locs=locs)


def raw(port, path, name="echo", args=None, headers=None, rid=1):
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name,
                       "arguments": args if args is not None else
                       {"text": "x"}, "_meta": META}}
    h = hlist(std_headers("tools/call", name)) + list(headers or [])
    return Client(port).send("POST", path, enc(body), h)


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


def section_n(h):
    R.check(h.recipe_ok, "N: the recipe's rate and burst are as the "
            "test expects to lower them", "")
    # purge_cache: limited by wymcp only at 100/s ('*'); it answers a
    # client that cannot be asked with a tool error (a result).
    slow = {}
    got = [raw(h.port2, "/mcp", "purge_cache", slow) for _ in range(5)]
    ok = [r for r in got if r.status == 200 and "error" not in
          (r.json or {})]
    refused = [r for r in got if refusal_ok(r)]
    R.check(len(ok) == 3 and len(refused) == 2 and
            all(r.header("Content-Type", ) == "application/json"
                for r in refused),
            "N: nginx's limit_req: past its burst, 429 with Retry-After "
            "and a JSON-RPC -32029 body, not HTML",
            "; ".join(r.brief() for r in got))
    r = raw(h.port2, "/mcp", "purge_cache", slow,
            [("Authorization", "Bearer other")])
    R.check(r.status == 200 and "error" not in (r.json or {}),
            "N: another credential is unaffected", r.brief())
    r = raw(h.port2, "/mcp")
    R.check(r.status == 200 and "error" not in (r.json or {}),
            "N: another tool is unaffected", r.brief())


def body(h):
    cache = wymcp_e2e.ARGS.cache
    node = e2e_sdk_listen.provision(cache)
    with open(os.path.join(cache, "ratelimit.mjs"), "w") as f:
        f.write(SCRIPT)
    h.paths()
    h.start()
    base = "http://127.0.0.1:%d" % h.port
    p = subprocess.run([node, "ratelimit.mjs", base], cwd=cache,
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=120)
    res = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    out = json.loads(res[0][7:]) if res else {}
    if not res:
        R.note("client: " + (p.stdout + p.stderr)[-600:])
    section_w(h, out)
    section_e(out)
    section_x(h)
    section_n(h)


def options(ap):
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"))


if __name__ == "__main__":
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        sys.exit(77)
    sys.exit(wymcp_e2e.run_layer(RateHarness, body, options=options))
