#!/usr/bin/env python3
"""run.py - the official MCP conformance suite against wymcp behind nginx.

Usage: run.py [--builddir DIR] [--cache DIR] [--requirements REV]...
              [--scenario NAME] [--timeout SECONDS] [--keep] [--verbose]

Provisions Node >= 22 and @modelcontextprotocol/conformance (pinned) from
npm into a cache directory (default _build/conformance in the source
tree; reused while its versions match), starts wymcp-fcgi (four workers,
the tools/conformance.c fixture pack and nothing else) behind a private
nginx on a free loopback port, and runs, against that one server, each
requirement set (default: both, 2026-07-28 then 2025-11-25):

    conformance server --url http://127.0.0.1:PORT/mcp \\
        --requirements 2026-07-28 -o OUTDIR
    conformance server --url http://127.0.0.1:PORT/mcp \\
        --requirements 2025-11-25 -o OUTDIR \\
        --expected-failures t/conformance/expected-failures-2025.yaml

(or, with --scenario NAME, that one scenario at --spec-version REV, the
first --requirements given).  With --tasks the server has a task store
and task runners and serves the example skills (--skills-dir
tools/skills), and the run is the 2026-07-28 set (scored and EXTRA),
then --suite all (no check may fail or warn but those of ALL_DEVIATIONS,
each with its reason, and no sep-2575 check, the
subscriptions', nor sep-2640 check, the skills', may be skipped; the
other skips, the suite's own, are listed; a scenario whose only bad
checks are the ones the suite gives a fixed time, TIMED, is run again on
its own, up to TIMED_RUNS times, and says so), then each tasks-*
scenario on its own.  The 2025-11-25 set runs with its
expected-failures file: the scenarios a stateless server cannot pass
(server-to-client requests on a held stream), each with its reason.
The suite itself fails the run on any other failure or warning, and on
an entry that now passes (stale).  Prints each suite's summary, then per
scenario "ok" or "not ok" with every failing check and its errorMessage,
read from OUTDIR/*/checks.json.

Exit 0 only when every suite run exited 0, the not-scored scenarios of
EXTRA (json-schema-2020-12, http-header-validation and
http-custom-header-server-validation at 2026-07-28; json-schema-2020-12
at 2025-11-25) have no FAILURE and no WARNING, and the wymcp-fcgi log
has no sanitizer report; 1 otherwise; 77 when nginx is not installed.
The last line is "N passed, M failed", counting scenarios of every run
(the scored ones and those of EXTRA; an expected failure counts as
passed).  Python 3 standard library only; npm provisioning and the
harness are in t/e2e/lib/wymcp_conformance.py, which builds on
wymcp_e2e.py, the end-to-end scripts' (PYTHONPATH).
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True	# no __pycache__ in the source tree
try:
    import wymcp_e2e
    from wymcp_conformance import (NODE_MAJOR, NODE_PKG, Failed, Harness,
                                   npm_install, pkg_version, say)
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_conformance"):
        raise
    print("run.py: no module %s: run with PYTHONPATH=t/e2e/lib, or "
          "through make" % e.name, file=sys.stderr)
    sys.exit(2)

SUITE_PKG = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.2.0-alpha.12"
REQUIREMENTS = ["2026-07-28", "2025-11-25"]
# Not scored by the suite, but this runner requires them clean.
EXTRA = {
    "2026-07-28": ["json-schema-2020-12", "http-header-validation",
                   "http-custom-header-server-validation"],
    "2025-11-25": ["json-schema-2020-12"],
}
# The scenarios a requirement set may fail, with the reasons
# (conformance-fixtures.md section 1 has the format).
BASELINE = {
    "2025-11-25": os.path.join(HERE, "expected-failures-2025.yaml"),
}
# The warnings of --suite all that wymcp gives on purpose, each with its
# reason: the run fails when one of them stops warning (stale) as when
# any other check warns.
ALL_DEVIATIONS = {
    "input-required-result-ignore-extra-params:"
    "sep-2322-ignore-unexpected-params":
    "a first round has no answers (issue 32 item 5, wymcp_elicit(3)): "
    "the scenario sends inputResponses with no requestState and wants "
    "them taken; wymcp ignores them (mrtr.mdx: SHOULD ignore input "
    "responses it does not recognise) and asks its question, so that "
    "no confirmation is taken before it was asked",
}
# The checks of --suite all that the suite gives a fixed time, each with
# it: a listen stream opened, a tool called, and its list_changed frame
# read within 1.5 s, the suite's own clock.  A loaded machine (CI's is
# often busy; RUNTESTS_STRESS=1) can miss it with nothing wrong: a
# scenario whose only bad checks are these is run again on its own, up
# to TIMED_RUNS times, and passes when a run has no bad check; the
# run says so.  Any other check, or a scenario that misses every time,
# fails.
TIMED = {
    "server-stateless:sep-2575-server-sends-tools-list-changed-on-"
    "subscription": "listen, test_trigger_tool_change, the frame: 1.5 s",
    "server-stateless:sep-2575-server-sends-prompts-list-changed-on-"
    "subscription": "listen, test_trigger_prompt_change, the frame: 1.5 s",
}
TIMED_RUNS = 3
SUITE_TIMEOUT = 600	# seconds for each suite run
# The tasks extension's scenarios (run.py --tasks): each on its own, at
# the wire the suite infers for an extension (2026-07-28), against a
# server with a task store and task runners.
TASKS = ["tasks-lifecycle", "tasks-capability-negotiation",
         "tasks-wire-fields", "tasks-request-state-removal",
         "tasks-mrtr-input", "tasks-request-headers",
         "tasks-dispatch-and-envelope", "tasks-status-notifications",
         "tasks-required-task-error", "tasks-mrtr-composition"]


# ------------------------------------------------------------ provisioning

def node_major(node):
    """The major version of a node binary, or None when it does not run."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"v(\d+)\.", out.stdout.strip())
    return int(m.group(1)) if out.returncode == 0 and m else None


