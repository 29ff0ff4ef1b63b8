#!/usr/bin/env python3
"""e2e_debian.py - the Debian packages (debian/), built, installed,
served, reloaded, upgraded and purged on this machine, and the units
run by a real systemd (systemd-nspawn).

  B  the packages built from a clean clone of the source tree's HEAD
     (dpkg-buildpackage -b -uc -us), twice: 0.4.0-1, then 0.4.0-2 (a
     changelog entry added in a second clone); "debian/rules clean"
     leaves the clone as git checked it out
  L  lintian on the first build: no error, no warning
  I  apt-get install ./*.deb: the system user wymcp, /etc/wymcp
     (root:wymcp 0750), the state key (wymcp:wymcp 0600, one key of 64
     hex digits), the config file, the units, the nginx snippet and the
     Apache conf where Debian puts them, the modules in
     /usr/lib/<triplet>/wymcp
  S  wymcp.service started through systemd where systemd runs, else
     the unit's own ExecStart=, as its User= and Group=, on a socket
     made as wymcp.socket says (path, owner, group, mode); a private
     nginx that includes /etc/nginx/snippets/wymcp.conf; through it
     server/discover, tools/list and book_room over its two questions
  A  the installed Apache conf the Debian way: a2enmod proxy_fcgi (when
     not enabled yet) and a2enconf wymcp make their links; a private
     Apache (ServerRoot, Listen 127.0.0.1:<free port>, PidFile in the
     temporary directory; User www-data, as Debian runs it) includes
     the system's mods-enabled/proxy*.{load,conf} and
     conf-enabled/wymcp.conf; through it, to the same wymcp-fcgi:
     server/discover, tools/list and book_room over its two questions;
     then a2disconf -p and a2dismod -p what was enabled: /etc/apache2
     as before (checked again at the end, on failure too)
  R  a module built against the installed libwymcp-dev (pkg-config)
     dropped into the module directory, then systemctl reload wymcp
     (or SIGHUP, the unit's ExecReload=): tools/list lists it
  N  a real systemd: the host's tree booted by systemd-nspawn
     (--volatile=yes -D / --keep-unit --register=no --private-network,
     the host's /etc bound read-only; systemd-container installed when
     its version is the host's systemd's, else unpacked with dpkg-deb
     -x into the test's directory), a private nginx inside as a
     transient unit on a unix socket of the test's directory, with
     the installed snippet: systemctl start wymcp.socket (the service
     not running), the first request starts wymcp.service by socket
     activation, discover, book_room, progress streamed, a listen
     stream hearing write_note under the unit's sandbox (the note in
     StateDirectory= /var/lib/wymcp/notes), the 413s; a module added
     and systemctl reload wymcp while a client calls tools/list
     without a pause: no call fails, the module is listed, MainPID
     kept; wymcp@t1 beside it (its own conf and socket, socket
     activated); systemctl status of both clean; wymcp-authz.socket
     and .service (a drop-in in /run with a key file of the test's):
     socket activation, the metadata, a 401 without a token,
     systemctl reload, status; systemctl stop of every unit leaves no
     wymcp process; journalctl of the units holds no warning or error
  U  the config file edited, then 0.4.0-2 installed over 0.4.0-1: the
     key and the edited config kept, the service serves again
  X  the Apache conf enabled again, as an admin leaves it: apt-get
     remove wymcp disables it (postrm; the conffile stays), installing
     wymcp again enables it again (postinst); then apt-get purge:
     nothing of the packages' files left (every path dpkg -L listed),
     no /etc/wymcp, no key, no unit, no conf-enabled link and no
     apache2 marker for wymcp (postrm); the package set (dpkg-query,
     apt-mark showmanual), /etc/apache2 and apache2's enablement state
     as before

Needs root, dpkg, apt-get, dpkg-buildpackage with debhelper, lintian,
git and nginx: prints "SKIP: ..." and exits 77 without them, or when a
wymcp package is installed already (the test would replace it); A is
left out, with a note, without apache2.  The machine is left as found:
the packages purged, the module it added removed, the user wymcp
deleted when the test created it, what it enabled in Apache disabled
(markers and the empty directories the a2* commands made in
/var/lib/apache2 removed).

Usage: PYTHONPATH=t/e2e/lib python3 t/debian/e2e_debian.py
    [--srcdir DIR] [--keep]
"""

import argparse
import grp
import hashlib
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

import json

import wymcp_apache
import wymcp_e2e
import wymcp_mrtr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e"))
import e2e_fronts			# noqa: E402  the checks, Exchange
from wymcp_e2e import (R, Client, Failed, children, enc, hlist, report,
                       rpc, std_headers, stop_pid, tail)

PKGS = ["wymcp", "libwymcp0", "libwymcp-testing0", "libwymcp-dev",
        "wymcp-authz"]
UNITDIR = "/lib/systemd/system"
CONF = "/etc/wymcp/wymcp.conf"
KEY = "/etc/wymcp/state.key"
SNIPPET = "/etc/nginx/snippets/wymcp.conf"
APACHE = "/etc/apache2/conf-available/wymcp.conf"
APACHE_ENABLED = "/etc/apache2/conf-enabled/wymcp.conf"
APACHE_STATE = ["/etc/apache2", "/var/lib/apache2/module",
                "/var/lib/apache2/conf"]
# What the private Apache loads itself; mod_proxy and mod_proxy_fcgi
# come from the system's mods-enabled, as a2enmod left them.
APACHE_MODULES = ["mpm_event", "unixd", "authz_core", "env"]
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEB_FLAGS = []
APT_ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")


def skip(why):
    print("SKIP: %s" % why, flush=True)
    sys.exit(77)


def run(argv, cwd=None, env=None, log=None, check=True, timeout=1800):
    """Run argv; its output to `log' (a path) or returned.  Raises
    Failed with the end of the output when it fails and check is set."""
    if log is not None:
        with open(log, "ab") as f:
            p = subprocess.run(argv, cwd=cwd, env=env, stdout=f,
                               stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=timeout)
        out = "\n".join(tail(log, 15))
    else:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
    if check and p.returncode != 0:
        raise Failed("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                          out[-1500:]))
    return p.returncode, out


def package_set():
    _, out = run(["dpkg-query", "-W", "-f",
                  "${binary:Package} ${Version} ${db:Status-Abbrev}\n"])
    return sorted(ln for ln in out.splitlines() if ln.strip())


def manual_set():
    _, out = run(["apt-mark", "showmanual"])
    return sorted(out.split())


def installed(pkg):
    rc, out = run(["dpkg-query", "-W", "-f", "${db:Status-Abbrev}", pkg],
                  check=False)
    return rc == 0 and out.startswith("i")


def systemd_runs():
    return os.path.isdir("/run/systemd/system") and \
        shutil.which("systemctl") is not None


def unit_values(path, key):
    """The values of `key=' in a unit file, continuation lines joined."""
    vals, cur = [], None
    with open(path) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if cur is not None:
                cur += " " + ln.rstrip("\\").strip()
                if not ln.endswith("\\"):
                    vals.append(cur)
                    cur = None
                continue
            if ln.startswith(key + "="):
                v = ln[len(key) + 1:]
                if v.endswith("\\"):
                    cur = v.rstrip("\\").strip()
                else:
                    vals.append(v.strip())
    return vals


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ------------------------------------------------------------- building

def clone(src, dest):
    run(["git", "clone", "--quiet", "--no-hardlinks", src, dest])


def build(tree, log):
    """dpkg-buildpackage -b -uc -us in `tree': the .deb paths beside it
    (no dbgsym packages) and the .changes file."""
    env = dict(os.environ, DEB_BUILD_OPTIONS="nocheck parallel=2")
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    run(["dpkg-buildpackage", "-b", "-uc", "-us"] + DEB_FLAGS, cwd=tree,
        env=env, log=log)
    out = os.path.dirname(tree)
    debs = sorted(os.path.join(out, f) for f in os.listdir(out)
                  if f.endswith(".deb") and "-dbgsym_" not in f)
    changes = [os.path.join(out, f) for f in os.listdir(out)
               if f.endswith(".changes")]
    return debs, changes[0]


def add_changelog(tree, version):
    path = os.path.join(tree, "debian", "changelog")
    with open(path) as f:
        old = f.read()
    stamp = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime())
    with open(path, "w") as f:
        f.write("wymcp (%s) unstable; urgency=medium\n\n"
                "  * Rebuilt by t/debian/e2e_debian.py (upgrade test).\n\n"
                " -- wymcp developers <wymcp@example.org>  %s\n\n%s" %
                (version, stamp, old))


