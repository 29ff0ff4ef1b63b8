#!/usr/bin/env python3
"""e2e_legacy_ask.py - 2025-11-25 clients asked on the held stream.

Usage: e2e_legacy_ask.py [--builddir DIR] [--cache DIR] [--keep] [--verbose]
       e2e_legacy_ask.py --netns [--builddir DIR] [--cache DIR] [--keep]

Starts wymcp-fcgi -vv with 4 workers (examples and conformance modules,
--ask-timeout 3, --request-timeout 2, the default --max-asking: 2)
behind a private nginx on a loopback port; nginx sets WYMCP_PRINCIPAL
from the test header X-Test-Principal, as an auth module would.  Then:

  S  the TypeScript SDK v1 client (npm @modelcontextprotocol/sdk,
     pinned below) with elicitation, sampling and roots handlers, as a
     2025-11-25 client: book_room (two questions), test_sampling and a
     roots/list tool complete; the log shows each question held by one
     worker and its answer relayed to it by another;
  M  mcp-remote (npm, pinned below) in its default mode, the stdio
     bridge desktop clients use for remote servers: a stdio client that
     declared elicitation is asked book_room's two questions through
     it, and the call completes;
  R  refusals, by raw HTTP: a session id of another principal (404);
     an answer posted by another principal, a forged id, a replayed
     one, one after --ask-timeout (400 each); a question past
     --ask-timeout finishes the call with a tool error; a third asker
     while two hold the --max-asking places degrades (the tool answers
     as for a client that cannot be asked), and the status page
     (--status-path) counts the two held workers, then none once their
     clients hang up; a client that hangs up
     while asked frees its worker within a second; answers slower than
     --request-timeout (2 s) still complete the call;
  H  --relay-listen on loopback without --allow-peer refuses to start;
     three instances (4 workers each, --relay-listen on loopback ports
     with --allow-peer 127.0.0.1, one key file made with --generate-key)
     behind one round-robin nginx upstream: the SDK client's calls
     complete, and answers reach the holder from other instances over
     --relay-listen (on one machine, not in network namespaces: for
     machines without root);
  F  while an instance holds book_room's question, 16 idle connections
     held open to each relay port delay no ping through nginx (each
     within 1 s) and are closed by the hub after 5 s, logged; answers
     written straight to its relay port from 127.0.0.1 (allowed): unframed,
     framed under another key, altered after framing, framed for
     another holder, framed 10 minutes ago: each is refused ('N') and
     logged with its reason, and the question stays open; the answer
     framed with the shared key is taken ('A') and the call completes.

With --netns, only these (the hosts e2e layer of runtests; root): three
hosts, network namespaces on one bridge in the root namespace (a LAN,
t/e2e/lib/wymcp_netns.py), each wymcp-fcgi with 4 workers listening on
its own address, FastCGI on port 9000 and --relay-listen on port 9100,
--allow-peer naming nginx's address and the two other hosts (not
--allow-any-peer), one key file; nginx in the root namespace, an
upstream of the three (/mcp) and /h1, /h2, /h3 pinned to one each:

  N  the SDK client, three times through the upstream: book_room,
     test_sampling and the roots/list tool complete; every relayed
     answer in the holders' logs came from another host's address (not
     nginx's, not the holder's) and was taken, each forwarded by a
     worker of that host to the holder's --relay-listen address, and
     every question asked on a host was answered on that holder;
  P  --allow-peer on the relay port: while h1 holds a question (asked
     through /h1), an answer for it sent straight to h1's relay port
     from an address of the LAN no host allows is closed without a
     reply byte, h1 logs "relay: refused ADDR (not an --allow-peer
     address)" and the question stays unanswered; the same bytes from
     nginx's address (allowed) are taken ('A'), and the call completes
     with its second answer posted through h2.  (Since 0.4 the same
     raw bytes from nginx's address are read and refused by the holder,
     'N': they carry no MAC; framed with the shared key they are taken.)

Every namespace, veth and process of --netns is removed again, also on
failure or a signal; without root or ip it prints "SKIP: ..." and exits
77.  Node, the SDK and mcp-remote come from npm into a cache directory
(default _build/legacy-ask; Node from _build/conformance when
t/conformance/run.py put it there).  Prints "ok - NAME" or "not ok -
NAME: DETAIL", and last "N passed, M failed".  Exit 0, 1 (also when npm
is missing: the layer needs it), or 77 without nginx.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True	# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_conformance
    import wymcp_netns
    from wymcp_conformance import (NODE_MAJOR, NODE_PKG, Failed,
                                   npm_install, pkg_version, say)
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_conformance", "wymcp_netns"):
        raise
    print("e2e_legacy_ask.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import children, tail, workers_of  # noqa: E402
from wymcp_legacy import (DAY, QUESTION, Raw, answer,  # noqa: E402,F401
                          answer_body, book, events, initialize, post,
                          question_id)

SDK = "@modelcontextprotocol/sdk"
SDK_VERSION = "1.32.2"
REMOTE = "mcp-remote"
REMOTE_VERSION = "0.15.1"
WORKERS = 4
ASK_TIMEOUT = 3
REQUEST_TIMEOUT = 2	# shorter than a person takes: not counted
MODULES = ["examples", "conformance"]
STATUS = "/wymcp-status"
FCGI_PORT = 9000	# --netns: on each host's own address
RELAY_PORT = 9100
NETNS_ASK_TIMEOUT = 10	# time for P's three relay connections
IDLE_RELAY_CONNS = 16	# held open to each relay port by F
CLIENT = r"""
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from
    "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, CreateMessageRequestSchema,
    ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const url = process.argv[2];
const seen = [];
const client = new Client({ name: "legacy-ask-e2e", version: "1.0.0" },
    { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
	seen.push("elicitation/create: " + req.params.message);
	if (req.params.message.startsWith("Which room"))
		return { action: "accept", content: { room: "Aurora" } };
	return { action: "accept", content: { people: 4 } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
	seen.push("sampling/createMessage");
	return { role: "assistant", model: "e2e-model",
	    content: { type: "text", text: "sampled by the client" } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
	seen.push("roots/list");
	return { roots: [{ uri: "file:///tmp", name: "tmp" }] };
});
const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { "X-Test-Principal": "alice" } } });
await client.connect(transport);
const out = { session: transport.sessionId ?? null,
    protocol: transport.protocolVersion ?? null };
