#!/usr/bin/env python3
"""e2e_hosts.py - wymcp end to end: several hosts behind one nginx.

Usage: e2e_hosts.py [--builddir DIR] [--keep] [--verbose]

Makes two "hosts" on this machine: two network namespaces, each joined
to the root namespace by a veth pair on a private subnet of its own
(10.213.X.0/24, X random, checked against every address and route
already here).  Each host runs wymcp-fcgi --listen 10.213.X.2:9000
--workers 2 with the examples module, a key file of its own copied from
one master key file (as configuration management would), and
FCGI_WEB_SERVER_ADDRS naming the root side of its veth.  A private nginx
in the root namespace includes deploy/nginx/upstream-hosts.conf (its
server lines replaced by the two hosts) and serves /mcp through that
upstream, /mcp-retry and /mcp-slow through a plain round robin of the
same hosts (with and without non_idempotent retries, a 2 s read
timeout), and /h1, /h2 pinned to one host each.  Traffic goes only to
these two addresses.

  A  both hosts answer; FCGI_WEB_SERVER_ADDRS refuses another source;
  B  a three-round book_room call pinned h1, h2, h1 completes;
  C  three-round calls through the upstream: both hosts serve rounds,
     states cross hosts, each call books once;
  D  rolling restart (h1, then h2; never both down) under load through
     the upstream, the next host once nginx uses the restarted one
     again: no "no live upstreams", and the only failures are the
     connections a stopping host had queued and reset at exit; then too
     fast (within fail_timeout): nginx has no live host, 502s;
  E  retries past the last answer: with non_idempotent the final round
     runs on both hosts (booked twice); without, the client gets 504 and
     the stalled host books once when it resumes;
  F  one-step key rotation (--generate-key, rolling restart): a state
     sealed before it by h1 opens on h2 after it, states sealed after it
     open on both, and the window in between: h2, not yet restarted,
     refuses h1's new state;
  G  the three-phase rotation of deploy/README (stage the new key last,
     promote it, retire the old ones): at every step of each rolling
     restart, states from either host open on the other;
  H  a host with another key file, or the same modules in another
     order, refuses the other host's state with -32602.

Needs root (ip netns); prints "SKIP: ..." and exits 77 when network
namespaces cannot be made, or nginx or ip is missing.  Every namespace,
veth and process it made is removed again, also on failure or a signal.

Prints "ok - NAME" or "not ok - NAME: DETAIL" per assertion and, last,
"N passed, M failed".  Exit 0 when nothing failed, 1 otherwise.  Python
3 standard library only; harness pieces are in t/e2e/lib/wymcp_e2e.py,
wymcp_mrtr.py and wymcp_netns.py (the namespaces; PYTHONPATH).
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_mrtr
    import wymcp_netns
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_mrtr", "wymcp_netns"):
        raise
    print("e2e_hosts.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import (R, Client, Failed, enc, hlist, report,  # noqa
                       std_headers, tail)
from wymcp_mrtr import (ROOM, ROOM_Q, SIZE, SIZE_Q,  # noqa: E402
                        judge_bad_state, judge_done, judge_input, key_id,
                        read_keys, token_key_id, write_keyfile)
from wymcp_netns import Net, Skip  # noqa: E402

WORKERS = 2
PORT = 9000
HOSTS = ("h1", "h2")
UPSTREAM_CONF = os.path.join(wymcp_e2e.SRCDIR, "deploy", "nginx",
                             "upstream-hosts.conf")


# --------------------------------------------------------------- FastCGI

def fcgi_raw(src, dst, body):
    """One FastCGI request for tools/list from address src straight to
    dst (bypassing nginx).  Returns the bytes received until the host
    closed the connection (b"" when it closed without answering)."""
    req = wymcp_e2e.fcgi_request(wymcp_e2e.mcp_params("tools/list",
                                                      body=body), body)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(10)
    got = b""
    try:
        s.bind((src, 0))
        s.connect(dst)
        try:
            s.sendall(req)
        except OSError:
            return got
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            got += b
    finally:
        s.close()
    return got


# ----------------------------------------------------------------- hosts

class Host(wymcp_mrtr.Instance):
    """wymcp-fcgi inside a namespace, on TCP."""

    def __init__(self, world, name, net, keyfile, modules):
        super().__init__(world, name, keyfile)
        self.net = net
        self.modules = modules
        self.sock = os.path.join(world.tmp, name + ".no-socket")

    def start(self, keyfile="same", modules=None):
        if keyfile != "same":
            self.keyfile = keyfile
        if modules is not None:
            self.modules = modules
        self.gen += 1
        self.log = os.path.join(self.w.tmp, "%s-%d.log" % (self.name,
                                                          self.gen))
        self.w.logs.append(self.log)
        argv = ["ip", "netns", "exec", self.net["ns"], self.w.prog,
                "--listen", "%s:%d" % (self.net["addr"], PORT),
                "--workers", str(WORKERS), "-vv",
                "--state-key-file", self.keyfile]
        for m in self.modules:
            argv += ["--module", m]
        env = dict(self.w.env)
        env["FCGI_WEB_SERVER_ADDRS"] = self.net["peer"]
        with open(self.log, "wb") as log:
            self.fcgi = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                env=env, cwd=self.w.tmp)
        self.sup = None
        deadline = time.monotonic() + 30
        serving = "serving %s:%d with %d workers" % (self.net["addr"], PORT,
                                                    WORKERS)
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("%s: wymcp-fcgi exited with %d: %s" %
                             (self.name, self.fcgi.returncode,
                              " | ".join(tail(self.log, 5))))
            ents = self.entries()
            if any(e[3] == serving for e in ents):
                self.sup = self.supervisor()
                ready = {e[0] for e in ents if e[3] == "worker ready"}
                ws = self.workers()
                if len(ws) >= WORKERS and set(ws) <= ready:
                    break
            if time.monotonic() > deadline:
                raise Failed("%s: not serving with %d workers after 30 s: "
                             "%s" % (self.name, WORKERS,
                                     " | ".join(tail(self.log, 5))))
            time.sleep(0.03)
        R.note("%s: supervisor %d, workers %r, key file %s, log %s" %
               (self.name, self.sup, self.workers(),
                os.path.basename(self.keyfile), os.path.basename(self.log)))

    def restart(self, keyfile="same", modules=None):
        self.stop()
        self.start(keyfile, modules)

    def running(self):
        return self.fcgi is not None and self.fcgi.poll() is None


class World(wymcp_mrtr.World):
    def __init__(self, builddir, keep):
        super().__init__(builddir, keep)
        self.net = Net(PORT)
        self.hosts = {}

    def paths(self):
        super().paths()
        self.echo = os.path.join(self.builddir, "tools", ".libs", "echo.so")
        wymcp_e2e.need_built(self.echo)

    def setup(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-hosts.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")

    def upstream_conf(self, addrs):
        """deploy/nginx/upstream-hosts.conf with its example server lines
        replaced by ours (the parameters after the address are kept)."""
        with open(UPSTREAM_CONF) as f:
            text = f.read()
        m = re.search(r"fail_timeout=(\d+)s", text)
        self.fail_timeout = int(m.group(1)) if m else 10
        pat = re.compile(r"^(\s*server\s+)10\.0\.0\.\d+:9000(\b[^;]*;)$",
                         re.M)
        found = pat.findall(text)
        if len(found) < 2:
            raise Failed("%s: expected server 10.0.0.N:9000 lines in the "
                         "upstream block" % UPSTREAM_CONF)
        it = iter(addrs)

        def sub(m):
            a = next(it, None)
            if a is None:
                return "#" + m.group(0).lstrip()
            return "%s%s:%d%s" % (m.group(1), a, PORT, m.group(2))
        return pat.sub(sub, text)

    def nginx_conf(self, socks, port):
        t = self.tmp
        with open(os.path.join(t, "upstream-hosts.conf"), "w") as f:
            f.write(self.upstream_conf([socks["h1"], socks["h2"]]))

        def loc(path, target, extra=""):
            return wymcp_e2e.wymcp_location(
                path, target, [("WYMCP_PRINCIPAL", '"alice"')],
                blank_user=False,
                extra="\t\t\tfastcgi_connect_timeout 2s;\n" + extra)

        retry = ("\t\t\tfastcgi_next_upstream error timeout;\n"
                 "\t\t\tfastcgi_next_upstream_tries 2;\n"
                 "\t\t\tfastcgi_next_upstream_timeout 10s;\n")
        short = "\t\t\tfastcgi_read_timeout 2s;\n"
        return wymcp_e2e.nginx_preamble(
            t, access_log=t + "/access.log") + """\

	include upstream-hosts.conf;

	# For E: the same two hosts, without failure accounting, so that
	# round robin strictly alternates.
	upstream e_hosts {{
		server {h1a}:{hp} max_fails=0;
		server {h2a}:{hp} max_fails=0;
	}}

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		client_max_body_size 1m;
{mcp}{slow}{retry}{h1}{h2}	}}
}}
""".format(t=t, port=port, h1a=socks["h1"], h2a=socks["h2"],
           hp=PORT,
           mcp=loc("/mcp", "wymcp_hosts", retry),
           slow=loc("/mcp-slow", "e_hosts", retry + short),
           retry=loc("/mcp-retry", "e_hosts",
                     retry.replace("timeout;", "timeout non_idempotent;") +
                     short),
           h1=loc("/h1", "%s:%d" % (socks["h1"], PORT)),
           h2=loc("/h2", "%s:%d" % (socks["h2"], PORT)))

    def teardown_net(self):
        self.net.teardown()


# ----------------------------------------------------------------- tests

class Tests(wymcp_mrtr.Tests):
    def __init__(self, w):
        super().__init__(w)
        self.nid = 9000

    def h(self, name):
        return self.w.hosts[name]

    def host_of(self, rid):
        return self.where([self.h(n) for n in HOSTS], rid)

    def simple(self, path, method, rid=None, params=None, name=None):
        rid = self.rid() if rid is None else rid
        p = dict(params or {})
        p["_meta"] = wymcp_mrtr.meta({})
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}
        return rid, self.c.send("POST", path, enc(body),
                                hlist(std_headers(method, name)))

    # -- A

    def test_a(self):
        lists = {}
        for n in HOSTS:
            rid, r = self.simple("/" + n, "server/discover")
            report("A %s answers server/discover through /%s" % (n, n),
                   wymcp_e2e.judge_result(r, rid), r)
            rid, r = self.simple("/" + n, "tools/list")
            p = wymcp_e2e.judge_result(r, rid)
            if not p:
                names = [t.get("name") for t in r.json["result"]["tools"]]
                if names[:3] != ["echo", "book_room", "purge_cache"]:
                    p.append("tools %r" % names)
                lists[n] = names
            report("A %s lists echo, then the examples module's tools "
                   "(book_room, purge_cache, ...)" % n, p, r)
            other = self.h("h2" if n == "h1" else "h1")
            self.h(n).wait_for(lambda e: e[2] == str(rid), 5)
            R.check(bool(self.h(n).mentions(rid)) and
                    not other.mentions(rid),
                    "A request %d is in %s's log only" % (rid, n),
                    "mentions %r, other %r" % (self.h(n).mentions(rid),
                                               other.mentions(rid)))
        R.check(len(set(map(tuple, lists.values()))) == 1,
                "A both hosts list the same tools, in the same order",
                "%r" % lists)
        rid, r = self.call("/mcp", "echo", {"text": "via upstream"},
                           caps={})
        p = wymcp_e2e.judge_result(r, rid)
        if not p and wymcp_mrtr.text_of(r) != "via upstream":
            p.append("text %r" % wymcp_mrtr.text_of(r))
        report("A /mcp (the upstream of deploy/nginx/upstream-hosts.conf) "
               "answers tools/call echo", p, r)

        # FCGI_WEB_SERVER_ADDRS: straight to h1, from the allowed
        # address and from another one of ours.
        net = self.w.net.hosts["h1"]
        body = enc(wymcp_e2e.rpc(4242, "tools/list"))
        got = fcgi_raw(net["peer"], (net["addr"], PORT), body)
        R.check(b'"book_room"' in got,
                "A h1 answers a raw FastCGI request from %s (listed in "
                "FCGI_WEB_SERVER_ADDRS)" % net["peer"],
                "got %r" % got[:200])
        got = fcgi_raw(net["stranger"], (net["addr"], PORT), body)
        R.check(got == b"", "A h1 closes a FastCGI connection from %s (not "
                "in FCGI_WEB_SERVER_ADDRS) without answering" %
                net["stranger"], "got %r" % got[:200])
        rid, r = self.simple("/h1", "tools/list")
        report("A h1 still answers through nginx after the refused "
               "connection", wymcp_e2e.judge_result(r, rid), r)
        R.check(len(self.h("h1").workers()) == WORKERS,
                "A h1 still has %d workers" % WORKERS,
                "%r" % self.h("h1").workers())

    # -- B

    def booked(self, day):
        return [(i.name, x) for i in self.w.hosts.values()
                for x in i.entries()
                if x[3].startswith("booked ") and day in x[3]]

    def test_b(self):
        day = "2026-12-11"
        rids, p, r = self.three_rounds(["/h1", "/h2", "/h1"], day=day)
        report("B pinned /h1, /h2, /h1: a three-round book_room call "
               "completes", p, r)
        got = [self.host_of(x) for x in rids]
        R.check(got == [["h1"], ["h2"], ["h1"]],
                "B the rounds were served by h1, then h2, then h1 (host "
                "logs)", "hosts per round %r (ids %r)" % (got, rids))
        bk = self.booked(day)
        R.check(len(bk) == 1 and bk[0][0] == "h1" and
                bk[0][1][2] == str(rids[2]),
                "B 'booked' logged once in total, by h1 in round 3",
                "%r" % (bk,))

    # -- C

    def test_c(self, n=4):
        pattern, crossed, ok = [], 0, 0
        for k in range(n):
            day = "2027-02-%02d" % (k + 1)
            rids, p, r = self.three_rounds(["/mcp"] * 3, day=day)
            got = [self.host_of(x) for x in rids]
            pattern.append(got)
            crossed += sum(1 for x, y in zip(got, got[1:])
                           if len(x) == 1 and len(y) == 1 and x != y)
            bk = self.booked(day)
            if p:
                R.note("upstream call %d: %s %s" % (k, p, r.brief()))
            elif len(bk) != 1 or bk[0][1][2] != str(rids[-1]):
                R.note("upstream call %d: booked lines %r" % (k, bk))
            else:
                ok += 1
        R.note("C hosts per round: %s" %
               " | ".join(",".join("+".join(g) or "?" for g in c)
                          for c in pattern))
        R.check(ok == n, "C %d three-round calls through the upstream "
                "complete, each booked once, in its last round" % n,
                "%d of %d" % (ok, n))
        flat = [g for c in pattern for g in c]
        R.check(all(len(g) == 1 for g in flat),
                "C every round is in exactly one host's log",
                "%r" % (pattern,))
        R.check(["h1"] in flat and ["h2"] in flat,
                "C both hosts served rounds", "%r" % (flat,))
        R.check(crossed > 0, "C some round's requestState, sealed by one "
                "host, was opened by the other", "%r" % (pattern,))

    # -- D

    def load(self, stop, stats, thread=0, path="/mcp"):
        """Sequential tools/call echo through the upstream until stop."""
        c = Client(self.w.port)
        k = 0
        while not stop.is_set():
            k += 1
            rid = 1000000 * (thread + 1) + k
            body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "x"},
                               "_meta": wymcp_mrtr.meta({})}}
            try:
                r = c.send("POST", path, enc(body),
                           hlist(std_headers("tools/call", "echo")))
                if wymcp_e2e.judge_result(r, rid):
                    stats["bad"].append(r.brief())
                else:
                    stats["ok"] += 1
            except OSError as ex:
                stats["bad"].append(repr(ex))

    def rolling(self, names, between=None, wait=0.0):
        """Restart the hosts one after the other; the other stays up.
        between(name) runs after each restart, then `wait' seconds
        pass.  Returns whether another host was always running."""
        always = True
        for n in names:
            others = [h for m, h in self.w.hosts.items() if m != n]
            self.h(n).stop()
            always &= all(h.running() for h in others)
            self.h(n).start()
            always &= all(h.running() for h in others)
            if between is not None:
                between(n)
            time.sleep(wait)
        return always

    def under_load(self, fn, nthreads=3):
        """Run fn() while nthreads clients send tools/call echo through
        the upstream.  (fn's value, ok count, failures, new nginx error
        log lines)."""
        mark = len(tail(self.w.nginx_log, 10000000))
        stop = threading.Event()
        stats = {"ok": 0, "bad": []}
        ths = [threading.Thread(target=self.load, args=(stop, stats, k))
               for k in range(nthreads)]
        for th in ths:
            th.start()
        try:
            time.sleep(0.3)
            val = fn()
            time.sleep(0.3)
        finally:
            stop.set()
            for th in ths:
                th.join(60)
        new = tail(self.w.nginx_log, 10000000)[mark:]
        return val, stats["ok"], stats["bad"], new

    def test_d(self):
        ft = self.w.fail_timeout
        # The procedure of deploy/README: the next host only once nginx
        # sends the restarted one requests again, which is fail_timeout
        # (counted in whole seconds) after its last failure.
        waited = {}

        def back_in_rotation(n):
            t0 = time.monotonic()
            hits = self.h(n).wait_for(lambda e: e[2] is not None and
                                      e[2].isdigit() and
                                      int(e[2]) >= 1000000, ft + 10)
            waited[n] = (time.monotonic() - t0, bool(hits))

        always, ok, bad, log = self.under_load(
            lambda: self.rolling(["h1", "h2"], back_in_rotation))
        R.note("D restarted hosts were back in nginx's rotation after %s" %
               ", ".join("%s %.1f s" % (n, t) for n, (t, _) in
                         sorted(waited.items())))
        R.check(all(b for _, b in waited.values()),
                "D each restarted host got requests through the upstream "
                "again within fail_timeout + 10 s", "%r" % waited)
        R.check(always, "D rolling restart: the other host was running "
                "while each host restarted", "both were down at once")
        resets = [ln for ln in log if "reset by peer" in ln and
                  "reading response header" in ln]
        refused = [ln for ln in log if "connect() failed" in ln]
        nolive = [ln for ln in log if "no live upstreams" in ln]
        R.note("D rolling restart under load: %d ok, %d failed; nginx: "
               "%d refused connects (retried on the other host), %d "
               "connections reset by a stopping host, %d 'no live "
               "upstreams'" % (ok, len(bad), len(refused), len(resets),
                               len(nolive)))
        R.check(ok > 50, "D the load went on during the rolling restart",
                "%d ok" % ok)
        R.check(not nolive, "D waiting until nginx uses the restarted host "
                "again: nginx always had a live host", "%r" % nolive[:2])
        R.check(len(bad) == len(resets) and
                all(b.startswith("HTTP 502") for b in bad) and
                len(bad) <= 2 * WORKERS * 3,
                "D the only failed requests are connections a stopping "
                "host had accepted into its listen queue and reset at exit "
                "(a POST nginx will not resend; deploy/README, section 5)",
                "%d failures, %d resets: %r" % (len(bad), len(resets),
                                                bad[:3]))
        for n in HOSTS:
            rid, r = self.simple("/" + n, "tools/list")
            report("D %s answers after the rolling restart" % n,
                   wymcp_e2e.judge_result(r, rid), r)

        # Too fast: the second host stops while nginx still counts the
        # first one as failed.
        always, ok, bad, log = self.under_load(
            lambda: self.rolling(["h1", "h2"]))
        nolive = [ln for ln in log if "no live upstreams" in ln]
        R.note("D rolling restart without waiting: %d ok, %d failed, %d "
               "'no live upstreams'" % (ok, len(bad), len(nolive)))
        R.check(always and nolive and len(bad) >= len(nolive),
                "D restarting the next host within fail_timeout: nginx "
                "has no live upstream and answers 502 (why deploy/README "
                "waits)", "%d failed, %d no live" % (len(bad), len(nolive)))
        time.sleep(ft + 1.5)

    # -- E

    def stalled_final_round(self, path, day):
        """Rounds 1 and 2 pinned to h1; round 3 through `path` (the
        e_hosts upstream: h1 and h2, round robin, no failure
        accounting), arranged to go to h2 first while h2's workers are
        stopped (SIGSTOP): the kernel still accepts the connection and
        nginx sends the request, which nobody reads until SIGCONT.
        Returns (rid, response, booked lines once h2 resumed)."""
        rid, r = self.book("/h1", day=day)
        p, st = judge_input(r, rid, {"elicit-1": ROOM_Q})
        if p:
            raise Failed("E round 1: %s" % "; ".join(p))
        rid, r = self.book("/h1", st, {"elicit-1": ROOM}, day=day)
        p, st = judge_input(r, rid, {"elicit-2": SIZE_Q})
        if p:
            raise Failed("E round 2: %s" % "; ".join(p))
        # Smooth round robin over two equal peers alternates: after a
        # request served by h1, the next one goes to h2.
        for _ in range(4):
            drid, dr = self.call("/mcp-slow", "echo", {"text": "probe"},
                                 caps={})
            if self.host_of(drid) == ["h1"]:
                break
        else:
            raise Failed("E: no probe request reached h1")
        h2 = self.h("h2")
        ws = h2.workers()
        for pid in ws:
            h2.stopped.add(pid)
            os.kill(pid, signal.SIGSTOP)
        try:
            rid, r = self.book(path, st, {"elicit-2": SIZE}, day=day)
        finally:
            for pid in ws:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
                h2.stopped.discard(pid)
        # h2 now accepts the queued connection and runs the round.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
                n == "h2" for n, _ in self.booked(day)):
            time.sleep(0.05)
        time.sleep(0.2)
        return rid, r, self.booked(day)

    def test_e(self):
        # With non_idempotent: nginx times out on h2 (stopped), resends
        # the final round to h1, which books; h2 books too once resumed.
        day = "2027-03-01"
        rid, r, bk = self.stalled_final_round("/mcp-retry", day)
        report("E non_idempotent: the client gets the final answer from "
               "the other host", judge_done(r, rid, "Booked Aurora for 4 "
                                            "on %s." % day), r)
        R.check(sorted(n for n, _ in bk) == ["h1", "h2"],
                "E non_idempotent: the final round ran on both hosts: "
                "booked twice (deploy/nginx/upstream-hosts.conf says why)",
                "booked lines %r" % (bk,))
        # Without it: 504, not retried; h2 books once when it resumes.
        day = "2027-03-02"
        rid, r, bk = self.stalled_final_round("/mcp-slow", day)
        R.check(r.status == 504, "E default retries: the final round is "
                "not resent to another host (POST); the client gets 504",
                r.brief())
        R.check([n for n, _ in bk] == ["h2"],
                "E default retries: the stalled host still books once "
                "when it resumes", "booked lines %r" % (bk,))

    # -- F and G: key rotation

    def cross(self, label, seal_ids=None):
        """A round-1 state from each host opens on the other (and on
        itself).  seal_ids: {host: key id the host must seal with}."""
        states = {}
        for n in HOSTS:
            st = self.round1("/" + n, "%s: round 1 on %s" % (label, n))
            if st is None:
                continue
            states[n] = st
            if seal_ids is not None:
                R.check(token_key_id(st) == seal_ids[n],
                        "%s: %s seals with the expected key" % (label, n),
                        "id %r, want %r" % (token_key_id(st), seal_ids[n]))
        for n, st in states.items():
            for m in HOSTS:
                self.step("/" + m, st, "elicit-1",
                          "%s: %s's state opens on %s" % (label, n, m),
                          {"elicit-2": SIZE_Q})
        return states

    def refused(self, path, st, label):
        rid, r = self.book(path, st, {"elicit-1": ROOM})
        report(label, judge_bad_state(r, rid), r)
        return rid

    def distribute(self, keys):
        """Configuration management: the master file to every host."""
        write_keyfile(self.w.master, keys)
        for n in HOSTS:
            shutil.copyfile(self.w.master, self.h(n).keyfile)
            os.chmod(self.h(n).keyfile, 0o600)

    def test_f(self):
        w = self.w
        k1 = read_keys(w.master)
        s_pre = self.round1("/h1", "F before the rotation: round 1 on h1")
        if s_pre is None:
            return
        rc, out = w.generate_key(w.master)
        k = read_keys(w.master)
        R.check(rc == 0 and len(k) == len(k1) + 1 and k[1:] == k1,
                "F --generate-key puts a new key first in the master key "
                "file and keeps the old ones after it",
                "rc %d %s; %r -> %r" % (rc, out.strip(), len(k1), len(k)))
        self.distribute(k)
        mid = {}

        def between(n):
            if n != "h1":
                return
            # h1 runs with the new keys, h2 still with the old ones.
            self.step("/h1", s_pre, "elicit-1", "F mid-rotation: the "
                      "pre-rotation state opens on the restarted h1",
                      {"elicit-2": SIZE_Q})
            self.step("/h2", s_pre, "elicit-1", "F mid-rotation: the "
                      "pre-rotation state opens on h2 (old keys)",
                      {"elicit-2": SIZE_Q})
            mid["t"] = self.round1("/h1", "F mid-rotation: round 1 on "
                                   "the restarted h1")
            if mid["t"] is not None:
                R.check(token_key_id(mid["t"]) == key_id(k[0]),
                        "F mid-rotation: h1 seals with the new key",
                        "%r" % token_key_id(mid["t"]))
                self.refused("/h2", mid["t"], "F mid-rotation: h2, not yet "
                             "restarted, refuses h1's new-key state with "
                             "-32602 (why deploy/README rotates in three "
                             "phases)")

        always = self.rolling(["h1", "h2"], between)
        R.check(always, "F rolling restart: never both hosts down",
                "both were down")
        rid2, s2 = self.step("/h2", s_pre, "elicit-1", "F after the "
                             "rotation: the state h1 sealed before it "
                             "opens on h2", {"elicit-2": SIZE_Q})
        if s2 is not None:
            R.check(token_key_id(s_pre) == key_id(k1[0]) and
                    token_key_id(s2) == key_id(k[0]),
                    "F the pre-rotation token carries the old key's id, "
                    "h2's new one the new key's",
                    "%r %r" % (token_key_id(s_pre), token_key_id(s2)))
            rid, r = self.book("/h1", s2, {"elicit-2": SIZE})
            report("F round 3 on h1 completes the call begun before the "
                   "rotation", judge_done(r, rid, wymcp_mrtr.BOOKED), r)
        if mid.get("t") is not None:
            self.step("/h2", mid["t"], "elicit-1", "F after the rotation: "
                      "the mid-rotation state now opens on h2",
                      {"elicit-2": SIZE_Q})
        self.cross("F after the rotation",
                   {n: key_id(k[0]) for n in HOSTS})
        self.s_old = s_pre

    def test_g(self):
        before = read_keys(self.w.master)
        old_seal = key_id(before[0])
        new = os.path.join(self.w.tmp, "new.key")
        rc, out = self.w.generate_key(new)
        if not R.check(rc == 0, "G --generate-key makes the new key in a "
                       "file of its own", out):
            return
        knew = read_keys(new)[0]

        def step(label, seal):
            def between(n):
                other = "h2" if n == "h1" else "h1"
                ids = {n: seal[0], other: seal[1] if n == "h1" else seal[0]}
                self.cross("G %s, %s restarted" % (label, n), ids)
            return between

        # Phase 1: stage: the new key last (opens, does not seal yet).
        self.distribute(before + [knew])
        self.rolling(["h1", "h2"], step("stage", (old_seal, old_seal)))
        # Phase 2: promote: the new key first.
        self.distribute([knew] + before)
        self.rolling(["h1", "h2"],
                     step("promote", (key_id(knew), old_seal)))
        s_promoted = self.round1("/h2", "G round 1 on h2 after the "
                                 "promotion")
        # Phase 3 (once the state lifetime has passed): retire.
        self.distribute([knew])
        self.rolling(["h1", "h2"], step("retire", (key_id(knew),
                                                    key_id(knew))))
        if s_promoted is not None:
            self.step("/h1", s_promoted, "elicit-1", "G a state sealed "
                      "with the new key before the retirement opens on h1",
                      {"elicit-2": SIZE_Q})
        if getattr(self, "s_old", None) is not None:
            for n in HOSTS:
                self.refused("/" + n, self.s_old, "G retired keys: the "
                             "oldest state is refused by %s (-32602)" % n)

    # -- H

    def test_h(self):
        w = self.w
        own = os.path.join(w.tmp, "h2-own.key")
        rc, out = w.generate_key(own)
        R.check(rc == 0, "H --generate-key makes h2 a key file of its own",
                out)
        h2 = self.h("h2")
        shared = h2.keyfile
        h2.restart(own)
        s1 = self.round1("/h1", "H round 1 on h1 (shared key)")
        if s1 is not None:
            rid = self.refused("/h2", s1, "H h2 (its own key) refuses "
                               "h1's state with -32602")
            R.check(bool(self.warned(h2, rid)), "H h2 logs a warning "
                    "naming --state-key-file",
                    "log tail %r" % (tail(h2.log, 5),))
        s2 = self.round1("/h2", "H round 1 on h2 (its own key)")
        if s2 is not None:
            self.refused("/h1", s2, "H h1 refuses h2's state with -32602")
        # Same key, same modules, another order: another tool set.
        h2.restart(shared, modules=[w.examples, w.echo])
        s1 = self.round1("/h1", "H round 1 on h1 (echo, examples)")
        if s1 is not None:
            self.refused("/h2", s1, "H h2 with the same modules in another "
                         "order refuses h1's state with -32602")
        h2.restart(shared, modules=[w.echo, w.examples])
        if s1 is not None:
            self.step("/h2", s1, "elicit-1", "H h2 back in h1's module "
                      "order opens h1's state", {"elicit-2": SIZE_Q})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show every response")
    args = ap.parse_args()
    wymcp_e2e.VERBOSE = args.verbose

    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        print("SKIP: nginx is not installed (Debian: apt-get install "
              "nginx-light)")
        return 77
    why = wymcp_netns.unavailable()
    if why is not None:
        print("SKIP: %s" % why)
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)

    w = World(args.builddir, args.keep)
    w.nginx_bin = nginx
    interrupted = skipped = False
    started = time.monotonic()
    try:
        w.paths()
        w.setup()
        xs = w.net.pick_subnets(len(HOSTS))
        nets = {n: w.net.add_host(n, x) for n, x in zip(HOSTS, xs)}
        for n in HOSTS:
            if not w.net.wait_reachable(nets[n]):
                raise Failed("%s: %s not reachable" % (n, nets[n]["addr"]))
        w.master = os.path.join(w.tmp, "master.key")
        rc, out = w.generate_key(w.master)
        if not R.check(rc == 0, "--generate-key makes the master key file",
                       out):
            raise Failed("no key file")
        for n in HOSTS:
            kf = os.path.join(w.tmp, n + ".key")
            shutil.copyfile(w.master, kf)
            os.chmod(kf, 0o600)
            w.hosts[n] = Host(w, n, nets[n], kf, [w.echo, w.examples])
            w.instances.append(w.hosts[n])
            w.hosts[n].start()
        w.start_nginx({n: nets[n]["addr"] for n in HOSTS})
        t = Tests(w)
        t.test_a()
        t.test_b()
        t.test_c()
        t.test_d()
        t.test_e()
        t.test_f()
        t.test_g()
        t.test_h()
    except Skip as ex:
        print("SKIP: %s" % ex, flush=True)
        skipped = True
    except Failed as ex:
        R.fail("setup", str(ex))
    except KeyboardInterrupt as ex:
        R.fail("interrupted", str(ex) or "KeyboardInterrupt")
        interrupted = True
    except Exception as ex:	# a harness bug must still clean up and count
        import traceback
        traceback.print_exc()
        R.fail("harness", repr(ex))
    finally:
        # Signals now would only interrupt the cleanup.
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        try:
            w.stop()
            w.teardown_net()
            if w.net.namespaces:
                left = w.net.leftovers()
                R.check(not left, "every namespace and veth this run made "
                        "is gone", "left: %r" % left)
            if w.tmp and not skipped:
                hits = w.sanitizer_reports()
                R.check(not hits, "no sanitizer reports in any wymcp-fcgi "
                        "log", "; ".join(hits[:5]))
            if R.failed:
                w.dump_logs()
        finally:
            w.cleanup()
    if skipped and R.failed == 0:
        return 77
    R.note("run time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