def test_build(w):
    clone(w.srcdir, w.tree1)
    w.debs1, changes = build(w.tree1, w.log("build1.log"))
    names = sorted(os.path.basename(d).split("_")[0] for d in w.debs1)
    R.check(names == sorted(PKGS), "B dpkg-buildpackage -b -uc -us in a "
            "clean clone: %s" % ", ".join(names), repr(names))
    rc, out = run(["fakeroot", "debian/rules", "clean"], cwd=w.tree1,
                  check=False)
    _, st = run(["git", "status", "--porcelain", "--ignored"],
                cwd=w.tree1)
    R.check(rc == 0 and st.strip() == "", "B debian/rules clean leaves "
            "the clone as git checked it out", "rc %d: %s %s" %
            (rc, st[:500], out[-300:]))
    rc, out = run(["lintian", "--fail-on", "none", changes], check=False)
    bad = [ln for ln in out.splitlines() if re.match(r"^[EW]: ", ln)]
    R.check(rc == 0 and not bad, "L lintian on the packages: no error, "
            "no warning", "rc %d: %s" % (rc, " | ".join(bad[:8]) or out))
    clone(w.srcdir, w.tree2)
    add_changelog(w.tree2, "0.4.0-2")
    w.debs2, _ = build(w.tree2, w.log("build2.log"))
    R.check(all("_0.4.0-2_" in d for d in w.debs2) and
            len(w.debs2) == len(PKGS),
            "B the second build is 0.4.0-2 (its changelog's version)",
            repr(w.debs2))


# ----------------------------------------------------------- installing

def apt_install(w, debs, label):
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] +
        debs, env=APT_ENV, log=w.log("apt.log"))
    w.ours = True
    vers = {p: run(["dpkg-query", "-W", "-f", "${Version}", p])[1]
            for p in PKGS}
    want = re.search(r"_([^_]+)_[^_]+\.deb$", debs[0]).group(1)
    R.check(all(v == want for v in vers.values()),
            "%s apt-get install ./*.deb: every package at %s" %
            (label, want), repr(vers))
    for p in PKGS:
        _, out = run(["dpkg", "-L", p])
        w.files.update(ln for ln in out.splitlines()
                       if ln.startswith("/") and ln != "/.")


def test_install(w):
    w.user_before = user_exists("wymcp")
    w.group_before = group_exists("wymcp")
    apt_install(w, w.debs1, "I")
    R.check(user_exists("wymcp"), "I the system user wymcp exists")
    st = os.stat("/etc/wymcp")
    R.check(stat.S_IMODE(st.st_mode) == 0o750 and st.st_uid == 0 and
            st.st_gid == grp.getgrnam("wymcp").gr_gid,
            "I /etc/wymcp is root:wymcp, mode 0750",
            "%o %d:%d" % (st.st_mode, st.st_uid, st.st_gid))
    st = os.stat(KEY)
    with open(KEY) as f:
        keys = [ln.strip() for ln in f if ln.strip() and
                not ln.startswith("#")]
    R.check(stat.S_IMODE(st.st_mode) == 0o600 and
            st.st_uid == pwd.getpwnam("wymcp").pw_uid and len(keys) == 1
            and re.fullmatch(r"[0-9a-f]{64}", keys[0]) is not None,
            "I the state key was made at installation: wymcp, 0600, one "
            "key of 64 hex digits", "%o uid %d, %d keys" %
            (st.st_mode, st.st_uid, len(keys)))
    w.key1 = sha(KEY)
    missing = [p for p in (CONF, SNIPPET, APACHE,
                           UNITDIR + "/wymcp.service",
                           UNITDIR + "/wymcp.socket",
                           UNITDIR + "/wymcp@.service",
                           UNITDIR + "/wymcp@.socket",
                           UNITDIR + "/wymcp-authz.service",
                           w.moddir + "/help.so", w.moddir + "/examples.so",
                           w.moddir + "/backend/sqlite.so",
                           "/usr/bin/wymcp-fcgi", "/usr/include/wymcp.h")
               if not os.path.exists(p)]
    R.check(not missing, "I config file, units, nginx snippet, Apache "
            "conf and modules where Debian puts them", repr(missing))
    _, out = run(["dpkg-query", "-W", "-f", "${Conffiles}", "wymcp"])
    R.check(CONF in out and SNIPPET in out and APACHE in out,
            "I the config file and the web-server snippets are conffiles",
            out)
    _, helptext = run(["wymcp-fcgi", "--help"], check=False)
    R.check(w.moddir in helptext and w.moddir + "/backend" in helptext,
            "I wymcp-fcgi's default module and back-end directories are "
            "%s and its backend/" % w.moddir, helptext[-600:])
    verify_units(w)
    _, ldd = run(["ldd", "/usr/lib/%s/libwymcp.so.0" % w.triplet])
    R.check("libpq" not in ldd and "libsqlite" not in ldd,
            "I libwymcp.so.0 links neither libpq nor SQLite", ldd)


def verify_units(w):
    """systemd-analyze verify on the installed units, the template as
    an instance (a link named wymcp@test.*)."""
    sa = shutil.which("systemd-analyze")
    if sa is None:
        R.note("I systemd-analyze verify skipped: not installed")
        return
    d = os.path.join(w.tmp, "units")
    os.makedirs(d)
    for u in ("socket", "service"):
        os.symlink(UNITDIR + "/wymcp@." + u, d + "/wymcp@test." + u)
    units = [UNITDIR + "/wymcp.socket", UNITDIR + "/wymcp.service",
             UNITDIR + "/wymcp-authz.socket",
             UNITDIR + "/wymcp-authz.service",
             d + "/wymcp@test.socket", d + "/wymcp@test.service"]
    rc, out = run([sa, "verify", "--man=no"] + units, check=False)
    R.check(rc == 0 and out.strip() == "", "I systemd-analyze verify: "
            "wymcp, wymcp-authz and wymcp@test, socket and service, "
            "without a warning", "rc %d: %s" % (rc, out))


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


