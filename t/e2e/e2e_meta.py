#!/usr/bin/env python3
"""e2e_meta.py - metadata through nginx: icons, _meta, size, annotations.

wymcp-fcgi with the help, examples and conformance modules and the
operator's --server-title, --server-website, --server-icons and
--instructions-file, behind a private nginx:

  M  tools/list, resources/list, resources/templates/list and
     prompts/list carry the icons, _meta, size and annotations the
     bundled modules declare, shaped as the schema has them, on both
     eras (2026-07-28 and 2025-11-25).
  I  server/discover and a 2025-11-25 initialize carry the serverInfo
     (name wymcp, the package version, the operator's title, website and
     icons) and the operator's instructions; every 2026-07-28 result
     has the serverInfo in its _meta.
  H  a reload (SIGHUP to the supervisor) reads --instructions-file
     again.
  R  a bad --server-icons, --server-website or --instructions-file is
     refused at start, naming the rule.

Every response is also checked against schema.json (wymcp_schema.py).
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e as e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_meta.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import R, enc, judge_result, report  # noqa: E402

MODULES = ["help", "examples", "conformance"]
DOT_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1"
           "HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
SERVER_ICONS = [{"src": DOT_PNG, "mimeType": "image/png",
                 "sizes": ["1x1"], "theme": "dark"}]
INSTRUCTIONS = "Meta test server.\nUse book_room to book rooms."
LEGACY = "2025-11-25"


def package_version(builddir):
    with open(os.path.join(builddir, "config.h")) as f:
        m = re.search(r'#define PACKAGE_VERSION "([^"]*)"', f.read())
    return m.group(1)


class Harness(e2e.Harness):
    """e2e.py's harness with these modules and the operator's options."""

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in MODULES]
        e2e.need_built(self.prog, *self.mods)

    def start_fcgi(self):
        path = self.instructions = os.path.join(self.tmp,
                                                "instructions.txt")
        with open(path, "w") as f:
            f.write(INSTRUCTIONS + "\n")
        self.extra_args = ["--server-title", "Meta Test",
                           "--server-website", "https://wymcp.example/",
                           "--server-icons", json.dumps(SERVER_ICONS),
                           "--instructions-file", path]
        e2e.Harness.start_fcgi(self)


class Tests(e2e.Tests):
    def legacy(self, method, params=None, name=None):
        """A 2025-11-25 request: no _meta, the version in the header."""
        rid = self.next_id()
        body = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        h = [("Content-Type", "application/json"),
             ("Accept", "application/json, text/event-stream")]
        if method != "initialize":
            h.append(("MCP-Protocol-Version", LEGACY))
        return rid, self.c.send("POST", "/mcp", enc(body), h)

    def listing(self, era, method, member, key, name):
        """The entry of `member' whose `key' is `name', or problems."""
        if era == LEGACY:
            rid, r = self.legacy(method)
            p = [] if isinstance((r.json or {}).get("result"), dict) \
                else ["no result: %s" % r.brief()]
        else:
            rid, r = self.call(method)
            p = judge_result(r, rid)
        res = (r.json or {}).get("result") or {}
        for e in res.get(member) or []:
            if e.get(key) == name:
                return e, p, r
        return None, p + ["no %s %r in %s" % (key, name, member)], r

    def test_lists(self):
        for era in (e2e.PROTO, LEGACY):
            e, p, r = self.listing(era, "tools/list", "tools", "name",
                                   "book_room")
            if e is not None and e.get("icons") != [
                    {"src": DOT_PNG, "mimeType": "image/png",
                     "sizes": ["1x1"]}]:
                p.append("icons %r" % (e.get("icons"),))
            report("M %s tools/list: book_room has its data: icon" % era,
                   p, r)
            e, p, r = self.listing(era, "tools/list", "tools", "name",
                                   "count_slowly")
            if e is not None and e.get("icons") != [
                    {"src": "https://wymcp.example/icons/count.svg",
                     "mimeType": "image/svg+xml", "sizes": ["any"],
                     "theme": "light"}]:
                p.append("icons %r" % (e.get("icons"),))
            report("M %s tools/list: count_slowly has its https: icon"
                   % era, p, r)
            e, p, r = self.listing(era, "tools/list", "tools", "name",
                                   "write_note")
            if e is not None and e.get("_meta") != {
                    "org.wymcp.examples/writes": "note://{name}"}:
                p.append("_meta %r" % (e.get("_meta"),))
            if e is not None and "icons" in e:
                p.append("icons it does not declare: %r" % (e["icons"],))
            report("M %s tools/list: write_note has its _meta" % era, p, r)
            e, p, r = self.listing(era, "resources/list", "resources",
                                   "uri", "test://static-text")
            if e is not None and (e.get("size") != 48 or
                                  e.get("annotations") != {
                                      "audience": ["user"],
                                      "priority": 0.8}):
                p.append("size %r annotations %r" %
                         (e.get("size"), e.get("annotations")))
            report("M %s resources/list: size and annotations" % era, p, r)
            e, p, r = self.listing(era, "resources/templates/list",
                                   "resourceTemplates", "uriTemplate",
                                   "note://{name}")
            if e is not None and (
                    e.get("_meta") != {"org.wymcp.examples/kind": "note"}
                    or e.get("annotations") != {
                        "audience": ["user", "assistant"],
                        "priority": 0.5}
                    or not isinstance(e.get("icons"), list)
                    or "size" in e):
                p.append("entry %r" % (e,))
            report("M %s resources/templates/list: icons, _meta, "
                   "annotations, no size" % era, p, r)
            e, p, r = self.listing(era, "prompts/list", "prompts", "name",
                                   "test_simple_prompt")
            if e is not None and (
                    (e.get("icons") or [{}])[0].get("mimeType") !=
                    "image/svg+xml" or e.get("_meta") !=
                    {"org.wymcp.conformance/fixture": True}):
                p.append("entry %r" % (e,))
            report("M %s prompts/list: icons and _meta" % era, p, r)

    def info_problems(self, si):
        want = {"name": "wymcp", "version": self.version,
                "title": "Meta Test", "websiteUrl": "https://wymcp.example/",
                "icons": SERVER_ICONS}
        return [] if si == want else ["serverInfo %r, want %r" % (si, want)]

    def test_info(self):
        rid, r = self.call("server/discover")
        p = judge_result(r, rid)
        res = (r.json or {}).get("result") or {}
        p += self.info_problems((res.get("_meta") or {}).get(
            "io.modelcontextprotocol/serverInfo"))
        if res.get("instructions") != INSTRUCTIONS:
            p.append("instructions %r" % (res.get("instructions"),))
        report("I server/discover: the operator's serverInfo (version %s) "
               "and instructions" % self.version, p, r)
        rid, r = self.tool("help")
        p = judge_result(r, rid)
        res = (r.json or {}).get("result") or {}
        p += self.info_problems((res.get("_meta") or {}).get(
            "io.modelcontextprotocol/serverInfo"))
        report("I a tools/call result carries the same serverInfo", p, r)
        rid, r = self.legacy("initialize", {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "old", "version": "1"}})
        res = (r.json or {}).get("result") or {}
        p = [] if r.status == 200 else ["HTTP %d" % r.status]
        p += self.info_problems(res.get("serverInfo"))
        if res.get("instructions") != INSTRUCTIONS:
            p.append("instructions %r" % (res.get("instructions"),))
        report("I 2025-11-25 initialize: serverInfo and instructions", p, r)


def reload_reads_instructions(h, t):
    """H: a new instructions file, SIGHUP, and discover says it."""
    with open(h.instructions, "w") as f:
        f.write("Reloaded.\n")
    os.kill(h.sup, signal.SIGHUP)
    got, r = None, None
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        _, r = t.call("server/discover")
        got = ((r.json or {}).get("result") or {}).get("instructions")
        if got == "Reloaded.":
            break
        time.sleep(0.2)
    report("H a reload reads --instructions-file again",
           [] if got == "Reloaded." else ["instructions %r" % (got,)], r)


def refused(h, args, want, label):
    """wymcp-fcgi with `args' exits at start, its message naming `want'."""
    argv = e2e.wrap_argv([h.prog, "--workers", "0", "--module", h.mods[0],
                          "--listen", "unix:" + os.path.join(
                              h.tmp, "refused.sock")] + args)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30, cwd=h.tmp)
    except subprocess.TimeoutExpired:
        R.fail(label, "still running after 30 s")
        return
    err = p.stderr.decode("utf-8", "replace")
    R.check(p.returncode not in (0, None) and want in err, label,
            "exit %s, stderr %r" % (p.returncode, err[-400:]))


