"""wymcp_legacy - a 2025-11-25 client by raw HTTP, for the scripts that
hold its questions open (t/e2e/e2e_legacy_ask.py, e2e_cluster_soak.py):
one POST per socket, read as it comes; initialize, book_room on the
held stream, the questions' ids and the answers posted back.  Requests
carry X-Test-Principal, which the tests' nginx passes as WYMCP_PRINCIPAL.

Found through PYTHONPATH=t/e2e/lib.  Python 3 standard library only.
"""

import json
import re
import socket
import time

DAY = "2026-12-01"


class Raw:
    """One HTTP/1.1 POST on its own socket, read as it comes."""

    def __init__(self, port, body, principal, session=None,
                 accept="application/json, text/event-stream",
                 path="/mcp"):
        data = json.dumps(body).encode()
        head = ["POST %s HTTP/1.1" % path, "Host: localhost",
                "Content-Type: application/json", "Accept: " + accept,
                "MCP-Protocol-Version: 2025-11-25",
                "X-Test-Principal: " + principal,
                "Content-Length: %d" % len(data), "Connection: close"]
        if session:
            head.append("Mcp-Session-Id: " + session)
        self.s = socket.create_connection(("127.0.0.1", port), 10)
        self.s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        self.buf = b""

    def until(self, pat, timeout=10.0):
        """Read until `pat' (bytes regex) matches; the match or None."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pat, self.buf, re.S)
            if m:
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                b = self.s.recv(65536)
            except socket.timeout:
                return None
            if not b:
                return re.search(pat, self.buf, re.S)
            self.buf += b

    def all(self, timeout=15.0):
        self.until(rb"\Z(?!x)x", timeout)	# read to the end
        return self.buf

    def status(self):
        m = re.match(rb"HTTP/1\.1 (\d+)", self.buf)
        return int(m.group(1)) if m else 0

    def close(self):
        self.s.close()


def events(raw):
    """The JSON messages of an SSE body."""
    out = []
    for m in re.finditer(rb"^data: (.*)$", raw, re.M):
        try:
            out.append(json.loads(m.group(1)))
        except ValueError:
            pass
    return out


def post(port, body, principal, session=None, path="/mcp"):
    r = Raw(port, body, principal, session, path=path)
    r.all()
    r.close()
    return r


def initialize(port, principal, path="/mcp"):
    r = post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25",
                               "capabilities": {"elicitation": {},
                                                "sampling": {},
                                                "roots": {}},
                               "clientInfo": {"name": "raw",
                                              "version": "1"}}},
             principal, path=path)
    m = re.search(rb"(?im)^mcp-session-id: *(\S+)", r.buf)
    return m.group(1).decode() if m else None


def book(port, principal, session, rid, path="/mcp"):
    return Raw(port, {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                      "params": {"name": "book_room",
                                 "arguments": {"day": DAY}}},
               principal, session, path=path)


QUESTION = rb'data: (\{[^\n]*"method":"elicitation/create"[^\n]*)\n'


def question_id(raw, nth=1):
    """The id of the nth elicitation/create on the stream so far."""
    qs = [e for e in events(raw.buf) if e.get("method") ==
          "elicitation/create"]
    return qs[nth - 1]["id"] if len(qs) >= nth else None


def answer_body(qid, content):
    return {"jsonrpc": "2.0", "id": qid,
            "result": {"action": "accept", "content": content}}


def answer(port, principal, session, qid, content, path="/mcp"):
    return post(port, answer_body(qid, content), principal, session,
                path=path)
