"""wymcp_netns - "hosts" on this machine: network namespaces, each joined
to the root namespace, where nginx runs, by a veth pair.

What t/e2e/e2e_hosts.py, e2e_legacy_ask.py --netns and e2e_tasks.py
--netns share.  Two layouts, both on private 10.213.X.0/24 subnets (X
random, checked against every address and route already here):

  Net.add_host(name, x)    a subnet per host: the root side is
                           10.213.X.1 (nginx) and .3 (a stranger), the
                           host 10.213.X.2; hosts cannot reach each
                           other;
  Net.add_lan(x), then     one subnet on a bridge in the root namespace
  Net.add_lan_host(name)   (10.213.X.1, nginx), each host a port of it
                           (.2, .3, ...): hosts reach each other, as on
                           one LAN, with no forwarding in the root
                           namespace; Net.add_lan_addr() gives the root
                           side one more address (a stranger).

Net.teardown() stops what still runs in our namespaces (by PID: only
ours can be there) and deletes every namespace, veth and bridge this
run made, and only those; Net.leftovers() names what is still there.
unavailable() says why this machine cannot (no ip, not root).

Found through PYTHONPATH=t/e2e/lib, like wymcp_e2e, which it builds on.
Python 3 standard library only.
"""

import ipaddress
import json
import os
import random
import shutil
import socket
import subprocess
import time

from wymcp_e2e import R, Failed, alive, stop_pid


class Skip(Exception):
    """The environment cannot run this test (exit 77)."""


def unavailable():
    """Why network namespaces cannot be made here, or None."""
    if shutil.which("ip") is None:
        return "ip (iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    return None


def run(argv, check=True):
    """Run a command; (rc, output).  Raises Failed when check and rc."""
    p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       check=False)
    out = p.stdout.decode("utf-8", "replace").strip()
    if check and p.returncode != 0:
        raise Failed("%s: exit %d: %s" % (" ".join(argv), p.returncode, out))
    return p.returncode, out


