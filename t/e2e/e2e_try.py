#!/usr/bin/env python3
"""e2e_try.py - an installed wymcp-try serving modules built out of tree,
called by the TypeScript SDK v1 and v2 clients.

Usage: e2e_try.py --try PATH --dir DIR [--cache DIR]

Run by t/e2e/e2e_install.sh (the install layer of ./runtests) after it
has installed wymcp into a staging directory and built
deploy/example-module against it: LD_LIBRARY_PATH points at the staged
libraries, PATH at the staged bin (wymcp-try finds the wymcp-fcgi
beside it).  Starts `wymcp-try --principal alice --assign role=deployer
DIR` as a user would (SIGINT as at a terminal), waits for the endpoint
it prints, then

  V2  the TypeScript client v2 (npm @modelcontextprotocol/client,
      pinned as in e2e_sdk_listen.py) lists the tools and calls each one,
      the arguments made from its inputSchema (its required members:
      default, enum, examples, else a value of the type), any question
      answered "accept" with content made from the requested schema;
  V1  the same with the SDK v1 client (npm @modelcontextprotocol/sdk,
      2025-11-25);

checks that every call completes without error (greet exactly: "Hello,
Ada! (asked by alice)"), that both see the same tools, that
transfer_money (when there) wrote one entry per call into the
TRANSFER_LEDGER directory given to wymcp-try, then sends
wymcp-try SIGINT and checks that it exits 130 and leaves nothing: no
nginx, wymcp-fcgi or worker of its, its directory gone, the port
closed.  Before that, what it refuses (exit 2, saying why, leaving
nothing): no nginx, no module, a missing one, an assign that would
break nginx's config, a busy --port.  Node and the clients come from
npm into the cache directory (default _build/sdk-listen, shared with
e2e_sdk_listen.py).

Prints "ok - NAME" or "not ok - NAME: DETAIL" per check and "N passed,
M failed"; exit 0, 1, or 77 without npm.  Python 3 standard library
only.
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
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
from wymcp_e2e import (R, alive, descendants,  # noqa: E402
                       interrupt_try, node_result,
                       try_log_verdict)

PRINCIPAL = "alice"
ASSIGN = ("role", "deployer")	# deploy's role check lets it deploy

# Arguments from a JSON schema: its required members (all of them for
# a question's requested schema), each its default, first enum value,
# first example, else a value of its type.
FILL = r"""
function value(s) {
  if (!s || typeof s !== 'object') return 'x';
  if ('default' in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ('const' in s) return s.const;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  switch (s.type) {
  case 'integer': case 'number':
    return s.minimum ?? (s.exclusiveMinimum !== undefined ?
        s.exclusiveMinimum + 1 : 1);
  case 'boolean': return true;
  case 'array': return [];
  case 'object': return fill(s, false);
  }
  if (s.format === 'date') return '2026-12-01';
  if (s.format === 'email') return 'ada@example.org';
  return 'Ada';
}
function fill(s, all) {
  const o = {};
  const props = (s && s.properties) || {};
  const req = all ? Object.keys(props) : (s && s.required) || [];
  for (const k of req) o[k] = value(props[k]);
  return o;
}
async function run(c, out) {
  out.tools = (await c.listTools()).tools.map(t => t.name);
  out.calls = {};
  for (const t of (await c.listTools()).tools) {
    const args = fill(t.inputSchema, false);
    try {
      const r = await c.callTool({ name: t.name, arguments: args },
          undefined, { timeout: 60000 });
      out.calls[t.name] = { args, result: r };
    } catch (e) {
      out.calls[t.name] = { args, error: String(e) };
    }
  }
  console.log('RESULT ' + JSON.stringify(out));
  await c.close();
  process.exit(0);
}
"""

V2 = r"""
// The TypeScript client v2 (2026-07-28): questions come back as
// input_required results, answered through the same handler.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
const [url] = process.argv.slice(2);
const out = { asked: [] };
const c = new Client({ name: 'wymcp-try-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: {} } });
c.setRequestHandler('elicitation/create', async req => {
  out.asked.push(req.params.message);
  return { action: 'accept', content: fill(req.params.requestedSchema,
      true) };
});
await c.connect(new StreamableHTTPClientTransport(new URL(url)));
out.era = c.getProtocolEra();
""" + FILL + "await run(c, out);\n"

V1 = r"""
// The TypeScript SDK v1 (2025-11-25): questions on the held stream.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
    '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const [url] = process.argv.slice(2);
const out = { asked: [] };
const c = new Client({ name: 'wymcp-try-v1', version: '1.0.0' },
    { capabilities: { elicitation: {} } });
c.setRequestHandler(ElicitRequestSchema, async req => {
  out.asked.push(req.params.message);
  return { action: 'accept', content: fill(req.params.requestedSchema,
      true) };
});
const t = new StreamableHTTPClientTransport(new URL(url));
await c.connect(t);
out.era = t.protocolVersion ?? null;
""" + FILL + "await run(c, out);\n"


def check_calls(name, out):
    R.check("greet" in out.get("tools", []),
            "%s: tools/list has greet (%s)" % (
                name, " ".join(out.get("tools", []))), repr(out)[:600])
    for tool, call in sorted(out.get("calls", {}).items()):
        res = call.get("result") or {}
        text = " ".join(c.get("text", "") for c in res.get("content", [])
                        if isinstance(c, dict))
        what = "%s: tools/call %s %s" % (name, tool,
                                         json.dumps(call.get("args")))
        if tool == "greet":
            R.check(text == "Hello, Ada! (asked by %s)" % PRINCIPAL,
                    what + " answers 'Hello, Ada! (asked by alice)'",
                    repr(call)[:600])
        else:
            R.check("error" not in call and not res.get("isError") and
                    res.get("content"), what + " completes: " +
                    text[:100].replace("\n", " "), repr(call)[:600])
    if out.get("asked"):
        R.note("%s answered: %s" % (name, " | ".join(out["asked"])))


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def exercise(proc, log, t0, node, cache, st):
    """Wait for the endpoint, then the clients; st gets what cleanup
    needs (url, port, tmp, pids)."""
    while time.monotonic() - t0 < 30 and proc.poll() is None:
        log.seek(0)
        text = log.read()
        m = re.search(r"^wymcp-try: endpoint (http://127\.0\.0\.1:"
                      r"(\d+)/mcp)$", text, re.M)
        d = re.search(r"unix:(\S+)/wymcp\.sock", text)
        if m:
            st["url"], st["port"] = m.group(1), int(m.group(2))
            st["tmp"] = d.group(1) if d else None
        # The endpoint line and the Inspector lines after it are
        # separate writes: the last line says it printed them all.
        if m and "Press Ctrl-C to stop." in text:
            break
        time.sleep(0.1)
    log.seek(0)
    text = log.read()
    url = st["url"]
    if not R.check(url is not None, "wymcp-try prints its endpoint",
                   text[-800:]):
        return
    R.note("endpoint %s after %.1f s" % (url, time.monotonic() - t0))
    R.check("npx @modelcontextprotocol/inspector --cli %s --method "
            "tools/list" % url in text,
            "wymcp-try prints the Inspector command", text[-800:])
    pids = st["pids"] = descendants(proc.pid)
    names = sorted(set(n for _, n in pids))
    R.check("nginx" in names and "wymcp-fcgi" in names,
            "wymcp-try runs nginx and wymcp-fcgi (%s)" %
            " ".join("%d %s" % p for p in pids), repr(names))
    try:
        with urllib.request.urlopen(url + "/server-card", timeout=10) as r:
            card = json.load(r)
    except (OSError, ValueError) as e:
        card = {"error": str(e)}
    R.check([x.get("url") for x in card.get("remotes", [])] == [url],
            "GET /mcp/server-card: the server card, naming the endpoint",
            repr(card)[:600])
    outs = {}
    for name, script in (("V2", "try-v2.mjs"), ("V1", "try-v1.mjs")):
        out = node_result(node, cache, script, url, name)
        if out is not None:
            R.note("%s: era %s" % (name, out.get("era")))
            check_calls(name, out)
            outs[name] = out
    if len(outs) == 2:
        R.check(outs["V1"]["tools"] == outs["V2"]["tools"],
                "V1 and V2 see the same tools",
                "%r %r" % (outs["V1"]["tools"], outs["V2"]["tools"]))
    # transfer_money (when the example has it) wrote once per call.
    n = sum(1 for o in outs.values() if "transfer_money" in o["calls"])
    if n:
        entries = os.listdir(st["ledger"])
        R.check(len(entries) == n, "transfer_money wrote %d ledger "
                "entries, one per client" % n, repr(entries))


def refusals(try_, mods, env):
    """What wymcp-try refuses, before it starts anything: exit 2 and a
    line that says why, no directory left."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(16)
    cases = [
        ("no nginx", [mods], {"WYMCP_NGINX": "/nonexistent"},
         "apt install nginx-light"),
        ("no module", [], {}, "no module named"),
        ("a module that is not there", ["nosuch.so"], {},
         "no module nosuch.so"),
        ("an assign that would break nginx's config",
         ["--assign", 'role=x";', mods], {}, "--assign role: no quotes"),
        ("a busy port", ["--port", str(busy.getsockname()[1]), mods], {},
         "is busy"),
    ]
    before = set(f for f in os.listdir(tempfile.gettempdir())
                 if f.startswith("wymcp-try."))
    for what, args, extra, want in cases:
        p = subprocess.run([try_] + args, capture_output=True, text=True,
                           env=dict(env, **extra), timeout=30,
                           stdin=subprocess.DEVNULL)
        R.check(p.returncode == 2 and want in p.stderr,
                "wymcp-try refuses %s: exit 2, '%s'" % (what, want),
                "exit %d: %s" % (p.returncode, p.stderr[-300:]))
    busy.close()
    after = set(f for f in os.listdir(tempfile.gettempdir())
                if f.startswith("wymcp-try."))
    R.check(after <= before, "the refusals leave no directory",
            repr([(f, os.listdir(os.path.join(tempfile.gettempdir(), f)))
                  for f in sorted(after - before)]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--try", dest="try_", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"))
    a = ap.parse_args()
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        return 77
    node = e2e_sdk_listen.provision(a.cache)
    cache = os.path.abspath(a.cache)
    for fname, text in (("try-v2.mjs", V2), ("try-v1.mjs", V1)):
        with open(os.path.join(cache, fname), "w") as f:
            f.write(text)

    log = open(os.path.join(cache, "wymcp-try.log"), "w+")
    # Where the example's transfer_money writes (one entry per call).
    ledger = tempfile.mkdtemp(prefix="wymcp-try-ledger.")
    # Where the example's deploy writes (one record per call).
    queue = tempfile.mkdtemp(prefix="wymcp-try-queue.")
    # NGINX set as wymcp-try's own setting was before 0.5 (and as a
    # user may still set it): nginx must never see it (nginx reads
    # NGINX itself, as inherited sockets, and says "invalid socket
    # number").
    env = dict(os.environ, TRANSFER_LEDGER=ledger, DEPLOY_QUEUE=queue,
               NGINX=shutil.which("nginx") or "/usr/sbin/nginx")
    refusals(a.try_, a.dir, env)
    argv = [a.try_, "--principal", PRINCIPAL, "--assign", "%s=%s" % ASSIGN,
            a.dir]
    R.note("$ " + " ".join(argv))
    t0 = time.monotonic()
    # SIGINT as at a terminal (a shell's background job ignores it).
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, env=env,
                            preexec_fn=lambda: signal.signal(
                                signal.SIGINT, signal.SIG_DFL))
    st = {"url": None, "tmp": None, "pids": [], "ledger": ledger}
    try:
        exercise(proc, log, t0, node, cache, st)
    finally:
        pids, tmp, url = st["pids"], st["tmp"], st["url"]
        if proc.poll() is None:
            pids = pids or descendants(proc.pid)
            interrupt_try(proc)
        else:
            R.fail("wymcp-try runs until SIGINT", "exit %r" % proc.poll())
        left = [p for p in pids if alive(p[0])]
        R.check(pids and not left, "nothing of its is left (%d processes "
                "stopped)" % len(pids), repr(left))
        for p, _ in left:
            os.kill(p, signal.SIGKILL)
        R.check(tmp is not None and not os.path.exists(tmp),
                "its directory %s is removed" % tmp)
        if url:
            R.check(not port_open(st["port"]), "port %d is closed" %
                    st["port"])
        log.seek(0)
        text = log.read()
        R.check("invalid socket number" not in text and
                "NGINX environment" not in text,
                "nginx never sees NGINX (wymcp-try's is WYMCP_NGINX)",
                [ln for ln in text.splitlines() if "NGINX" in ln][:3])
        try_log_verdict(text, 30, detail=False)
        log.close()
        shutil.rmtree(ledger, ignore_errors=True)
        shutil.rmtree(queue, ignore_errors=True)
    print("%d passed, %d failed" % (R.passed, R.failed))
    return 1 if R.failed else 0


if __name__ == "__main__":
    sys.exit(main())
