#!/usr/bin/env python3
"""e2e_intake.py - the hub takes data from outside, never commands.

Usage: e2e_intake.py [--builddir DIR] [--keep]

Two wymcp-fcgi instances, A and B (two workers each, the examples
module, one --state-key-file, --bus naming one private PostgreSQL
cluster), each on its own unix socket behind one nginx (/a and /b as
alice, /a-anon, /a-tools with WYMCP_TOOLS "help,write_note", /a-help
with "help"), and a role m of that cluster that may log in and nothing
else (CREATE ROLE m LOGIN), prove (issue 32, wymcp-fcgi(8) "EVENTS"):

  N  psql as m sends hostile NOTIFYs on wymcp_events: a null kind, a
     null list, a null tool name, a null URI, not JSON, a forged
     "cancel" of alice's listen, a forged "subscribe", a "sealed" frame
     with a made-up MAC.  Both hubs survive (same PID), alice's listens
     on A and B stay open (the forged cancel ends nothing) and still
     get a later write_note's update; each status page counts the
     refusals (by reason, JSON and Prometheus);
  S  the same payloads as datagrams on A's PATH.hub socket, and a
     "handoff" carrying a descriptor: the hub survives, the streams
     stay open and get the next update, the socket's refusals are
     counted;
  C  alice's real notifications/cancelled of her listen held by A,
     sent through B (another instance: stream control sealed under the
     state key on the bus), ends it without its result; another
     caller's ends nothing;
  U  a 2025-11-25 session's GET stream held by A gets the updates of a
     URI the session subscribed to through B (sealed on the bus too);
  R  the key file rotated to a new key alone and the instances reloaded
     (SIGHUP), A's hub killed and replaced (it seals with the new key):
     B's hub, never restarted, reads the file again, so alice's cancel
     through A still ends her listen held by B;
  T  a list event naming write_note (wymcp-fcgi --publish through A's
     hub socket) reaches the stream whose WYMCP_TOOLS is the
     comma-separated "help,write_note", and not the one of "help".

Skips (77) without PostgreSQL or nginx.  Every process it starts is
stopped by PID.  Prints "ok - NAME" / "not ok - NAME: DETAIL" and
"N passed, M failed".  Python 3 standard library only.
"""

import array
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import wymcp_e2e
import wymcp_tasks
from wymcp_e2e import R, Client, enc, hlist, rpc, std_headers
from wymcp_listen import Stream
from e2e_bus import BusHarness, write, updates

NAMES = ("a", "b")


def hostile(now):
    """The payloads of issue 32, and more of their kind."""
    forged = json.dumps({"v": 1, "k": "cancel", "who": "alice", "id": 7})
    return [
        '{"v":1,"k":null}',
        '{"v":1,"k":"list","lists":[null]}',
        '{"v":1,"k":"list","lists":["tools"],"tools":[null]}',
        '{"v":1,"k":"list","lists":["tools"],"tools":"x"}',
        '{"v":1,"k":"updated","uri":null}',
        '{"v":1,"k":"updated","uri":{"a":1}}',
        '{"v":null}',
        '[1,2,3]',
        'not json at all',
        '{"v":1,"k":"cancel","who":"alice","id":7}',
        '{"v":1,"k":"cancel","who":null,"id":null}',
        '{"v":1,"k":"subscribe","session":"s","uri":"note://h"}',
        json.dumps({"v": 1, "k": "sealed", "kid": "00000000", "t": now,
                    "mac": "00" * 32, "e": forged}),
    ]


class IntakeHarness(BusHarness):
    """Two instances with one state key, and the locations above."""

    def __init__(self, builddir, keep=False):
        BusHarness.__init__(self, builddir, keep, netns=False)

    def start(self):
        self.begin("wymcp-intake.")
        subprocess.run(wymcp_tasks.as_user(self.psql + [
            "-U", "wymcp", "-c", "CREATE ROLE m LOGIN"]), check=True,
            stdout=subprocess.DEVNULL)
        self.key = os.path.join(self.tmp, "state.key")
        subprocess.run(wymcp_e2e.wrap_argv([self.prog, "--generate-key",
                                            self.key]), check=True,
                       stdout=subprocess.DEVNULL)
        notes = os.path.join(self.tmp, "notes")
        os.makedirs(notes)
        env = dict(os.environ, WYMCP_NOTES_DIR=notes)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        self.socks = {}
        for n in NAMES:
            self.logs[n] = os.path.join(self.tmp, n + ".log")
            self.socks[n] = os.path.join(self.tmp, n + ".sock")
            argv = wymcp_e2e.wrap_argv([
                self.prog, "--listen", "unix:" + self.socks[n],
                "--workers", "2", "--module", self.mod, "--bus", self.uri,
                "--state-key-file", self.key,
                "--status-path", "/%s-status" % n, "-v", "-v"])
            with open(self.logs[n], "wb") as log:
                self.procs[n] = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    env=env, cwd=self.tmp)
        wymcp_tasks.wait_serving(self.logs, self.procs)
        a, b = "unix:" + self.socks["a"], "unix:" + self.socks["b"]

        def loc(path, target, params=()):
            return wymcp_e2e.wymcp_location(path, target, params,
                                            blank_user=False)
        alice = [("WYMCP_PRINCIPAL", "alice")]
        locs = "".join([
            loc("/a", a, alice), loc("/b", b, alice),
            loc("/a-anon", a), loc("/b-anon", b),
            loc("/a-tools", a, [("WYMCP_TOOLS", '"help,write_note"')]),
            loc("/a-help", a, [("WYMCP_TOOLS", "help")]),
            loc("/a-status", a), loc("/b-status", b)])
        self.nginx, self.port = wymcp_tasks.start_nginx(
            self.nginx_bin, self.tmp, "intake", locs, self.conns)