# -------------------------------------------------------------- serving

class Service:
    """wymcp.service: through systemd, or its ExecStart= as its User=
    and Group= on a socket made as wymcp.socket says."""

    def __init__(self, w):
        self.w = w
        self.proc = None
        self.lsock = None
        self.path = None
        self.made_rundir = False

    def start(self):
        if self.w.systemd:
            run(["systemctl", "restart", "wymcp.socket", "wymcp.service"])
            return
        svc = UNITDIR + "/wymcp.service"
        sck = UNITDIR + "/wymcp.socket"
        argv = shlex.split(unit_values(svc, "ExecStart")[0])
        user = unit_values(svc, "User")[0]
        group = unit_values(svc, "Group")[0]
        self.path = unit_values(sck, "ListenStream")[0]
        sown = unit_values(sck, "SocketUser")[0]
        sgrp = unit_values(sck, "SocketGroup")[0]
        smode = int(unit_values(sck, "SocketMode")[0], 8)
        dmode = int(unit_values(sck, "DirectoryMode")[0], 8)
        rundir = os.path.dirname(self.path)
        if not os.path.isdir(rundir):
            os.makedirs(rundir, dmode)
            os.chmod(rundir, dmode)
            self.made_rundir = True
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.lsock.bind(self.path)
        os.chown(self.path, pwd.getpwnam(sown).pw_uid,
                 grp.getgrnam(sgrp).gr_gid)
        os.chmod(self.path, smode)
        self.lsock.listen(128)
        R.note("S no systemd: %s as %s:%s on %s" % (" ".join(argv), user,
                                                   group, self.path))
        # setpriv: User=, Group= (with the user's groups, as systemd),
        # NoNewPrivileges=; sh puts the socket on 3 with LISTEN_PID.
        tramp = ["setpriv", "--reuid", user, "--regid", group,
                 "--init-groups", "--no-new-privs", "--",
                 "sh", "-c", 'exec 3<&0 0</dev/null; LISTEN_PID=$$ '
                 'LISTEN_FDS=1 LISTEN_FDNAMES=wymcp.socket exec "$@"',
                 "sh"] + argv
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
        self.log = self.w.log("wymcp-fcgi.log")
        with open(self.log, "ab") as f:
            self.proc = subprocess.Popen(tramp, stdin=self.lsock.fileno(),
                                         stdout=f, stderr=f, env=env,
                                         cwd="/")

    def main_pid(self):
        if self.w.systemd:
            _, out = run(["systemctl", "show", "-p", "MainPID", "--value",
                          "wymcp.service"])
            return int(out.strip() or 0)
        return self.proc.pid if self.proc is not None else 0

    def reload(self):
        if self.w.systemd:
            run(["systemctl", "reload", "wymcp.service"])
        else:
            os.kill(self.proc.pid, signal.SIGHUP)

    def stop(self):
        if self.w.systemd:
            run(["systemctl", "stop", "wymcp.service", "wymcp.socket"],
                check=False)
            return
        if self.proc is not None:
            pids = [self.proc.pid] + children(self.proc.pid)
            stop_pid(self.proc.pid, self.proc, 45)
            for p in pids:
                if wymcp_e2e.alive(p):
                    stop_pid(p, None, 5)
            self.proc = None
        if self.lsock is not None:
            self.lsock.close()
            self.lsock = None
            if os.path.exists(self.path):
                os.unlink(self.path)

    def close(self):
        self.stop()
        if self.made_rundir:
            shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)
            self.made_rundir = False


def nginx_conf(w, port):
    return wymcp_e2e.nginx_preamble(w.ngx, user="www-data", conns=64) + """\
	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		include {snippet};
	}}
}}
""".format(port=port, snippet=SNIPPET)


def start_nginx(w):
    os.makedirs(w.ngx, 0o755)
    os.chmod(w.ngx, 0o755)
    shutil.copy("/etc/nginx/fastcgi_params", w.ngx)
    w.nginx, ports = wymcp_e2e.launch_nginx(
        w.nginx_bin, w.ngx, os.path.join(w.ngx, "nginx-error.log"), 1,
        lambda p: nginx_conf(w, p[0]))
    w.port = ports[0]
    w.client = Client(w.port)


def call(w, rid, method, params=None, name=None):
    return w.client.send("POST", "/mcp", enc(rpc(rid, method, params)),
                         hlist(std_headers(method, name)))


def tool_names(w, rid):
    r = call(w, rid, "tools/list")
    try:
        return r, [t["name"] for t in r.json["result"]["tools"]]
    except (TypeError, KeyError, ValueError):
        return r, None


def wait_serving(w, label, want, timeout=20, via="nginx"):
    """tools/list until it lists every tool in `want'."""
    deadline = time.monotonic() + timeout
    names, r = None, None
    while time.monotonic() < deadline:
        try:
            r, names = tool_names(w, 9000)
            if r.status == 200 and names is not None and \
                    all(n in names for n in want):
                break
        except OSError:
            pass
        time.sleep(0.2)
    R.check(names is not None and all(n in names for n in want),
            "%s tools/list through %s lists %s" % (label, via,
                                                  ", ".join(want)),
            r.brief() if r is not None else "no answer")
    return names


def serve_checks(w, label, via):
    """tools/list, server/discover and book_room over its two questions
    through the web server on w.port."""
    names = wait_serving(w, label, ["help", "echo", "whoami", "book_room"],
                         via=via)
    R.note("%s tools: %s" % (label, " ".join(names or [])))
    r = call(w, 1, "server/discover")
    res = r.json.get("result") if isinstance(r.json, dict) else None
    info = (res or {}).get("_meta", {}).get(
        "io.modelcontextprotocol/serverInfo", {})
    R.check(r.status == 200 and info.get("name") == "wymcp" and
            info.get("version") == "0.4.0",
            "%s server/discover through %s" % (label, via), r.brief())
    t = wymcp_mrtr.Tests(w)
    _, probs, r = t.three_rounds(["/mcp", "/mcp", "/mcp"])
    report("%s book_room through %s: two questions, then the booking" %
           (label, via), probs, r)
    # Issue 32, item 6: an oversized body gets wymcp's JSON-RPC 413
    # through the installed snippet and conf, whichever limit it hits.
    own = 3 * 1048576 if "nginx" in via else None
    e2e_fronts.Checks(w, Via("%s %s" % (label, via), w.port,
                             own_limit=own)).too_large()


def test_serve(w):
    w.svc.start()
    start_nginx(w)
    serve_checks(w, "S", "the installed nginx snippet")
    pid = w.svc.main_pid()
    with open("/proc/%d/status" % pid) as f:
        uid = [ln.split()[1:] for ln in f if ln.startswith("Uid:")]
    want = str(pwd.getpwnam("wymcp").pw_uid)
    R.check(len(uid) == 1 and set(uid[0]) == {want},
            "S wymcp-fcgi (pid %d) runs as the user wymcp" % pid,
            repr(uid))


# --------------------------------------------------------------- Apache

