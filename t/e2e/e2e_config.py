#!/usr/bin/env python3
"""e2e_config.py - wymcp-fcgi --config FILE, read at start and at SIGHUP.

Usage: e2e_config.py [--builddir DIR] [--keep] [-v]

wymcp-fcgi -vv --config FILE behind a private nginx, its modules and
request time limit in the file only (the harness's command line adds
--listen, --workers and --max-body):

  S  at start: the file's module (echo) is served, and its
     --request-timeout (30 s) lets rogue's wait_politely run 3 s;
  R  the file changed (examples added, --request-timeout 2,
     --max-requests changed) and SIGHUP: tools/list shows examples'
     tools, wait_politely now ends at the 2 s limit, the log says that
     --max-requests takes effect at the next start and that the tools
     list changed, the pool keeps its workers;
  B  the file broken (an unknown option, a value to an option that
     takes none, a value the option's parser refuses) and SIGHUP: the
     reload is refused with the file (and line) in the log, and the
     running set keeps serving the same tools;
  F  at start, a bad file stops the program with status 2 and the file
     and line: an unknown option, a missing value, --config inside the
     file, a file that is not there;
  U  (as root) a file that --user (nobody) could change names the
     modules root loads: at start it is refused with status 2, naming
     the file and why (the file is nobody's; its directory is nobody's;
     the file is writable by all; "allow-insecure-files" written in the
     file itself changes nothing), and read with a warning when the
     command line says --allow-insecure-files; at SIGHUP the running
     instance refuses to reload from it ("SIGHUP: reload refused",
     naming the file and why) and keeps serving, and reloads once the
     file is root's again.

Prints "ok - NAME" or "not ok - NAME: DETAIL" and, last, "N passed, M
failed".  Exit 0 when nothing failed, 1 otherwise, 77 when nginx is not
installed.  Python 3 standard library only.
"""

import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
try:
    import wymcp_e2e as e2e
except ImportError:
    sys.stderr.write("e2e_config.py: set PYTHONPATH to t/e2e/lib (make "
                     "check-e2e does)\n")
    sys.exit(2)
from wymcp_e2e import R, log_entries, wait_log


def conf_text(mods, timeout, extra=""):
    return ("# e2e_config.py\n" +
            "".join("module %s\n" % m for m in mods) +
            "request-timeout=%d\n\n  allow-origin   https://app.example"
            "  \n%s" % (timeout, extra))


class ConfigHarness(e2e.Harness):
    def paths(self):
        e2e.Harness.paths(self)
        lib = os.path.join(self.builddir, "tools", ".libs")
        self.echo = os.path.join(lib, "echo.so")
        self.examples = os.path.join(lib, "examples.so")
        self.rogue = os.path.join(self.builddir, "t", "lib", ".libs",
                                  "rogue.so")
        e2e.need_built(self.echo, self.examples, self.rogue)
        self.mods = []

    def start(self):
        import tempfile
        self.tmp = tempfile.mkdtemp(prefix="wymcp-config.")
        os.chmod(self.tmp, 0o755)
        self.conf = os.path.join(self.tmp, "wymcp.conf")
        with open(self.conf, "w") as f:
            f.write(conf_text([self.echo, self.rogue], 30))
        self.extra_args = ["-vv", "--config", self.conf]
        self.sock = os.path.join(self.tmp, "wymcp.sock")
        self.fcgi_log = os.path.join(self.tmp, "wymcp-fcgi.log")
        self.nginx_log = os.path.join(self.tmp, "nginx-error.log")
        self.start_fcgi()
        self.start_nginx()


class Tests(e2e.Tests):
    def names(self):
        names, p, r = self.list_tools()
        return set(names or []), p

    def waited(self, seconds):
        """wait_politely for `seconds': (text or error message, s)."""
        t0 = time.monotonic()
        _, r = self.tool("wait_politely", {"seconds": seconds})
        took = time.monotonic() - t0
        j = r.json if isinstance(r.json, dict) else {}
        if "error" in j:
            return j["error"].get("message", ""), took
        return self.text_of(r) or "", took

    def entries(self):
        return log_entries(self.h.fcgi_log)

    def hup(self):
        mark = len(self.entries())
        os.kill(self.h.sup, signal.SIGHUP)
        return mark

    def logged(self, mark, pred, timeout=10.0):
        def since():
            return self.entries()[mark:]
        return wait_log(since, pred, timeout)


