#!/usr/bin/env python3
"""e2e_soak_ts.py - t/e2e/soak_ts.mjs, the soak's TypeScript client v2 load.

Usage: e2e_soak_ts.py [--builddir DIR] [--keep] [--cache DIR]

Provisions Node and the pinned TypeScript client v2 as e2e_sdk_listen.py
does (cache directory default _build/sdk-listen), builds
deploy/example-module/transfer_money.c against the build tree, starts
wymcp-fcgi (two workers; the examples, echo and transfer_money modules
from a module directory, TRANSFER_LEDGER set) behind a private nginx,
and runs the driver (NODE_PATH naming the cache's node_modules, as the
comment at its top says) against two nginx locations (/mcp, /mcp-anon):

  RUN  15 s at 5 calls/s: it exits 0 and writes its JSON file, of the
       documented shape; sent within 20% of 75, none skipped; every call
       ok (echo's text back, book_room's two questions answered by the
       client's elicitation handler through input_required rounds,
       transfer_money's two); every tool used, both URLs; one ledger
       entry per transfer_money call; latencies given;
  KILL 8 s at 5 calls/s, the supervisor SIGKILLed about halfway (its
       workers and hub end with it, as they must): the driver still
       exits 0 and writes its file; calls before the kill ok,
       failures counted as transport or rpc_error only (none as
       mismatch or tool_error), each event's time after the kill;
       sent still within 20% of 40; the supervisor and every process
       it had are gone.

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned client  # noqa: E402
import wymcp_e2e			# noqa: E402
from wymcp_e2e import R, Failed, alive, children, number  # noqa: E402
from wymcp_listen import HubHarness  # noqa: E402

DRIVER = os.path.join(HERE, "soak_ts.mjs")
TOOLS = ("echo", "book_room", "transfer_money")
KEYS = ("sent", "ok", "tool_error", "mismatch", "skipped", "rpc_error",
        "transport", "by_tool", "latency_ms", "events")


class SoakHarness(HubHarness):
    def __init__(self, builddir, keep=False):
        HubHarness.__init__(self, builddir, keep)
        self.nworkers = 2
        self.tools = ["examples", "echo"]


def build_transfer(h, tmp):
    """transfer_money.so, built against the build tree's libwymcp."""
    so = os.path.join(tmp, "transfer_money.so")
    cc = os.environ.get("CC", "cc").split()
    try:
        jc = subprocess.run(["pkg-config", "--cflags", "--libs", "json-c"],
                            capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Failed("pkg-config json-c: %s" % e)
    argv = cc + ["-shared", "-fPIC", "-O1", "-o", so,
                 "-I" + os.path.join(SRCDIR, "src"),
                 "-I" + os.path.join(h.builddir, "src"),
                 os.path.join(SRCDIR, "deploy", "example-module",
                              "transfer_money.c"),
                 "-L" + os.path.join(h.builddir, "src", ".libs"),
                 "-lwymcp"] + jc.stdout.split()
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed("building transfer_money.so: %s" % p.stderr[-500:])
    return so


def driver(node, cache, urls, seconds, rate, seed, out):
    env = dict(os.environ)
    env["NODE_PATH"] = os.path.join(os.path.abspath(cache), "node_modules")
    argv = [node, DRIVER, "--seconds", str(seconds), "--rate", str(rate),
            "--seed", str(seed), "--out", out]
    for u in urls:
        argv += ["--url", u]
    return subprocess.Popen(argv, cwd=os.path.dirname(out), env=env,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def finish(p, name, timeout):
    try:
        text = p.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        wymcp_e2e.stop_pid(p.pid, p, 5)
        text = p.communicate()[0]
        R.fail("%s: the driver exits" % name, "still running after %d s"
               % timeout)
    if text.strip():
        R.note("%s driver: %s" % (name, text.strip()[-600:]))
    return p.returncode


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"unreadable": str(e)}


def near(n, want):
    return abs(n - want) <= 0.2 * want


def shape(out):
    """What is wrong with the file's shape, or None."""
    miss = [k for k in KEYS if k not in out]
    if miss:
        return "missing %r" % miss
    for k in ("sent", "ok", "tool_error", "mismatch", "skipped",
              "transport"):
        if not isinstance(out[k], int):
            return "%s is %r" % (k, out[k])
    if not all(isinstance(v, int) for v in out["rpc_error"].values()):
        return "rpc_error %r" % out["rpc_error"]
    lat = out["latency_ms"]
    if sorted(lat) != ["max", "p50", "p99"]:
        return "latency_ms %r" % lat
    total = out["ok"] + out["tool_error"] + out["mismatch"] + \
        out["transport"] + sum(out["rpc_error"].values())
    if total != out["sent"]:
        return "outcomes add up to %d, sent %d" % (total, out["sent"])
    for t, bt in out["by_tool"].items():
        if not all(isinstance(bt.get(k), int) for k in
                   ("sent", "ok", "tool_error", "mismatch", "transport",
                    "rpc_error")):
            return "by_tool %s %r" % (t, bt)
    if sum(bt["sent"] for bt in out["by_tool"].values()) != out["sent"]:
        return "by_tool's sent do not add up"
    for e in out["events"]:
        # t is Date.now() / 1000: an int on a whole second.
        if not (number(e.get("t")) and e.get("kind") in
                ("tool_error", "rpc_error", "transport", "mismatch") and
                all(isinstance(e.get(k), str)
                    for k in ("tool", "url", "detail"))):
            return "event %r" % e
    return None


def kill_all(h):
    """SIGKILL the supervisor, as the OOM killer would: its workers die
    with it (their parent-death signal) and its hub removes the
    instance's directories in TMPDIR, then exits; the time of the
    signal, and the processes that must be gone."""
    kids = children(h.sup)
    h.seen_pids.update(kids)
    t = time.time()
    os.kill(h.sup, signal.SIGKILL)
    return t, [h.sup] + kids


def body(h):
    cache = wymcp_e2e.ARGS.cache
    node = e2e_sdk_listen.provision(cache)
    h.paths()
    work = tempfile.mkdtemp(prefix="wymcp-soak-ts.")
    try:
        run(h, node, cache, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(h, node, cache, work):
    h.mods.append(build_transfer(h, work))
    ledger = os.path.join(work, "ledger")
    os.makedirs(ledger)
    os.environ["TRANSFER_LEDGER"] = ledger
    h.start()
    base = "http://127.0.0.1:%d" % h.port
    urls = [base + "/mcp", base + "/mcp-anon"]

    # RUN: 15 s at 5/s, everything ok.
    out1 = os.path.join(work, "run.json")
    t0 = time.monotonic()
    rc = finish(driver(node, cache, urls, 15, 5, 7, out1), "RUN", 90)
    took = time.monotonic() - t0
    out = load(out1)
    R.check(rc == 0 and "sent" in out, "RUN: the driver exits 0 and "
            "writes its file", "exit %r, %r" % (rc, str(out)[:300]))
    R.check(shape(out) is None, "RUN: the file has the documented shape "
            "and its outcomes add up to sent", str(shape(out)))
    R.check(near(out.get("sent", 0), 75) and out.get("skipped") == 0,
            "RUN: sent %r of 75 due (within 20%%), none skipped, in "
            "%.1f s" % (out.get("sent"), took),
            "skipped %r" % out.get("skipped"))
    R.check(out.get("ok") == out.get("sent") and not out.get("events"),
            "RUN: every call ok (%r)" % out.get("ok"),
            json.dumps(out.get("events", []))[:600])
    bt = out.get("by_tool", {})
    R.check(all(bt.get(t, {}).get("ok", 0) > 0 for t in TOOLS),
            "RUN: echo, book_room (two questions) and transfer_money "
            "(two) all called, all ok",
            json.dumps(bt))
    q = out.get("questions")
    R.check(q == 2 * (bt.get("book_room", {}).get("ok", 0) +
                      bt.get("transfer_money", {}).get("ok", 0)),
            "RUN: two questions answered per book_room and "
            "transfer_money call (%r)" % q, "%r, %r" % (q, bt))
    urls_used = {e for e in out.get("tools", {})}
    R.check(urls_used == set(urls) and all(
        set(TOOLS) <= set(v) for v in out.get("tools", {}).values()),
        "RUN: both URLs' tools listed", repr(out.get("tools")))
    n = len(os.listdir(ledger))
    R.check(n == bt.get("transfer_money", {}).get("ok"),
            "RUN: one ledger entry per transfer_money call (%d)" % n,
            "%d entries, %r" % (n, bt.get("transfer_money")))
    lat = out.get("latency_ms", {})
    R.check(all(isinstance(lat.get(k), (int, float)) for k in lat) and
            lat.get("p50", 0) <= lat.get("p99", 0) <= lat.get("max", 0),
            "RUN: latencies p50 %r, p99 %r, max %r ms" %
            (lat.get("p50"), lat.get("p99"), lat.get("max")), repr(lat))

    # KILL: 8 s at 5/s, the supervisor SIGKILLed about halfway.
    out2 = os.path.join(work, "kill.json")
    p = driver(node, cache, urls, 8, 5, 8, out2)
    time.sleep(4.5)			# about 0.5 s of listing tools first
    kill_t, pids = kill_all(h)
    rc = finish(p, "KILL", 90)
    out = load(out2)
    R.check(rc == 0 and "sent" in out, "KILL: the driver exits 0 and "
            "writes its file", "exit %r, %r" % (rc, str(out)[:300]))
    R.check(shape(out) is None, "KILL: the file has the documented "
            "shape", str(shape(out)))
    fails = out.get("transport", 0) + sum(out.get("rpc_error",
                                                  {}).values())
    R.check(out.get("ok", 0) > 0 and fails > 0 and
            out.get("mismatch") == 0 and out.get("tool_error") == 0,
            "KILL: %r ok before, %r transport and %r rpc_error after; no "
            "mismatch or tool_error" % (out.get("ok"), out.get("transport"),
                                        out.get("rpc_error")),
            json.dumps(out)[:600])
    ev = out.get("events", [])
    R.check(len(ev) == fails and all(e.get("t", 0) >= kill_t for e in ev),
            "KILL: every failure an event, each after the kill",
            "kill at %.3f; %r" % (kill_t, [(e.get("t"), e.get("detail"))
                                           for e in ev[:5]]))
    R.check(near(out.get("sent", 0) + out.get("skipped", 0), 40) and
            near(out.get("sent", 0), 40),
            "KILL: sent %r of 40 due (within 20%%)" % out.get("sent"),
            "skipped %r" % out.get("skipped"))
    R.check(not any(alive(q) for q in pids), "KILL: the supervisor and "
            "its children are gone", repr([q for q in pids if alive(q)]))
    kinds = sorted({e.get("detail", "")[:40] for e in ev})
    R.note("KILL failures: %s" % "; ".join(kinds[:6]))
    R.note("RUN+KILL took %.1f s" % (time.monotonic() - t0))


if __name__ == "__main__":
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        sys.exit(77)
    sys.exit(wymcp_e2e.run_layer(SoakHarness, body,
                                 options=e2e_sdk_listen.options))