def apache_state():
    """What a2enmod and a2enconf change, as {path: what}: every path
    under /etc/apache2 (a link's target, a file's mode and checksum)
    and apache2's enablement markers (/var/lib/apache2/module, conf)."""
    out = {}
    for top in APACHE_STATE:
        for dp, dns, fns in os.walk(top):
            for n in dns + fns:
                p = os.path.join(dp, n)
                st = os.lstat(p)
                if stat.S_ISLNK(st.st_mode):
                    out[p] = "-> " + os.readlink(p)
                elif stat.S_ISDIR(st.st_mode):
                    out[p] = "dir %o" % st.st_mode
                else:
                    out[p] = "%o %s" % (st.st_mode, sha(p))
    return out


def state_diff(before, after):
    """The paths that differ: +new, -gone, ~changed."""
    return (["+" + p for p in sorted(set(after) - set(before))] +
            ["-" + p for p in sorted(set(before) - set(after))] +
            ["~" + p for p in sorted(set(before) & set(after))
             if before[p] != after[p]])


def enabled_mods():
    d = "/etc/apache2/mods-enabled"
    return {f[:-5] for f in os.listdir(d) if f.endswith(".load")}


def apache_disable(w):
    """Undo what test_apache enabled: a2disconf and a2dismod, with -p
    (no marker of ours left in apache2's state), mod_proxy_fcgi before
    the mod_proxy it needs."""
    if w.apache is not None:
        w.apache.stop()
        w.apache = None
    if w.conf_enabled:
        run(["a2disconf", "-q", "-p", "wymcp"], check=False)
        w.conf_enabled = False
    left = list(w.mods_added)
    for _ in range(len(left)):
        left = [m for m in left
                if run(["a2dismod", "-q", "-p", m], check=False)[0] != 0 or
                m in enabled_mods()]
    w.mods_added = left


def apache_restore(before):
    """apache2's state under /var/lib/apache2 as in `before' (an
    apache_state()): a marker or directory the a2* commands made since
    is removed, a marker they removed made again (markers are empty
    files).  Returns what it changed."""
    did = []
    diff = state_diff(before, apache_state())
    for p in sorted(diff, key=lambda p: -len(p)):
        path = p[1:]
        if not path.startswith("/var/lib/apache2/"):
            continue
        if p[0] == "+" and os.path.isdir(path) and not os.listdir(path):
            os.rmdir(path)
        elif p[0] == "+" and not os.path.isdir(path):
            os.unlink(path)
        elif p[0] == "-" and not before[path].startswith(("dir", "->")):
            open(path, "a").close()
        else:
            continue
        did.append(p)
    return did


def test_apache(w):
    """The installed Apache conf, enabled the Debian way, in a private
    Apache in front of the same running wymcp-fcgi."""
    binary = wymcp_apache.find_apache()
    if binary is None:
        R.note("A skipped: no apache2")
        return
    before = apache_state()
    mods0 = enabled_mods()
    if "proxy_fcgi" not in mods0:
        run(["a2enmod", "-q", "proxy_fcgi"])
    w.mods_added = sorted(enabled_mods() - mods0)
    run(["a2enconf", "-q", "wymcp"])
    w.conf_enabled = True
    R.check(os.path.islink(APACHE_ENABLED) and
            os.path.realpath(APACHE_ENABLED) == APACHE,
            "A a2enconf wymcp links %s to %s (a2enmod enabled: %s)" %
            (APACHE_ENABLED, APACHE, " ".join(w.mods_added) or "nothing"),
            repr(os.path.realpath(APACHE_ENABLED)))
    incs = []
    for m in ("proxy", "proxy_fcgi"):
        for ext in (".load", ".conf"):
            p = "/etc/apache2/mods-enabled/%s%s" % (m, ext)
            if os.path.exists(p):
                incs.append(p)
            elif ext == ".load":
                raise Failed("%s is not enabled (no %s)" % (m, p))
    incs.append(APACHE_ENABLED)
    w.apache = wymcp_apache.Apache(binary, w.tmp, "apache", APACHE_MODULES,
                                   ("www-data", "www-data"))
    w.apache.start(lambda port: w.apache.head(port) + "".join(
        'Include "%s"\n' % p for p in incs))
    nginx = w.port, w.client
    w.port, w.client = w.apache.port, Client(w.apache.port)
    try:
        serve_checks(w, "A", "the installed Apache conf")
    finally:
        w.port, w.client = nginx
    apache_disable(w)
    tidied = apache_restore(before)
    if tidied:
        R.note("A apache2's state tidied after a2dis*: %s" %
               " ".join(tidied))
    diff = state_diff(before, apache_state())
    R.check(not diff and not w.mods_added, "A a2disconf -p wymcp, a2dismod "
            "-p what a2enmod enabled: /etc/apache2 as before a2enconf (and "
            "apache2's markers, the directories they made removed)",
            repr(diff[:10] + w.mods_added))


def test_reload(w):
    src = "/usr/share/doc/wymcp/examples/example-module/greet.c"
    _, flags = run(["pkg-config", "--cflags", "--libs", "wymcp"])
    mod = os.path.join(w.moddir, "greet.so")
    run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-o", mod, src] +
        flags.split())
    w.added.append(mod)
    _, before = tool_names(w, 9001)
    R.check(before is not None and "greet" not in before,
            "R before the reload greet is not listed", repr(before))
    w.svc.reload()
    wait_serving(w, "R after %s," % ("systemctl reload wymcp" if w.systemd
                                     else "SIGHUP (ExecReload=)"),
                 ["greet", "help", "book_room"])
    os.unlink(mod)
    w.added.remove(mod)


def test_upgrade(w):
    with open(CONF, "a") as f:
        f.write("# edited by t/debian/e2e_debian.py\nrequest-timeout 50\n")
    conf = sha(CONF)
    w.svc.stop()
    apt_install(w, w.debs2, "U")
    R.check(sha(KEY) == w.key1, "U the upgrade keeps the state key")
    R.check(sha(CONF) == conf, "U the upgrade keeps the edited config")
    w.svc.start()
    wait_serving(w, "U after the upgrade,", ["help", "book_room"])


def test_remove(w):
    """The Apache conf enabled, as an admin leaves it, then wymcp
    removed and installed again."""
    w.svc.stop()
    if not os.path.isdir("/etc/apache2/conf-enabled"):
        R.note("X the Apache conf on removal: skipped, no apache2")
        return
    run(["a2enconf", "-q", "wymcp"])
    w.conf_enabled = True
    run(["apt-get", "remove", "-y", "-q", "wymcp"], env=APT_ENV,
        log=w.log("apt.log"))
    R.check(not os.path.lexists(APACHE_ENABLED) and os.path.exists(APACHE),
            "X apt-get remove wymcp disables the enabled Apache conf (no "
            "conf-enabled link; the conffile kept)",
            "link %s, conffile %s" % (os.path.lexists(APACHE_ENABLED),
                                      os.path.exists(APACHE)))
    apt_install(w, w.debs2, "X")
    R.check(os.path.islink(APACHE_ENABLED) and
            os.path.realpath(APACHE_ENABLED) == APACHE,
            "X installed again, the conf that removal disabled is "
            "enabled again", repr(os.path.lexists(APACHE_ENABLED)))