def section_s(t):
    names, p = t.names()
    R.check(not p and "echo" in names and "book_room" not in names,
            "S the file's modules are served (echo, not examples)",
            "%r %r" % (sorted(names), p))
    msg, took = t.waited(3)
    R.check("time limit" not in msg and took >= 2.5,
            "S the file's --request-timeout 30 lets a 3 s call finish",
            "%r after %.1f s" % (msg, took))


def section_r(t):
    h = t.h
    workers = sorted(h.workers())
    with open(h.conf, "w") as f:
        f.write(conf_text([h.echo, h.rogue, h.examples], 2,
                          "max-requests 77\n"))
    mark = t.hup()
    hit = t.logged(mark, lambda e: e[3].startswith("SIGHUP: reloaded"), 15)
    R.check(hit and "tools" in hit[0][3],
            "R SIGHUP reloads the file: 'SIGHUP: reloaded; changed: "
            "...tools...' in the log", repr(hit[:1]))
    warn = t.logged(mark, lambda e: e[3] == "SIGHUP: --max-requests "
                    "changed in %s: it takes effect at the next start" %
                    h.conf, 2)
    R.check(bool(warn), "R a restart-only option changed in the file is "
            "kept and the log says so (--max-requests)")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if not set(h.workers()) & set(workers):
            break
        time.sleep(0.1)
    names, p = t.names()
    R.check(not p and {"echo", "book_room"} <= names,
            "R the new workers serve the file's new module (examples)",
            "%r %r" % (sorted(names), p))
    msg, took = t.waited(6)
    R.check("time limit of 2 s" in msg and took < 5,
            "R the file's new --request-timeout 2 applies",
            "%r after %.1f s" % (msg, took))
    R.check(len(h.workers()) == len(workers),
            "R the pool keeps its size (%d workers)" % len(workers),
            repr(h.workers()))


def section_b(t):
    h = t.h
    for label, line in (("an unknown option", "no-such-option 1"),
                        ("a value to --modern-only", "modern-only yes"),
                        ("a bad value (the parser's own check)",
                         "request-timeout soon")):
        with open(h.conf, "w") as f:
            f.write(conf_text([h.echo], 30, line + "\n"))
        mark = t.hup()
        why = t.logged(mark, lambda e: "%s:" % h.conf in e[3], 10)
        refused = t.logged(mark, lambda e: e[3].startswith(
            "SIGHUP: reload refused"), 10)
        R.check(why and refused, "B %s in the file at SIGHUP: the reload "
                "is refused, the log names the file and line" % label,
                repr((why[:1], refused[:1])))
        names, p = t.names()
        R.check(not p and "book_room" in names,
                "B ... and the running set keeps serving (examples still "
                "there)", "%r %r" % (sorted(names), p))


def section_f(h):
    bad = os.path.join(h.tmp, "bad.conf")
    for label, text, want in (
            ("an unknown option", "workers 2\nbogus 1\n", ":2: --bogus: "
             "no such option"),
            ("a missing value", "module\n", ":1: --module needs a value"),
            ("--config in the file", "config /etc/x\n",
             ":1: --config in a config file"),
            ("a file that is not there", None, "No such file")):
        path = bad if text is not None else bad + ".missing"
        if text is not None:
            with open(bad, "w") as f:
                f.write(text)
        p = subprocess.run([h.prog, "--config", path], capture_output=True,
                           text=True, timeout=20, stdin=subprocess.DEVNULL)
        R.check(p.returncode == 2 and want in p.stderr and path in
                p.stderr, "F %s: exit 2 naming the file and line" % label,
                "exit %d: %s" % (p.returncode, p.stderr.strip()[-200:]))


