#!/usr/bin/env python3
"""e2e_valgrind.py - the end-to-end layer once more, wymcp-fcgi under memcheck.

Usage: e2e_valgrind.py [--builddir DIR] [--keep] ['SCRIPT [ARG...]'...]

Runs t/e2e/e2e.py, e2e_mrtr.py, e2e_stream.py, e2e_wire.py and
e2e_card.py (a reload, --print-server-json), scripts of make
check-e2e, then a 20 s e2e_soak.py (hang-ups,
malformed requests, kills), or the SCRIPTs named, each with its
arguments in one word, with WYMCP_E2E_WRAP set, so that their harness
starts every wymcp-fcgi as

    libtool --mode=execute valgrind --tool=memcheck --leak-check=full
        --errors-for-leak-kinds=definite --trace-children=yes --vgdb=no
        --suppressions=t/e2e/valgrind.supp --log-file=DIR/vg.%p.log ...

(the build tree's wymcp-fcgi is a libtool wrapper script: libtool runs
the real program under valgrind).  The prefork workers are forks of the
supervisor and each writes its own log (%p).  Then every log is read:
any memcheck error or definite leak ("ERROR SUMMARY: N errors" with N
> 0) fails, and its report is printed.  A process the tests SIGKILL
writes no summary, hence no leak report; its memcheck errors, written
as they happen, are still looked for.  The scripts must pass too: their
timings allow the slowdown.

Needs a build without sanitizers (valgrind cannot run AddressSanitizer
binaries): runtests uses _build/dist.  Prints "ok - NAME" or "not ok -
NAME: DETAIL" per check and, last, "N passed, M failed".  Exit 0 when
nothing failed, 1 otherwise, 77 when valgrind or nginx is missing.
"""

import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
try:
    import wymcp_e2e
except ModuleNotFoundError as e:
    if e.name != "wymcp_e2e":
        raise
    print("e2e_valgrind.py: no module %s: run with PYTHONPATH=t/e2e/lib, "
          "or through make" % e.name, file=sys.stderr)
    sys.exit(2)
from wymcp_e2e import R, SRCDIR  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUPP = os.path.join(HERE, "valgrind.supp")
SUMMARY_RE = re.compile(r"==\d+== ERROR SUMMARY: (\d+) errors")
# The first line of a memcheck error report, written when it happens:
# found even in the log of a process SIGKILLed before its summary.
REPORT_RE = re.compile(r"^==\d+== (Invalid (read|write|free)|Mismatched free|"
                       r"Conditional jump|Use of uninitialised|Syscall param|"
                       r"Source and destination overlap|Argument '.*' of "
                       r"function|.*fishy)", re.M)
DEF_RE = re.compile(r"==\d+==\s+definitely lost: ([\d,]+) bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--keep", action="store_true",
                    help="keep the valgrind logs")
    ap.add_argument("scripts", nargs="*",
                    default=["e2e.py", "e2e_mrtr.py", "e2e_stream.py",
                             "e2e_wire.py", "e2e_card.py",
                             "e2e_soak.py --seconds 20"])
    args = ap.parse_args()
    builddir = os.path.abspath(args.builddir)
    valgrind = shutil.which("valgrind")
    libtool = os.path.join(builddir, "libtool")
    if valgrind is None:
        print("SKIP: valgrind is not installed (Debian: apt-get install "
              "valgrind)")
        return 77
    if wymcp_e2e.find_nginx() is None:
        print("SKIP: nginx is not installed")
        return 77
    if not os.access(libtool, os.X_OK):
        R.fail("setup", "no %s: not a configured build directory" % libtool)
        print("%d passed, %d failed" % (R.passed, R.failed))
        return 1
    if sanitized(builddir):
        R.fail("setup", "%s is a sanitizer build: valgrind cannot run it "
               "(use a build configured without --enable-sanitizers)"
               % builddir)
        print("%d passed, %d failed" % (R.passed, R.failed))
        return 1

    logdir = tempfile.mkdtemp(prefix="wymcp-valgrind.")
    wrap = [libtool, "--mode=execute", valgrind, "--tool=memcheck",
            "--leak-check=full", "--errors-for-leak-kinds=definite",
            "--show-leak-kinds=definite", "--error-exitcode=99",
            "--trace-children=yes", "--num-callers=30",
            # no gdbserver: a worker the tests SIGKILL would leave its
            # FIFOs (vgdb-pipe-*) in /tmp
            "--vgdb=no",
            "--suppressions=" + SUPP,
            "--log-file=" + os.path.join(logdir, "vg.%p.log")]
    env = dict(os.environ)
    env["WYMCP_E2E_WRAP"] = " ".join(shlex.quote(w) for w in wrap)
    env["PYTHONPATH"] = os.path.join(SRCDIR, "t", "e2e", "lib") + (
        ":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    started = time.monotonic()
    try:
        for words in args.scripts:
            script, *extra = shlex.split(words)
            path = script if os.path.sep in script else \
                os.path.join(HERE, script)
            t0 = time.monotonic()
            print("# ---- %s under memcheck" % os.path.basename(path),
                  flush=True)
            p = subprocess.run([sys.executable, path, "--builddir",
                                builddir] + extra, env=env,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=900)
            out = p.stdout.decode("utf-8", "replace").splitlines()
            bad = [ln for ln in out if ln.startswith("not ok")]
            for ln in bad:
                print("#   " + ln)
            R.check(p.returncode == 0, "%s passes with wymcp-fcgi under "
                    "memcheck (%s; %.0f s)" % (
                        os.path.basename(path), out[-1] if out else "",
                        time.monotonic() - t0),
                    "exit %d" % p.returncode)
        judge(logdir)
    finally:
        if args.keep:
            R.note("kept %s" % logdir)
        else:
            shutil.rmtree(logdir, ignore_errors=True)
    R.note("run time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    return 0 if R.failed == 0 else 1


def sanitized(builddir):
    """True when the build's Makefile sets SAN_CFLAGS (configure
    --enable-sanitizers)."""
    try:
        with open(os.path.join(builddir, "Makefile")) as f:
            for line in f:
                if line.startswith("SAN_CFLAGS ="):
                    return bool(line.split("=", 1)[1].strip())
    except OSError:
        pass
    return False


def judge(logdir):
    logs = sorted(glob.glob(os.path.join(logdir, "vg.*.log")))
    summed = errors = 0
    lost = 0
    bad = []
    for path in logs:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        m = SUMMARY_RE.findall(text)
        if not m:		# SIGKILLed: no summary, no leak check
            if REPORT_RE.search(text):
                errors += len(REPORT_RE.findall(text))
                bad.append((path, text))
            continue
        summed += 1
        n = int(m[-1])
        d = DEF_RE.findall(text)
        lost += sum(int(x.replace(",", "")) for x in d)
        if n:
            errors += n
            bad.append((path, text))
    R.check(summed > 0, "valgrind wrote %d process logs, %d with an error "
            "summary (%d SIGKILLed by the tests)" %
            (len(logs), summed, len(logs) - summed),
            "no log has an ERROR SUMMARY: did valgrind run?")
    for path, text in bad[:5]:
        print("# ---- %s" % path)
        for ln in text.splitlines():
            print("#   " + ln)
    R.check(not bad, "no memcheck error in %d process logs, no definite "
            "leak in the %d with a summary (%d errors, %d bytes definitely "
            "lost)" % (len(logs), summed, errors, lost),
            "%d logs with errors" % len(bad))
    R.note("summary: %d valgrind logs, %d summaries, %d errors, %d bytes "
           "definitely lost" % (len(logs), summed, errors, lost))


if __name__ == "__main__":
    sys.exit(main())
