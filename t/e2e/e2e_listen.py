#!/usr/bin/env python3
"""e2e_listen.py - listen streams held by the hub, through a real nginx.

Usage: e2e_listen.py [--builddir DIR] [--keep] [-v]

Starts wymcp-fcgi with ONE worker (so that a listen that held a worker
would stop every other request), --max-listeners 5,
--max-listeners-per-principal 3, --listen-max-age 20, a status page,
and the examples, conformance and rogue modules, behind a private nginx
(/mcp as alice, /mcp-anon anonymous, /mcp-narrow with WYMCP_TOOLS "help
echo").  Every stream is read as a client reads it (HTTP/1.0 through
nginx, the SSE frames one by one) and proves (basic/patterns/
subscriptions.mdx):

  A  the acknowledgement is the first frame, with the subset honoured
     (a member the filter schema does not have is left out), tagged
     with the listen's id; the worker is free at once (three streams
     open, a tools/call on the one worker answers at once, the status
     page shows no worker busy);
  E  write_note "a" reaches the stream subscribed to note://a as
     notifications/resources/updated with the uri and the subscription
     id, and a stream asking resourcesListChanged gets list_changed
     (a new name) but no update of a URI it did not name; a second
     write of "a" (a replacement) is an update only; the trigger tool
     reaches toolsListChanged streams and no other;
  C  --max-listeners-per-principal: alice's fourth listen is 429 with
     Retry-After; --max-listeners: the instance's sixth is 503 with
     Retry-After; both counted on the status page;
  G  a client that goes away frees its slot (status page held, and a
     listen that was refused now succeeds); a notifications/cancelled
     naming a listen ends it when its caller sends it, not another;
  S  a client that does not read is dropped once its buffer is full,
     while another stream goes on getting events and calls are served;
  L  a 2025-11-25 client: initialize declares listChanged and
     resources.subscribe; its GET with the session id is an SSE stream
     held by the hub, which gets the updates of the URIs the session
     subscribed to (resources/subscribe on any worker; before the GET
     too) and no other, the list changes, untagged; unsubscribe stops
     them; a GET without a session id is 405, with one that does not
     open 404, without SSE in Accept 400;
  R  SIGHUP reloads the module directory (--module DIR): nothing
     changed, nobody is told; a module file added: tools/list_changed to
     the streams that asked and whose mount list (WYMCP_TOOLS) has the
     new tool, and the new workers list it; a module removed: each list
     that changed to the streams that asked, none to a mount list the
     change does not touch; a module that does not load: refused,
     saying why, and the workers keep what they had;
  P  wymcp-fcgi --publish reaches the streams through the hub's socket
     beside the FastCGI one (SOCK.hub, mode 0600), and refuses what is
     not an event;
  M  at --listen-max-age the stream ends gracefully: the listen's
     result, tagged, then the end of the response; a quiet stream gets
     ": keep-alive" comments meanwhile (every 15 s);
  K  the hub SIGKILLed: its streams end as a transport close (no
     result), the supervisor starts another hub, and a new listen gets
     events again;
  T  SIGTERM to the supervisor: every open stream gets its result
     before the end;
  D  the private directories in TMPDIR (a private one per instance):
     wymcp-fcgi on TCP (so the hub's socket is not SOCK.hub) with two
     workers makes wymcp-hub.* and wymcp-relay.*; they are the same
     after a SIGHUP reload; the supervisor SIGKILLed while the hub
     holds a stream and the relay directory holds a socket: within 2 s
     TMPDIR has no wymcp-* entry and no process of the instance is
     left; SIGTERM leaves nothing either; with --max-listeners 0 a hub
     still runs (keeping the relay directory) and a SIGKILL leaves
     nothing.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed".
Python 3 standard library only.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_e2e
from wymcp_e2e import R, Client, enc, hlist, rpc, std_headers
from wymcp_listen import STATUS, SUB, HubHarness, Stream, drain, tagged


def fnv1a_1024(s):
    """0.4's bucket of a principal's share: FNV-1a, mod 1024."""
    h = 2166136261
    for c in s.encode():
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h % 1024


MATE = "mallory-63"
assert fnv1a_1024(MATE) == fnv1a_1024("alice")


class ListenHarness(HubHarness):
    hub_args = ["--max-listeners", "5", "--max-listeners-per-principal", "3",
                "--listen-max-age", "20", "-v", "-v"]

    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        self.nworkers = 1
        self.tools = ["examples", "conformance"]

    def more_locations(self, target):
        # /mcp-mate: alice's bucket mate (0.4 counted shares per FNV-1a
        # of the principal, mod 1024), a location as /mcp-anon is.
        return HubHarness.more_locations(self, target) + \
            wymcp_e2e.wymcp_location("/mcp-mate", target, [
                ("WYMCP_PRINCIPAL", '"%s"' % MATE)])

    def paths(self):
        HubHarness.paths(self)
        rogue = os.path.join(self.builddir, "t", "lib", ".libs", "rogue.so")
        wymcp_e2e.need_built(rogue, hint="make check-listen builds it")
        self.mods.append(rogue)


def call(h, name, args, path="/mcp"):
    c = Client(h.port)
    r = c.send("POST", path, enc(rpc(1, "tools/call", {"name": name,
                                                       "arguments": args})),
               hlist(std_headers("tools/call", name)))
    return r


def status(h):
    r = Client(h.port).send("GET", STATUS)
    try:
        return json.loads(r.raw.decode())
    except ValueError:
        return {}


def listen_stats(h):
    return status(h).get("listen", {})


def wait_stat(h, key, want, timeout=5):
    end = time.monotonic() + timeout
    got = None
    while time.monotonic() < end:
        got = listen_stats(h).get(key)
        if want(got):
            return got
        time.sleep(0.1)
    return got


def tools_listed(h, path="/mcp"):
    r = Client(h.port).send("POST", path, enc(rpc(1, "tools/list")),
                            hlist(std_headers("tools/list")))
    return [t["name"] for t in (r.json or {}).get("result", {})
            .get("tools", [])]


OLD = "2025-11-25"


def legacy_post(h, method, params, session=None, rid=1):
    """A 2025-11-25 POST to /mcp-anon: the Resp."""
    hd = [("Content-Type", "application/json"),
          ("Accept", "application/json, text/event-stream"),
          ("MCP-Protocol-Version", OLD)]
    if session is not None:
        hd.append(("Mcp-Session-Id", session))
    return Client(h.port).send("POST", "/mcp-anon", enc(
        {"jsonrpc": "2.0", "id": rid, "method": method,
         "params": params}), hd)


class GetStream(Stream):
    """A 2025-11-25 GET stream (no body, no acknowledgement)."""

    def __init__(self, port, session, accept="text/event-stream"):
        import socket
        self.rid = None
        self.s = socket.create_connection(("127.0.0.1", port))
        head = ("GET /mcp-anon HTTP/1.0\r\nHost: localhost\r\n"
                "Accept: %s\r\nMCP-Protocol-Version: %s\r\n" %
                (accept, OLD))
        if session is not None:
            head += "Mcp-Session-Id: %s\r\n" % session
        self.s.sendall((head + "\r\n").encode())
        self.buf = b""
        self.status = None
        self.headers = ""
        self.frames = []
        self.comments = []
        self.eof = False


def l_section(h, port):
    r = legacy_post(h, "initialize", {
        "protocolVersion": OLD, "capabilities": {},
        "clientInfo": {"name": "e2e-legacy", "version": "1"}})
    sid = r.header("Mcp-Session-Id")
    caps = ((r.json or {}).get("result") or {}).get("capabilities", {})
    R.check(r.status == 200 and sid and
            caps.get("tools", {}).get("listChanged") is True and
            caps.get("resources", {}).get("subscribe") is True and
            caps.get("resources", {}).get("listChanged") is True,
            "L: a 2025-11-25 initialize declares listChanged and "
            "resources.subscribe", r.brief())
    if not sid:
        return
    # Subscribed before the stream opens: kept for it.
    r1 = legacy_post(h, "resources/subscribe", {"uri": "note://l1"}, sid)
    g = GetStream(port, sid)
    ok = g.wait(lambda s: s.status is not None and len(s.comments) >= 1)
    R.check(ok and g.status == 200 and "text/event-stream" in g.headers,
            "L: GET with the session id opens an SSE stream",
            "%r %r" % (g.status, g.headers[:200]))
    r2 = legacy_post(h, "resources/subscribe", {"uri": "note://l2"}, sid)
    R.check(r1.status == 200 and r2.status == 200 and
            (r2.json or {}).get("result") == {},
            "L: resources/subscribe answers {}", r2.brief())
    time.sleep(0.3)
    call(h, "write_note", {"name": "l1", "text": "x"})
    call(h, "write_note", {"name": "l2", "text": "y"})
    call(h, "write_note", {"name": "l3", "text": "z"})
    g.wait(lambda s: len(s.notes("notifications/resources/updated")) >= 2)
    g.pump(0.3)
    up = [f["params"]["uri"] for f in
          g.notes("notifications/resources/updated")]
    R.check(sorted(up) == ["note://l1", "note://l2"],
            "L: the stream gets the updates of the URIs the session "
            "subscribed to, before and after it opened, and no other",
            json.dumps(g.frames))
    lc = g.notes("notifications/resources/list_changed")
    R.check(len(lc) == 3 and all("_meta" not in f.get("params", {})
                                 for f in g.frames),
            "L: and the resource list changes, untagged (2025-11-25 has "
            "no subscription id)", json.dumps(g.frames))
    legacy_post(h, "resources/unsubscribe", {"uri": "note://l1"}, sid)
    time.sleep(0.3)
    call(h, "write_note", {"name": "l1", "text": "again"})
    call(h, "write_note", {"name": "l2", "text": "again"})
    g.wait(lambda s: len(s.notes("notifications/resources/updated")) >= 3)
    g.pump(0.3)
    up = [f["params"]["uri"] for f in
          g.notes("notifications/resources/updated")]
    R.check(up.count("note://l1") == 1 and up.count("note://l2") == 2,
            "L: after resources/unsubscribe no more updates of that URI",
            repr(up))
    g.close()
    wait_stat(h, "held", lambda v: v == 3)
    bad = GetStream(port, None)
    bad.wait(lambda s: s.status is not None)
    bad.pump(0.3)
    R.check(bad.status == 405 and "Allow: POST" in bad.headers,
            "L: a GET without a session id is 405 (no stream without a "
            "session)", "%r %r" % (bad.status, bad.headers[:200]))
    bad.close()
    bad = GetStream(port, "not-a-session")
    bad.wait(lambda s: s.status is not None)
    R.check(bad.status == 404, "L: a GET whose session id does not open "
            "is 404 (initialize again)", repr(bad.status))
    bad.close()
    bad = GetStream(port, sid, accept="application/json")
    bad.wait(lambda s: s.status is not None)
    R.check(bad.status == 400, "L: a GET that does not accept SSE is 400",
            repr(bad.status))
    bad.close()


def reload(h, want_log):
    """SIGHUP, then wait for the supervisor's word on it."""
    n = len(wymcp_e2e.log_entries(h.fcgi_log))
    os.kill(h.sup, signal.SIGHUP)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        for e in wymcp_e2e.log_entries(h.fcgi_log)[n:]:
            if want_log in e[3]:
                time.sleep(0.3)		# the new worker takes over
                return e[3]
        time.sleep(0.1)
    return None