def section_u_start(h):
    """At start, as root with --user nobody: a file nobody can change
    is refused; --allow-insecure-files on the command line reads it."""
    import pwd
    try:
        nobody = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        R.note("U skipped: no user nobody")
        return None
    d = os.path.join(h.tmp, "u")
    os.mkdir(d, 0o755)
    conf = os.path.join(d, "wymcp.conf")

    def run(extra, text, file_uid=0, dir_uid=0, mode=0o644):
        with open(conf, "w") as f:
            f.write(text)
        os.chmod(conf, mode)
        os.chown(conf, file_uid, -1)
        os.chown(d, dir_uid, -1)
        try:
            return subprocess.run(
                [h.prog, "--config", conf, "--user", "nobody",
                 "--print-server-json", "--public-url",
                 "http://127.0.0.1/mcp"] + extra, capture_output=True,
                text=True, timeout=20, stdin=subprocess.DEVNULL)
        finally:
            os.chown(conf, 0, -1)
            os.chown(d, 0, -1)
    text = "module %s\n" % h.echo
    for label, kw, why in (
            ("the file is nobody's", {"file_uid": nobody},
             "%s is owned by uid %d" % (conf, nobody)),
            ("its directory is nobody's", {"dir_uid": nobody},
             "%s is owned by uid %d" % (d, nobody)),
            ("the file is writable by all", {"mode": 0o666},
             "writable by others")):
        p = run([], text, **kw)
        R.check(p.returncode == 2 and "--config %s: refused: " % conf in
                p.stderr and why in p.stderr and
                "--allow-insecure-files" in p.stderr,
                "U at start, %s: refused, exit 2, naming the file and "
                "why" % label, "exit %d: %s" % (p.returncode,
                                                p.stderr.strip()[-300:]))
    p = run([], text + "allow-insecure-files\n", mode=0o666)
    R.check(p.returncode == 2 and "refused" in p.stderr,
            "U 'allow-insecure-files' written in the file itself does not "
            "make it trusted", "exit %d: %s" % (p.returncode,
                                                p.stderr.strip()[-200:]))
    p = run(["--allow-insecure-files"], text, file_uid=nobody)
    R.check(p.returncode == 0 and '"$schema"' in p.stdout and
            "read anyway (--allow-insecure-files)" in p.stderr and
            conf in p.stderr,
            "U --allow-insecure-files on the command line reads it, with a "
            "warning naming the file", "exit %d: %s" % (
                p.returncode, p.stderr.strip()[-300:]))
    p = run([], text)
    R.check(p.returncode == 0 and '"$schema"' in p.stdout,
            "U (control) the same file, root's, is read",
            "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    return nobody


def section_u_hup(t, nobody):
    """At SIGHUP: the running instance's file made nobody's."""
    h = t.h
    with open(h.conf, "w") as f:
        f.write(conf_text([h.echo, h.rogue, h.examples], 30))
    os.chown(h.conf, nobody, -1)
    try:
        mark = t.hup()
        refused = t.logged(mark, lambda e: e[3].startswith(
            "SIGHUP: reload refused") and "--config %s: refused: " %
            h.conf in e[3] and "owned by uid %d" % nobody in e[3], 10)
        R.check(bool(refused), "U at SIGHUP, a file nobody could change: "
                "the reload is refused, the log names the file and why",
                repr(t.entries()[mark:][-3:]))
        names, p = t.names()
        R.check(not p and "book_room" in names,
                "U ... and the running set keeps serving",
                "%r %r" % (sorted(names), p))
    finally:
        os.chown(h.conf, 0, -1)
    mark = t.hup()
    hit = t.logged(mark, lambda e: e[3].startswith("SIGHUP: reloaded"), 15)
    R.check(bool(hit), "U (control) root's again, the file reloads",
            repr(t.entries()[mark:][-3:]))


def body(h):
    h.paths()
    h.start()
    t = Tests(h)
    section_s(t)
    section_r(t)
    section_b(t)
    section_f(h)
    if os.geteuid() == 0:
        nobody = section_u_start(h)
        if nobody is not None:
            section_u_hup(t, nobody)
    else:
        R.note("U skipped: not root")


def main():
    return e2e.run_layer(ConfigHarness, body)


if __name__ == "__main__":
    sys.exit(main())
