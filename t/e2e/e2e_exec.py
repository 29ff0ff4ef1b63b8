#!/usr/bin/env python3
"""e2e_exec.py - exec tools (wymcp-exec(5)) through nginx, with the
official clients.

Usage: e2e_exec.py --builddir DIR [--cache DIR] [--inspector-cache DIR]

Serves a copy of deploy/exec-examples (and a hostile tool, spin) with
the build's wymcp-try (nginx in front of wymcp-fcgi, 3 workers), then:

  V2   the TypeScript client v2 (2026-07-28 rounds: input_required and
       requestState) calls the Python deploy and answers both questions;
  V1   the TypeScript SDK v1 (2025-11-25: the questions on the held
       stream) does the same;
  RAW  a third call by hand: its last round sent 3 times in a row and 4
       times at once (replays and concurrent retries), each answered;
  LOG  the deploy log holds exactly one line per completed call (3),
       with 3 distinct idempotency keys;
  INSP the MCP Inspector CLI lists the tools and calls the shell
       disk_usage (structured);
  HOST spin (an endless loop, timeout 1 s) is stopped with a tool error
       saying so; a fork bomb, a program that kills its parent, its
       parent's group and every process it may, and 1 GiB on stdout
       are each contained; the workers serve on, and no process of the
       runs is left;
  HUP  under a stream of calls: a manifest added, changed and removed,
       a SIGHUP each, tools/list follows and a listen stream hears
       tools/list_changed each time, and a bad manifest's reload is
       refused with the old set serving; no call fails.

Stops wymcp-try with SIGINT and checks that nothing is left.  Prints
"ok - NAME" / "not ok - NAME: DETAIL", "N passed, M failed"; exit 0, 1,
or 77 without nginx or npm.  Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(HERE, "lib"),
                os.path.join(SRCDIR, "t", "conformance")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
import wymcp_e2e			# noqa: E402
from wymcp_e2e import (R, alive, descendants,  # noqa: E402
                       interrupt_try, node_result, proc_table,
                       try_log_verdict)

PROTO = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": PROTO,
        "io.modelcontextprotocol/clientInfo": {"name": "e2e_exec",
                                               "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}

# Both clients: call deploy, answering staging then yes.
ANSWER = r"""
const out = { asked: [] };
function answer(req) {
  out.asked.push(req.params.message);
  const p = req.params.requestedSchema.properties || {};
  if ('environment' in p)
    return { action: 'accept', content: { environment: 'staging' } };
  return { action: 'accept', content: { confirm: true } };
}
async function run(c) {
  out.tools = (await c.listTools()).tools.map(t => t.name);
  const r = await c.callTool({ name: 'deploy',
      arguments: { service: 'web' } }, undefined, { timeout: 60000 });
  out.result = r;
  console.log('RESULT ' + JSON.stringify(out));
  await c.close();
  process.exit(0);
}
"""

V2 = r"""
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
const [url] = process.argv.slice(2);
""" + ANSWER + r"""
const c = new Client({ name: 'e2e-exec-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: {} } });
c.setRequestHandler('elicitation/create', async req => answer(req));
await c.connect(new StreamableHTTPClientTransport(new URL(url)));
out.era = c.getProtocolEra();
await run(c);
"""

V1 = r"""
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
    '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const [url] = process.argv.slice(2);
""" + ANSWER + r"""
const c = new Client({ name: 'e2e-exec-v1', version: '1.0.0' },
    { capabilities: { elicitation: {} } });
c.setRequestHandler(ElicitRequestSchema, async req => answer(req));
const t = new StreamableHTTPClientTransport(new URL(url));
await c.connect(t);
out.era = t.protocolVersion ?? null;
await run(c);
"""

SPIN = {"description": "Spins forever", "command": ["./spin.sh"],
        "timeout": 1, "grace": 0.2}
SPIN_SH = "#!/bin/sh\ncat >/dev/null\nwhile :; do :; done\n"
# More hostile programs: a fork bomb, one that signals its parent's
# group and every process it may, and one that floods stdout.
HOSTILE = {
    "bomb": ({"description": "A fork bomb", "command": ["./bomb.sh"],
              "timeout": 2, "grace": 0.2, "namespaces": True,
              "limits": {"processes": 8}},
             "#!/bin/sh\ncat >/dev/null\nb() { b | b & }\nb\nsleep 5\n"),
    "regicide": ({"description": "Kills its parent", "command":
                  ["./regicide.sh"]},
                 "#!/bin/sh\ncat >/dev/null\nkill -KILL $PPID\n"
                 "kill -KILL -$(ps -o pgid= -p $PPID | tr -d ' ')\n"
                 "kill -KILL -1\necho tried\n"),
    "flood": ({"description": "1 GiB on stdout", "command":
               ["./flood.sh"], "limits": {"output": "1M"}},
              "#!/bin/sh\ncat >/dev/null\n"
              "head -c 1073741824 /dev/zero | tr '\\0' x\n"),
}


def post(url, method, params, name=None, rid=1):
    """One JSON-RPC request: (HTTP status, the last JSON message)."""
    body = {"jsonrpc": "2.0", "id": rid, "method": method,
            "params": dict(params, _meta=META)}
    h = wymcp_e2e.std_headers(method, name)
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, raw = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read().decode()
    except OSError as e:
        return 0, {"error": str(e)}
    msgs = []
    if raw.lstrip().startswith("{"):
        msgs = [json.loads(raw)]
    else:
        msgs = [json.loads(l[5:]) for l in raw.splitlines()
                if l.startswith("data:")]
    return status, (msgs[-1] if msgs else {"raw": raw})


def call(url, tool, args, state=None, responses=None, rid=1):
    p = {"name": tool, "arguments": args}
    if state is not None:
        p["requestState"] = state
    if responses is not None:
        p["inputResponses"] = responses
    return post(url, "tools/call", p, tool, rid)


def texts(res):
    return " ".join(c.get("text", "") for c in
                    (res or {}).get("content", []) if isinstance(c, dict))


def left_of(d):
    """Processes whose command line names the directory d."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8",
                                                           "replace")
        except OSError:
            continue
        if d in cmd and "wymcp-try" not in cmd and "nginx" not in cmd \
                and "wymcp-fcgi" not in cmd:
            out.append((int(p), cmd))
    return out


def clients(node, cache, url):
    for name, script in (("V2", "exec-v2.mjs"), ("V1", "exec-v1.mjs")):
        out = node_result(node, cache, script, url, name)
        if out is None:
            continue
        R.note("%s: era %s, asked %r" % (name, out.get("era"),
                                         out.get("asked")))
        R.check("deploy" in out["tools"] and "disk_usage" in out["tools"],
                "%s: tools/list has the exec tools" % name,
                repr(out["tools"]))
        R.check(len(out["asked"]) == 2 and "which environment" in
                out["asked"][0] and "Really deploy" in out["asked"][1],
                "%s: asked both questions, in order" % name,
                repr(out["asked"]))
        R.check(texts(out["result"]) == "Deployed web to staging.",
                "%s: deploy completes: Deployed web to staging." % name,
                repr(out["result"])[:400])


def replays(url):
    """A call by hand; its last round replayed and retried at once."""
    _, r1 = call(url, "deploy", {"service": "web"}, rid=11)
    st1 = (r1.get("result") or {}).get("requestState")
    R.check(st1 and "elicit-1" in r1["result"].get("inputRequests", {}),
            "RAW: round 1 asks elicit-1", repr(r1)[:300])
    _, r2 = call(url, "deploy", {"service": "web"}, st1, {
        "elicit-1": {"action": "accept",
                     "content": {"environment": "staging"}}}, rid=12)
    st2 = (r2.get("result") or {}).get("requestState")
    R.check(st2 and "elicit-2" in r2["result"].get("inputRequests", {}),
            "RAW: round 2 asks elicit-2", repr(r2)[:300])
    last = {"elicit-2": {"action": "accept", "content": {"confirm": True}}}
    got = []
    for i in range(3):
        got.append(call(url, "deploy", {"service": "web"}, st2, last,
                        rid=13 + i))
    lock = threading.Lock()

    def one(i):
        r = call(url, "deploy", {"service": "web"}, st2, last, rid=20 + i)
        with lock:
            got.append(r)
    ts = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok = [t for _, r in got for t in [texts(r.get("result"))]
          if t.startswith("Deployed web to staging")]
    R.check(len(ok) == 7, "RAW: the last round, 3 replays and 4 at once: "
            "each answered (%d first)" % sum(
                1 for t in ok if t == "Deployed web to staging."),
            repr(got)[:600])


def inspector(url, cache):
    import inspector as insp
    try:
        node, entry = insp.provision(cache)
    except Exception as e:  # noqa: BLE001
        R.fail("INSP: the Inspector installs", str(e))
        return
    home = tempfile.mkdtemp(prefix="e2e-exec-insp.")
    try:
        rc, out, err = insp.inspect(node, entry, url, home,
                                    ["--method", "tools/list"], False)
        tl = insp.parse(out) or {}
        names = [t.get("name") for t in tl.get("tools", [])]
        R.check(rc == 0 and "disk_usage" in names,
                "INSP: tools/list names disk_usage", "%r %s %s" % (
                    rc, out[-300:], err[-300:]))
        rc, out, err = insp.inspect(node, entry, url, home, [
            "--method", "tools/call", "--tool-name", "disk_usage",
            "--tool-arg", "path=/"], False)
        res = insp.parse(out) or {}
        sc = res.get("structuredContent") or {}
        R.check(rc == 0 and sc.get("path") == "/" and
                isinstance(sc.get("total"), int),
                "INSP: tools/call disk_usage path=/ is structured",
                "%r %s %s" % (rc, out[-300:], err[-300:]))
    finally:
        shutil.rmtree(home, ignore_errors=True)


def hostile(url, d):
    t0 = time.monotonic()
    _, r = call(url, "spin", {})
    res = r.get("result") or {}
    R.check(res.get("isError") and "time limit" in texts(res),
            "HOST: an endless loop is stopped (%.1f s): %s" % (
                time.monotonic() - t0, texts(res)[:80]), repr(r)[:300])
    for name, want in (("bomb", None), ("regicide", None),
                       ("flood", "limits.output")):
        t0 = time.monotonic()
        s_, r = call(url, name, {})
        res = r.get("result") or {}
        R.check(s_ == 200 and res and (want is None or (
            res.get("isError") and want in texts(res))),
            "HOST: %s is contained (%.1f s): %s" % (
                name, time.monotonic() - t0, texts(res)[:80]),
            repr(r)[:300])
    for i in range(6):
        _, r = call(url, "disk_usage", {"path": "/"})
        R.check(((r.get("result") or {}).get("structuredContent") or {})
                .get("path") == "/", "HOST: the workers serve on (%d)" % i,
                repr(r)[:300])
    left = left_of(d)
    R.check(not left, "HOST: nothing of the run is left", repr(left))


def names(url):
    _, r = post(url, "tools/list", {})
    return {t["name"]: t.get("description") for t in
            (r.get("result") or {}).get("tools", [])}


def until(url, pred, secs=20):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        n = names(url)
        if pred(n):
            return n
        time.sleep(0.2)
    return names(url)


def reload_under_load(url, d, fcgi_pid):
    from wymcp_listen import Stream
    port = int(re.search(r":(\d+)/", url).group(1))
    listener = Stream(port, {"toolsListChanged": True}, "exec-listen")
    listener.wait(lambda st: st.frames, timeout=10)

    def heard(n):
        ok = listener.wait(lambda st: len(st.notes(
            "notifications/tools/list_changed")) >= n, timeout=20)
        R.check(ok, "HUP: the listener hears tools/list_changed (%d)" % n,
                repr(listener.methods())[:300])
    stop = threading.Event()
    fails, count = [], [0]

    def load():
        while not stop.is_set():
            s, r = call(url, "disk_usage", {"path": "/"}, rid=99)
            sc = (r.get("result") or {}).get("structuredContent") or {}
            if s != 200 or sc.get("path") != "/":
                fails.append((s, repr(r)[:200]))
            count[0] += 1
    ts = [threading.Thread(target=load) for _ in range(2)]
    for t in ts:
        t.start()
    try:
        def write(desc):
            with open(os.path.join(d, "hello.json"), "w") as f:
                json.dump({"description": desc, "command": ["./hello.sh"]},
                          f)
            os.chmod(os.path.join(d, "hello.json"), 0o644)
        with open(os.path.join(d, "hello.sh"), "w") as f:
            f.write("#!/bin/sh\ncat >/dev/null\necho hello\n")
        os.chmod(os.path.join(d, "hello.sh"), 0o755)
        write("Says hello")
        os.kill(fcgi_pid, signal.SIGHUP)
        n = until(url, lambda n: "hello" in n)
        R.check(n.get("hello") == "Says hello",
                "HUP: a manifest added: tools/list has it", repr(n))
        heard(1)
        write("Says hello, changed")
        os.kill(fcgi_pid, signal.SIGHUP)
        n = until(url, lambda n: n.get("hello") == "Says hello, changed")
        R.check(n.get("hello") == "Says hello, changed",
                "HUP: a manifest changed: tools/list follows", repr(n))
        heard(2)
        os.unlink(os.path.join(d, "hello.json"))
        os.kill(fcgi_pid, signal.SIGHUP)
        n = until(url, lambda n: "hello" not in n)
        R.check("hello" not in n and "deploy" in n,
                "HUP: a manifest removed: gone from tools/list", repr(n))
        heard(3)
        with open(os.path.join(d, "bad.json"), "w") as f:
            f.write('{"description": "x", "command": ["./nope"]}')
        os.chmod(os.path.join(d, "bad.json"), 0o644)
        os.kill(fcgi_pid, signal.SIGHUP)
        time.sleep(2)
        n = names(url)
        R.check("deploy" in n and "bad" not in n,
                "HUP: a bad manifest: the reload is refused, the old set "
                "serves", repr(n))
        os.unlink(os.path.join(d, "bad.json"))
    finally:
        stop.set()
        for t in ts:
            t.join()
        listener.close()
    R.check(not fails and count[0] > 0, "HUP: %d calls under the reloads, "
            "none failed" % count[0], repr(fails[:3]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"))
    ap.add_argument("--inspector-cache", default=os.path.join(
        SRCDIR, "_build", "inspector"))
    a = ap.parse_args()
    if shutil.which("npm") is None or wymcp_e2e.find_nginx() is None:
        print("SKIP: npm or nginx is not installed")
        return 77
    b = os.path.abspath(a.builddir)
    node = e2e_sdk_listen.provision(a.cache)
    cache = os.path.abspath(a.cache)
    for fname, text in (("exec-v2.mjs", V2), ("exec-v1.mjs", V1)):
        with open(os.path.join(cache, fname), "w") as f:
            f.write(text)
    d = tempfile.mkdtemp(prefix="e2e-exec.")
    os.chmod(d, 0o755)
    ex = os.path.join(SRCDIR, "deploy", "exec-examples")
    for f in os.listdir(ex):
        shutil.copy2(os.path.join(ex, f), d)
    with open(os.path.join(d, "spin.json"), "w") as f:
        json.dump(SPIN, f)
    with open(os.path.join(d, "spin.sh"), "w") as f:
        f.write(SPIN_SH)
    os.chmod(os.path.join(d, "spin.sh"), 0o755)
    for name, (manifest, script) in HOSTILE.items():
        with open(os.path.join(d, name + ".json"), "w") as f:
            json.dump(manifest, f)
        with open(os.path.join(d, name + ".sh"), "w") as f:
            f.write(script)
        os.chmod(os.path.join(d, name + ".sh"), 0o755)
    deploy_dir = "/var/tmp/e2e-exec-deploy.%d" % os.getpid()
    env = dict(os.environ, DEPLOY_DIR=deploy_dir,
               WYMCP_FCGI=os.path.join(b, "src", "front", "wymcp-fcgi"))
    log = open(os.path.join(d, "..", "e2e-exec-%d.log" % os.getpid()),
               "w+")
    argv = [os.path.join(b, "src", "wymcp-try"), "--principal", "alice",
            "--workers", "3",
            os.path.join(b, "tools", ".libs", "help.so"), d]
    R.note("$ " + " ".join(argv))
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, env=env,
                            preexec_fn=lambda: signal.signal(
                                signal.SIGINT, signal.SIG_DFL))
    pids = []
    try:
        url = None
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and proc.poll() is None:
            log.seek(0)
            text = log.read()
            m = re.search(r"^wymcp-try: endpoint (http://127\.0\.0\.1:"
                          r"\d+/mcp)$", text, re.M)
            if m and "Press Ctrl-C to stop." in text:
                url = m.group(1)
                break
            time.sleep(0.1)
        if not R.check(url is not None, "wymcp-try serves the exec dir",
                       text[-800:]):
            return 1
        pids = descendants(proc.pid)
        fcgi = [p for p, n in pids if n == "wymcp-fcgi"]
        clients(node, cache, url)
        replays(url)
        try:
            with open(os.path.join(deploy_dir, "deploy.log")) as f:
                lines = f.read().splitlines()
        except OSError as e:
            lines = [str(e)]
        keys = set(l.split()[0] for l in lines)
        R.check(len(lines) == 3 and len(keys) == 3 and
                all(l.endswith("web staging alice") for l in lines),
                "LOG: one line per completed call (3), 3 keys, "
                "principal alice", repr(lines))
        inspector(url, a.inspector_cache)
        hostile(url, d)
        # The supervisor: the wymcp-fcgi whose parent is wymcp-try.
        table = proc_table()
        sup = [p for p in fcgi if table.get(p, (0,))[0] == proc.pid]
        if R.check(sup, "the supervisor found", repr(fcgi)):
            reload_under_load(url, d, sup[0])
    finally:
        pids = pids or descendants(proc.pid)
        if proc.poll() is None:
            interrupt_try(proc)
        time.sleep(0.5)
        left = [p for p in pids if alive(p[0])] + left_of(d)
        R.check(not left, "nothing is left", repr(left))
        log.seek(0)
        text = log.read()
        try_log_verdict(text, 40)
        log.close()
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(deploy_dir, ignore_errors=True)
    print("%d passed, %d failed" % (R.passed, R.failed))
    return 1 if R.failed else 0


if __name__ == "__main__":
    sys.exit(main())