def test_purge(w):
    w.svc.stop()
    run(["apt-get", "purge", "-y", "-q"] + PKGS, env=APT_ENV,
        log=w.log("apt.log"))
    left = [p for p in PKGS if installed(p) or
            run(["dpkg-query", "-W", p], check=False)[0] == 0]
    R.check(not left, "X apt-get purge: no package left, not even its "
            "config", repr(left))
    files = sorted(f for f in w.files if os.path.lexists(f) and
                   not os.path.isdir(f))
    R.check(not files, "X none of the %d paths dpkg -L listed is left" %
            len(w.files), repr(files[:10]))
    dirs = [d for d in ("/etc/wymcp", w.moddir, "/usr/share/wymcp",
                        "/usr/lib/%s/wymcp-fixtures" % w.triplet,
                        "/usr/share/doc/wymcp") if os.path.lexists(d)]
    R.check(not dirs and not os.path.lexists(KEY),
            "X /etc/wymcp, the key and the packages' directories are gone",
            repr(dirs))
    units = [os.path.join(dp, f)
             for top in ("/etc/systemd/system", "/lib/systemd/system",
                         "/var/lib/systemd/deb-systemd-helper-enabled")
             if os.path.isdir(top)
             for dp, _, fs in os.walk(top) for f in fs
             if f.startswith("wymcp")]
    R.check(not units, "X no unit and no enablement link is left",
            repr(units))
    if w.conf_enabled:
        marks = [os.path.join(dp, f) for top in APACHE_STATE[1:]
                 for dp, _, fs in os.walk(top) for f in fs
                 if f == "wymcp"]
        R.check(not os.path.lexists(APACHE_ENABLED) and not marks,
                "X purged with the Apache conf enabled: no %s, no "
                "apache2 marker for wymcp" % APACHE_ENABLED,
                repr(marks) + (" and the link" if os.path.lexists(
                    APACHE_ENABLED) else ""))
        if not os.path.lexists(APACHE_ENABLED):
            w.conf_enabled = False
    w.ours = False
    w.forget_user()


# ------------------------------------------------- a real systemd (N, Z)

NSPAWN_PKG = "systemd-container"
BOX_NAME = "wymcp-deb"
INSTANCE = "t1"
INSTANCE_CONF = "/etc/wymcp/%s.conf" % INSTANCE
UNITS = ["wymcp.socket", "wymcp.service", "wymcp@%s.socket" % INSTANCE,
         "wymcp@%s.service" % INSTANCE, "wymcp-authz.socket",
         "wymcp-authz.service"]


def pkg_version(pkg):
    rc, out = run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                  check=False)
    return out.strip() if rc == 0 else None


def find_nspawn(w):
    """systemd-nspawn: the installed one; else systemd-container from
    Debian when its version is the host's systemd's (installed, purged
    at the end with what the packages pulled in); else unpacked
    (dpkg-deb -x) into the test's directory.  None, with a note, when
    none can be had."""
    p = shutil.which("systemd-nspawn")
    if p is not None:
        return p
    host = pkg_version("systemd")
    rc, out = run(["apt-cache", "policy", NSPAWN_PKG], check=False)
    m = re.search(r"Candidate:\s*(\S+)", out)
    cand = m.group(1) if m else None
    if cand is not None and cand == host:
        rc, out = run(["apt-get", "install", "-y", "-q",
                       "--no-install-recommends", NSPAWN_PKG], env=APT_ENV,
                      log=w.log("apt.log"), check=False)
        if rc == 0 and shutil.which("systemd-nspawn"):
            R.note("N installed %s %s (the host's systemd's version; "
                   "purged at the end)" % (NSPAWN_PKG, cand))
            return shutil.which("systemd-nspawn")
    d = os.path.join(w.tmp, "nspawn")
    os.makedirs(d, exist_ok=True)
    rc, out = run(["apt-get", "download", "%s=%s" % (NSPAWN_PKG, host)],
                  cwd=d, check=False)
    debs = [f for f in os.listdir(d) if f.endswith(".deb")]
    if rc != 0 or not debs:
        R.note("N skipped: no systemd-nspawn, and %s %s (the host's "
               "systemd) cannot be had: %s" % (NSPAWN_PKG, host,
                                                out[-300:]))
        return None
    run(["dpkg-deb", "-x", os.path.join(d, debs[0]), d])
    p = os.path.join(d, "usr", "bin", "systemd-nspawn")
    R.note("N %s %s unpacked into %s (the host's systemd left alone)" %
           (NSPAWN_PKG, host, d))
    return p if os.access(p, os.X_OK) else None


