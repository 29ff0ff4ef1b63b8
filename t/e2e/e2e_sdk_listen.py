#!/usr/bin/env python3
"""e2e_sdk_listen.py - the official TypeScript clients on listen streams.

Usage: e2e_sdk_listen.py [--builddir DIR] [--keep] [--cache DIR]

Provisions Node >= 22 and, pinned, the TypeScript client v2
(@modelcontextprotocol/client) and SDK v1 (@modelcontextprotocol/sdk)
from npm into a cache directory (default _build/sdk-listen), starts
wymcp-fcgi (two workers, the examples module from a module directory,
a status page) behind a private nginx, and proves, as the clients see
it:

  V2  a client listen()s to note://a and toolsListChanged: the honoured
      filter comes back (versionNegotiation 'auto': 2026-07-28); a
      write_note by another client (another
      connection, any worker) arrives as notifications/resources/updated
      with the subscription id; echo.so dropped into the module
      directory and SIGHUP: tools/list_changed arrives, the client's
      ClientOptions.listChanged auto-opened stream refreshes the tool
      list with echo in it, and listTools() lists it; close() ends the
      subscription ('local') and frees its slot on the hub (status
      page);
  V1  a 2025-11-25 client (SDK v1): its GET stream is held by the hub;
      after resources/subscribe, a write_note by another client arrives
      as notifications/resources/updated, and echo.so taken away with
      SIGHUP as notifications/tools/list_changed.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_conformance
import wymcp_e2e
from wymcp_e2e import R, Client
from wymcp_listen import STATUS, HubHarness

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
V2_PKG, V2_VERSION = "@modelcontextprotocol/client", "2.4.0"
V1_PKG, V1_VERSION = "@modelcontextprotocol/sdk", "1.32.2"
NODE_PKG, NODE_MAJOR = wymcp_conformance.NODE_PKG, wymcp_conformance.NODE_MAJOR

V2 = r"""
// The TypeScript client v2 on a listen stream; the harness (Python)
// acts between the steps it prints ("STEP name"), then says go.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
import * as readline from 'node:readline';
const [url] = process.argv.slice(2);
const out = { seen: [], auto: [] };
const lines = readline.createInterface({ input: process.stdin })
    [Symbol.asyncIterator]();
async function step(name) { console.log('STEP ' + name);
    await lines.next(); }
const modern = { mode: 'auto' };
const a = new Client({ name: 'sdk-listen-a', version: '1.0.0' }, {
  versionNegotiation: modern,
  listChanged: { tools: { onChanged: (err, tools) => {
    out.auto.push(err ? String(err) : tools.map(t => t.name)); } } } });
a.setNotificationHandler('notifications/resources/updated', n => {
  out.seen.push(['updated', n.params.uri, n.params._meta ?? null]); });
await a.connect(new StreamableHTTPClientTransport(new URL(url)));
out.era = a.getProtocolEra();
const sub = await a.listen({ resourceSubscriptions: ['note://a'],
    toolsListChanged: true });
out.honored = sub.honoredFilter;
const b = new Client({ name: 'sdk-listen-b', version: '1.0.0' },
    { versionNegotiation: modern });
await b.connect(new StreamableHTTPClientTransport(new URL(url)));
out.write = await b.callTool({ name: 'write_note',
    arguments: { name: 'a', text: 'from b' } });
await new Promise(r => setTimeout(r, 1000));
await step('open');
await step('reload');
await new Promise(r => setTimeout(r, 1500));
out.tools = (await a.listTools()).tools.map(t => t.name);
await sub.close();
out.closed = await sub.closed;
await step('closed');
console.log('RESULT ' + JSON.stringify(out));
await a.close(); await b.close();
process.exit(0);
"""

V1 = r"""
// The TypeScript SDK v1 (2025-11-25) on its GET stream.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
    '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema,
    ToolListChangedNotificationSchema } from
    '@modelcontextprotocol/sdk/types.js';
import * as readline from 'node:readline';
const [url] = process.argv.slice(2);
const out = { seen: [] };
const lines = readline.createInterface({ input: process.stdin })
    [Symbol.asyncIterator]();
async function step(name) { console.log('STEP ' + name);
    await lines.next(); }
const c = new Client({ name: 'sdk-v1-get', version: '1.0.0' },
    { capabilities: {} });
c.setNotificationHandler(ResourceUpdatedNotificationSchema, n => {
  out.seen.push(['updated', n.params.uri]); });
c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  out.seen.push(['tools']); });
const t = new StreamableHTTPClientTransport(new URL(url));
await c.connect(t);
out.protocol = t.protocolVersion ?? null;
out.caps = c.getServerCapabilities();
await new Promise(r => setTimeout(r, 500));
await c.subscribeResource({ uri: 'note://v1' });
const w = new Client({ name: 'sdk-v1-writer', version: '1.0.0' });
await w.connect(new StreamableHTTPClientTransport(new URL(url)));
await w.callTool({ name: 'write_note', arguments: { name: 'v1',
    text: 'hello' } });