const opts = { timeout: 60000 };
out.book = await client.callTool({ name: "book_room",
    arguments: { day: "%DAY%" } }, undefined, opts);
out.sample = await client.callTool({ name: "test_sampling",
    arguments: { prompt: "hello" } }, undefined, opts);
out.roots = await client.callTool({
    name: "test_input_required_result_list_roots", arguments: {} },
    undefined, opts);
out.seen = seen;
console.log(JSON.stringify(out));
await client.close();
""".replace("%DAY%", DAY)


class Harness(wymcp_conformance.Harness):
    """wymcp-fcgi -vv, 4 workers, asking on, a principal from nginx."""

    status_path = STATUS
    mcp_params = [("WYMCP_PRINCIPAL", "$http_x_test_principal")]

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in MODULES]
        wymcp_e2e.need_built(self.prog, *self.mods)

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-legacy-ask.")
        os.chmod(self.tmp, 0o755)
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.start_fcgi()
        self.start_nginx()

    def start_fcgi(self, extra=()):
        argv = [self.prog, "-vv", "--listen", "unix:" + self.sock,
                "--workers", str(WORKERS), "--ask-timeout",
                str(ASK_TIMEOUT), "--request-timeout",
                str(REQUEST_TIMEOUT), "--status-path", STATUS] + list(extra)
        for m in self.mods:
            argv += ["--module", m]
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        with open(self.fcgi_log, "wb") as log:
            self.fcgi = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, env=env,
                                         cwd=self.tmp)
        deadline = time.monotonic() + 30
        while True:
            if self.fcgi.poll() is not None:
                raise Failed("wymcp-fcgi exited with %d:\n%s" %
                             (self.fcgi.returncode,
                              "\n".join(tail(self.fcgi_log, 20))))
            if os.path.exists(self.sock):
                self.sup = self.fcgi.pid
                if len(children(self.sup)) >= WORKERS:
                    break
            if time.monotonic() > deadline:
                raise Failed("wymcp-fcgi did not start its workers")
            time.sleep(0.05)
        say("# wymcp-fcgi supervisor %d, workers %r" %
            (self.sup, sorted(children(self.sup))))

    def log(self):
        """[(pid, level, reqid, message)] of wymcp-fcgi's log so far."""
        return wymcp_e2e.log_entries(self.fcgi_log)

    def wait_log(self, pred, timeout=5.0):
        return wymcp_e2e.wait_log(self.log, pred, timeout)