class Box:
    """The host's own tree booted by systemd-nspawn: --volatile=yes (a
    tmpfs root with the host's /usr, read-only: the packages installed
    on the host are there, nothing the container writes stays), the
    host's /etc bound read-only (the config, the user wymcp; no first
    boot), --private-network, the test's directory bound in.  Commands
    run inside with nsenter."""

    def __init__(self, w, nspawn):
        self.w = w
        self.nspawn = nspawn
        self.proc = None
        self.pid1 = None
        self.log = w.log("nspawn.log")

    def boot(self, timeout=90):
        argv = [self.nspawn, "--volatile=yes", "-D", "/", "--keep-unit",
                "--register=no", "--private-network", "-M", BOX_NAME,
                "--console=read-only", "--bind-ro=/etc",
                "--bind=" + self.w.tmp, "-b"]
        t0 = time.monotonic()
        with open(self.log, "ab") as f:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                         stdout=f, stderr=f)
        deadline = t0 + timeout
        state = ""
        while time.monotonic() < deadline and self.proc.poll() is None:
            if self.pid1 is None:
                self.pid1 = self.find_init()
            if self.pid1 is not None:
                rc, out = self.sh(["systemctl", "is-system-running"])
                state = out.strip()
                if state in ("running", "degraded"):
                    break
            time.sleep(0.3)
        took = time.monotonic() - t0
        if state not in ("running", "degraded"):
            raise Failed("N systemd-nspawn did not boot within %d s "
                         "(state %r): %s" % (timeout, state, " | ".join(
                             tail(self.log, 12))))
        _, failed = self.sh(["systemctl", "--failed", "--plain",
                             "--no-legend"])
        _, ver = self.sh(["systemctl", "--version"])
        R.note("N systemd-nspawn booted %s in %.1f s (%s)%s" % (
            ver.splitlines()[0] if ver else "?", took, state,
            "; failed units, not ours: " + " ".join(
                ln.split()[0] for ln in failed.splitlines() if ln.split())
            if failed.strip() else ""))
        R.check(not any(ln.split()[0].startswith("wymcp")
                        for ln in failed.splitlines() if ln.split()),
                "N systemd %s boots in the container; no wymcp unit "
                "failed" % (ver.split()[1] if ver else "?"), failed)

    def find_init(self):
        table = wymcp_e2e.proc_table()
        todo = [self.proc.pid]
        while todo:
            p = todo.pop()
            for c in children(p, table):
                if wymcp_e2e.comm(c) == "systemd":
                    return c
                todo.append(c)
        return None

    def sh(self, argv, check=False, timeout=120):
        """Run argv in the container; (exit code, output)."""
        p = subprocess.run(["nsenter", "-t", str(self.pid1), "-a",
                            "--wd=/"] + argv, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        if check and p.returncode != 0:
            raise Failed("in the container: %s: exit %d: %s" % (
                " ".join(argv), p.returncode, out[-800:]))
        return p.returncode, out

    def write(self, path, text, mode=0o644):
        self.sh(["mkdir", "-p", os.path.dirname(path)], check=True)
        p = subprocess.run(["nsenter", "-t", str(self.pid1), "-a", "sh",
                            "-c", 'cat >"$1" && chmod %o "$1"' % mode,
                            "sh", path], input=text.encode(),
                           capture_output=True)
        if p.returncode != 0:
            raise Failed("in the container: writing %s: %s" %
                         (path, p.stderr.decode()))

    def prop(self, unit, name):
        _, out = self.sh(["systemctl", "show", "-p", name, "--value",
                          unit])
        return out.strip()

    def pids(self, pattern):
        _, out = self.sh(["pgrep", "-f", pattern])
        return [int(x) for x in out.split() if x.isdigit()]

    def shutdown(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            # nspawn turns SIGTERM into an orderly poweroff.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                stop_pid(self.proc.pid, self.proc, 5)
        self.proc = None


class Via:
    """A web server the nginx inside the container serves, for
    e2e_fronts.Checks: a unix socket's path, /mcp, no auth."""

    cgi = False
    auth = False
    status = False
    principal = None
    assigns = {}

    def __init__(self, name, where, own_limit=None, path="/mcp"):
        self.name = name
        self.port = where
        self.own_limit = own_limit
        self.path = path

    def headers(self, method, name=None):
        return list(std_headers(method, name).items())


def box_nginx_conf(w):
    d = w.boxdir
    return wymcp_e2e.nginx_preamble(d, user="www-data", conns=256) + """\
	server {{
		listen unix:{d}/nginx.sock;
		server_name localhost;
		# The installed snippet: /mcp on wymcp.socket's socket.
		include {snippet};
		# wymcp@{i}: the same, on its own socket.
		location = /{i} {{
			include fastcgi_params;
			fastcgi_param REMOTE_USER "";
			fastcgi_pass unix:/run/wymcp/{i}.sock;
			fastcgi_keep_conn off;
			fastcgi_buffering off;
			client_max_body_size 1m;
			error_page 413 = @wymcp_too_large;
		}}
		# wymcp-authz, as deploy/nginx/oauth.conf reaches it.
		location ^~ /.well-known/oauth-protected-resource {{
			fastcgi_param REQUEST_METHOD  $request_method;
			fastcgi_param REQUEST_URI     $request_uri;
			fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_pass unix:/run/wymcp/authz.sock;
			fastcgi_keep_conn off;
		}}
		location = /authz-check {{
			fastcgi_param CONTENT_LENGTH  "";
			fastcgi_param REQUEST_METHOD  $request_method;
			fastcgi_param REQUEST_URI     $request_uri;
			fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_param HTTP_AUTHORIZATION $http_authorization;
			fastcgi_param WYMCP_AUTHZ     check;
			fastcgi_pass unix:/run/wymcp/authz.sock;
			fastcgi_keep_conn off;
		}}
	}}
}}
""".format(d=d, snippet=SNIPPET, i=INSTANCE)


def box_get(where, path, headers=()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(where)
    req = "GET %s HTTP/1.0\r\nHost: mcp.example.com\r\n" % path
    for k, v in headers:
        req += "%s: %s\r\n" % (k, v)
    s.sendall((req + "\r\n").encode())
    raw = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            raw += b
    except OSError as e:
        raw += b"\r\n\r\n(%r)" % e
    s.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(m.group(1)) if m else None), head.decode("latin-1"), body


def tool_names_via(where, path="/mcp"):
    x = e2e_fronts.Exchange(where, path, enc(rpc(9100, "tools/list")),
                            list(std_headers("tools/list").items()))
    x.finish(30)
    try:
        return x.status, [t["name"] for t in x.result()["result"]["tools"]]
    except (KeyError, TypeError):
        return x.status, None


class Load:
    """tools/list through nginx as fast as one client goes, in a
    thread, counting what failed."""

    def __init__(self, where):
        import threading
        self.where = where
        self.calls = 0
        self.failed = []
        self.stop_ev = threading.Event()
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def loop(self):
        while not self.stop_ev.is_set():
            try:
                st, names = tool_names_via(self.where)
                if st != 200 or names is None:
                    self.failed.append("status %r" % st)
            except OSError as e:
                self.failed.append(repr(e))
            self.calls += 1

    def stop(self):
        self.stop_ev.set()
        self.t.join(60)


def test_systemd(w):
    """N: the installed units under a real systemd (systemd-nspawn)."""
    nspawn = find_nspawn(w)
    if nspawn is None:
        return
    # wymcp@t1's config, on the host (the container's /etc is the
    # host's, read-only); removed before the purge checks.
    shutil.copy(CONF, INSTANCE_CONF)
    w.added.append(INSTANCE_CONF)
    w.boxdir = os.path.join(w.tmp, "box")
    os.makedirs(w.boxdir)
    os.chmod(w.boxdir, 0o755)
    for sub in ("client_body", "fastcgi_temp", "proxy_temp", "scgi_temp",
                "uwsgi_temp"):
        os.makedirs(os.path.join(w.boxdir, sub))
    with open(os.path.join(w.boxdir, "nginx.conf"), "w") as f:
        f.write(box_nginx_conf(w))
    shutil.copy("/etc/nginx/fastcgi_params", w.boxdir)
    box = w.box = Box(w, nspawn)
    box.boot()
    where = os.path.join(w.boxdir, "nginx.sock")
    # nginx inside, as a transient unit of the container's systemd.
    box.sh(["systemd-run", "--unit=wymcp-test-nginx", "/usr/sbin/nginx",
            "-p", w.boxdir + "/", "-c", os.path.join(w.boxdir, "nginx.conf"),
            "-e", os.path.join(w.boxdir, "nginx-error.log"),
            "-g", "daemon off;"], check=True)
    deadline = time.monotonic() + 20
    while not os.path.exists(where) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not os.path.exists(where):
        _, out = box.sh(["systemctl", "status", "--no-pager", "-l",
                         "wymcp-test-nginx"])
        raise Failed("N nginx did not start in the container: %s %s" % (
            out[-800:], " | ".join(tail(os.path.join(
                w.boxdir, "nginx-error.log"), 5))))
    # The package enables wymcp.service as well as its socket, so the
    # boot started it: stop both, then start the socket alone.
    box.sh(["systemctl", "stop", "wymcp.service", "wymcp.socket"],
           check=True)
    box.sh(["systemctl", "start", "wymcp.socket",
            "wymcp@%s.socket" % INSTANCE], check=True)
    R.check(box.prop("wymcp.socket", "ActiveState") == "active" and
            box.prop("wymcp.service", "ActiveState") == "inactive",
            "N systemctl start wymcp.socket: the socket listens, "
            "wymcp.service not started yet",
            "%s/%s" % (box.prop("wymcp.socket", "ActiveState"),
                       box.prop("wymcp.service", "ActiveState")))
    st, names = tool_names_via(where)
    R.check(st == 200 and names and "book_room" in names and
            box.prop("wymcp.service", "ActiveState") == "active",
            "N the first request through nginx starts wymcp.service by "
            "socket activation and is answered",
            "status %r, %r, service %s" % (st, names, box.prop(
                "wymcp.service", "ActiveState")))
    f = Via("N (systemd, nginx snippet)", where, own_limit=3 * 1048576)
    c = e2e_fronts.Checks(w, f)
    c.discover()
    c.book_room()
    c.progress()
    # A listen under the unit's sandbox hears write_note; the note
    # lands in the unit's StateDirectory= (no WYMCP_NOTES_DIR).
    c.listen()
    name = "n" + re.sub(r"[^A-Za-z0-9]", "", f.name)
    rc, out = box.sh(["stat", "-c", "%U %a",
                      "/var/lib/wymcp/notes/%s.txt" % name])
    R.check(rc == 0 and out.split()[:1] == ["wymcp"],
            "N write_note under wymcp.service keeps the note in "
            "/var/lib/wymcp/notes (StateDirectory=wymcp), as wymcp",
            out.strip())
    c.too_large()
    # A module added, then systemctl reload under load.
    src = "/usr/share/doc/wymcp/examples/example-module/greet.c"
    _, flags = run(["pkg-config", "--cflags", "--libs", "wymcp"])
    mod = os.path.join(w.moddir, "greet.so")
    run(["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-o", mod, src] +
        flags.split())
    w.added.append(mod)
    main0 = box.prop("wymcp.service", "MainPID")
    load = Load(where)
    time.sleep(1)
    rc, out = box.sh(["systemctl", "reload", "wymcp.service"])
    seen = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not seen:
        st, names = tool_names_via(where)
        seen = bool(names) and "greet" in names
        time.sleep(0.2)
    time.sleep(1)
    load.stop()
    R.check(rc == 0 and seen, "N systemctl reload wymcp: the module "
            "added is listed", out)
    R.check(not load.failed and load.calls > 10, "N no call failed "
            "during the reload (%d calls of tools/list through nginx)" %
            load.calls, "; ".join(load.failed[:5]))
    R.check(box.prop("wymcp.service", "MainPID") == main0,
            "N the reload kept the supervisor (MainPID %s)" % main0,
            box.prop("wymcp.service", "MainPID"))
    os.unlink(mod)
    w.added.remove(mod)
    # wymcp@t1 beside it.
    st, names = tool_names_via(where, "/" + INSTANCE)
    R.check(st == 200 and names and "book_room" in names and
            box.prop("wymcp@%s.service" % INSTANCE, "ActiveState") ==
            "active", "N wymcp@%s beside it: socket-activated by its "
            "first request, answered on /run/wymcp/%s.sock" %
            (INSTANCE, INSTANCE), "status %r %r" % (st, names))
    for u in ("wymcp.service", "wymcp@%s.service" % INSTANCE):
        rc, out = box.sh(["systemctl", "status", "--no-pager", "-l", u])
        bad = [ln for ln in out.splitlines() if re.search(
            r"(?i)\b(error|failed|warning|denied)\b", ln)]
        R.check(rc == 0 and "active (running)" in out and not bad and
                box.prop(u, "NRestarts") == "0" and
                box.prop(u, "Result") == "success",
                "N systemctl status %s: active (running), no restart, "
                "nothing wrong in its lines" % u, out[-1500:])
    test_authz_box(w, box, where)
    # Stop: nothing of wymcp left.
    rc, out = box.sh(["systemctl", "stop"] + UNITS)
    time.sleep(0.5)
    left = box.pids("/usr/bin/wymcp-")
    R.check(rc == 0 and not left and all(
        box.prop(u, "ActiveState") == "inactive" for u in UNITS),
        "N systemctl stop: every wymcp unit inactive, no wymcp process "
        "left", "rc %d, left %r: %s" % (rc, left, out))
    rc, out = box.sh(["journalctl", "--no-pager", "-q", "-p", "warning"] +
                     sum((["-u", u] for u in UNITS), []))
    R.check(out.strip() == "", "N the journal of the wymcp units holds "
            "no error and no warning (journalctl -p warning)",
            out[-1500:])
    _, out = box.sh(["journalctl", "--no-pager", "-q"] +
                    sum((["-u", u] for u in UNITS), []))
    bad = [ln for ln in out.splitlines()
           if re.search(r"(?i)\b(error|fatal|refused|denied)\b", ln)]
    R.check(not bad, "N the wymcp units' own lines in the journal name "
            "no error", " | ".join(bad[-8:]))


def ec_jwk(w):
    """A P-256 public key as a JWK (openssl makes the pair)."""
    import base64
    pem = w.log("authz-key.pem")
    run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout",
         "-out", pem])
    der = subprocess.run(["openssl", "ec", "-in", pem, "-pubout",
                          "-outform", "DER"], capture_output=True,
                         check=True).stdout
    pt = der[-64:]		# the uncompressed point's x and y

    def b64(b):
        return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
    return {"kty": "EC", "crv": "P-256", "x": b64(pt[:32]),
            "y": b64(pt[32:]), "kid": "test", "alg": "ES256", "use": "sig"}