await w.close();
await new Promise(r => setTimeout(r, 1000));
await step('reload');
await new Promise(r => setTimeout(r, 1500));
console.log('RESULT ' + JSON.stringify(out));
await c.close();
process.exit(0);
"""


class SdkHarness(HubHarness):
    hub_args = ["-v"]

    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        self.nworkers = 2
        self.tools = ["examples"]


def provision(cache):
    """The node binary, with both clients installed in `cache'."""
    cache = os.path.abspath(cache)
    node = os.path.join(cache, "node_modules", NODE_PKG, "bin", "node")
    specs = ["%s@%s" % (p, v) for p, v in ((V2_PKG, V2_VERSION),
                                           (V1_PKG, V1_VERSION))
             if wymcp_conformance.pkg_version(cache, p) != v]
    if not os.path.exists(node):
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
    if specs:
        wymcp_conformance.npm_install(cache, specs)
    for name, text in (("v2.mjs", V2), ("v1.mjs", V1)):
        with open(os.path.join(cache, name), "w") as f:
            f.write(text)
    return node


class Node:
    """A client script, driven step by step through its stdin."""

    def __init__(self, node, cache, script, url):
        self.p = subprocess.Popen([node, script, url], cwd=cache,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        self.out = []

    def until(self, prefix, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.p.stdout.readline()
            if not line:
                break
            self.out.append(line.rstrip())
            if line.startswith(prefix):
                return line[len(prefix):].strip()
        return None

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def stop(self):
        if self.p.poll() is None:
            wymcp_e2e.stop_pid(self.p.pid, self.p, 5)


def held(h):
    r = Client(h.port).send("GET", STATUS)
    try:
        return json.loads(r.raw.decode())["listen"]["held"]
    except (ValueError, KeyError):
        return None


def sighup(h, want):
    n = len(wymcp_e2e.log_entries(h.fcgi_log))
    os.kill(h.sup, signal.SIGHUP)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if any(want in e[3] for e in wymcp_e2e.log_entries(h.fcgi_log)[n:]):
            return True
        time.sleep(0.1)
    return False


def body(h):
    cache = wymcp_e2e.ARGS.cache
    node = provision(cache)
    h.paths()
    h.start()
    url = "http://127.0.0.1:%d/mcp" % h.port
    echo = os.path.join(h.builddir, "tools", ".libs", "echo.so")

    v2 = Node(node, cache, "v2.mjs", url)
    try:
        ok = v2.until("STEP open") is not None
        R.check(ok and held(h) == 2, "V2: listen() and the "
                "listChanged auto-open are two streams on the hub",
                "held %r; %r" % (held(h), v2.out[-5:]))
        v2.go()
        v2.until("STEP reload")
        shutil.copy(echo, h.moddir)
        R.check(sighup(h, "SIGHUP: reloaded; changed"),
                "V2: echo.so dropped into the module directory, SIGHUP",
                "no reload line")
        v2.go()
        v2.until("STEP closed")
        after = held(h)
        v2.go()
        res = v2.until("RESULT ", 15)
        out = json.loads(res) if res else {}
        R.check(out.get("era") == "modern", "V2: versionNegotiation 'auto' "
                "negotiates 2026-07-28 (server/discover)", repr(out.get("era")))
        R.check(out.get("honored") == {"resourceSubscriptions":
                                       ["note://a"],
                                       "toolsListChanged": True},
                "V2: the honoured filter comes back", json.dumps(out)[:400])
        up = [s for s in out.get("seen", []) if s[0] == "updated"]
        R.check(len(up) >= 1 and up[0][1] == "note://a" and
                isinstance((up[0][2] or {}).get(
                    "io.modelcontextprotocol/subscriptionId"), str),
                "V2: another client's write_note arrives as "
                "resources/updated with the subscription id", repr(up))
        # The client's listChanged handling takes tools/list_changed
        # itself (its own handler): what it did is the evidence.
        R.check(any(isinstance(t, list) and "echo" in t
                    for t in out.get("auto", [])),
                "V2: the reload arrives as tools/list_changed, and "
                "ClientOptions.listChanged refreshed the tools, echo among "
                "them", repr(out.get("auto")))
        R.check("echo" in out.get("tools", []),
                "V2: listTools() lists the new tool", repr(out.get("tools")))
        R.check(out.get("closed") == "local" and after == 1,
                "V2: close() ends the subscription and frees its slot on "
                "the hub", "closed %r, held %r" % (out.get("closed"), after))
    finally:
        v2.stop()
        R.note("v2: " + " | ".join(v2.out[-8:]))

    v1 = Node(node, cache, "v1.mjs", url.replace("/mcp", "/mcp-anon"))
    try:
        v1.until("STEP reload")
        os.unlink(os.path.join(h.moddir, "echo.so"))
        sighup(h, "SIGHUP: reloaded; changed")
        v1.go()
        res = v1.until("RESULT ", 15)
        out = json.loads(res) if res else {}
        R.check(out.get("protocol") == "2025-11-25" and
                (out.get("caps") or {}).get("resources", {}).get(
                    "subscribe") is True,
                "V1: a 2025-11-25 client, told resources.subscribe",
                json.dumps(out)[:300])
        R.check(["updated", "note://v1"] in out.get("seen", []),
                "V1: after resources/subscribe, another client's "
                "write_note arrives on its GET stream", repr(out))
        R.check(["tools"] in out.get("seen", []),
                "V1: the reload arrives on its GET stream as "
                "tools/list_changed", repr(out))
    finally:
        v1.stop()
        R.note("v1: " + " | ".join(v1.out[-8:]))


def options(ap):
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"))


if __name__ == "__main__":
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        sys.exit(77)
    sys.exit(wymcp_e2e.run_layer(SdkHarness, body, options=options))
