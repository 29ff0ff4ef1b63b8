#!/usr/bin/env python3
"""e2e_card.py - discovery outside MCP: the server card and server.json.

wymcp-fcgi (help and echo, options from a --config file: a server name
that is not of the form namespace/name, a title, a description, a data:
and an https: icon, --public-header Authorization) behind a private
nginx, the card's location as deploy/nginx/wymcp.conf ships it:

  C  GET /mcp/server-card: 200, valid against the server card schema
     (t/e2e/schema/server-card, $defs/ServerCard), application/json (or
     application/mcp-server-card+json when Accept names it), public
     for an hour, an ETag, the CORS headers; the name made of the Host
     ("127.0.0.1/card-test"), the serverInfo's version, title and
     icons, one streamable-http remote at the URL of the request with
     the Authorization header and server/discover's supportedVersions;
     If-None-Match (304), HEAD, OPTIONS (204), a foreign Origin read
     (200), a foreign Host refused (403), POST and PUT 405 with Allow;
     MCP on /mcp unchanged (POST served, GET 405 Allow: POST).
  L  a location's WYMCP_PUBLIC_URL param is the card's URL and host.
  U  --public-url and --server-name com.example/card in the config
     file, then SIGHUP: the card names them, with a new ETag.
  P  wymcp-fcgi --print-server-json (from the command line, and from
     a --config file): exit 0, a server.json valid against the MCP
     Registry's schema 2025-12-11 (t/e2e/schema/registry) naming the
     public URL and the header, the data: icon left out (and logged),
     nothing bound; refused without --public-url, or with a public URL
     that has a query.
  S  the validators refuse a card and a server.json without a
     namespace/name name.

The validator is python3-jsonschema (runtests installs it).
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
    print("e2e_card.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import R, SRCDIR, enc, judge_result, report  # noqa: E402

SCHEMA_DIR = os.path.join(SRCDIR, "t", "e2e", "schema")
CARD_SCHEMA_URL = ("https://static.modelcontextprotocol.io/schemas/v1/"
                   "server-card.schema.json")
REGISTRY_SCHEMA_URL = ("https://static.modelcontextprotocol.io/schemas/"
                       "2025-12-11/server.schema.json")
DOT_PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1"
           "HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
HTTPS_ICON = {"src": "https://card.example/icon.png",
              "mimeType": "image/png", "sizes": ["48x48"]}
ICONS = [{"src": DOT_PNG, "mimeType": "image/png"}, HTTPS_ICON]
DESCRIPTION = "Tools for the card test"
CORS = {"Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET",
        "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
        "Access-Control-Expose-Headers": "ETag"}
ALT_URL = "https://alt.example/alt/mcp"
CONFIG = """\
# e2e_card.py's options
server-name card-test
server-title Card Test
server-description {desc}
server-icons {icons}
public-header Authorization
{more}"""


def validators():
    """The card's and the registry's validators (python3-jsonschema)."""
    import jsonschema	# python3-jsonschema: a missing one fails
    with open(os.path.join(SCHEMA_DIR, "server-card", "schema.json")) as f:
        s = json.load(f)
    card = {"$schema": s["$schema"], "$defs": s["$defs"],
            "$ref": "#/$defs/ServerCard"}
    with open(os.path.join(SCHEMA_DIR, "registry",
                           "server.schema.json")) as f:
        reg = json.load(f)
    mk = jsonschema.validators.validator_for
    return mk(card)(card), mk(reg)(reg)


def schema_errors(v, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path),
                        e.message[:200]) for e in v.iter_errors(doc)][:3]


class Harness(e2e.Harness):
    """e2e.py's harness: help and echo, the options in a config file,
    and one more location that sets WYMCP_PUBLIC_URL."""

    def paths(self):
        self.tools = ["help", "echo"]
        e2e.Harness.paths(self)

    def write_config(self, more=""):
        with open(self.config, "w") as f:
            f.write(CONFIG.format(desc=DESCRIPTION, icons=json.dumps(ICONS),
                                  more=more))

    def start_fcgi(self):
        self.config = os.path.join(self.tmp, "wymcp.conf")
        self.write_config()
        self.extra_args = ["--config", self.config]
        e2e.Harness.start_fcgi(self)

    def nginx_conf(self, sock, port, port2):
        text = e2e.Harness.nginx_conf(self, sock, port, port2)
        alt = e2e.wymcp_location("/alt/server-card", "unix:" + sock,
                                 [("WYMCP_PUBLIC_URL", ALT_URL)])
        return text.replace("\t\tlocation = /mcp-anon {",
                            alt + "\t\tlocation = /mcp-anon {", 1)


class Tests(e2e.Tests):
    def get(self, path="/mcp/server-card", method="GET", headers=None,
            client=None):
        return (client or self.c2).send(method, path, None,
                                        list((headers or {}).items()))

    def card_problems(self, r, name, url, mime="application/json"):
        """A 200 card response: headers, schema, members."""
        p = []
        if r.status != 200:
            return ["status %d" % r.status]
        if r.mime != mime:
            p.append("Content-Type %r" % r.header("Content-Type"))
        if r.header("Cache-Control") != "public, max-age=3600":
            p.append("Cache-Control %r" % r.header("Cache-Control"))
        if not re.match(r'^"[0-9a-f]{32}"$', r.header("ETag") or ""):
            p.append("ETag %r" % r.header("ETag"))
        for k, v in CORS.items():
            if r.header(k) != v:
                p.append("%s %r" % (k, r.header(k)))
        if e2e.compact(r.raw) is not None:
            p.append("body is not compact JSON")
        c = r.json
        if not isinstance(c, dict):
            return p + ["body %r" % r.raw[:100]]
        p += schema_errors(self.vcard, c)
        want = {"$schema": CARD_SCHEMA_URL, "name": name,
                "version": self.version, "title": "Card Test",
                "description": DESCRIPTION, "icons": ICONS}
        for k, v in want.items():
            if c.get(k) != v:
                p.append("%s %r, want %r" % (k, c.get(k), v))
        for k in ("tools", "resources", "prompts", "capabilities"):
            if k in c:
                p.append("lists %s" % k)
        rem = c.get("remotes")
        if not isinstance(rem, list) or len(rem) != 1:
            return p + ["remotes %r" % (rem,)]
        want = {"type": "streamable-http", "url": url,
                "headers": [{"name": "Authorization",
                             "description": rem[0].get("headers", [{}])[0]
                             .get("description"),
                             "isRequired": True, "isSecret": True}],
                "supportedProtocolVersions": self.versions}
        if rem[0] != want or not rem[0]["headers"][0]["description"]:
            p.append("remote %r, want %r" % (rem[0], want))
        return p

    def discover_info(self):
        rid, r = self.call("server/discover", client=self.c2)
        p = judge_result(r, rid)
        res = (r.json or {}).get("result") or {}
        self.versions = res.get("supportedVersions")
        si = (res.get("_meta") or {}).get(
            "io.modelcontextprotocol/serverInfo") or {}
        self.version = si.get("version")
        report("C server/discover through deploy/nginx/wymcp.conf "
               "(the card's reference)", p + ([] if si.get("name") ==
                                              "card-test" else
                                              ["serverInfo %r" % si]), r)

    def test_card(self):
        port2 = self.h.port2
        url = "http://127.0.0.1:%d/mcp" % port2
        r = self.get()
        report("C GET /mcp/server-card (deploy/nginx/wymcp.conf): the "
               "card, valid, named 127.0.0.1/card-test, remote %s" % url,
               self.card_problems(r, "127.0.0.1/card-test", url), r)
        etag, size = r.header("ETag"), len(r.raw)
        r2 = self.get()
        report("C the same card and ETag again",
               [] if r2.raw == r.raw and r2.header("ETag") == etag
               else ["changed: %s" % r2.brief()], r2)
        r = self.get(headers={"Accept": "application/mcp-server-card+json"})
        report("C Accept: application/mcp-server-card+json is echoed in "
               "Content-Type", self.card_problems(
                   r, "127.0.0.1/card-test", url,
                   "application/mcp-server-card+json"), r)
        r = self.get(headers={"Host": "localhost:%d" % port2})
        report("C Host localhost:PORT: named localhost/card-test, its URL",
               self.card_problems(r, "localhost/card-test",
                                  "http://localhost:%d/mcp" % port2), r)
        for inm in (etag, "W/" + etag, '"nope", ' + etag, "*"):
            r = self.get(headers={"If-None-Match": inm})
            p = [] if r.status == 304 and not r.raw and \
                r.header("ETag") == etag else ["got %s" % r.brief()]
            report("C If-None-Match %s -> 304, no body" % inm, p, r)
        r = self.get(headers={"If-None-Match": '"0123"'})
        report("C If-None-Match of another tag -> 200",
               [] if r.status == 200 and len(r.raw) == size else
               ["got %s" % r.brief()], r)
        r = self.get(method="HEAD")
        p = [] if r.status == 200 and not r.raw and \
            r.header("Content-Length") == str(size) and \
            r.header("ETag") == etag else ["got %s %r" % (r.brief(),
                                                         r.headers)]
        report("C HEAD: the headers, Content-Length %d, no body" % size,
               p, r)
        r = self.get(method="OPTIONS", headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match"})
        p = [] if r.status == 204 else ["status %d" % r.status]
        p += ["%s %r" % (k, r.header(k)) for k, v in CORS.items()
              if r.header(k) != v]
        report("C OPTIONS (a CORS preflight) -> 204 with the CORS headers",
               p, r)
        r = self.get(headers={"Origin": "https://evil.example"})
        report("C a foreign Origin reads the card (public, CORS *)",
               [] if r.status == 200 and r.header(
                   "Access-Control-Allow-Origin") == "*" else
               ["got %s" % r.brief()], r)
        r = self.get(headers={"Host": "evil.example"})
        report("C a Host outside the allow-list -> 403",
               e2e.judge_bare(r, 403), r)
        r = self.c2.send("POST", "/mcp/server-card", enc(e2e.rpc(
            1, "server/discover")), list(e2e.std_headers(
                "server/discover").items()))
        report("C POST /mcp/server-card -> 405, Allow: GET, HEAD, OPTIONS",
               self.allow_problems(r), r)
        r = self.get(method="PUT")
        report("C PUT /mcp/server-card -> 405", self.allow_problems(r), r)
        rid, r = self.call("tools/list", client=self.c2)
        report("C MCP on /mcp is unchanged: tools/list", judge_result(
            r, rid), r)
        r = self.c2.send("GET", "/mcp", None,
                         [("Accept", "text/event-stream")])
        report("C GET /mcp is still 405 Allow: POST",
               e2e.judge_bare(r, 405, allow="POST"), r)

    def allow_problems(self, r):
        p = [] if r.status == 405 else ["status %d" % r.status]
        a = [x.strip() for x in (r.header("Allow") or "").split(",")]
        if a != ["GET", "HEAD", "OPTIONS"]:
            p.append("Allow %r" % r.header("Allow"))
        if not isinstance((r.json or {}).get("error"), dict):
            p.append("no JSON-RPC error body")
        return p

    def test_location(self):
        r = self.get("/alt/server-card", client=self.c)
        report("L WYMCP_PUBLIC_URL is the card's URL and host",
               self.card_problems(r, "example.alt/card-test", ALT_URL), r)

    def test_reload(self):
        h = self.h
        etag = self.get().header("ETag")
        h.write_config("public-url https://mcp.example.com/mcp\n"
                       "server-name com.example/card\n")
        os.kill(h.sup, signal.SIGHUP)
        # Long enough under valgrind (e2e_valgrind.py) too.
        r, deadline = None, time.monotonic() + 60
        while time.monotonic() < deadline:
            r = self.get()
            if (r.json or {}).get("name") == "com.example/card":
                break
            time.sleep(0.2)
        p = self.card_problems(r, "com.example/card",
                               "https://mcp.example.com/mcp")
        if r.header("ETag") == etag:
            p.append("the ETag did not change")
        report("U --public-url and --server-name from the config file, "
               "after SIGHUP", p, r)
        r = self.get("/alt/server-card", client=self.c)
        report("U WYMCP_PUBLIC_URL still wins over --public-url",
               self.card_problems(r, "com.example/card", ALT_URL), r)


def print_json(h, args, label, want_rc=0):
    """wymcp-fcgi --print-server-json with `args': (rc, stdout, stderr)."""
    sock = os.path.join(h.tmp, "print.sock")
    argv = e2e.wrap_argv([h.prog, "--listen", "unix:" + sock,
                          "--module", h.mods[0]] + args)
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60, cwd=h.tmp)
    except subprocess.TimeoutExpired:
        R.fail(label, "still running after 60 s")
        return None, "", ""
    R.check(not os.path.exists(sock), label + ": nothing bound",
            "%s exists" % sock)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def test_print(h, vreg):
    base = ["--server-name", "card-test", "--server-description",
            DESCRIPTION, "--server-icons", json.dumps(ICONS),
            "--server-website", "https://card.example/"]
    for how, args in (
            ("the command line", base + [
                "--public-url", "https://mcp.example.com/mcp",
                "--public-header", "Authorization",
                "--print-server-json"]),
            ("a --config file", ["--config", "print.conf"])):
        if how == "a --config file":
            with open(os.path.join(h.tmp, "print.conf"), "w") as f:
                f.write("print-server-json\npublic-url "
                        "https://mcp.example.com/mcp\npublic-header "
                        "Authorization\nserver-name card-test\n"
                        "server-description %s\nserver-icons %s\n"
                        "server-website https://card.example/\n" %
                        (DESCRIPTION, json.dumps(ICONS)))
        label = "P --print-server-json from %s" % how
        rc, out, err = print_json(h, args, label)
        p = [] if rc == 0 else ["exit %s: %s" % (rc, err[-300:])]
        try:
            doc = json.loads(out)
        except ValueError:
            report(label, p + ["not JSON: %r" % out[:200]])
            continue
        p += schema_errors(vreg, doc)
        want = {"$schema": REGISTRY_SCHEMA_URL,
                "name": "com.example.mcp/card-test",
                "description": DESCRIPTION, "version": h.version,
                "websiteUrl": "https://card.example/",
                "icons": [HTTPS_ICON],
                "remotes": [{"type": "streamable-http",
                             "url": "https://mcp.example.com/mcp",
                             "headers": [{"name": "Authorization",
                                          "description": doc.get(
                                              "remotes", [{}])[0].get(
                                              "headers", [{}])[0].get(
                                              "description"),
                                          "isRequired": True,
                                          "isSecret": True}]}]}
        for k in set(want) | set(doc):
            if doc.get(k) != want.get(k):
                p.append("%s %r, want %r" % (k, doc.get(k), want.get(k)))
        if "icon left out" not in err:
            p.append("the data: icon left out silently: %r" % err[-200:])
        report(label + ": valid against the registry's schema 2025-12-11",
               p)
    rc, out, err = print_json(h, ["--print-server-json"],
                              "P --print-server-json without --public-url")
    R.check(rc == 2 and "--public-url" in err and not out,
            "P --print-server-json without --public-url is refused",
            "exit %s, %r" % (rc, err[-200:]))
    rc, out, err = print_json(h, ["--print-server-json", "--public-url",
                                  "https://x.example/mcp?k=1"],
                              "P a public URL with a query")
    R.check(rc == 1 and "no query" in err and not out,
            "P a --public-url with a query is refused",
            "exit %s, %r" % (rc, err[-200:]))


def validators_refuse(vcard, vreg):
    """S: the checks can fail: a name that is no namespace/name."""
    card = {"$schema": CARD_SCHEMA_URL, "name": "wymcp", "version": "1",
            "description": "x"}
    R.check(schema_errors(vcard, card), "S the card schema refuses the "
            "name 'wymcp'", "accepted")
    reg = dict(card, **{"$schema": REGISTRY_SCHEMA_URL})
    R.check(schema_errors(vreg, reg), "S the registry schema refuses the "
            "name 'wymcp'", "accepted")


def layer(h):
    vcard, vreg = validators()
    validators_refuse(vcard, vreg)
    h.paths()
    h.start()
    t = Tests(h)
    t.vcard = vcard
    t.discover_info()
    h.version = t.version
    t.test_card()
    t.test_location()
    test_print(h, vreg)
    t.test_reload()


def main():
    return e2e.run_layer(Harness, layer)


if __name__ == "__main__":
    sys.exit(main())
