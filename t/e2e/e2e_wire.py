#!/usr/bin/env python3
"""e2e_wire.py - wymcp end to end: the wire rules and identity via nginx.

Usage: e2e_wire.py [--builddir DIR] [--keep] [--verbose]

Starts wymcp-fcgi (two workers; help, echo, whoami and the conformance
fixture pack, each named with --module) behind a private nginx, and
sends what a hostile or careless client might:

  W  a repeated MCP-Protocol-Version, Mcp-Method or Mcp-Name header
     (nginx passes it to FastCGI as two params up to 1.22, joined with
     ", " from 1.23): 400 -32020; a repeated Origin: 403; the mirrored
     headers a 2025-11-25 request carries are checked; U+0000 in a name,
     an argument key or value: 400 -32602; an object naming a member
     twice: 400 -32700; quoted values in messages at most 64 bytes;
  I  an empty WYMCP_PRINCIPAL is anonymous (the client's own Basic
     username does not become the principal); an empty assign is none;
     tools/list with an assign but no principal is cacheScope private;
  S  sampling, roots and elicitation answers of the wrong shape: -32602
     before the tool runs.

Each check names what wymcp answered before this round of hardening
(nginx 1.22: the last header line won; cut strings reached tools).

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise, 77 when
nginx is not installed.  Python 3 standard library only; the harness
pieces come from e2e.py.
"""

import base64
import copy
import json
import os
import sys

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e as e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_wire.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (enc, judge_error,  # noqa: E402
                       judge_result, report, rpc, std_headers)

MODULES = ["help", "echo", "whoami", "conformance"]
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
SAMPLE = {"role": "assistant", "content": {"type": "text", "text": "Paris"},
          "model": "m", "stopReason": "endTurn"}
ROOTS = {"roots": [{"uri": "file:///r", "name": "R"}]}

# /mcp: an assign, no principal.  /mcp-anon: nothing.  /mcp-noauth: the
# stock fastcgi_params (REMOTE_USER from the client's Basic header,
# which nothing checks here) and WYMCP_PRINCIPAL from a variable that is
# empty.  /mcp-empty: an assign from an empty variable.
def locations(sock):
    """The locations of this script's server block."""
    target = "unix:" + sock
    loc = e2e.wymcp_location
    return (loc("/mcp", target, [("WYMCP_ASSIGN_ROLE", '"tester"')]) +
            loc("/mcp-anon", target) +
            loc("/mcp-noauth", target, blank_user=False, buffering=True,
                extra='\t\t\tset $wymcp_user "";\n'
                      "\t\t\tfastcgi_param WYMCP_PRINCIPAL $wymcp_user;\n") +
            loc("/mcp-empty", target, [
                ("WYMCP_ASSIGN_ROLE", "$arg_nothing"),
                ("WYMCP_ASSIGN_TENANT", '"acme"')]))


class Harness(e2e.Harness):
    """e2e.py's harness with this script's modules and locations."""

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in MODULES]
        e2e.need_built(self.prog, *self.mods)

    def nginx_conf(self, sock, port, port2):
        locs = locations(sock)
        return e2e.nginx_preamble(self.tmp) + """\

	server {{
		listen 127.0.0.1:{port};
		listen 127.0.0.1:{port2};
		server_name localhost;
		client_max_body_size 1m;
{locs}	}}
}}
""".format(port=port, port2=port2, locs=locs)


def meta(caps=None):
    m = copy.deepcopy(e2e.META)
    if caps is not None:
        m["io.modelcontextprotocol/clientCapabilities"] = caps
    return m