def layer(h):
    h.paths()
    h.start()
    t = Tests(h)
    t.version = package_version(h.builddir)
    t.test_lists()
    t.test_info()
    reload_reads_instructions(h, t)
    refused(h, ["--server-icons", '[{"src":"http://x.example/i.png"}]'],
            "src must be an https: URI",
            "R --server-icons with an http: src is refused at start")
    refused(h, ["--server-website", "javascript:alert(1)"], "http:",
            "R --server-website javascript: is refused at start")
    refused(h, ["--instructions-file", os.path.join(h.tmp, "none.txt")],
            "none.txt", "R a missing --instructions-file is refused at start")
    if e2e.wymcp_schema.C.ready:
        R.check(e2e.wymcp_schema.C.checked > 0,
                "S responses were checked against schema.json",
                "none checked")
        checker_refuses()


def checker_refuses():
    """The checker itself: a response with a bad icon and a made-up key
    under the reserved prefix fails it."""
    sc = e2e.wymcp_schema
    bad = {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete",
        "tools": [{"name": "x", "inputSchema": {"type": "object"},
                   "icons": [{"src": 5}]}],
        "_meta": {"io.modelcontextprotocol/madeUp": 1}}}
    probs = sc.check_message(sc.MODERN, {"method": "tools/list"}, bad)
    R.check(any("icons" in p for p in probs) and
            any("madeUp" in p for p in probs),
            "S the checker refuses a bad icon and an unknown reserved "
            "_meta key", "; ".join(probs))


def main():
    return e2e.run_layer(Harness, layer)


if __name__ == "__main__":
    sys.exit(main())