def test_authz_box(w, box, where):
    """wymcp-authz.socket and .service under systemd, with a key set of
    its own (a drop-in in /run): socket activation, the metadata, a
    check refused without a token, reload, status."""
    jwks = "/run/wymcp-test/jwks.json"
    box.write(jwks, json.dumps({"keys": [ec_jwk(w)]}))
    box.write("/run/systemd/system/wymcp-authz.service.d/test.conf",
              "[Service]\nExecStart=\nExecStart=/usr/bin/wymcp-authz "
              "--workers 2 --issuer https://auth.example.com --audience "
              "https://mcp.example.com/mcp --jwks-file %s --scope "
              "mcp:tools\n" % jwks)
    box.sh(["systemctl", "daemon-reload"], check=True)
    box.sh(["systemctl", "start", "wymcp-authz.socket"], check=True)
    inactive = box.prop("wymcp-authz.service", "ActiveState")
    st, head, body = box_get(where, "/.well-known/oauth-protected-resource"
                             "/mcp")
    try:
        meta = json.loads(body.decode())
    except ValueError:
        meta = None
    R.check(inactive == "inactive" and st == 200 and
            isinstance(meta, dict) and meta.get("resource") ==
            "https://mcp.example.com/mcp" and
            box.prop("wymcp-authz.service", "ActiveState") == "active",
            "N wymcp-authz: socket-activated by its first request, the "
            "protected-resource metadata through nginx",
            "%s -> %r %r" % (inactive, st, body[:300]))
    _, jl = box.sh(["journalctl", "--no-pager", "-q", "-n", "15", "-u",
                    "wymcp-authz.service", "-u", "wymcp-authz.socket"])
    if st != 200:
        R.note("N wymcp-authz's journal: %s" % " | ".join(
            jl.strip().splitlines()))
    st, head, body = box_get(where, "/authz-check")
    R.check(st == 401 and "www-authenticate: bearer" in head.lower(),
            "N wymcp-authz under its unit refuses a request without a "
            "token: 401 with its challenge", "%r %r" % (st, head[:300]))
    main0 = box.prop("wymcp-authz.service", "MainPID")
    rc, out = box.sh(["systemctl", "reload", "wymcp-authz.service"])
    time.sleep(1)
    st2, _, _ = box_get(where, "/authz-check")
    R.check(rc == 0 and st2 == 401 and box.prop(
        "wymcp-authz.service", "MainPID") == main0,
        "N systemctl reload wymcp-authz: the same supervisor answers",
        "rc %d: %s; %r" % (rc, out, st2))
    rc, out = box.sh(["systemctl", "status", "--no-pager", "-l",
                      "wymcp-authz.service"])
    bad = [ln for ln in out.splitlines() if re.search(
        r"(?i)\b(error|failed|warning|denied)\b", ln)]
    R.check(rc == 0 and "active (running)" in out and not bad and
            box.prop("wymcp-authz.service", "NRestarts") == "0",
            "N systemctl status wymcp-authz: active (running), nothing "
            "wrong in its lines", out[-1500:])