def r_section(h, port, a, b, quiet):
    pr = Stream(port, {"promptsListChanged": True}, "pr", path="/mcp-anon")
    pr.wait(lambda s: len(s.frames) >= 1)
    counts = lambda: (len(a.frames), len(b.frames), len(pr.frames))
    for st in (a, b, pr):
        drain(st)
    c0 = counts()
    line = reload(h, "SIGHUP: reloaded")
    for st in (a, b, pr):
        st.pump(0.5)
    R.check(line is not None and "no list changed" in line and
            counts() == c0,
            "R: a reload that changes nothing tells nobody", "%r %r %r" % (
                line, c0, counts()))
    narrow = Stream(port, {"toolsListChanged": True}, "narrow",
                    path="/mcp-narrow")
    narrow.wait(lambda s: len(s.frames) >= 1)
    shutil.copy(os.path.join(h.builddir, "tools", ".libs", "echo.so"),
                h.moddir)
    line = reload(h, "SIGHUP: reloaded")
    a.wait(lambda s: "notifications/tools/list_changed" in s.methods()[-1:])
    narrow.wait(lambda s: len(s.frames) >= 2)
    pr.pump(0.3)
    R.check(line is not None and '"tools":["echo"]' in line and
            a.methods()[-1] == "notifications/tools/list_changed" and
            narrow.methods()[1:] == ["notifications/tools/list_changed"]
            and pr.methods() == ["notifications/subscriptions/"
                                 "acknowledged"],
            "R: a module file added to the directory and SIGHUP: "
            "tools/list_changed to the streams that asked and whose mount "
            "list has the new tool (WYMCP_TOOLS \"help echo\"), not to a "
            "prompts stream", "%r %r %r" % (line, narrow.methods(),
                                            pr.methods()))
    R.check("echo" in tools_listed(h), "R: the new workers list the new "
            "tool", repr(tools_listed(h)))
    os.unlink(os.path.join(h.moddir, "conformance.so"))
    na, nn = len(a.frames), len(narrow.frames)
    line = reload(h, "SIGHUP: reloaded")
    a.wait(lambda s: len(s.frames) > na)
    b.wait(lambda s: "notifications/resources/list_changed" in
           s.methods()[-1:])
    pr.wait(lambda s: len(s.frames) >= 2)
    narrow.pump(0.5)
    R.check(a.methods()[na:] == ["notifications/tools/list_changed"] and
            b.methods()[-1] == "notifications/resources/list_changed" and
            pr.methods()[1:] == ["notifications/prompts/list_changed"]
            and len(narrow.frames) == nn,
            "R: a module removed: tools, prompts and resources "
            "list_changed to the streams that asked for each, none to a "
            "mount list the change does not touch", "%r | %r %r %r %r" % (
                line, a.methods()[na:], b.methods()[-1:], pr.methods(),
                narrow.methods()))
    with open(os.path.join(h.moddir, "broken.so"), "w") as f:
        f.write("not a shared object\n")
    before = tools_listed(h)
    na = len(a.frames)
    line = reload(h, "SIGHUP: reload refused")
    a.pump(0.5)
    R.check(line is not None and "broken.so" in line and
            tools_listed(h) == before and len(a.frames) == na,
            "R: a module that does not load: the reload is refused, saying "
            "why, the workers keep the tools they had, nobody is told",
            "%r %r" % (line, tools_listed(h)))
    os.unlink(os.path.join(h.moddir, "broken.so"))
    narrow.close()
    pr.close()
    wait_stat(h, "held", lambda v: v == 3)


