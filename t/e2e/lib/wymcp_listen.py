"""wymcp_listen - a listen stream as a client holds it, for the scripts
that test the hub (t/e2e/e2e_listen.py, e2e_bus.py): HTTP/1.0 through
nginx, the SSE frames parsed one by one as they come.

Found through PYTHONPATH=t/e2e/lib.  Python 3 standard library only.
"""

import json
import os
import shutil
import socket

import wymcp_e2e
import wymcp_schema
from wymcp_e2e import enc, rpc, std_headers

SUB = "io.modelcontextprotocol/subscriptionId"
STATUS = "/wymcp-status"


class HubHarness(wymcp_e2e.Harness):
    """wymcp-fcgi with its modules in a directory (--module DIR, read
    again at each reload: self.moddir), notes in $WYMCP_NOTES_DIR, a
    status page at STATUS, and `hub_args' besides."""

    hub_args = []
    status_path = STATUS

    def start_fcgi(self):
        self.notes = os.path.join(self.tmp, "notes")
        os.makedirs(self.notes)
        os.environ["WYMCP_NOTES_DIR"] = self.notes
        self.moddir = os.path.join(self.tmp, "modules")
        os.makedirs(self.moddir)
        for m in self.mods:
            shutil.copy(m, self.moddir)
        self.mods = [self.moddir]
        self.extra_args = list(self.hub_args) + ["--status-path", STATUS]
        wymcp_e2e.Harness.start_fcgi(self)


class Stream(wymcp_e2e.RawReader):
    """A listen as a client holds it: HTTP/1.0 through nginx, the SSE
    frames parsed as they come."""

    def __init__(self, port, notifications, rid, path="/mcp", rcvbuf=None):
        self.rid = rid
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.connect(("127.0.0.1", port))
        body = enc(rpc(rid, "subscriptions/listen",
                       {"notifications": notifications}))
        head = "POST %s HTTP/1.0\r\nHost: localhost\r\n" % path
        for k, v in std_headers("subscriptions/listen").items():
            head += "%s: %s\r\n" % (k, v)
        head += "Content-Length: %d\r\n\r\n" % len(body)
        self.s.sendall(head.encode() + body)
        self.buf = b""
        self.status = None
        self.headers = ""
        self.frames = []	# parsed JSON messages, in order
        self.comments = []
        self.eof = False

    def _parse(self):
        if self.status is None:
            i = self.buf.find(b"\r\n\r\n")
            if i < 0:
                return
            head = self.buf[:i].decode("latin-1")
            self.buf = self.buf[i + 4:]
            self.status = int(head.split()[1])
            self.headers = head
        while True:
            i = self.buf.find(b"\n\n")
            if i < 0:
                return
            ev = self.buf[:i].decode("utf-8", "replace")
            self.buf = self.buf[i + 2:]
            for line in ev.split("\n"):
                if line.startswith("data: "):
                    try:
                        self.frames.append(json.loads(line[6:]))
                    except ValueError:
                        self.frames.append({"unparsable": line})
                        continue
                    self._check(self.frames[-1])
                elif line.startswith(":"):
                    self.comments.append(line)

    def _check(self, msg):
        """A frame of a 2026-07-28 listen, against schema.json (the
        notifications, subscriptionId included, and the result)."""
        sc = wymcp_schema
        if not sc.C.load():
            return
        probs = sc.check_message(sc.MODERN,
                                 {"method": "subscriptions/listen"}, msg)
        sc.C.checked += 1
        if probs:
            wymcp_e2e.R.fail("2026-07-28 listen frame matches schema.json",
                             "; ".join(probs) + " -- " +
                             json.dumps(msg)[:300])

    def methods(self):
        return [f.get("method") for f in self.frames]

    def notes(self, method):
        return [f for f in self.frames if f.get("method") == method]


def drain(s):
    """Read `s' until nothing has come for 50 ms."""
    n = -1
    while n != len(s.buf) + len(s.frames):
        n = len(s.buf) + len(s.frames)
        s.pump(0.05)


def tagged(frames, rid):
    """Does every frame carry the subscription id `rid'?"""
    return all(f.get("params", f.get("result", {})).get("_meta", {})
               .get(SUB) == rid for f in frames)