def hub_pid(h, n):
    """The PID of instance n's hub (the child named wymcp-hub)."""
    for pid in wymcp_e2e.children(h.procs[n].pid):
        if wymcp_e2e.comm(pid) == "wymcp-hub":
            return pid
    return None


def status(h, n, prom=False):
    r = Client(h.port).send("GET", "/%s-status%s" % (
        n, "?format=prometheus" if prom else ""))
    if prom:
        return r.raw.decode("utf-8", "replace")
    try:
        return json.loads(r.raw.decode())
    except ValueError:
        return {}


def refused(h, n, src):
    return status(h, n).get("listen", {}).get("eventsRefused", {}).get(
        src, {})


def wait_refused(h, n, src, pred, timeout=15):
    end = time.monotonic() + timeout
    got = {}
    while time.monotonic() < end:
        got = refused(h, n, src)
        if pred(got):
            return got
        time.sleep(0.1)
    return got


def notify_as_m(h, payload):
    q = "NOTIFY wymcp_events, '%s'" % payload.replace("'", "''")
    return subprocess.run(wymcp_tasks.as_user(h.psql + ["-U", "m", "-c", q]),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def datagram(path, payload, fd=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        anc = []
        if fd is not None:
            anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                    array.array("i", [fd]))]
        s.sendmsg([payload.encode()], anc, 0, path)
    finally:
        s.close()


def alive_streams(h, streams, label, note):
    """Each stream of `streams' is open and gets the update of `note'
    written through A."""
    before = {k: len(updates(s)) for k, s in streams.items()}
    r = write(h, "a", note, "text")
    R.check(r.status == 200, "%s: write_note %s through A" % (label, note),
            r.brief())
    for k, s in streams.items():
        ok = s.wait(lambda x: len(updates(x)) > before[k], 15)
        R.check(ok and not s.eof, "%s: %s is still open and gets the "
                "next update" % (label, k),
                "eof %r, frames %s" % (s.eof, json.dumps(s.frames[-2:])))


OLD = "2025-11-25"