def body(h):
    h.paths()
    h.start()
    port = h.port
    t_quiet = time.monotonic()
    quiet = Stream(port, {"resourceSubscriptions": ["note://never"]},
                   "quiet")
    quiet.wait(lambda s: len(s.frames) >= 1)

    # A: the acknowledgement; the one worker is free.
    a = Stream(port, {"toolsListChanged": True, "resourceSubscriptions":
                      ["note://a"], "future": True}, 7)
    ok = a.wait(lambda s: len(s.frames) >= 1)
    R.check(ok and a.status == 200 and "text/event-stream" in a.headers,
            "A: the listen is an SSE stream", a.headers[:200])
    ack = a.frames[0] if a.frames else {}
    R.check(ack.get("method") == "notifications/subscriptions/acknowledged"
            and ack.get("params", {}).get("notifications") ==
            {"toolsListChanged": True, "resourceSubscriptions": ["note://a"]}
            and ack["params"]["_meta"].get(SUB) == 7,
            "A: the acknowledgement is first, the honoured subset, tagged",
            json.dumps(ack))
    b = Stream(port, {"resourcesListChanged": True, "resourceSubscriptions":
                      ["note://b"]}, "b", path="/mcp-anon")
    b.wait(lambda s: len(s.frames) >= 1)
    t0 = time.monotonic()
    r = call(h, "write_note", {"name": "a", "text": "first"})
    took = time.monotonic() - t0
    R.check(r.status == 200 and "written" in json.dumps(r.json or {}) and
            took < 5,
            "A: three streams open, the one worker still serves (%.2f s)"
            % took, r.brief())
    st = listen_stats(h)
    R.check(st.get("hubUp") is True and st.get("held") == 3 and
            st.get("streams", {}).get("resourceUpdates") == 3 and
            st.get("streams", {}).get("listChanged") == 2,
            "A: the status page counts the hub's streams",
            json.dumps(st))
    R.check(status(h).get("workers", {}).get("busy") == 0,
            "A: no worker is busy while the streams are open",
            json.dumps(status(h).get("workers")))

    # E: events reach the streams that asked, tagged.
    a.wait(lambda s: len(s.notes("notifications/resources/updated")) >= 1)
    up = a.notes("notifications/resources/updated")
    R.check(len(up) == 1 and up[0]["params"].get("uri") == "note://a" and
            up[0]["params"]["_meta"].get(SUB) == 7,
            "E: write_note reaches the stream subscribed to note://a",
            json.dumps(a.frames))
    b.wait(lambda s: len(s.notes("notifications/resources/list_changed"))
           >= 1)
    R.check(b.methods()[1:] == ["notifications/resources/list_changed"] and
            tagged(b.frames, "b"),
            "E: a new note is resources/list_changed to the stream that "
            "asked, no update of a URI it did not name",
            json.dumps(b.frames))
    R.check("notifications/resources/list_changed" not in a.methods(),
            "E: no list_changed to a stream that did not ask",
            json.dumps(a.methods()))
    call(h, "write_note", {"name": "a", "text": "second"})
    a.wait(lambda s: len(s.notes("notifications/resources/updated")) >= 2)
    b.pump(0.5)
    R.check(len(a.notes("notifications/resources/updated")) == 2 and
            len(b.notes("notifications/resources/list_changed")) == 1,
            "E: a replaced note is an update only",
            json.dumps([a.methods(), b.methods()]))
    r = call(h, "test_trigger_tool_change", {})
    a.wait(lambda s: "notifications/tools/list_changed" in s.methods())
    b.pump(0.5)
    quiet.pump(0.2)
    R.check("notifications/tools/list_changed" in a.methods() and
            "notifications/tools/list_changed" not in b.methods() and
            quiet.methods() == ["notifications/subscriptions/acknowledged"],
            "E: the tool list trigger reaches toolsListChanged streams only",
            json.dumps([a.methods(), b.methods(), quiet.methods()]))
    R.check(tagged(a.frames, 7), "E: every frame of a stream is tagged",
            json.dumps(a.frames))
    # P: anything else on the host publishes through the hub's socket.
    n0 = len(a.notes("notifications/resources/updated"))
    p = subprocess.run(wymcp_e2e.wrap_argv([h.prog, "--publish",
                                            "updated note://a", "--listen",
                                            "unix:" + h.sock]),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    a.wait(lambda s: len(s.notes("notifications/resources/updated")) > n0)
    R.check(p.returncode == 0 and len(a.notes(
        "notifications/resources/updated")) == n0 + 1 and
        os.stat(h.sock + ".hub").st_mode & 0o077 == 0,
        "P: wymcp-fcgi --publish 'updated note://a' --listen unix:SOCK "
        "reaches the stream, through SOCK.hub (mode 0600)",
        "%d %r" % (p.returncode, p.stdout[-300:]))
    p = subprocess.run(wymcp_e2e.wrap_argv([h.prog, "--publish",
                                            "list nothing", "--listen",
                                            "unix:" + h.sock]),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    R.check(p.returncode == 1 and b"no list 'nothing'" in p.stdout,
            "P: --publish refuses what is not an event, saying why",
            "%d %r" % (p.returncode, p.stdout[-300:]))

    # L: a 2025-11-25 client's GET stream for its session.
    l_section(h, port)

    # R: SIGHUP reloads the module directory; the lists that changed.
    r_section(h, port, a, b, quiet)

    # C: the caps.  alice holds a and (below) two more: 3 = her share.
    c1 = Stream(port, {"toolsListChanged": True}, "c1")
    c1.wait(lambda s: len(s.frames) >= 1)
    c2 = Stream(port, {"toolsListChanged": True}, "c2")
    c2.wait(lambda s: s.status is not None)
    R.check(c1.status == 200 and c2.status == 429 and
            "Retry-After:" in c2.headers,
            "C: a principal's share (3) used: 429 with Retry-After",
            "%s / %s" % (c1.status, c2.headers[:300]))
    line = c2.headers.split("\r\n")[0]
    R.check(line == "HTTP/1.1 429 Too Many Requests",
            "C: the 429's status line through nginx is 'HTTP/1.1 429 Too "
            "Many Requests'", line)
    # Shares are per principal, not per bucket: alice's bucket mate
    # (same FNV-1a mod 1024) listens while alice holds her three.
    m = Stream(port, {"toolsListChanged": True}, "m", path="/mcp-mate")
    m.wait(lambda s: s.status is not None and (s.status != 200 or
                                               len(s.frames) >= 1))
    R.check(m.status == 200 and len(m.frames) >= 1,
            "C: a principal whose FNV-1a is alice's mod 1024 (%s) has its "
            "own share: 200 while alice holds hers" % MATE,
            "%s %r" % (m.status, m.headers[:200]))
    m.close()
    wait_stat(h, "held", lambda v: v == 4)
    # Held: quiet, a, b, c1 = 4; one more anonymous makes 5, then 503.
    d1 = Stream(port, {"toolsListChanged": True}, "d1", path="/mcp-anon")
    d1.wait(lambda s: len(s.frames) >= 1)
    d2 = Stream(port, {"toolsListChanged": True}, "d2", path="/mcp-anon")
    d2.wait(lambda s: s.status is not None)
    d2.pump(0.3)
    R.check(d1.status == 200 and d2.status == 503 and
            "Retry-After:" in d2.headers and
            (d2.buf + b"").find(b"--max-listeners") >= 0,
            "C: the instance's --max-listeners (5) reached: 503 with "
            "Retry-After", "%s / %s %r" % (d1.status, d2.headers[:200],
                                            d2.buf[:200]))
    st = listen_stats(h)
    R.check(st.get("refused", 0) >= 2 and st.get("held") == 5,
            "C: refusals counted on the status page", json.dumps(st))
    # alice and the client address without a principal: two principals
    # in a table of 16 slots (2 x --max-listeners 5, at least 16).
    R.check(st.get("slotsTaken") == 5 and st.get("reclaimed") == 0 and
            st.get("shares") == {"used": 2, "capacity": 16,
                                 "refusedNoRoom": 0},
            "C: the status page shows the slots taken and the share "
            "table's fill (2 principals of 16 slots)", json.dumps(st))
    t = Client(h.port).send("GET", STATUS + "?format=prometheus").raw \
        .decode()
    R.check('\nwymcp_principal_shares{table="listen"} 2\n' in t and
            '\nwymcp_principal_shares_capacity{table="listen"} 16\n' in t
            and '\nwymcp_principal_shares_refused_total{table="listen"} '
            '0\n' in t and "\nwymcp_listen_reclaimed_total 0\n" in t,
            "C: ... and in Prometheus text",
            "\n".join(x for x in t.splitlines() if "shares" in x))
    c2.close()
    d2.close()

    # G: a client that goes away frees its slot.
    gone0 = st.get("clientGone", 0)
    d1.close()
    got = wait_stat(h, "held", lambda v: v == 4)
    R.check(got == 4 and listen_stats(h).get("clientGone", 0) > gone0,
            "G: a client that went away frees its slot", json.dumps(
                listen_stats(h)))
    d3 = Stream(port, {"toolsListChanged": True}, "d3", path="/mcp-anon")
    d3.wait(lambda s: len(s.frames) >= 1)
    R.check(d3.status == 200, "G: the freed slot is taken again",
            str(d3.status))
    # notifications/cancelled naming d3, from another caller: nothing;
    # from d3's caller (another connection, any worker): d3 ends.
    def cancel(path):
        return Client(h.port).send("POST", path, enc(
            {"jsonrpc": "2.0", "method": "notifications/cancelled",
             "params": {"requestId": "d3", "_meta": wymcp_e2e.META}}),
            hlist(std_headers("notifications/cancelled")))
    r = cancel("/mcp")
    d3.pump(0.5)
    R.check(r.status == 202 and not d3.eof, "G: another caller's "
            "notifications/cancelled for the same id ends nothing",
            "%d %r" % (r.status, d3.eof))
    r = cancel("/mcp-anon")
    d3.wait(lambda s: s.eof, 5)
    R.check(r.status == 202 and d3.eof and
            not any("result" in f for f in d3.frames),
            "G: its caller's notifications/cancelled naming the listen "
            "ends it", "%d %r %r" % (r.status, d3.eof, d3.frames[-1:]))
    d3.close()
    c1.close()
    wait_stat(h, "held", lambda v: v == 3)

    # S: a client that does not read is dropped; nothing else slows.
    big = "flood://" + "x" * 1992
    slow = Stream(port, {"resourceSubscriptions": [big]}, "slow",
                  path="/mcp-anon", rcvbuf=4096)
    slow.wait(lambda s: len(s.frames) >= 1)
    fast = Stream(port, {"resourceSubscriptions": [big]}, "fast",
                  path="/mcp-anon")
    fast.wait(lambda s: len(s.frames) >= 1)
    dropped0 = listen_stats(h).get("droppedSlow", 0)
    worst = 0.0
    for i in range(150):
        t0 = time.monotonic()
        r = call(h, "flood_events", {"n": 64, "size": 2000})
        worst = max(worst, time.monotonic() - t0)
        drain(fast)
        if listen_stats(h).get("droppedSlow", 0) > dropped0:
            break
    R.check(listen_stats(h).get("droppedSlow", 0) > dropped0,
            "S: a stream whose client does not read is dropped "
            "(after %d calls of 64 events of 2 kB)" % (i + 1),
            json.dumps(listen_stats(h)))
    drain(fast)
    R.check(len(fast.notes("notifications/resources/updated")) >= 64 * i
            and worst < 3,
            "S: the reading stream got every event (%d) and no call "
            "waited (worst %.2f s)" % (
                len(fast.notes("notifications/resources/updated")), worst),
            "")
    slow.close()
    fast.close()

    # M: the maximum age, and the keep-alive comments of a quiet stream.
    left = 20 - (time.monotonic() - t_quiet) + 1
    quiet.wait(lambda s: s.eof, max(left, 1) + 5)
    res = [f for f in quiet.frames if "result" in f]
    R.check(quiet.eof and len(res) == 1 and res[0].get("id") == "quiet" and
            res[0]["result"].get("resultType") == "complete" and
            res[0]["result"]["_meta"].get(SUB) == "quiet" and
            "io.modelcontextprotocol/serverInfo" in res[0]["result"]["_meta"],
            "M: at --listen-max-age the stream ends with the listen's "
            "result, tagged", json.dumps(quiet.frames[-2:]))
    R.check(any("keep-alive" in c for c in quiet.comments),
            "M: a quiet stream got keep-alive comments",
            repr(quiet.comments))
    R.check(listen_stats(h).get("aged", 0) >= 1,
            "M: counted on the status page", json.dumps(listen_stats(h)))

    # K: the hub killed.
    pid = h.hub()
    R.check(pid is not None and pid not in h.workers() and
            wymcp_e2e.comm(pid) == "wymcp-hub",
            "K: the hub is a child of the supervisor, named wymcp-hub",
            str(pid))
    starts0 = listen_stats(h).get("hubStarts", 0)
    k = Stream(port, {"toolsListChanged": True}, "k")
    k.wait(lambda s: len(s.frames) >= 1)
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
    k.wait(lambda s: s.eof, 5)
    R.check(k.eof and len(k.frames) == 1 and
            not any("result" in f for f in k.frames),
            "K: its streams end as a transport close, without a result",
            json.dumps(k.frames))
    k.close()
    got = wait_stat(h, "hubStarts", lambda v: v is not None and
                    v > starts0, 5)
    wait_stat(h, "hubUp", lambda v: v is True, 5)
    R.check(got is not None and got > starts0 and
            listen_stats(h).get("held") == 0,
            "K: another hub is started, holding nothing",
            json.dumps(listen_stats(h)))
    a2 = Stream(port, {"resourceSubscriptions": ["note://a"]}, 8)
    a2.wait(lambda s: len(s.frames) >= 1)
    call(h, "write_note", {"name": "a", "text": "third"})
    R.check(a2.wait(lambda s: len(s.notes(
        "notifications/resources/updated")) == 1),
        "K: a new listen gets events again", json.dumps(a2.frames))

    # T: the supervisor stopped: every stream ends with its result.
    wymcp_e2e.stop_pid(h.sup, None, 10)
    a2.wait(lambda s: s.eof, 5)
    R.check(a2.eof and any(f.get("id") == 8 and "result" in f
                           for f in a2.frames),
            "T: on SIGTERM every stream gets its result before the end",
            json.dumps(a2.frames[-2:]))
    for st in (a, b, quiet, a2):
        st.close()

    # D: the private directories in TMPDIR, after a kill.
    d_section(h)


def d_instance(h, name, extra):
    """wymcp-fcgi on a TCP loopback port with two workers and TMPDIR
    a directory of its own: (Popen, supervisor, TMPDIR, port, log)."""
    tmpdir = os.path.join(h.tmp, "tmpdir-" + name)
    os.makedirs(tmpdir, mode=0o700)
    log = os.path.join(h.tmp, "wymcp-fcgi-%s.log" % name)
    port = wymcp_e2e.free_port()
    argv = [h.prog, "--listen", "127.0.0.1:%d" % port, "--workers", "2",
            "-vv", "--module", os.path.join(h.builddir, "tools", ".libs",
                                            "examples.so")] + extra
    env = dict(os.environ, TMPDIR=tmpdir)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    with open(log, "wb") as f:
        p = subprocess.Popen(wymcp_e2e.wrap_argv(argv), env=env, cwd=h.tmp,
                             stdin=subprocess.DEVNULL, stdout=f, stderr=f)
    h.d_procs.append(p)
    box = wymcp_e2e.Harness(h.builddir)
    box.fcgi = p
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and p.poll() is None:
        sup = box.supervisor()
        kids = wymcp_e2e.children(sup)
        if len(kids) >= 3 and any(wymcp_e2e.comm(k) == "wymcp-hub"
                                  for k in kids):
            return p, sup, tmpdir, port, log
        time.sleep(0.05)
    raise wymcp_e2e.Failed("%s: no hub and two workers after 15 s: %s" %
                           (name, " | ".join(wymcp_e2e.tail(log, 5))))


def d_entries(tmpdir):
    return sorted(e for e in os.listdir(tmpdir) if e.startswith("wymcp-"))


def d_gone(tmpdir, pids, timeout=2.0):
    """Wait up to timeout for TMPDIR without wymcp-* and pids dead:
    (seconds taken, entries left, pids alive)."""
    t0 = time.monotonic()
    while True:
        left = d_entries(tmpdir)
        alive = [p for p in pids if wymcp_e2e.alive(p)]
        took = time.monotonic() - t0
        if (not left and not alive) or took > timeout:
            return took, left, alive
        time.sleep(0.02)


def d_listen(port):
    """A listen held by the hub, over FastCGI straight to the port: the
    socket, once the acknowledgement came."""
    body = enc(rpc("d", "subscriptions/listen",
                   {"notifications": {"toolsListChanged": True}}))
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.sendall(wymcp_e2e.fcgi_request(wymcp_e2e.mcp_params(
        "subscriptions/listen", body=body), body))
    got = b""
    while b"acknowledged" not in got:
        b = s.recv(65536)
        if not b:
            break
        got += b
    return s, b"acknowledged" in got


def d_section(h):
    h.d_procs = []
    try:
        d_body(h)
    finally:
        for p in h.d_procs:
            if p.poll() is None:
                wymcp_e2e.stop_pid(p.pid, p, 10)
        logs = [os.path.join(h.tmp, "wymcp-fcgi-%s.log" % n)
                for n in ("kill", "term", "keeper")]
        bad = [ln for lg in logs for ln in wymcp_e2e.tail(lg, 100000)
               if any(m in ln for m in wymcp_e2e.SANITIZER_MARKS)]
        R.check(not bad, "D: no sanitizer report in the D instances' logs",
                " | ".join(bad[:3]))


def d_body(h):
    p, sup, tmpdir, port, log = d_instance(h, "kill", [])
    first = d_entries(tmpdir)
    R.check(len(first) == 2 and first[0].startswith("wymcp-hub.") and
            first[1].startswith("wymcp-relay."),
            "D: TCP --listen, two workers: TMPDIR holds wymcp-hub.* and "
            "wymcp-relay.*", repr(first))
    old = set(wymcp_e2e.children(sup))
    os.kill(sup, signal.SIGHUP)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        kids = set(wymcp_e2e.children(sup))
        if len(kids - old) >= 2 and len(kids) == 3:
            break
        time.sleep(0.05)
    pids = old | kids
    R.check(d_entries(tmpdir) == first and len(kids - old) == 2 and
            len(kids) == 3,
            "D: after a SIGHUP reload (two new workers), the same "
            "directories", "%r %r %r" % (d_entries(tmpdir), sorted(old),
                                         sorted(kids)))
    # A socket in the relay directory, as a worker holding a question
    # has; a stream held by the hub.
    relay = os.path.join(tmpdir, first[1])
    holder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    holder.bind(os.path.join(relay, "99999.1"))
    stream, acked = d_listen(port)
    R.check(acked, "D: a listen held by the hub of the instance")
    os.kill(sup, signal.SIGKILL)
    took, left, alive = d_gone(tmpdir, pids | {sup})
    R.check(not left and not alive,
            "D: supervisor SIGKILLed: TMPDIR has no wymcp-* entry and no "
            "process of the instance is left (%.2f s)" % took,
            "left %r, alive %r" % (left, alive))
    R.check(any("the supervisor (%d) is gone" % sup in e[3]
                for e in wymcp_e2e.log_entries(log)),
            "D: the hub says it removes them", " | ".join(
                wymcp_e2e.tail(log, 4)))
    holder.close()
    stream.close()
    p.wait(5)

    p, sup, tmpdir, port, log = d_instance(h, "term", [])
    pids = set(wymcp_e2e.children(sup)) | {sup}
    had = d_entries(tmpdir)
    wymcp_e2e.stop_pid(sup, p, 10)
    took, left, alive = d_gone(tmpdir, pids)
    R.check(len(had) == 2 and not left and not alive and p.returncode == 0,
            "D: SIGTERM: nothing left in TMPDIR, no process (%.2f s)" %
            took, "had %r, left %r, alive %r, exit %r" %
            (had, left, alive, p.returncode))

    p, sup, tmpdir, port, log = d_instance(h, "keeper",
                                           ["--max-listeners", "0"])
    had = d_entries(tmpdir)
    pids = set(wymcp_e2e.children(sup)) | {sup}
    R.check(len(had) == 1 and had[0].startswith("wymcp-relay.") and
            len(pids) == 4,
            "D: --max-listeners 0: a hub still runs, beside the two "
            "workers, for wymcp-relay.* alone", "%r %r" % (had, pids))
    os.kill(sup, signal.SIGKILL)
    took, left, alive = d_gone(tmpdir, pids)
    R.check(not left and not alive,
            "D: --max-listeners 0, supervisor SIGKILLed: nothing left "
            "(%.2f s)" % took, "left %r, alive %r" % (left, alive))
    p.wait(5)


if __name__ == "__main__":
    sys.exit(wymcp_e2e.run_layer(ListenHarness, body))