def provision(cache):
    """(node binary, conformance entry point), installing what is
    missing into `cache`."""
    t0 = time.monotonic()
    cache = os.path.abspath(cache)
    node = shutil.which("node")
    major = node_major(node) if node else None
    use_system = major is not None and major >= NODE_MAJOR
    cached_node = os.path.join(cache, "node_modules", NODE_PKG, "bin",
                               "node")
    specs = []
    if pkg_version(cache, SUITE_PKG) != SUITE_VERSION:
        specs.append("%s@%s" % (SUITE_PKG, SUITE_VERSION))
    if not use_system and (node_major(cached_node) or 0) < NODE_MAJOR:
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
    if specs:
        npm_install(cache, specs)
    if use_system:
        say("# node: %s (v%d on PATH)" % (node, major))
    else:
        if not os.path.exists(cached_node):
            raise Failed("%s@%d does not ship bin/node (looked for %s)" %
                         (NODE_PKG, NODE_MAJOR, cached_node))
        major = node_major(cached_node)
        if major is None or major < NODE_MAJOR:
            raise Failed("%s: version %r, want >= %d" %
                         (cached_node, major, NODE_MAJOR))
        node = cached_node
        say("# node: %s (v%d, npm %s@%s)" % (node, major, NODE_PKG,
                                            pkg_version(cache, NODE_PKG)))
    pkgdir = os.path.join(cache, "node_modules", SUITE_PKG)
    try:
        with open(os.path.join(pkgdir, "package.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise Failed("%s is not installed in %s: %s" % (SUITE_PKG, cache, e))
    if meta.get("version") != SUITE_VERSION:
        raise Failed("%s is %s in %s, want %s" % (SUITE_PKG,
                     meta.get("version"), cache, SUITE_VERSION))
    binv = meta.get("bin")
    entry = binv.get("conformance") if isinstance(binv, dict) else binv
    entry = os.path.join(pkgdir, entry or "dist/index.js")
    if not os.path.exists(entry):
        raise Failed("no %s" % entry)
    say("# suite: %s@%s (%s); provisioning took %.1f s" %
        (SUITE_PKG, SUITE_VERSION, entry, time.monotonic() - t0))
    return node, entry


def scored_scenarios(entry, rev):
    """The server scenarios the requirement set `rev` scores, read from
    the package's requirements YAML (a flat list under the top-level key
    "server:")."""
    path = os.path.join(os.path.dirname(os.path.dirname(entry)),
                        "requirements", rev + ".yaml")
    names, inside = [], False
    with open(path) as f:
        for line in f:
            if re.match(r"^\S", line):
                inside = line.startswith("server:")
                continue
            m = re.match(r"^\s+-\s+([\w./-]+)\s*$", line)
            if inside and m:
                names.append(m.group(1))
    if not names:
        raise Failed("no server scenarios in %s" % path)
    return names


def read_baseline(path):
    """{entry: reason} from an expected-failures file: the entries of
    its "server:" list ("scenario" or "scenario:check-id"), each with
    the comment lines just above it as its reason."""
    found, inside, why, seen = {}, False, [], False
    with open(path) as f:
        for line in f:
            if re.match(r"^\S", line) and not line.startswith("#"):
                inside = line.startswith("server:")
                # "server: []": no expected failure at all.
                seen = seen or re.match(r"^server:\s*\[\]\s*$", line)
                why = []
                continue
            m = re.match(r"^\s+#\s?(.*)$", line)
            if inside and m:
                why.append(m.group(1).strip())
                continue
            m = re.match(r"^\s+-\s+([\w./:-]+)\s*(?:#\s*(.*))?$", line)
            if inside and m:
                if m.group(2):
                    why.append(m.group(2).strip())
                found[m.group(1)] = " ".join(why) or "(no reason given)"
                why = []
    if not found and not seen:
        raise Failed("no server entries in %s" % path)
    return found


# ------------------------------------------------------------ the suite run

def run_suite(node, entry, url, outdir, rev, scenario, logpath, verbose):
    argv = [node, entry, "server", "--url", url, "-o", outdir]
    if rev == "all":
        argv += ["--suite", "all"]
    elif scenario and rev == "tasks":
        argv += ["--scenario", scenario]
    elif scenario:
        argv += ["--scenario", scenario, "--spec-version", rev]
    else:
        argv += ["--requirements", rev]
        if rev in BASELINE:
            argv += ["--expected-failures", BASELINE[rev]]
    say("# %s" % " ".join(argv))
    env = dict(os.environ, NO_COLOR="1", FORCE_COLOR="0")
    t0 = time.monotonic()
    with open(logpath, "wb") as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        rc = None
        try:
            rc = p.wait(SUITE_TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
        finally:
            if p.poll() is None:
                # Timed out or interrupted.  It runs in a process group
                # of its own: stop it and whatever it started.
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
    elapsed = time.monotonic() - t0
    with open(logpath, "rb") as f:
        text = re.sub(r"\x1b\[[0-9;]*m", "",
                      f.read().decode("utf-8", "replace"))
    lines = text.splitlines()
    if verbose:
        for line in lines:
            say("  | " + line)
    else:
        try:
            i = next(i for i, l in enumerate(lines) if "=== SUMMARY ===" in l)
            block = [l for l in lines[i:] if l.strip()]
        except StopIteration:
            # One scenario: its check lines and its count.
            block = [l for l in lines if re.match(r"^\S+Z \[", l) or
                     l.startswith("Passed:")]
            if not block:
                block = lines[-20:]
        for line in block:
            say("  | " + line)
    return rc, elapsed


def read_checks(outdir):
    """scenario -> list of checks, from OUTDIR/server-NAME-STAMP/."""
    found = {}
    stamp = re.compile(r"^server-(.+)-(\d{4}-\d\d-\d\dT[\d-]+Z?)$")
    for path in sorted(glob.glob(os.path.join(outdir, "*", "checks.json"))):
        d = os.path.basename(os.path.dirname(path))
        m = stamp.match(d)
        name = m.group(1) if m else d
        try:
            with open(path) as f:
                checks = json.load(f)
        except (OSError, ValueError) as e:
            checks = [{"id": "checks.json", "status": "FAILURE",
                       "errorMessage": "unreadable %s: %s" % (path, e)}]
        found.setdefault(name, []).extend(checks)
    return found


def bad_checks(name, checks):
    """The checks of scenario `name' that fail it in --suite all: any
    FAILURE or WARNING but those of ALL_DEVIATIONS, and a skipped check
    of the subscriptions' (sep-2575-*) or the skills' (sep-2640-*)."""
    return [c for c in checks if (c.get("status") in ("FAILURE",
                                                      "WARNING") or
            (c.get("status") == "SKIPPED" and
             str(c.get("id", "")).startswith(("sep-2575", "sep-2640"))))
            and not (c.get("status") == "WARNING" and
                     "%s:%s" % (name, c.get("id")) in ALL_DEVIATIONS)]


def judge_all(found, retry):
    """--suite all: a line per scenario; no check may fail or warn, and
    none of the subscriptions' (sep-2575-*) nor the skills' (sep-2640-*,
    the server runs with --skills-dir tools/skills) may be skipped: a
    skip there means a capability this server should have declared.  Returns
    (passed, failed); the skips the suite makes itself are counted.  A
    scenario whose only bad checks are TIMED ones is appended to
    `retry' (judged by the caller, run again on its own), not counted."""
    passed = failed = 0
    skips = {}
    seen = set()
    for name in sorted(found):
        checks = found[name]
        for c in checks:
            if c.get("status") == "SKIPPED":
                skips[name] = skips.get(name, 0) + 1
        meant = [c for c in checks if c.get("status") == "WARNING" and
                 "%s:%s" % (name, c.get("id")) in ALL_DEVIATIONS]
        for c in meant:
            seen.add("%s:%s" % (name, c.get("id")))
            say("# %s (all): WARNING %s, on purpose: %s" % (
                name, c.get("id"),
                ALL_DEVIATIONS["%s:%s" % (name, c.get("id"))]))
        bad = bad_checks(name, checks)
        if bad and all("%s:%s" % (name, c.get("id")) in TIMED
                       for c in bad):
            retry.append(name)
            say("# %s (all): %s: past the suite's own time (%s); run "
                "again on its own" % (name, ", ".join(
                    str(c.get("id")) for c in bad), "; ".join(
                    TIMED["%s:%s" % (name, c.get("id"))] for c in bad)))
        elif bad:
            failed += 1
            say("not ok - %s (all): %s" % (name, "; ".join(
                "%s %s: %s" % (c.get("status"), c.get("id"),
                               c.get("errorMessage") or
                               c.get("description") or "")
                for c in bad)[:800]))
        else:
            passed += 1
    for k in sorted(set(ALL_DEVIATIONS) - seen):
        if k.split(":")[0] in found:
            failed += 1
            say("not ok - %s (all): no longer warns: stale entry of "
                "ALL_DEVIATIONS" % k)
    say("# all: %d scenarios, skipped checks by scenario (the suite's "
        "own): %s" % (len(found), json.dumps(skips, sort_keys=True)))
    return passed, failed


def timed_again(node, entry, url, tmp, name, verbose):
    """Scenario `name', whose only bad checks in --suite all were TIMED
    ones, run again on its own (2026-07-28) up to TIMED_RUNS times: True
    when a run has no bad check (said, with the run it took)."""
    for n in range(1, TIMED_RUNS + 1):
        outdir = os.path.join(tmp, "timed-%s-%d" % (name, n))
        os.makedirs(outdir)
        run_suite(node, entry, url, outdir, "2026-07-28", name,
                  os.path.join(tmp, "suite-timed-%s-%d.log" % (name, n)),
                  verbose)
        checks = read_checks(outdir).get(name)
        bad = bad_checks(name, checks) if checks else [{"id": "none"}]
        if not bad:
            say("ok - %s (all): passed on its own, run %d (the suite's "
                "fixed time was missed in the whole suite)" % (name, n))
            return True
        say("# %s on its own, run %d: %s" % (name, n, ", ".join(
            "%s %s" % (c.get("status"), c.get("id")) for c in bad)))
    say("not ok - %s (all): past the suite's own time in every one of "
        "%d runs on its own" % (name, TIMED_RUNS))
    return False


def judge(found, scored, scenario, rev, baseline):
    """Print a line per scenario; returns (passed, failed).  A scored
    scenario whose failing checks are all in `baseline` ({entry: why})
    is an expected failure: "ok", with the reason.  (The suite itself
    judges staleness.)"""
    extra = EXTRA.get(rev, [])
    if scenario:
        wanted = [scenario]
    else:
        wanted = scored + extra
    passed = failed = 0
    for name in wanted:
        checks = found.get(name)
        strict = name in extra
        if checks is None:
            say("not ok - %s: no checks.json (scenario did not run)" % name)
            failed += 1
            continue
        bad = [c for c in checks if c.get("status") == "FAILURE" or
               (strict and c.get("status") == "WARNING")]
        warn = [c for c in checks if c.get("status") == "WARNING" and
                c not in bad]
        counts = {}
        for c in checks:
            counts[c.get("status")] = counts.get(c.get("status"), 0) + 1
        summary = ", ".join("%d %s" % (n, s) for s, n in sorted(
            counts.items(), key=lambda kv: str(kv[0])))
        tag = "" if name in scored or scenario else " (not scored)"
        if baseline and name in scored:
            # With a baseline a WARNING is a failure too (the suite's
            # rule); every one must be an entry.
            bad = bad + warn
            warn = []
            known = [c for c in bad if name in baseline or
                     "%s:%s" % (name, c.get("id")) in baseline]
        else:
            known = []
        if bad and len(known) < len(bad):
            failed += 1
            say("not ok - %s%s: %s" % (name, tag, summary))
        elif bad:
            passed += 1
            why = baseline.get(name) or baseline.get(
                "%s:%s" % (name, bad[0].get("id")))
            say("ok - %s%s: %s # expected failure: %s" %
                (name, tag, summary, why))
        else:
            passed += 1
            say("ok - %s%s: %s" % (name, tag, summary))
        for c in bad + warn:
            msg = c.get("errorMessage") or c.get("description") or ""
            msg = " ".join(str(msg).split())
            if len(msg) > 800:
                msg = msg[:800] + "..."
            say("#   %s [%s] %s" % (c.get("status"), c.get("id"), msg))
    return passed, failed


# -------------------------------------------------------------------- main

def main():
    global SUITE_TIMEOUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".",
                    help="the build tree (has src/front/wymcp-fcgi)")
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "conformance"),
                    help="where node and the suite are installed "
                    "(default: %(default)s)")
    ap.add_argument("--requirements", action="append",
                    choices=REQUIREMENTS, metavar="REV",
                    help="run this requirement set (repeatable; default: "
                    + " then ".join(REQUIREMENTS) + ")")
    ap.add_argument("--scenario", help="run only this scenario, at "
                    "--spec-version REV (the first --requirements)")
    ap.add_argument("--tasks", action="store_true",
                    help="against a server with a task store: the "
                    "2026-07-28 set, then the tasks-* scenarios one by one")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds for each suite run "
                    "(default: %(default)s)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory (logs, results)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the suite's whole output")
    args = ap.parse_args()
    SUITE_TIMEOUT = args.timeout
    revs = args.requirements or REQUIREMENTS
    if args.scenario:
        revs = revs[:1]

    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        say("SKIP: nginx is not installed (Debian: apt-get install "
            "nginx-light)")
        return 77
    # --tasks runs on a SQLite store.
    if args.tasks and wymcp_e2e.built_without("sqlite", args.builddir):
        say("SKIP: %s" % wymcp_e2e.built_without("sqlite", args.builddir))
        return 77

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    t0 = time.monotonic()
    h = Harness(args.builddir, args.keep)
    h.nginx_bin = nginx
    h.tasks = args.tasks
    passed = failed = 0
    problems = []
    interrupted = False
    try:
        h.paths()
        node, entry = provision(args.cache)
        sets = []
        for rev in revs:
            scored = scored_scenarios(entry, rev)
            baseline = read_baseline(BASELINE[rev]) \
                if rev in BASELINE and not args.scenario else {}
            sets.append((rev, scored, baseline))
            if args.scenario is None:
                say("# %s: %d scored scenarios, plus %s%s" % (
                    rev, len(scored), ", ".join(EXTRA.get(rev, [])),
                    "; %d expected failures (%s)" % (
                        len(baseline), os.path.relpath(BASELINE[rev],
                                                       SRCDIR))
                    if baseline else ""))
        h.start()
        url = "http://127.0.0.1:%d/mcp" % h.port
        if args.tasks:
            # The 2026-07-28 set once more, now with a task store on
            # (subscriptions/listen, discover's extensions), then the
            # tasks-* scenarios.
            sets = ([st for st in sets if st[0] == "2026-07-28"] +
                    [("all", [], {})]
                    if args.scenario is None else []) + \
                [("tasks", [args.scenario] if args.scenario else TASKS, {})]
        for rev, scored, baseline in sets:
            say("# ---- requirements %s" % rev)
            outdir = os.path.join(h.tmp, "results-" + rev)
            os.makedirs(outdir)
            if rev == "tasks":
                rc, elapsed = 0, 0.0
                for name in scored:
                    r, e = run_suite(node, entry, url, outdir, rev, name,
                                     os.path.join(h.tmp, "suite-%s.log" %
                                                  name), args.verbose)
                    rc = rc or r
                    elapsed += e
            else:
                rc, elapsed = run_suite(node, entry, url, outdir, rev,
                                        args.scenario,
                                        os.path.join(h.tmp,
                                                     "suite-%s.log" % rev),
                                        args.verbose)
            say("# suite (%s) exited %s after %.1f s" % (
                rev, "(killed: timeout %d s)" % SUITE_TIMEOUT
                if rc is None else rc, elapsed))
            if rc != 0:
                problems.append("the suite (%s) exited %s" % (
                    rev, "on timeout" if rc is None else rc))
            if rev == "all":
                retry = []
                p, f = judge_all(read_checks(outdir), retry)
                for name in retry:
                    if timed_again(node, entry, url, h.tmp, name,
                                   args.verbose):
                        p += 1
                    else:
                        f += 1
            else:
                p, f = judge(read_checks(outdir), scored,
                             None if rev == "tasks" else args.scenario, rev,
                             baseline)
            say("# %s: %d passed, %d failed" % (rev, p, f))
            passed += p
            failed += f
    except (Failed, wymcp_e2e.Failed) as e:
        problems.append(str(e))
        say("not ok - setup: %s" % e)
        failed += 1
    except KeyboardInterrupt as e:
        problems.append("interrupted (%s)" % (e or "KeyboardInterrupt"))
        interrupted = True
    except Exception as e:	# a harness bug must still clean up and count
        import traceback
        traceback.print_exc()
        problems.append("harness: %r" % e)
        failed += 1
    finally:
        try:
            h.stop()
            if h.tmp:
                hits = h.sanitizer_reports()
                if hits:
                    problems.append("sanitizer reports in the wymcp-fcgi "
                                    "log")
                    say("not ok - sanitizer: %s" % "; ".join(hits[:5]))
            if problems or failed:
                h.dump_logs()
        finally:
            if args.keep and h.tmp:
                say("# kept %s" % h.tmp)
            elif h.tmp:
                shutil.rmtree(h.tmp, ignore_errors=True)
    for p in problems:
        say("# FAIL: %s" % p)
    say("# %.1f s in all" % (time.monotonic() - t0))
    say("%d passed, %d failed" % (passed, failed))
    if interrupted:
        return 130
    return 0 if not problems and failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