class Net:
    """The namespaces, veth pairs and bridge this run made, and only
    those.  port: the one wait_reachable() tries (and notes name)."""

    def __init__(self, port=9000):
        self.tag = os.getpid()
        self.port = port
        self.namespaces = []		# names we added
        self.links = []			# root-side veth names we added
        self.hosts = {}			# name -> dict
        self.lan = None			# the bridge of add_lan(), a dict

    def taken(self):
        """Every IPv4 network already in use here (addresses and routes
        of every table; the default route excepted)."""
        nets = []
        rc, out = run(["ip", "-j", "-4", "addr", "show"], check=False)
        for ifc in (json.loads(out) if rc == 0 and out else []):
            for a in ifc.get("addr_info", []):
                nets.append(ipaddress.ip_network(
                    "%s/%s" % (a["local"], a["prefixlen"]), strict=False))
        rc, out = run(["ip", "-j", "-4", "route", "show", "table", "all"],
                      check=False)
        for rt in (json.loads(out) if rc == 0 and out else []):
            dst = rt.get("dst")
            if not dst or dst == "default":
                continue
            try:
                nets.append(ipaddress.ip_network(dst, strict=False))
            except ValueError:
                pass
        return nets

    def pick_subnets(self, n):
        taken = self.taken()
        free = [x for x in range(1, 255)
                if not any(ipaddress.ip_network("10.213.%d.0/24" % x)
                           .overlaps(t) for t in taken)]
        if len(free) < n:
            raise Skip("no free 10.213.X.0/24 subnet here (all overlap "
                       "existing addresses or routes)")
        return random.sample(free, n)

    def add_ns(self, name):
        """A namespace of ours, and a veth pair into it: (ns, root side,
        namespace side)."""
        ns = "wymcp-%s-%d" % (name, self.tag)
        vr = "wy%sr%d" % (name[1:], self.tag)		# root side
        vn = "wy%sn%d" % (name[1:], self.tag)		# namespace side
        rc, out = run(["ip", "netns", "add", ns], check=False)
        if rc != 0:
            if "Operation not permitted" in out or \
                    "Permission denied" in out:
                raise Skip("ip netns add: %s" % out)
            raise Failed("ip netns add %s: %s" % (ns, out))
        self.namespaces.append(ns)
        run(["ip", "link", "add", vr, "type", "veth", "peer", "name", vn,
             "netns", ns])
        self.links.append(vr)
        # No IPv6 link-local addresses: nothing but our IPv4 traffic
        # crosses the pair.
        run(["ip", "link", "set", "dev", vr, "addrgenmode", "none"])
        run(["ip", "-n", ns, "link", "set", "dev", vn, "addrgenmode",
             "none"])
        return ns, vr, vn

    def add_host(self, name, x):
        ns, vr, vn = self.add_ns(name)
        net = "10.213.%d" % x
        run(["ip", "addr", "add", net + ".1/24", "dev", vr])
        # A second root-side address that the host does not accept
        # FastCGI from (FCGI_WEB_SERVER_ADDRS names .1 only).
        run(["ip", "addr", "add", net + ".3/24", "dev", vr])
        run(["ip", "link", "set", "dev", vr, "up"])
        run(["ip", "-n", ns, "addr", "add", net + ".2/24", "dev", vn])
        run(["ip", "-n", ns, "link", "set", "dev", vn, "up"])
        run(["ip", "-n", ns, "link", "set", "dev", "lo", "up"])
        h = {"ns": ns, "veth": vr, "addr": net + ".2", "peer": net + ".1",
             "stranger": net + ".3"}
        self.hosts[name] = h
        R.note("%s: namespace %s, veth %s, wymcp-fcgi on %s:%d, nginx "
               "from %s" % (name, ns, vr, h["addr"], self.port, h["peer"]))
        return h

    def add_lan(self, x):
        """A bridge in the root namespace on 10.213.X.0/24, with .1."""
        br = "wylan%d" % self.tag		# not wy?r: add_ns()
        run(["ip", "link", "add", br, "type", "bridge", "forward_delay",
             "0"])
        self.links.append(br)
        run(["ip", "link", "set", "dev", br, "addrgenmode", "none"])
        net = "10.213.%d" % x
        run(["ip", "addr", "add", net + ".1/24", "dev", br])
        run(["ip", "link", "set", "dev", br, "up"])
        self.lan = {"bridge": br, "net": net, "peer": net + ".1",
                    "next": 2, "extra": 200}
        R.note("LAN: bridge %s, %s.0/24, nginx from %s" %
               (br, net, net + ".1"))
        return self.lan

    def add_lan_addr(self):
        """One more root-side address on the bridge (a stranger)."""
        a = "%s.%d" % (self.lan["net"], self.lan["extra"])
        self.lan["extra"] += 1
        run(["ip", "addr", "add", a + "/24", "dev", self.lan["bridge"]])
        return a

    def add_lan_host(self, name):
        """A namespace on the bridge of add_lan(), the next address."""
        lan = self.lan
        ns, vr, vn = self.add_ns(name)
        run(["ip", "link", "set", "dev", vr, "master", lan["bridge"]])
        run(["ip", "link", "set", "dev", vr, "up"])
        addr = "%s.%d" % (lan["net"], lan["next"])
        lan["next"] += 1
        run(["ip", "-n", ns, "addr", "add", addr + "/24", "dev", vn])
        run(["ip", "-n", ns, "link", "set", "dev", vn, "up"])
        run(["ip", "-n", ns, "link", "set", "dev", "lo", "up"])
        h = {"ns": ns, "veth": vr, "addr": addr, "peer": lan["peer"]}
        self.hosts[name] = h
        R.note("%s: namespace %s, veth %s on %s, address %s" %
               (name, ns, vr, lan["bridge"], addr))
        return h

    def add_lan_hosts(self, names):
        """One LAN (add_lan() on a free subnet) with a host of each name
        (add_lan_host()), each reachable: {name: host}.  Failed when
        one is not."""
        self.add_lan(self.pick_subnets(1)[0])
        hosts = {n: self.add_lan_host(n) for n in names}
        for n in names:
            if not self.wait_reachable(hosts[n]):
                raise Failed("%s not reachable" % hosts[n]["addr"])
        return hosts

    def close(self, check, what=""):
        """teardown(), then check(ok, name, detail) (R.check's
        signature) that everything made is gone; `what' prefixes the
        check's name ("N: ")."""
        self.teardown()
        if self.namespaces:
            left = self.leftovers()
            check(not left, "%severy namespace, veth and bridge this run "
                  "made is gone" % what, "left: %r" % left)

    def wait_reachable(self, h, timeout=10):
        """Until the namespace side answers ARP (ping is not used: a TCP
        connect to a closed port is refused once the link is up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(1)
            try:
                s.connect((h["addr"], self.port))
                return True
            except ConnectionRefusedError:
                return True
            except OSError:
                time.sleep(0.05)
            finally:
                s.close()
        return False

    def pids(self, ns):
        """The processes in namespace `ns' now."""
        rc, out = run(["ip", "netns", "pids", ns], check=False)
        if rc != 0:
            return set()
        return {int(p) for p in out.split() if p.isdigit()}

    def leftover_pids(self):
        pids = set()
        for ns in self.namespaces:
            pids |= self.pids(ns)
        return pids

    def teardown(self):
        """Delete what we made.  Processes still inside our namespaces
        can only be ours: they are stopped by PID first."""
        for pid in sorted(self.leftover_pids()):
            if alive(pid):
                stop_pid(pid, None, 5)
        for ns in self.namespaces:
            run(["ip", "netns", "del", ns], check=False)
        for vr in self.links:
            # Gone with its peer's namespace; make sure (and the bridge).
            if run(["ip", "link", "show", "dev", vr], check=False)[0] == 0:
                run(["ip", "link", "del", "dev", vr], check=False)

    def leftovers(self):
        left = []
        rc, out = run(["ip", "netns", "list"], check=False)
        names = {ln.split()[0] for ln in out.splitlines() if ln.strip()}
        left += [ns for ns in self.namespaces if ns in names]
        left += [vr for vr in self.links
                 if run(["ip", "link", "show", "dev", vr],
                        check=False)[0] == 0]
        return left