class Tests(e2e.Tests):
    def send(self, body, headers, path="/mcp"):
        """POST `body` (bytes, str or a JSON value) with exactly these
        header lines (a list: a name may repeat)."""
        return self.c.send("POST", path, enc(body), headers)

    def lines(self, method, name=None, version=e2e.PROTO):
        """The standard header lines of a request, as a list."""
        h = [("Content-Type", "application/json"),
             ("Accept", "application/json, text/event-stream"),
             ("Mcp-Method", method)]
        if version is not None:
            h.append(("MCP-Protocol-Version", version))
        if name is not None:
            h.append(("Mcp-Name", name))
        return h

    def message(self, r):
        try:
            return r.json["error"]["message"]
        except (TypeError, KeyError):
            return ""

    def expect(self, label, r, status, code, rid, part=None):
        p = judge_error(r, status, code, rid)
        if part is not None and part not in self.message(r):
            p.append("message %r lacks %r" % (self.message(r), part))
        report(label, p, r)

    # -- W: the wire

    def test_repeated(self):
        rid = self.next_id()
        body = rpc(rid, "tools/call", {"name": "echo",
                                       "arguments": {"text": "hi"}})
        r = self.send(body, self.lines("tools/call", "whoami") +
                      [("Mcp-Name", "echo")])
        self.expect("W Mcp-Name: whoami, then Mcp-Name: echo with body echo "
                    "is 400 -32020 (was: echo ran, the last line won)",
                    r, 400, -32020, rid, "Mcp-Name header is repeated")
        rid = self.next_id()
        body = rpc(rid, "tools/call", {"name": "echo",
                                       "arguments": {"text": "hi"}})
        r = self.send(body, self.lines("tools/call", "echo") +
                      [("Mcp-Name", "echo")])
        self.expect("W Mcp-Name twice, both equal to the body: 400 -32020",
                    r, 400, -32020, rid, "repeated")
        rid = self.next_id()
        body = rpc(rid, "tools/call", {"name": "echo",
                                       "arguments": {"text": "hi"}})
        r = self.send(body, self.lines("tools/call", "whoami, echo"))
        self.expect("W one Mcp-Name line holding 'whoami, echo' (the form "
                    "nginx >= 1.23 and Apache pass): 400 -32020", r, 400,
                    -32020, rid, "Mcp-Name header is repeated")
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/list"), self.lines("tools/list") +
                      [("Mcp-Method", "tools/list")])
        self.expect("W Mcp-Method twice: 400 -32020 (was: 200)", r, 400,
                    -32020, rid, "Mcp-Method header is repeated")
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/list"), self.lines("tools/list") +
                      [("MCP-Protocol-Version", e2e.PROTO)])
        self.expect("W MCP-Protocol-Version twice: 400 -32020 (was: 200)",
                    r, 400, -32020, rid,
                    "MCP-Protocol-Version header is repeated")
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/list"), self.lines("tools/list") +
                      [("Origin", "http://evil.example"),
                       ("Origin", "http://localhost")])
        p = e2e.judge_bare(r, 403)
        report("W Origin: http://evil.example, then Origin: "
               "http://localhost: 403 (was: 200, the last line won)", p, r)
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/list"), self.lines("tools/list") +
                      [("Origin", "http://localhost:8080, "
                        "http://evil.example")])
        report("W one Origin line holding two origins: 403 (was: 200, "
               "the host was read up to the port)", e2e.judge_bare(r, 403),
               r)
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/list"), self.lines("tools/list") +
                      [("Origin", "http://localhost:8080")])
        report("W (control) one allowed Origin: 200",
               judge_result(r, rid), r)

    def test_legacy(self):
        rid = self.next_id()
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}}
        r = self.send(body, self.lines("tools/call", "whoami", "2025-11-25"))
        self.expect("W a 2025-11-25 tools/call echo with Mcp-Name: whoami "
                    "is 400 -32020 (was: echo ran unchecked)", r, 400,
                    -32020, rid, "Mcp-Name header value 'whoami'")
        rid = self.next_id()
        body["id"] = rid
        r = self.send(body, self.lines("tools/list", None, "2025-11-25"))
        self.expect("W a 2025-11-25 tools/call with Mcp-Method: tools/list "
                    "is 400 -32020", r, 400, -32020, rid, "Mcp-Method")
        rid = self.next_id()
        body["id"] = rid
        r = self.send(body, [("Content-Type", "application/json"),
                             ("MCP-Protocol-Version", "2025-11-25")])
        p = []
        if r.status != 200 or not isinstance(r.json, dict) or \
                "result" not in r.json:
            p.append("not a result")
        report("W (control) the same 2025-11-25 call without Mcp-* "
               "headers is served", p, r)

    def test_nul(self):
        rid = self.next_id()
        raw = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
               '{"_meta":%s,"name":"echo\\u0000whoami","arguments":'
               '{"text":"x"}}}' % (rid, json.dumps(e2e.META)))
        r = self.send(raw, self.lines("tools/call", "echo"))
        self.expect('W "name":"echo\\u0000whoami" is 400 -32602 (was: echo '
                    'ran, Mcp-Name: echo matched)', r, 400, -32602, rid,
                    "U+0000")
        rid = self.next_id()
        raw = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
               '{"_meta":%s,"name":"echo","arguments":{"text":"a\\u0000b"}}}'
               % (rid, json.dumps(e2e.META)))
        r = self.send(raw, self.lines("tools/call", "echo"))
        self.expect('W an argument "text":"a\\u0000b" is 400 -32602 (was: '
                    'the tool got "a")', r, 400, -32602, rid, "U+0000")
        rid = self.next_id()
        raw = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
               '{"_meta":%s,"name":"echo","arguments":{"te\\u0000xt":"a",'
               '"o":{"k":1}}}}' % (rid, json.dumps(e2e.META)))
        r = self.send(raw, self.lines("tools/call", "echo"))
        self.expect("W an argument key holding U+0000 is 400 -32602", r, 400,
                    -32602, rid, "U+0000")

    def test_duplicates(self):
        rid = self.next_id()
        raw = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
               '{"_meta":%s,"name":"whoami","arguments":{},"name":"echo"}}'
               % (rid, json.dumps(e2e.META)))
        r = self.send(raw, self.lines("tools/call", "whoami"))
        self.expect('W params naming "name" twice (whoami, then echo) is '
                    '400 -32700 without id (was: json-c kept echo)', r, 400,
                    -32700, e2e.OMIT)
        rid = self.next_id()
        raw = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
               '{"_meta":%s,"name":"echo","arguments":{"text":"a",'
               '"t\\u0065xt":"b"}}}' % (rid, json.dumps(e2e.META)))
        r = self.send(raw, self.lines("tools/call", "echo"))
        self.expect("W an argument named twice, once with an escape: 400 "
                    "-32700", r, 400, -32700, e2e.OMIT)

    def test_quotes(self):
        rid = self.next_id()
        long = "n" * 300
        r = self.send(rpc(rid, "tools/call", {"name": long}),
                      self.lines("tools/call", "short"))
        m = self.message(r)
        p = judge_error(r, 400, -32020, rid)
        if "n" * 65 in m or "...'" not in m:
            p.append("the body value is not cut at 64 bytes: %r" % m)
        report("W a 300-byte body name is quoted in 64 bytes", p, r)
        rid = self.next_id()
        r = self.send(rpc(rid, "tools/call", {"name": "echo"}),
                      self.lines("tools/call", "x" * 300))
        m = self.message(r)
        p = judge_error(r, 400, -32020, rid)
        if "x" * 65 in m:
            p.append("the header value is not cut at 64 bytes: %r" % m)
        report("W a 300-byte Mcp-Name is quoted in 64 bytes", p, r)

    # -- I: identity

    def test_identity(self):
        basic = {"Authorization": "Basic " + base64.b64encode(
            b"mallory:x").decode()}
        obj, p, r = self.whoami("/mcp-noauth", basic)
        if obj is not None and obj.get("principal") is not None:
            p.append("principal %r" % (obj.get("principal"),))
        report("I WYMCP_PRINCIPAL empty, a client's unchecked 'Basic "
               "mallory' in REMOTE_USER: whoami says principal null (was: "
               "mallory)", p, r)
        obj, p, r = self.whoami("/mcp-empty")
        if obj is not None and obj.get("assigns") != {"tenant": "acme"}:
            p.append("assigns %r" % (obj.get("assigns"),))
        report("I an assign from an empty variable is none: assigns "
               "{tenant: acme} (was: role \"\" too)", p, r)
        names, p, r = self.list_tools("/mcp")
        if not p and r.json["result"].get("cacheScope") != "private":
            p.append("cacheScope %r" % r.json["result"].get("cacheScope"))
        report("I tools/list with an assign and no principal is "
               "cacheScope private (was: public)", p, r)
        names, p, r = self.list_tools("/mcp-anon")
        if not p and r.json["result"].get("cacheScope") != "public":
            p.append("cacheScope %r" % r.json["result"].get("cacheScope"))
        report("I (control) tools/list with neither is public", p, r)

    # -- S: answers

    def answered(self, tool, key, answer):
        """A first round (which has no answers), then `answer' for
        `key' with the state it sealed."""
        rid = self.next_id()
        params = {"_meta": meta(ALL_CAPS), "name": tool, "arguments": {}}
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": params}
        r = self.post("/mcp", body, std_headers("tools/call", tool))
        try:
            state = r.json["result"]["requestState"]
        except (TypeError, KeyError, ValueError):
            state = None
        rid = self.next_id()
        params = {"_meta": meta(ALL_CAPS), "name": tool, "arguments": {},
                  "inputResponses": {key: answer}}
        if state is not None:
            params["requestState"] = state
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": params}
        return rid, self.post("/mcp", body, std_headers("tools/call", tool))

    def test_answers(self):
        s = "test_input_required_result_sampling"
        rid, r = self.answered(s, "sample_request", {"foo": 1})
        self.expect("S a sampling answer {foo: 1} is -32602 (was: the tool "
                    "got it)", r, 200, -32602, rid,
                    "not a CreateMessageResult")
        bad = dict(SAMPLE, role="system")
        rid, r = self.answered(s, "sample_request", bad)
        self.expect("S a sampling answer with role system is -32602", r, 200,
                    -32602, rid, "not a CreateMessageResult")
        rid, r = self.answered(s, "sample_request", SAMPLE)
        p = judge_result(r, rid)
        if not p and "Paris" not in (self.text_of(r) or ""):
            p.append("text %r" % self.text_of(r))
        report("S (control) a CreateMessageResult is answered", p, r)
        t = "test_input_required_result_list_roots"
        rid, r = self.answered(t, "roots_request", {"roots": "x"})
        self.expect("S a roots answer {roots: \"x\"} is -32602 (was: the tool "
                    "got it)", r, 200, -32602, rid, "not a ListRootsResult")
        rid, r = self.answered(t, "roots_request",
                               {"roots": [{"uri": "https://e.example/"}]})
        self.expect("S a root that is not file:// is -32602", r, 200, -32602,
                    rid, "file://")
        rid, r = self.answered(t, "roots_request", ROOTS)
        report("S (control) a ListRootsResult is answered",
               judge_result(r, rid), r)
        e = "test_input_required_result_elicitation"
        rid, r = self.answered(e, "user_name", {
            "action": "accept", "content": {"name": "Alice", "admin": True}})
        self.expect("S an accepted form with a property the form does not "
                    "declare is -32602 (was: the tool got it)", r, 200,
                    -32602, rid, "'admin'")
        rid, r = self.answered(e, "user_name", {
            "action": "accept", "content": {"name": "Alice"}})
        report("S (control) the declared property alone is answered",
               judge_result(r, rid), r)

    def test_alive(self):
        rid, r = self.tool("echo", {"text": "still here"})
        p = judge_result(r, rid)
        if not p and self.text_of(r) != "still here":
            p.append("text %r" % self.text_of(r))
        report("W the workers still serve after all of this", p, r)


def layer(h):
    h.paths()
    h.start()
    t = Tests(h)
    t.test_repeated()
    t.test_legacy()
    t.test_nul()
    t.test_duplicates()
    t.test_quotes()
    t.test_identity()
    t.test_answers()
    t.test_alive()


def main():
    return e2e.run_layer(Harness, layer)


if __name__ == "__main__":
    sys.exit(main())