def legacy_post(h, path, method, params, session=None):
    hd = [("Content-Type", "application/json"),
          ("Accept", "application/json, text/event-stream"),
          ("MCP-Protocol-Version", OLD)]
    if session is not None:
        hd.append(("Mcp-Session-Id", session))
    return Client(h.port).send("POST", path, enc(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        hd)


class GetStream(Stream):
    """A 2025-11-25 GET stream of `session' at `path'."""

    def __init__(self, port, session, path):
        self.rid = None
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.sendall(("GET %s HTTP/1.0\r\nHost: localhost\r\n"
                        "Accept: text/event-stream\r\n"
                        "MCP-Protocol-Version: %s\r\n"
                        "Mcp-Session-Id: %s\r\n\r\n" %
                        (path, OLD, session)).encode())
        self.buf = b""
        self.status = None
        self.headers = ""
        self.frames = []
        self.comments = []
        self.eof = False


def u_section(h):
    r = legacy_post(h, "/a-anon", "initialize", {
        "protocolVersion": OLD, "capabilities": {},
        "clientInfo": {"name": "e2e-intake", "version": "1"}})
    sid = r.header("Mcp-Session-Id")
    R.check(r.status == 200 and sid, "U: a 2025-11-25 initialize through "
            "A", r.brief())
    if not sid:
        return
    g = GetStream(h.port, sid, "/a-anon")
    ok = g.wait(lambda s: s.status is not None and len(s.comments) >= 1)
    R.check(ok and g.status == 200, "U: its GET stream is held by A",
            "%r %r" % (g.status, g.headers[:200]))
    r = legacy_post(h, "/b-anon", "resources/subscribe", {"uri": "note://u"},
                    sid)
    R.check(r.status == 200, "U: resources/subscribe through B", r.brief())
    time.sleep(0.5)
    write(h, "a", "u", "text")
    ok = g.wait(lambda s: len(updates(s)) >= 1, 10)
    R.check(ok and updates(g)[0]["params"]["uri"] == "note://u",
            "U: the session's stream on A gets the update of the URI it "
            "subscribed to through B", json.dumps(g.frames))
    g.close()


def r_section(h):
    r1 = Stream(h.port, {"resourceSubscriptions": ["note://r"]}, "r1", "/b")
    r1.wait(lambda x: len(x.frames) >= 1)
    new = os.path.join(h.tmp, "new.key")
    subprocess.run(wymcp_e2e.wrap_argv([h.prog, "--generate-key", new]),
                   check=True, stdout=subprocess.DEVNULL)
    os.replace(new, h.key)
    for n in NAMES:
        os.kill(h.procs[n].pid, signal.SIGHUP)
    for n in NAMES:
        R.check(wymcp_e2e.wait_log(
            lambda: wymcp_e2e.log_entries(h.logs[n]),
            lambda e: "SIGHUP: reloaded" in e[3], 20),
            "R: %s reloaded the rotated key file" % n.upper(),
            wymcp_e2e.tail(h.logs[n], 5)[-1:])
    old = hub_pid(h, "a")
    os.kill(old, signal.SIGKILL)
    end = time.monotonic() + 20
    while time.monotonic() < end and (hub_pid(h, "a") in (None, old) or
                                      status(h, "a").get("listen", {}).get(
                                          "hubUp") is not True):
        time.sleep(0.1)
    R.check(hub_pid(h, "a") not in (None, old), "R: A's hub is replaced",
            "%r" % hub_pid(h, "a"))
    R.check(wymcp_e2e.wait_log(
        lambda: wymcp_e2e.log_entries(h.logs["b"]),
        lambda e: "state keys read again" in e[3], 10),
        "R: B's hub reads the rotated key file again",
        wymcp_e2e.tail(h.logs["b"], 5)[-1:])
    r = cancel(h, "/a", "r1")
    r1.wait(lambda x: x.eof, 10)
    R.check(r.status == 202 and r1.eof and
            not any("result" in f for f in r1.frames),
            "R: alice's cancel through A (its new hub seals with the new "
            "key) ends her listen held by B", "%d %r %r" % (
                r.status, r1.eof, r1.frames[-1:]))
    r1.close()


def cancel(h, path, rid):
    return Client(h.port).send("POST", path, enc(
        {"jsonrpc": "2.0", "method": "notifications/cancelled",
         "params": {"requestId": rid, "_meta": wymcp_e2e.META}}),
        hlist(std_headers("notifications/cancelled")))


def body(h):
    h.bindir = wymcp_tasks.pg_bindir()
    h.start()
    for n in NAMES:
        b = status(h, n).get("listen", {}).get("bus", {})
        end = time.monotonic() + 15
        while b.get("up") is not True and time.monotonic() < end:
            time.sleep(0.1)
            b = status(h, n).get("listen", {}).get("bus", {})
        R.check(b.get("up") is True, "%s: the hub listens on the bus" %
                n.upper(), json.dumps(b))
    pids = {n: hub_pid(h, n) for n in NAMES}
    streams = {
        "alice's listen 7 on A": Stream(h.port, {"resourceSubscriptions":
                                                 ["note://h"]}, 7, "/a"),
        "alice's listen 7 on B": Stream(h.port, {"resourceSubscriptions":
                                                 ["note://h"]}, 7, "/b"),
    }
    for k, s in streams.items():
        R.check(s.wait(lambda x: len(x.frames) >= 1) and s.status == 200,
                "%s is acknowledged" % k, json.dumps(s.frames))

    # N: hostile NOTIFYs from a role with no grant; commands first.
    payloads = hostile(int(time.time()))
    commands = [p for p in payloads if '"cancel"' in p or
                '"subscribe"' in p or '"sealed"' in p]
    sent = [notify_as_m(h, p) for p in commands]
    for s in streams.values():
        s.pump(1.0)
    R.check(not any(s.eof for s in streams.values()),
            "N: the forged cancel ended neither of alice's listens",
            json.dumps([s.frames[-1:] for s in streams.values()]))
    sent += [notify_as_m(h, p) for p in payloads if p not in commands]
    R.check(all(p.returncode == 0 for p in sent), "N: role m (LOGIN, "
            "nothing granted) may NOTIFY wymcp_events",
            "; ".join(p.stdout.decode()[-200:] for p in sent
                      if p.returncode != 0))
    for n in NAMES:
        got = wait_refused(h, n, "bus", lambda g: sum(g.values()) >=
                           len(payloads))
        R.check(sum(got.values()) >= len(payloads) and
                got.get("command", 0) >= 2 and
                got.get("malformed", 0) >= 8 and got.get("forged", 0) >= 1,
                "N: %s's status page counts each refused NOTIFY, by "
                "reason" % n.upper(), json.dumps(got))
    for n in NAMES:
        R.check(h.procs[n].poll() is None and hub_pid(h, n) == pids[n] and
                pids[n] is not None, "N: %s's hub survives (same PID)" %
                n.upper(), "before %r, now %r" % (pids[n], hub_pid(h, n)))
    prom = status(h, "a", prom=True)
    R.check('wymcp_hub_events_refused_total{source="bus",'
            'reason="malformed"}' in prom and
            'wymcp_bus_up 1' in prom, "N: the Prometheus page counts them "
            "too", prom[-300:])
    alive_streams(h, streams, "N", "h")

    # S: the same on A's hub socket, and a descriptor.
    hubsock = h.socks["a"] + ".hub"
    for p in payloads:
        datagram(hubsock, p)
    with open(os.devnull, "rb") as f:
        datagram(hubsock, json.dumps({"rid": 1, "id": "7", "share": 0,
                                      "lists": 1}), f.fileno())
    got = wait_refused(h, "a", "socket", lambda g: sum(g.values()) >=
                       len(payloads) + 1)
    R.check(sum(got.values()) >= len(payloads) + 1 and
            got.get("handoff", 0) >= 1 and got.get("command", 0) >= 3,
            "S: A counts each refused datagram on its hub socket",
            json.dumps(got))
    R.check(hub_pid(h, "a") == pids["a"], "S: A's hub survives (same "
            "PID)", "before %r, now %r" % (pids["a"], hub_pid(h, "a")))
    alive_streams(h, streams, "S", "h")

    # C: alice's own cancel, from the other instance.
    c1 = Stream(h.port, {"resourceSubscriptions": ["note://c"]}, "c1", "/a")
    c1.wait(lambda x: len(x.frames) >= 1)
    r = cancel(h, "/a-anon", "c1")
    c1.pump(1.0)
    R.check(r.status == 202 and not c1.eof, "C: another caller's "
            "notifications/cancelled of c1 ends nothing",
            "%d %r" % (r.status, c1.eof))
    r = cancel(h, "/b", "c1")
    c1.wait(lambda s: s.eof, 10)
    R.check(r.status == 202 and c1.eof and
            not any("result" in f for f in c1.frames),
            "C: alice's notifications/cancelled through B ends her listen "
            "held by A (sealed on the bus)",
            "%d %r %r" % (r.status, c1.eof, c1.frames[-1:]))
    c1.close()
    got = refused(h, "a", "bus")
    R.check(got.get("forged", 0) == 1 and got.get("replayed", 0) == 0,
            "C: the sealed cancel verified on A (no more forged)",
            json.dumps(got))

    u_section(h)

    # T: a comma-separated WYMCP_TOOLS.
    tools = Stream(h.port, {"toolsListChanged": True}, "t1", "/a-tools")
    helponly = Stream(h.port, {"toolsListChanged": True}, "t2", "/a-help")
    for s in (tools, helponly):
        s.wait(lambda x: len(x.frames) >= 1)
    ev = json.dumps({"v": 1, "k": "list", "lists": ["tools"],
                     "tools": ["write_note"]})
    q = subprocess.run(wymcp_e2e.wrap_argv([
        h.prog, "--publish", ev, "--listen", "unix:" + h.socks["a"],
        "--bus", "none"]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lc = "notifications/tools/list_changed"
    ok = tools.wait(lambda s: len(s.notes(lc)) >= 1, 10)
    R.check(q.returncode == 0 and ok, "T: a tools list change naming "
            "write_note reaches the stream of WYMCP_TOOLS "
            "\"help,write_note\"", "%d %r %s" % (
                q.returncode, q.stdout[-200:], json.dumps(tools.frames)))
    helponly.pump(0.5)
    R.check(len(helponly.notes(lc)) == 0, "T: ... and not the stream of "
            "WYMCP_TOOLS \"help\"", json.dumps(helponly.frames))
    for s in list(streams.values()) + [tools, helponly]:
        s.close()
    for n in NAMES:
        R.check(h.procs[n].poll() is None and hub_pid(h, n) == pids[n],
                "%s and its hub are still running" % n.upper(),
                "exited %r" % h.procs[n].poll())

    r_section(h)


def main():
    if wymcp_tasks.pg_missing() is not None:
        print("SKIP: %s" % wymcp_tasks.pg_missing())
        return 77
    return wymcp_e2e.run_layer(IntakeHarness, body,
                               label="the instances' logs")


if __name__ == "__main__":
    sys.exit(main())