# ---------------------------------------------------------------- world

class World:
    def __init__(self, srcdir, keep):
        self.srcdir = srcdir
        self.keep = keep
        self.tmp = tempfile.mkdtemp(prefix="wymcp-deb.")
        os.chmod(self.tmp, 0o755)
        # lintian and the builds leave their temporary files here,
        # removed with it.
        os.makedirs(os.path.join(self.tmp, "tmp"))
        os.environ["TMPDIR"] = os.path.join(self.tmp, "tmp")
        self.tree1 = os.path.join(self.tmp, "b1", "wymcp")
        self.tree2 = os.path.join(self.tmp, "b2", "wymcp")
        self.ngx = os.path.join(self.tmp, "nginx")
        self.systemd = systemd_runs()
        _, out = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"])
        self.triplet = out.strip()
        self.moddir = "/usr/lib/%s/wymcp" % self.triplet
        self.files = set()
        self.added = []
        self.ours = False
        self.user_before = self.group_before = True
        self.nginx = None
        self.apache = None
        self.conf_enabled = False
        self.mods_added = []
        self.apache0 = apache_state()
        self.svc = Service(self)
        self.nginx_bin = wymcp_e2e.find_nginx()
        self.box = None
        self.boxdir = None

    def forget_user(self):
        """Debian keeps a system user on purge; the test deletes the
        user and group wymcp when it made them."""
        if not self.user_before and user_exists("wymcp"):
            run(["deluser", "--system", "--quiet", "wymcp"], check=False)
        if not self.group_before and group_exists("wymcp"):
            run(["delgroup", "--system", "--quiet", "wymcp"], check=False)
        if not self.user_before and not user_exists("wymcp") and \
                not group_exists("wymcp"):
            R.note("the user and group wymcp (made by the package) "
                   "deleted")
        self.user_before = self.group_before = True

    def log(self, name):
        return os.path.join(self.tmp, name)

    def cleanup(self):
        if self.box is not None:
            self.box.shutdown()
            self.box = None
        if self.nginx is not None:
            stop_pid(self.nginx.pid, self.nginx, 10)
            self.nginx = None
        apache_disable(self)
        self.svc.close()
        for f in self.added:
            if os.path.exists(f):
                os.unlink(f)
        if self.ours:
            run(["apt-get", "purge", "-y", "-q"] + PKGS, env=APT_ENV,
                log=self.log("apt.log"), check=False)
        self.forget_user()
        tidied = apache_restore(self.apache0)
        if tidied:
            R.note("apache2's state tidied: %s" % " ".join(tidied))
        if self.keep or R.failed:
            R.note("logs and builds kept in %s" % self.tmp)
            for n in ("wymcp-fcgi.log", "nginx/nginx-error.log",
                      "apache/error.log"):
                if not os.path.exists(self.log(n)):
                    continue
                for ln in tail(self.log(n), 20):
                    R.note("%s: %s" % (n, ln))
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


def preconditions(srcdir, build_only):
    if os.geteuid() != 0 and not build_only:
        skip("needs root (it installs packages)")
    need = ["dpkg", "apt-get", "dpkg-buildpackage", "dh", "lintian",
            "git", "fakeroot", "setpriv", "pkg-config", "cc"]
    missing = [n for n in need if shutil.which(n) is None]
    if missing:
        skip("missing: %s" % ", ".join(missing))
    if wymcp_e2e.find_nginx() is None:
        skip("no nginx")
    if not os.path.isdir(os.path.join(srcdir, ".git")) and \
            not os.path.isfile(os.path.join(srcdir, ".git")):
        skip("%s is not a git tree (the packages are built from a clone)"
             % srcdir)
    there = [p for p in PKGS if installed(p)]
    if there:
        skip("already installed here: %s (the test would replace and "
             "purge them)" % ", ".join(there))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--srcdir", default=SRCDIR)
    ap.add_argument("--builddir", help="ignored (the packages are built "
                    "from a clone)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--build-only", action="store_true",
                    help="B and L only: install nothing")
    ap.add_argument("--no-check-builddeps", action="store_true",
                    help="dpkg-buildpackage -d")
    a = ap.parse_args()
    if a.no_check_builddeps:
        DEB_FLAGS.append("-d")
    preconditions(a.srcdir, a.build_only)
    started = time.monotonic()
    pkgs0, manual0 = package_set(), manual_set()
    w = World(a.srcdir, a.keep)
    R.note("systemd %s; packages built in %s" %
           ("runs" if w.systemd else "does not run (PID 1: %s)" %
            open("/proc/1/comm").read().strip(), w.tmp))
    interrupted = False

    def on_signal(signum, frame):
        raise KeyboardInterrupt()

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    try:
        test_build(w)
        R.note("B built in %.0f s" % (time.monotonic() - started))
        if a.build_only:
            raise StopIteration
        test_install(w)
        test_serve(w)
        test_apache(w)
        test_reload(w)
        test_systemd(w)
        if w.box is not None:
            w.box.shutdown()
            w.box = None
        for f in list(w.added):
            if os.path.exists(f):
                os.unlink(f)
            w.added.remove(f)
        test_upgrade(w)
        if w.nginx is not None:
            stop_pid(w.nginx.pid, w.nginx, 10)
            w.nginx = None
        test_remove(w)
        test_purge(w)
    except StopIteration:
        pass
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
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        w.cleanup()
    # What apt-get pulled in for the packages (nothing, when the
    # build dependencies are installed): purged, so that the package
    # set is as before.
    names0 = {ln.split()[0] for ln in pkgs0}
    extra = sorted({ln.split()[0] for ln in package_set()} - names0)
    if extra:
        R.note("purging what the install pulled in: %s" % " ".join(extra))
        run(["apt-get", "purge", "-y", "-q"] + extra, env=APT_ENV,
            check=False)
    pkgs1, manual1 = package_set(), manual_set()
    gone = sorted(set(pkgs0) - set(pkgs1))
    new = sorted(set(pkgs1) - set(pkgs0))
    R.check(not gone and not new, "X the machine's packages are as before "
            "(%d)" % len(pkgs0), "before only: %r; after only: %r" %
            (gone[:10], new[:10]))
    R.check(manual0 == manual1, "X apt-mark showmanual is as before",
            repr(sorted(set(manual0) ^ set(manual1))[:10]))
    if not a.build_only:
        diff = state_diff(w.apache0, apache_state())
        R.check(not diff, "X /etc/apache2 and apache2's enablement state "
                "are as before the test", repr(diff[:10]))
    R.note("run time %.1f s" % (time.monotonic() - started))
    print("%d passed, %d failed" % (R.passed, R.failed), flush=True)
    if interrupted:
        return 130
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