class Hosts(Harness):
    """NHOSTS instances with --relay-listen behind one nginx upstream."""

    NHOSTS = 3

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-legacy-hosts.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        key = self.key = os.path.join(self.tmp, "state.key")
        subprocess.run([self.prog, "--generate-key", key], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.insts = []
        for i in range(self.NHOSTS):
            self.sock = os.path.join(self.tmp, "h%d.sock" % i)
            self.fcgi_log = os.path.join(self.tmp, "h%d.log" % i)
            relay = "127.0.0.1:%d" % wymcp_e2e.free_port()
            self.start_fcgi(["--state-key-file", key,
                             "--relay-listen", relay,
                             "--allow-peer", "127.0.0.1"])
            inst = {"sock": self.sock, "log": self.fcgi_log,
                    "proc": self.fcgi, "relay": relay,
                    "pids": set(children(self.fcgi.pid))}
            for e in self.log():
                m = re.search(r"\(relay (/\S+)\)$", e[3])
                if m:
                    inst["dir"] = m.group(1)
            self.insts.append(inst)
        self.fcgi = None
        self.start_nginx()

    def nginx_conf(self, sock, port, port2=None):
        conf = Harness.nginx_conf(self, sock, port, port2)
        ups = "\tupstream wymcp {\n" + "".join(
            "\t\tserver unix:%s;\n" % i["sock"] for i in self.insts) + \
            "\t}\n\n\tserver {"
        conf = conf.replace("\tserver {", ups, 1)
        return re.sub(r"fastcgi_pass unix:[^;]*;", "fastcgi_pass wymcp;",
                      conf)

    def host_log(self, i):
        self.fcgi_log = self.insts[i]["log"]
        return self.log()

    def wait_host_log(self, i, pred, timeout=5.0):
        self.fcgi_log = self.insts[i]["log"]
        return self.wait_log(pred, timeout)

    def stop(self):
        Harness.stop(self)
        for i in getattr(self, "insts", []):
            if i["proc"].poll() is None:
                wymcp_e2e.stop_pid(i["proc"].pid, i["proc"], 10)
            for pid in i["pids"]:
                if wymcp_e2e.alive(pid):
                    wymcp_e2e.stop_pid(pid, None, 2)



# A principal whose FNV-1a is alice's mod 1024: 0.4 counted shares per
# such bucket (issue 32 item 3), so it could not ask while alice held.
MATE = "mallory-63"

def sdk_runs(node, script, url, n, verbose):
    """The SDK client's JSON output of `n' runs against `url' ({} for a
    run that printed none; its output is shown then)."""
    outs = []
    for _ in range(n):
        p = subprocess.run([node, script, url], capture_output=True,
                           text=True, timeout=120,
                           cwd=os.path.dirname(script),
                           stdin=subprocess.DEVNULL)
        if verbose or p.returncode != 0:
            for line in (p.stdout + p.stderr).splitlines():
                say("  | " + line)
        try:
            outs.append(json.loads(p.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            outs.append({})
    return outs


def relay_frame(key_hex, holder, body, secs=None):
    """An answer framed for `holder' as a worker frames it (seal.c):
    "wymcp-relay/1 KEYID SECONDS MAC\\n" and the body, the MAC keyed
    BLAKE2b-256 under a subkey of the state key."""
    key = bytes.fromhex(key_hex)
    kid = hashlib.blake2b(key, digest_size=16).digest()[:4]
    sub = hashlib.blake2b(b"wymcp-relay-key", digest_size=32,
                          key=key).digest()
    secs = str(int(time.time()) if secs is None else secs).encode()
    m = hashlib.blake2b(digest_size=32, key=sub)
    m.update(b"\x01" + holder.encode() + b"\0")
    m.update(b"\x01" + secs + b"\0")
    m.update(body)
    mac = base64.urlsafe_b64encode(m.digest()).rstrip(b"=")
    return b"wymcp-relay/1 " + kid.hex().encode() + b" " + secs + b" " + \
        mac + b"\n" + body


def hosts_forged(h, res):
    """F: answers written straight to the holder's relay port, from an
    allowed address (127.0.0.1): only a frame with a valid MAC under
    the shared key, for that holder, of now, is taken."""
    with open(h.key) as f:
        key = [ln.strip() for ln in f
               if ln.strip() and not ln.startswith("#")][0]
    sess = initialize(h.port, "alice")
    b = book(h.port, "alice", sess, 60)
    idle = []
    try:
        if not res.check(b.until(QUESTION) is not None,
                         "F book_room asks its first question", b.buf[-300:]):
            return
        qid = question_id(b)
        held = [(k, n) for k, i in enumerate(h.insts)
                for n in os.listdir(i.get("dir") or "/nonexistent")]
        if not res.check(len(held) == 1, "F one instance holds the "
                         "question (one relay socket)", repr(held)):
            return
        k, local = held[0]
        inst = h.insts[k]
        holder = "%s/%s" % (inst["relay"], local)
        host, port = inst["relay"].rsplit(":", 1)
        dst = (host, int(port))
        body = json.dumps(answer_body(qid, {"room": "Aurora"})).encode()
        good = relay_frame(key, holder, body)
        cases = [
            ("an unframed answer", body, "not a framed answer"),
            ("a frame under another key",
             relay_frame(os.urandom(32).hex(), holder, body),
             "unknown key"),
            ("a frame whose answer was altered",
             good.replace(b"Aurora", b"Zenith"), "does not verify"),
            ("a frame for another holder",
             relay_frame(key, holder + "0", body), "does not verify"),
            ("a frame 10 minutes old",
             relay_frame(key, holder, body, int(time.time()) - 600),
             "too long ago"),
        ]
        # Idle connections to every relay port, held through the rest
        # of F: they must delay no request and no relayed answer.
        for i in h.insts:
            ih, ip = i["relay"].rsplit(":", 1)
            for _ in range(IDLE_RELAY_CONNS):
                c = socket.create_connection((ih, int(ip)), timeout=5)
                idle.append(c)
        slow = []
        t0 = time.monotonic()
        for n in range(12):
            t = time.monotonic()
            r = post(h.port, {"jsonrpc": "2.0", "id": 70 + n,
                              "method": "ping"}, "alice", sess)
            ms = (time.monotonic() - t) * 1000
            if r.status() != 200 or ms > 1000:
                slow.append("%d %.0f ms" % (r.status(), ms))
        res.check(not slow, "F with %d idle connections on each relay "
                  "port, 12 pings through nginx each answer within 1 s "
                  "(%.0f ms in all)" % (IDLE_RELAY_CONNS,
                                        (time.monotonic() - t0) * 1000),
                  ", ".join(slow))
        for what, frame, why in cases:
            mark = len(h.host_log(k))
            got, how = relay_send("127.0.0.1", dst,
                                  local.encode() + b"\n" + frame)
            def said(e, why=why):
                return "a relayed answer refused: " in e[3] and why in e[3]
            deadline = time.monotonic() + 3
            while not any(said(e) for e in h.host_log(k)[mark:]) and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            res.check(got == b"N" and
                      any(said(e) for e in h.host_log(k)[mark:]),
                      "F %s on the relay port is refused ('N', the "
                      "holder logs '%s')" % (what, why),
                      "got %r (%s); %s" % (got, how,
                                           " | ".join(tail(inst["log"],
                                                           2))))
        res.check(b.until(QUESTION + rb".*" + QUESTION, 0.5) is None,
                  "F no refused answer was taken (no second question)")
        got, how = relay_send("127.0.0.1", dst,
                              local.encode() + b"\n" + good)
        res.check(got == b"A", "F the answer framed with the shared key "
                  "is taken ('A'), idle connections open beside it",
                  "got %r (%s)" % (got, how))
        if not res.check(b.until(QUESTION + rb".*" + QUESTION, 10)
                         is not None, "F then the tool asks its second "
                         "question"):
            return
        r = answer(h.port, "alice", sess, question_id(b, 2), {"people": 4})
        final = [e for e in events(b.all(15)) if e.get("id") == 60]
        text = final[0]["result"]["content"][0]["text"] if final and \
            "result" in final[0] else repr(final)
        res.check(r.status() == 202 and
                  text == "Booked Aurora for 4 on %s." % DAY,
                  "F the second answer, posted through nginx, completes "
                  "the call", "%d %s" % (r.status(), text))
        # The hub closes each idle one after 5 s, and logs it (waited
        # for: a loaded machine delays both).
        deadline = time.monotonic() + 30
        ends = 0
        for c in idle:
            c.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                if c.recv(1) == b"":
                    ends += 1
            except OSError:
                pass
            c.close()
        until = time.monotonic() + 15
        while True:
            logged = [e for e in h.host_log(k) if e[3].endswith(
                "sent no whole answer within 5 s: closed")]
            if len(logged) >= IDLE_RELAY_CONNS or time.monotonic() > until:
                break
            time.sleep(0.1)
        res.check(ends == len(idle) and len(logged) >= IDLE_RELAY_CONNS,
                  "F the hub closes every idle relay connection after 5 s "
                  "and logs it", "%d of %d closed, %d logged" %
                  (ends, len(idle), len(logged)))
    finally:
        b.close()
        for c in idle:
            c.close()


def relay_needs_peers(h, res):
    """--relay-listen on loopback without --allow-peer: refused."""
    sock = os.path.join(h.tmp, "refused.sock")
    relay = "127.0.0.1:%d" % wymcp_e2e.free_port()
    argv = [h.prog, "--listen", "unix:" + sock, "--workers", "2",
            "--relay-listen", relay]
    for m in h.mods:
        argv += ["--module", m]
    p = subprocess.Popen(argv,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        wymcp_e2e.stop_pid(p.pid, p, 5)
        out = "(still running after 10 s)"
    res.check(p.returncode == 2 and "--allow-peer" in out,
              "H --relay-listen %s without --allow-peer refuses to start "
              "(exit 2, naming --allow-peer)" % relay,
              "exit %r: %s" % (p.returncode, out.strip()[-300:]))


def hosts(builddir, res, node, script, verbose):
    h = Hosts(builddir)
    h.paths()
    h.nginx_bin = wymcp_e2e.find_nginx()
    try:
        h.start()
        relay_needs_peers(h, res)
        outs = sdk_runs(node, script, "http://127.0.0.1:%d/mcp" % h.port,
                        3, verbose)
        texts = [((o.get("book") or {}).get("content") or [{}])[0].get(
            "text") for o in outs]
        res.check(all(t == "Booked Aurora for 4 on %s." % DAY
                      for t in texts),
                  "H book_room completes through %d instances" % h.NHOSTS,
                  repr(texts))
        texts = [((o.get("sample") or {}).get("content") or [{}])[0].get(
            "text") or "" for o in outs]
        res.check(all("sampled by the client" in t for t in texts),
                  "H test_sampling completes through %d instances" %
                  h.NHOSTS, repr(texts))
        cross = []
        for i in range(h.NHOSTS):
            for pid, _, _, msg in h.host_log(i):
                if msg.startswith("relay: an answer from"):
                    cross.append((i, pid, msg))
                    say("#   host %d wymcp-fcgi[%d]: %s" % (i, pid, msg))
        res.check(cross and all(m.endswith(": taken") for _, _, m in cross),
                  "H answers reach the holder from other instances over "
                  "--relay-listen", "%d relayed across" % len(cross))
        hosts_forged(h, res)
        bad = []
        for i in h.insts:
            with open(i["log"], errors="replace") as f:
                bad += [line for line in f if "Sanitizer" in line or
                        "runtime error:" in line]
        res.check(not bad, "H no sanitizer report", "".join(bad[:5]))
    except Failed as e:
        res.fail("H setup", str(e))
    finally:
        h.stop()
        h.cleanup()


# ------------------------------------------------- hosts in namespaces

class NetHosts(Harness):
    """NHOSTS hosts, each a network namespace on one bridge (a LAN),
    each wymcp-fcgi listening on its own address for FastCGI and for
    --relay-listen, --allow-peer naming nginx and the other hosts; one
    nginx in the root namespace, an upstream of the three and /hN
    pinned to host N."""

    NHOSTS = 3

    def __init__(self, builddir, keep=False):
        Harness.__init__(self, builddir, keep)
        self.net = wymcp_netns.Net(FCGI_PORT)
        self.insts = []

    def start(self):
        self.tmp = tempfile.mkdtemp(prefix="wymcp-legacy-netns.")
        os.chmod(self.tmp, 0o755)
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.sock = None
        key = self.key = os.path.join(self.tmp, "state.key")
        subprocess.run([self.prog, "--generate-key", key], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = ["h%d" % (i + 1) for i in range(self.NHOSTS)]
        lan = self.net.add_lan_hosts(names)
        hs = [lan[n] for n in names]
        self.peer = self.net.lan["peer"]
        # An address of the root namespace on the LAN that no host
        # names in --allow-peer.
        self.stranger = self.net.add_lan_addr()
        for i, h in enumerate(hs):
            self.start_host(i, h, [o["addr"] for o in hs if o is not h],
                            key)
        self.start_nginx()

    def start_host(self, i, h, others, key):
        relay = "%s:%d" % (h["addr"], RELAY_PORT)
        log = os.path.join(self.tmp, "h%d.log" % (i + 1))
        argv = ["ip", "netns", "exec", h["ns"], self.prog, "-vv",
                "--listen", "%s:%d" % (h["addr"], FCGI_PORT),
                "--workers", str(WORKERS), "--ask-timeout",
                str(NETNS_ASK_TIMEOUT), "--request-timeout",
                str(REQUEST_TIMEOUT), "--state-key-file", key,
                "--relay-listen", relay, "--allow-peer", self.peer]
        for a in others:
            argv += ["--allow-peer", a]
        for m in self.mods:
            argv += ["--module", m]
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        with open(log, "wb") as f:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=f, stderr=f, env=env,
                                    cwd=self.tmp)
        inst = {"name": "h%d" % (i + 1), "ns": h["ns"], "addr": h["addr"],
                "relay": relay, "log": log, "proc": proc, "pids": set()}
        self.insts.append(inst)
        serving = "serving %s:%d with %d workers" % (h["addr"], FCGI_PORT,
                                                    WORKERS)
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise Failed("%s: wymcp-fcgi exited with %d: %s" %
                             (inst["name"], proc.returncode,
                              " | ".join(tail(log, 5))))
            msgs = [e[3] for e in self.host_log(i)]
            inst["pids"] |= set(children(proc.pid))
            if serving in msgs and "answers from other hosts are taken " \
                    "on " + relay in msgs and \
                    len(children(proc.pid)) >= WORKERS:
                break
            if time.monotonic() > deadline:
                raise Failed("%s: not serving with %d workers after 30 s: "
                             "%s" % (inst["name"], WORKERS,
                                     " | ".join(tail(log, 5))))
            time.sleep(0.05)
        for e in self.host_log(i):
            m = re.search(r"\(relay (/\S+)\)$", e[3])
            if m:
                inst["dir"] = m.group(1)
        say("# %s: supervisor %d, workers %r, FastCGI %s:%d, relay %s" %
            (inst["name"], proc.pid, sorted(children(proc.pid)),
             h["addr"], FCGI_PORT, relay))

    def nginx_conf(self, sock, port, port2=None):
        t = self.tmp

        def loc(path, target):
            return wymcp_e2e.wymcp_location(
                path, target, self.mcp_params, blank_user=False,
                read_timeout="60s")
        ups = "".join("\t\tserver %s:%d;\n" % (i["addr"], FCGI_PORT)
                      for i in self.insts)
        locs = loc("/mcp", "wymcp") + "".join(
            loc("/" + i["name"], "%s:%d" % (i["addr"], FCGI_PORT))
            for i in self.insts)
        return wymcp_e2e.nginx_preamble(
            t, access_log=t + "/nginx-access.log") + """\

	upstream wymcp {{
{ups}	}}

	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
{locs}	}}
}}
""".format(port=port, ups=ups, locs=locs)

    def host_log(self, i):
        self.fcgi_log = self.insts[i]["log"]
        return self.log()

    def wait_host_log(self, i, pred, timeout=5.0):
        self.fcgi_log = self.insts[i]["log"]
        return self.wait_log(pred, timeout)

    def stop(self):
        Harness.stop(self)
        for i in self.insts:
            i["pids"] |= set(children(i["proc"].pid))
            if i["proc"].poll() is None:
                wymcp_e2e.stop_pid(i["proc"].pid, i["proc"], 10)
            for pid in i["pids"]:
                if wymcp_e2e.alive(pid):
                    wymcp_e2e.stop_pid(pid, None, 2)


def relay_send(src, dst, data):
    """Connect from address src to the relay socket dst, send data, shut
    our half down and read to the end: (bytes, what ended it)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(15)
    got, how = b"", "closed"
    try:
        s.bind((src, 0))
        s.connect(dst)
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            how = "send: %s" % e.__class__.__name__
        while True:
            try:
                b = s.recv(4096)
            except OSError as e:
                how = "recv: %s" % e.__class__.__name__
                break
            if not b:
                break
            got += b
    finally:
        s.close()
    return got, how


def netns_sdk(h, res, node, script, verbose):
    """N: the SDK client through the upstream of the three hosts."""
    outs = sdk_runs(node, script, "http://127.0.0.1:%d/mcp" % h.port, 3,
                    verbose)

    def texts(key):
        return [((o.get(key) or {}).get("content") or [{}])[0].get("text")
                or "" for o in outs]
    t = texts("book")
    res.check(all(x == "Booked Aurora for 4 on %s." % DAY for x in t),
              "N book_room completes through %d hosts in network "
              "namespaces" % h.NHOSTS, repr(t))
    t = texts("sample")
    res.check(all("sampled by the client" in x for x in t),
              "N test_sampling completes through %d hosts in network "
              "namespaces" % h.NHOSTS, repr(t))
    t = texts("roots")
    res.check(all(x == "Found 1 root(s)" for x in t),
              "N a roots/list tool completes through %d hosts in network "
              "namespaces" % h.NHOSTS, repr(t))
    addrs = [i["addr"] for i in h.insts]
    relays = [i["relay"] for i in h.insts]
    taken, sent, asked, answered = [], [], 0, 0
    rx = re.compile(r"^relay: an answer from (\S+) for holder (\S+): (\w+)$")
    fx = re.compile(r"^answer relayed to holder ([^/\s]+)/\S+$")
    for k in range(h.NHOSTS):
        for pid, _, _, msg in h.host_log(k):
            m = rx.match(msg)
            if m:
                taken.append((k, m.group(1), m.group(3)))
                say("#   %s wymcp-fcgi[%d]: %s" % (h.insts[k]["name"],
                                                   pid, msg))
            m = fx.match(msg)
            if m and m.group(1) != relays[k]:
                sent.append((k, m.group(1)))
            if ": asked the client " in msg and \
                    msg.endswith(" on the held stream"):
                asked += 1
            if "(relayed to this holder, %s/" % relays[k] in msg:
                answered += 1
    res.check(taken and all(v == "taken" for _, _, v in taken) and
              all(a in addrs and a != addrs[k] for k, a, _ in taken),
              "N answers reach the holder over --relay-listen from "
              "another host's address (not nginx's, not its own), and "
              "are taken", repr(taken))
    res.check(len(sent) == len(taken) and
              all(r in relays and r != relays[k] for k, r in sent),
              "N each came from a worker on another host that forwarded "
              "it to the holder's --relay-listen address",
              "%d forwarded to other hosts, %d taken from them" %
              (len(sent), len(taken)))
    res.check(asked >= 4 * len(outs) and answered == asked,
              "N every question asked on a host was answered on that "
              "holder", "%d asked, %d answered" % (asked, answered))


def netns_refusal(h, res):
    """P: --allow-peer on the relay socket."""
    port = h.port
    h1 = h.insts[0]
    sess = initialize(port, "alice", "/h1")
    b = book(port, "alice", sess, 50, "/h1")
    try:
        if not res.check(b.until(QUESTION) is not None,
                         "P book_room pinned to h1 asks its first "
                         "question", b.buf[-300:]):
            return
        qid = question_id(b)
        held = os.listdir(h1["dir"]) if h1.get("dir") else []
        if not res.check(len(held) == 1, "P h1 holds the question (one "
                         "relay socket in %s)" % h1.get("dir"),
                         repr(held)):
            return
        data = ("%s\n" % held[0]).encode() + \
            json.dumps(answer_body(qid, {"room": "Aurora"})).encode()
        relay = (h1["addr"], RELAY_PORT)
        mark = len(h.host_log(0))
        got, how = relay_send(h.stranger, relay, data)
        res.check(got == b"", "P a relay connection to h1 from %s (not in "
                  "its --allow-peer) is closed without a reply" %
                  h.stranger, "got %r (%s)" % (got, how))
        res.check(bool(h.wait_host_log(
            0, lambda e: e[3] == "relay: refused %s (not an --allow-peer "
            "address)" % h.stranger, 3)),
            "P h1 logs 'relay: refused %s (not an --allow-peer address)'" %
            h.stranger, " | ".join(tail(h1["log"], 3)))
        again = b.until(QUESTION + rb".*" + QUESTION, 1.0)
        logged = [e for e in h.host_log(0)[mark:]
                  if "the client answered" in e[3] or
                  e[3].startswith("relay: an answer from %s " % h.stranger)]
        res.check(again is None and not logged, "P the refused answer is "
                  "not taken (no second question, nothing answered in "
                  "h1's log)", repr(logged))
        # The same bytes from nginx's address (allowed): read, and
        # refused by the holder (no MAC); framed with the key: taken.
        got, how = relay_send(h.peer, relay, data)
        res.check(got == b"N" and h.wait_host_log(
            0, lambda e: "a relayed answer refused: not a framed answer"
            in e[3], 3), "P the same bytes from %s (allowed) are refused "
            "by the holder: 'N', no MAC" % h.peer, "got %r (%s)" % (got, how))
        with open(h.key) as f:
            key = [ln.strip() for ln in f
                   if ln.strip() and not ln.startswith("#")][0]
        data = ("%s\n" % held[0]).encode() + relay_frame(
            key, "%s/%s" % (h1["relay"], held[0]),
            json.dumps(answer_body(qid, {"room": "Aurora"})).encode())
        got, how = relay_send(h.peer, relay, data)
        res.check(got == b"A", "P the answer framed with the shared key "
                  "from %s (allowed) is taken: 'A'" % h.peer,
                  "got %r (%s)" % (got, how))
        res.check(bool(h.wait_host_log(
            0, lambda e: e[3] == "relay: an answer from %s for holder %s: "
            "taken" % (h.peer, held[0]), 3)),
            "P h1 logs the answer from %s as taken" % h.peer,
            " | ".join(tail(h1["log"], 3)))
        if not res.check(b.until(QUESTION + rb".*" + QUESTION, 10)
                         is not None, "P then the tool asks its second "
                         "question"):
            return
        r = answer(port, "alice", sess, question_id(b, 2), {"people": 4},
                   "/h2")
        body = b.all(15)
        final = [e for e in events(body) if e.get("id") == 50]
        text = final[0]["result"]["content"][0]["text"] if final and \
            "result" in final[0] else repr(final)
        res.check(r.status() == 202 and
                  text == "Booked Aurora for 4 on %s." % DAY,
                  "P the second answer, posted through h2, completes the "
                  "call", "%d %s" % (r.status(), text))
        res.check(len(workers_of(h1["proc"].pid)) == WORKERS,
                  "P h1 still has %d workers" % WORKERS)
    finally:
        b.close()


def netns(builddir, res, node, script, verbose, keep=False):
    h = NetHosts(builddir, keep)
    h.paths()
    h.nginx_bin = wymcp_e2e.find_nginx()
    skipped = False
    try:
        h.start()
        netns_sdk(h, res, node, script, verbose)
        netns_refusal(h, res)
    except wymcp_netns.Skip as e:
        say("SKIP: %s" % e)
        skipped = True
    except (Failed, wymcp_e2e.Failed) as e:
        res.fail("N setup", str(e))
    finally:
        # Signals now would only interrupt the cleanup.
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        h.stop()
        h.net.teardown()
        if h.net.namespaces:
            left = h.net.leftovers()
            res.check(not left, "every namespace, veth and bridge this run "
                      "made is gone", "left: %r" % left)
        bad = []
        for i in h.insts:
            with open(i["log"], errors="replace") as f:
                bad += [line for line in f if "Sanitizer" in line or
                        "runtime error:" in line]
        if h.insts:
            res.check(not bad, "N no sanitizer report in any host's log",
                      "".join(bad[:5]))
        if res.failed and h.tmp:
            for i in h.insts:
                for line in tail(i["log"], 30):
                    say("# %s: %s" % (i["name"], line))
            for line in tail(h.nginx_log, 10):
                say("# nginx: %s" % line)
        h.cleanup()
    return skipped


# ------------------------------------------------------------ provisioning

def provision(cache):
    """The node binary, with the SDK installed in `cache'."""
    cache = os.path.abspath(cache)
    conf_node = os.path.join(SRCDIR, "_build", "conformance", "node_modules",
                             NODE_PKG, "bin", "node")
    own_node = os.path.join(cache, "node_modules", NODE_PKG, "bin", "node")
    specs = []
    if pkg_version(cache, SDK) != SDK_VERSION:
        specs.append("%s@%s" % (SDK, SDK_VERSION))
    node = conf_node if os.path.exists(conf_node) else own_node
    if not os.path.exists(node):
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
        node = own_node
    if specs:
        npm_install(cache, specs)
    # mcp-remote in a directory of its own: its express is not the SDK's.
    remote = os.path.join(cache, "mcp-remote")
    if pkg_version(remote, REMOTE) != REMOTE_VERSION:
        npm_install(remote, ["%s@%s" % (REMOTE, REMOTE_VERSION)])
    with open(os.path.join(cache, "legacy-client.mjs"), "w") as f:
        f.write(CLIENT)
    return node, os.path.join(cache, "legacy-client.mjs")


def status_page(port, prometheus=False):
    """The status page: its JSON, or its Prometheus text."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        c.request("GET", STATUS + ("?format=prometheus" if prometheus
                                   else ""))
        r = c.getresponse()
        body = r.read().decode()
    finally:
        c.close()
    return body if prometheus else json.loads(body)


def held_gauge(port, want, timeout=1.0):
    """heldByQuestions once it is `want' (or at the timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        n = status_page(port).get("heldByQuestions")
        if n == want or time.monotonic() > deadline:
            return n
        time.sleep(0.05)


# ------------------------------------------------------------ the tests

def sdk_client(h, res, node, script, verbose):
    url = "http://127.0.0.1:%d/mcp" % h.port
    say("# $ node legacy-client.mjs %s  (%s@%s)" % (url, SDK, SDK_VERSION))
    try:
        p = subprocess.run([node, script, url], capture_output=True,
                           text=True, timeout=120,
                           cwd=os.path.dirname(script),
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        res.fail("S sdk client", "no result after 120 s")
        return
    if verbose or p.returncode != 0:
        for line in (p.stdout + p.stderr).splitlines():
            say("  | " + line)
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        res.fail("S sdk client", "exit %d, no JSON" % p.returncode)
        return
    res.check(out.get("session") is not None and len(out["session"]) > 60,
              "S initialize minted a sealed Mcp-Session-Id",
              repr(out.get("session")))
    text = (out.get("book", {}).get("content") or [{}])[0].get("text")
    res.check(text == "Booked Aurora for 4 on %s." % DAY and
              not out["book"].get("isError"),
              "S book_room completes through the held stream", repr(text))
    text = (out.get("sample", {}).get("content") or [{}])[0].get("text")
    res.check(text is not None and "sampled by the client" in text,
              "S test_sampling completes through the held stream",
              repr(text))
    text = (out.get("roots", {}).get("content") or [{}])[0].get("text")
    res.check(text == "Found 1 root(s)",
              "S a roots/list tool completes through the held stream",
              repr(text))
    res.check(out.get("seen") == ["elicitation/create: Which room would "
                                  "you like?", "elicitation/create: How "
                                  "many people?", "sampling/createMessage",
                                  "roots/list"],
              "S the client's handlers were asked, in order",
              repr(out.get("seen")))
    # Who held, who relayed: every relayed answer by another worker.
    log = h.log()
    asked = [(pid, msg) for pid, _, _, msg in log
             if "on the held stream" in msg]
    relays = [(pid, msg) for pid, _, _, msg in log
              if msg.startswith("answer relayed to holder ")]
    for pid, msg in asked + relays:
        say("#   wymcp-fcgi[%d]: %s" % (pid, msg))
    other = [r for r in relays
             if int(r[1].split()[-1].split(".")[0]) != r[0]]
    res.check(len(asked) >= 4 and len(relays) >= 4 and
              len(other) == len(relays),
              "S each answer relayed to the holder by another worker",
              "%d asked, %d relayed, %d by another worker" %
              (len(asked), len(relays), len(other)))


class Stdio:
    """A desktop client's side of mcp-remote: JSON-RPC lines on its
    standard input and output."""

    def __init__(self, argv, env, cwd, log):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=log,
                                  env=env, cwd=cwd)
        self.buf = b""

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def read(self, timeout):
        """The next message, or None at the timeout or the end."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [],
                                              left)[0]:
                return None
            b = os.read(self.p.stdout.fileno(), 65536)
            if not b:
                return None
            self.buf += b
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            return {"unparsed": line.decode("utf-8", "replace")}

    def stop(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def mcp_remote(h, res, node, cache, verbose):
    """mcp-remote in its default mode (2025-11-25, streamable HTTP
    first), the stdio bridge desktop clients use for a remote server:
    a stdio client that declared elicitation is asked book_room's two
    questions through it, and the call completes."""
    proxy = os.path.join(os.path.abspath(cache), "mcp-remote",
                         "node_modules", REMOTE, "dist", "proxy.js")
    url = "http://127.0.0.1:%d/mcp" % h.port
    say("# $ node proxy.js %s --header X-Test-Principal:alice  (%s@%s)" %
        (url, REMOTE, REMOTE_VERSION))
    home = os.path.join(h.tmp, "remote-home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, MCP_REMOTE_CONFIG_DIR=home)
    logpath = os.path.join(h.tmp, "mcp-remote.log")
    with open(logpath, "wb") as log:
        c = Stdio([node, proxy, url, "--header", "X-Test-Principal:alice"],
                  env, home, log)
    asked, result, init = [], None, None
    try:
        c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25",
                           "capabilities": {"elicitation": {}},
                           "clientInfo": {"name": "desktop-e2e",
                                          "version": "1"}}})
        init = c.read(30)
        c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        c.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "book_room",
                           "arguments": {"day": DAY}}})
        deadline = time.monotonic() + 60
        while result is None and time.monotonic() < deadline:
            m = c.read(deadline - time.monotonic())
            if m is None:
                break
            if m.get("method") == "elicitation/create":
                q = m.get("params", {}).get("message", "")
                asked.append(q)
                content = {"room": "Aurora"} if q.startswith("Which") \
                    else {"people": 2}
                c.send({"jsonrpc": "2.0", "id": m["id"],
                        "result": {"action": "accept",
                                   "content": content}})
            elif m.get("id") == 2:
                result = m
    finally:
        c.stop()
    if verbose or result is None:
        for line in tail(logpath, 20):
            say("  | " + line)
    res.check(init is not None and init.get("result", {}).get(
              "protocolVersion") == "2025-11-25",
              "M mcp-remote initializes as a 2025-11-25 client",
              repr(init)[:300])
    res.check(asked == ["Which room would you like?",
                        "How many people?"],
              "M mcp-remote's client is asked both questions", repr(asked))
    text = ((result or {}).get("result", {}).get("content") or
            [{}])[0].get("text")
    res.check(text == "Booked Aurora for 2 on %s." % DAY,
              "M book_room completes through mcp-remote", repr(result)[:300])


def refusals(h, res):
    port = h.port
    alice = initialize(port, "alice")
    bob = initialize(port, "bob")
    res.check(alice is not None and bob is not None and alice != bob,
              "R initialize mints a session id per client")
    # A session id used by another principal.
    r = post(port, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
             "bob", alice)
    res.check(r.status() == 404 and b"-32001" in r.buf,
              "R a session id of another principal is 404", r.buf[:200])

    # One question, answered wrongly, then rightly, then replayed.
    b = book(port, "alice", alice, 10)
    res.check(b.until(QUESTION) is not None,
              "R the question goes out on the held stream", b.buf[-300:])
    q1 = question_id(b)
    r = answer(port, "bob", bob, q1, {"room": "Aurora"})
    res.check(r.status() == 400, "R an answer posted by another principal "
              "is refused (400)", r.buf[:200])
    forged = q1[:30] + ("A" if q1[30] != "A" else "B") + q1[31:]
    r = answer(port, "alice", alice, forged, {"room": "Aurora"})
    res.check(r.status() == 400, "R a forged id is refused (400)")
    r = answer(port, "alice", alice, q1, {"room": "Aurora"})
    res.check(r.status() == 202, "R the right answer is relayed (202)",
              r.buf[:200])
    r = answer(port, "alice", alice, q1, {"room": "Aurora"})
    res.check(r.status() == 400, "R a replayed answer is refused (400)",
              r.buf[:200])
    # The second question goes unanswered past --ask-timeout.
    res.check(b.until(QUESTION + rb".*" + QUESTION) is not None,
              "R the tool ran again and asked its second question")
    q2 = question_id(b, 2)
    t0 = time.monotonic()
    body = b.all(ASK_TIMEOUT + 10)
    b.close()
    final = [e for e in events(body) if e.get("id") == 10]
    text = final[0]["result"]["content"][0]["text"] if final and \
        "result" in final[0] else ""
    res.check(final and final[0]["result"].get("isError") and
              "within %d s" % ASK_TIMEOUT in text and
              time.monotonic() - t0 < ASK_TIMEOUT + 2,
              "R --ask-timeout ends the call with a tool error", repr(text))
    r = answer(port, "alice", alice, q2, {"people": 2})
    res.check(r.status() == 400, "R an answer after --ask-timeout is "
              "refused (400)", r.buf[:200])

    # A person slower than --request-timeout: the wait is not counted.
    b = book(port, "alice", alice, 15)
    b.until(QUESTION)
    time.sleep(REQUEST_TIMEOUT + 0.7)
    r1 = answer(port, "alice", alice, question_id(b), {"room": "Aurora"})
    b.until(QUESTION + rb".*" + QUESTION)
    time.sleep(REQUEST_TIMEOUT + 0.7)
    r2 = answer(port, "alice", alice, question_id(b, 2), {"people": 4})
    body = b.all(10)
    b.close()
    final = [e for e in events(body) if e.get("id") == 15]
    text = final[0]["result"]["content"][0]["text"] if final and \
        "result" in final[0] else repr(final)
    res.check(r1.status() == 202 and r2.status() == 202 and
              text == "Booked Aurora for 4 on %s." % DAY,
              "R answers slower than --request-timeout %d s still complete "
              "the call" % REQUEST_TIMEOUT, text)

    # --max-asking (2 of 4 workers), 1 per principal (the default,
    # half of it): alice's second question degrades while her first
    # is held, another principal's is asked, and a third asker
    # degrades.
    held = [book(port, "alice", alice, 20)]
    ok = held[0].until(QUESTION) is not None
    mark = len(h.log())
    again = book(port, "alice", alice, 21)
    body = again.all(10)
    again.close()
    res.check(ok and b"needs a client that can ask" in body and
              b"elicitation/create" not in body,
              "R alice's second question while she holds one is not "
              "asked (--max-asking-per-principal, default 1 of 2)",
              body[-300:])
    res.check(bool(h.wait_log(lambda e: "--max-asking-per-principal" in
                              e[3] and e in h.log()[mark:], 2)),
              "R the refusal is logged naming --max-asking-per-principal")
    # Counted per principal, not per bucket: mallory-63 is in alice's
    # 0.4 bucket (FNV-1a mod 1024), and her question is asked.
    bob = initialize(port, MATE)
    held.append(book(port, MATE, bob, 22))
    res.check(held[1].until(QUESTION) is not None,
              "R %s's question (alice's FNV-1a bucket mate) is asked "
              "meanwhile: two held at once" % MATE)
    page = status_page(port)
    prom = status_page(port, prometheus=True)
    res.check(page.get("heldByQuestions") == 2 and
              page.get("maxAsking") == 2 and
              page.get("maxAskingPerPrincipal") == 1 and
              page.get("askingRefusedShare") == 1 and
              page.get("askingReclaimed") == 0 and
              page.get("askingShares") == {"used": 2, "capacity": 16,
                                           "refusedNoRoom": 0} and
              re.search(r'(?m)^wymcp_principal_shares\{table="asking"\} '
                        r'2$', prom) and
              re.search(r"(?m)^wymcp_workers_held_by_questions 2$", prom)
              and re.search(r"(?m)^wymcp_max_asking 2$", prom) and
              re.search(r"(?m)^wymcp_asking_refused_share_total 1$", prom),
              "R the status page counts the two workers held by questions "
              "and the one refused for its principal's share, and the "
              "asking table holds their two principals", "%r" % page)
    carol = initialize(port, "carol")
    mark = len(h.log())
    third = book(port, "carol", carol, 30)
    body = third.all(10)
    third.close()
    res.check(b"needs a client that can ask" in body and
              b"elicitation/create" not in body,
              "R a third asker beyond --max-asking is not asked",
              body[-300:])
    res.check(bool(h.wait_log(lambda e: "--max-asking" in e[3] and
                              "per-principal" not in e[3] and
                              e in h.log()[mark:], 2)),
              "R the refusal is logged naming --max-asking")

    # Hang-ups: both held clients go away; their workers are free.
    t0 = time.monotonic()
    for x in held:
        x.close()
    hits = h.wait_log(lambda e: "hung up while asked" in e[3], 3)
    while len(hits) < 2 and time.monotonic() - t0 < 3:
        hits = h.wait_log(lambda e: "hung up while asked" in e[3], 0.1)
    took = time.monotonic() - t0
    res.check(len(hits) >= 2 and took < 1.0,
              "R a client that hangs up while asked frees its worker "
              "within a second", "%d in %.2f s" % (len(hits), took))
    n = held_gauge(port, 0)
    res.check(n == 0, "R the status page holds none after the hang-ups",
              "heldByQuestions %r" % n)
    # All four workers serve again at once: four quick calls in parallel.
    rs = [Raw(port, {"jsonrpc": "2.0", "id": 40 + i, "method": "ping"},
              "alice", alice) for i in range(WORKERS)]
    bodies = [x.all(5) for x in rs]
    for x in rs:
        x.close()
    res.check(all(b'"result":{}' in x for x in bodies),
              "R every worker serves again after the hang-ups")


def main_netns(args, res):
    """--netns: N and P; 77 when namespaces cannot be made here."""
    nginx = wymcp_e2e.find_nginx()
    why = "nginx is not installed" if nginx is None else \
        wymcp_netns.unavailable()
    if why is not None:
        say("SKIP: %s" % why)
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    started = time.monotonic()
    skipped = False
    try:
        node, script = provision(args.cache)
        skipped = netns(args.builddir, res, node, script, args.verbose,
                        args.keep)
    except Failed as e:
        res.fail("setup", str(e))
    except KeyboardInterrupt as e:
        res.fail("interrupted", str(e) or "KeyboardInterrupt")
    if skipped and res.failed == 0:
        return 77
    say("# run time %.1f s" % (time.monotonic() - started))
    say("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "legacy-ask"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--netns", action="store_true",
                    help="only N and P: hosts in network namespaces")
    args = ap.parse_args()
    res = wymcp_e2e.Results()
    if args.netns:
        return main_netns(args, res)
    h = Harness(args.builddir, args.keep)
    try:
        h.paths()
        if wymcp_e2e.find_nginx() is None:
            say("# nginx is not installed: skipped")
            return 77
        h.nginx_bin = wymcp_e2e.find_nginx()
        node, script = provision(args.cache)
        h.start()
        sdk_client(h, res, node, script, args.verbose)
        mcp_remote(h, res, node, args.cache, args.verbose)
        refusals(h, res)
        h.stop()
        with open(h.fcgi_log, errors="replace") as f:
            bad = [line for line in f if "Sanitizer" in line or
                   "runtime error:" in line]
        res.check(not bad, "no sanitizer report in the wymcp-fcgi log",
                  "".join(bad[:5]))
        hosts(args.builddir, res, node, script, args.verbose)
    except Failed as e:
        res.fail("setup", str(e))
    finally:
        if res.failed and h.tmp:
            for line in tail(h.fcgi_log, 40):
                say("# " + line)
        h.stop()
        if not args.keep:
            h.cleanup()
        else:
            say("# kept %s" % h.tmp)
    say("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
