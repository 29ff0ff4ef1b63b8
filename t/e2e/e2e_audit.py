#!/usr/bin/env python3
"""e2e_audit.py - the audit line (wymcp-fcgi --audit-log), through nginx.

Usage: e2e_audit.py [--builddir DIR] [--keep] [--cache DIR]

Starts wymcp-fcgi (4 workers, the examples and echo modules, a SQLite
task store with a runner, --audit-log FILE, --audit-headers) behind a
private nginx that serves the shipped deploy/nginx/wymcp.conf (which
passes $request_id as WYMCP_REQUEST_ID) and logs with the shipped
deploy/nginx/audit.conf's log_format, and proves:

  A  with the official TypeScript client v2 (pinned as in
     e2e_sdk_listen.py): a book_room of two questions (alice), a tool
     error (a client that cannot be asked) and a task (its tasks/get
     sent raw: the client v2 has no tasks API) make the audit lines
     expected, in order: principal, client name
     and version, protocol, tool, round, outcome, question keys, task
     id, status; every line carries the request id nginx logged for the
     same request, and nginx's line shows the same outcome from the
     Wymcp-* headers, which the client never sees;
  D  the arguments' digest: the same for the same arguments (whatever
     their order), different for others, no argument text in the line;
  T  a W3C traceparent in params._meta, or else the HTTP header, gives
     the line its trace id;
  R  under load from 8 connections at a time, the file renamed and
     SIGUSR1 sent to the supervisor: a new file starts, every line is
     whole JSON, and no request's line is lost (old + new file hold
     exactly one line per request id nginx logged).

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import json
import os
import shutil
import signal
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
import wymcp_e2e			# noqa: E402
import wymcp_observe			# noqa: E402
from wymcp_e2e import R, Client, enc, hlist, std_headers  # noqa: E402
from wymcp_observe import META, SRCDIR, tools_call  # noqa: E402

AUDIT_CONF = os.path.join(SRCDIR, "deploy", "nginx", "audit.conf")
HIDE = ["Wymcp-Principal", "Wymcp-Client", "Wymcp-Target", "Wymcp-Round",
        "Wymcp-Outcome", "Wymcp-Code", "Wymcp-Task", "Wymcp-Args-Digest"]
TASKS = "io.modelcontextprotocol/tasks"

SCRIPT = r"""
// The TypeScript client v2 makes the calls whose audit lines are read.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
const [base] = process.argv.slice(2);
const out = {};
const modern = { mode: 'auto' };
// What came back (the client v2 has no tasks API: a task's id is read
// from the response as the transport's fetch saw it).
const seen = [];
async function spy(url, init) {
  const r = await fetch(url, init);
  try { seen.push(await r.clone().json()); } catch (e) { }
  return r;
}
async function client(name, path, caps) {
  const c = new Client({ name, version: '2.0.1' },
      { versionNegotiation: modern, capabilities: caps });
  await c.connect(new StreamableHTTPClientTransport(new URL(base + path),
      { fetch: spy }));
  return c;
}
// alice books a room: two questions, answered in turn.
const a = await client('audit-alice', '/mcp-alice', { elicitation: {} });
const answers = [{ room: 'Borealis' }, { people: 3 }];
let n = 0;
a.setRequestHandler('elicitation/create', async () =>
    ({ action: 'accept', content: answers[n++] }));
out.book = await a.callTool({ name: 'book_room',
    arguments: { day: '2026-12-24' } });
await a.close();
// A client that cannot be asked: book_room answers with isError.
const b = await client('audit-plain', '/mcp', {});
out.plain = await b.callTool({ name: 'book_room',
    arguments: { day: '2026-12-25' } });
await b.close();
// The tasks extension: book_room becomes a task.
const t = await client('audit-tasks', '/mcp',
    { elicitation: {}, extensions: { '""" + TASKS + r"""': {} } });
try {
  out.task = await t.request({ method: 'tools/call', params: {
      name: 'book_room', arguments: { day: '2026-12-26' } } });
} catch (e) { out.task_error = String(e); }
const id = seen.map(m => m?.result?.taskId).filter(x => x).pop();
out.task_id = id ?? null;
await t.close();
console.log('RESULT ' + JSON.stringify(out));
process.exit(0);
"""


class AuditHarness(wymcp_observe.Harness):
    def fcgi_args(self):
        self.access = os.path.join(self.tmp, "access.log")
        return ["--audit-log", self.audit, "--audit-headers",
                "--task-store", "sqlite:" +
                os.path.join(self.tmp, "tasks.db"), "--task-runners", "1"]

    def nginx_conf(self, sock, port, port2):
        t = self.tmp
        self.deploy_conf()
        shutil.copy(AUDIT_CONF, os.path.join(t, "wymcp-audit.conf"))
        hide = "".join("\t\tfastcgi_hide_header %s;\n" % h for h in HIDE)
        return wymcp_e2e.nginx_preamble(t) + """\
	include wymcp-audit.conf;
	server {{
		listen 127.0.0.1:{port};
		server_name localhost;
		access_log {access} wymcp_audit;
{hide}		include wymcp-deploy.conf;
		location = /mcp-alice {{
			include fastcgi_params;
			fastcgi_param REMOTE_USER "";
			fastcgi_param WYMCP_REQUEST_ID $request_id;
			fastcgi_param WYMCP_PRINCIPAL "alice";
			fastcgi_pass unix:{sock};
			fastcgi_keep_conn off;
			fastcgi_buffering off;
			fastcgi_intercept_errors off;
		}}
	}}
	server {{
		listen 127.0.0.1:{port2};
		server_name localhost;
	}}
}}
""".format(port=port, port2=port2, access=self.access, hide=hide,
           sock=sock)


def lines(path):
    """The JSON lines of `path' (a line that does not parse is kept as
    {"bad": text})."""
    out = []
    try:
        with open(path, "rb") as f:
            for raw in f.read().split(b"\n"):
                if not raw:
                    continue
                try:
                    out.append(json.loads(raw.decode("utf-8")))
                except ValueError:
                    out.append({"bad": raw[:200].decode("latin-1")})
    except FileNotFoundError:
        pass
    return out


def settle(path, n, timeout=10):
    """Wait until `path' holds at least n lines (nginx logs a request
    after its response; wymcp after writing it)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and len(lines(path)) < n:
        time.sleep(0.05)
    return lines(path)


def tasks_get(h, task_id):
    """tasks/get through nginx (the client v2 has no tasks API)."""
    meta = dict(META)
    meta["io.modelcontextprotocol/clientCapabilities"] = {
        "extensions": {TASKS: {}}}
    body = {"jsonrpc": "2.0", "id": 9, "method": "tasks/get",
            "params": {"taskId": task_id, "_meta": meta}}
    return Client(h.port).send("POST", "/mcp", enc(body),
                               hlist(std_headers("tasks/get", task_id)))


def section_a(h, out):
    if out.get("task_id"):
        r = tasks_get(h, out["task_id"])
        R.check(r.status == 200 and (r.json or {}).get("result", {}).get(
                "taskId") == out["task_id"],
                "A: tasks/get of the task the client v2 made", r.brief())
    # The runner takes the task when it can: wait for its line.
    end = time.monotonic() + 15
    while True:
        every = lines(h.audit)
        runs = [x for x in every if x.get("task_run")]
        if runs or time.monotonic() > end:
            break
        time.sleep(0.1)
    calls = [x for x in every if not x.get("task_run") and
             x.get("method") in ("tools/call", "tasks/get")]
    got = [(x.get("tool"), x.get("principal"), x.get("round"),
            x.get("outcome"), x.get("questions")) for x in calls]
    want = [("book_room", "alice", 0, "input_required", ["elicit-1"]),
            ("book_room", "alice", 1, "input_required", ["elicit-2"]),
            ("book_room", "alice", 2, "complete", None),
            ("book_room", None, 0, "tool_error", None),
            ("book_room", None, 0, "task", None),
            (None, None, None, "complete", None)]
    R.check(got == want, "A: book_room in two rounds, a tool error, a "
            "task and its tasks/get: the audit lines expected, in order",
            "%r" % (got,))
    text = (out.get("book") or {}).get("content", [{}])[0].get("text", "")
    R.check(text == "Booked Borealis for 3 on 2026-12-24.",
            "A: the client's book_room completed", repr(out)[:300])
    R.check((out.get("plain") or {}).get("isError") is True,
            "A: the plain client got the tool error", repr(out)[:300])
    if len(calls) == len(want):
        alice = calls[:3]
        R.check(all(x.get("client_name") == "audit-alice" and
                    x.get("client_version") == "2.0.1" and
                    x.get("protocol") == "2026-07-28" and
                    x.get("status") == 200 and
                    x.get("bytes_in", 0) > 0 and
                    x.get("bytes_out", 0) > 0 and
                    isinstance(x.get("duration_ms"), float) and
                    x.get("time", "").endswith("Z")
                    for x in alice),
                "A: each line names the client, its version, the "
                "protocol, the status, bytes in and out, the time and "
                "duration", json.dumps(alice[0]))
        R.check(calls[3].get("address") == "127.0.0.1" and
                "principal" not in calls[3],
                "A: an anonymous caller is named by its address",
                json.dumps(calls[3]))
        R.check(out.get("task_id") is not None and
                calls[4].get("task_id") == out.get("task_id") and
                calls[5].get("task_id") == out.get("task_id"),
                "A: the task's line and its tasks/get's carry its id",
                "%r; %s" % (out.get("task_id"), json.dumps(calls[4:])))
        R.check(len({x.get("worker") for x in lines(h.audit)}) >= 1 and
                all(isinstance(x.get("worker"), int) and
                    ":" in x.get("instance", "") for x in calls),
                "A: instance and worker in every line",
                json.dumps(calls[0]))
    R.check(len(runs) == 1 and runs[0].get("task_id") ==
            out.get("task_id") and runs[0].get("tool") == "book_room" and
            runs[0].get("outcome") == "input_required" and
            "request_id" not in runs[0],
            "A: the task runner's run has a line of its own (task_run, "
            "the task id, no request id)", json.dumps(runs)[:400])
    # The request ids nginx logged, joined with wymcp's lines.
    audit = [x for x in lines(h.audit) if not x.get("task_run")]
    access = settle(h.access, len(audit))
    by_id = {x.get("request_id"): x for x in audit}
    joined = [(a, by_id.get(a.get("request_id"))) for a in access]
    R.check(len(access) == len(audit) and
            all(w is not None for _, w in joined),
            "A: every request nginx logged has the audit line of its "
            "$request_id (%d requests)" % len(access),
            "%d access, %d audit; unmatched %r" % (
                len(access), len(audit),
                [a.get("request_id") for a, w in joined if w is None][:3]))
    R.check(all(w is None or (a.get("outcome") or None) == w.get("outcome")
                for a, w in joined) and
            any(a.get("outcome") == "input_required" for a in access),
            "A: nginx's line has wymcp's outcome from the Wymcp-* headers",
            repr([(a.get("outcome"), (w or {}).get("outcome"))
                  for a, w in joined][:8]))


def section_d(h):
    n = len(lines(h.audit))  # (the task's run wrote its line already)
    r1 = tools_call(h.port, {"text": "secret-1", "b": 1}, rid=1)
    r2 = tools_call(h.port, {"b": 1, "text": "secret-1"}, rid=2)
    r3 = tools_call(h.port, {"text": "secret-2"}, rid=3)
    hide = [k for k, _ in r1.headers if k.lower().startswith("wymcp-")]
    R.check(r1.status == 200 and not hide,
            "D: the client sees none of the Wymcp-* headers",
            "%d %r" % (r1.status, hide))
    new = settle(h.audit, n + 3)[n:]
    d = [x.get("args_digest") for x in new]
    R.check(len(d) == 3 and d[0] is not None and len(d[0]) == 32 and
            d[0] == d[1] and d[0] != d[2],
            "D: the arguments' digest: the same for the same arguments in "
            "any order, another for others", repr(d))
    R.check(all("secret" not in json.dumps(x) for x in new),
            "D: no argument text in the lines", json.dumps(new)[:300])
    return r2, r3


def section_t(h):
    n = len(lines(h.audit))
    tp1 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    tp2 = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    t = {"text": "t"}
    tools_call(h.port, t, rid=1, meta_extra={"traceparent": tp1})
    tools_call(h.port, t, rid=2, headers=[("traceparent", tp2)])
    tools_call(h.port, t, rid=3, meta_extra={"traceparent": tp1},
               headers=[("traceparent", tp2)])
    tools_call(h.port, t, rid=4, meta_extra={"traceparent": "00-zz"})
    new = settle(h.audit, n + 4)[n:]
    got = [x.get("trace_id") for x in new]
    R.check(got == [tp1[3:35], tp2[3:35], tp1[3:35], None],
            "T: the trace id from params._meta.traceparent, else the HTTP "
            "traceparent header; none from a malformed one", repr(got))


def section_r(h):
    n0 = len([x for x in lines(h.audit) if not x.get("task_run")])
    a0 = len(lines(h.access))
    stop = threading.Event()
    sent = [0]
    lock = threading.Lock()

    def load():
        c = Client(h.port)
        body = enc({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "x"},
                               "_meta": META}})
        hd = hlist(std_headers("tools/call", "echo"))
        while not stop.is_set():
            try:
                c.send("POST", "/mcp", body, hd)
            except OSError:
                pass
            with lock:
                sent[0] += 1

    ts = [threading.Thread(target=load) for _ in range(8)]
    for t in ts:
        t.start()
    try:
        while sent[0] < 300:
            time.sleep(0.05)
        os.rename(h.audit, h.audit + ".1")
        os.kill(h.sup, signal.SIGUSR1)
        mark = sent[0]
        while sent[0] < mark + 300:
            time.sleep(0.05)
    finally:
        stop.set()
        for t in ts:
            t.join()
    total = sent[0]
    access = settle(h.access, a0 + total)[a0:]
    old = [x for x in lines(h.audit + ".1") if not x.get("task_run")]
    new = [x for x in lines(h.audit) if not x.get("task_run")]
    both = old[n0:] + new
    ids = [x.get("request_id") for x in both]
    want = [a.get("request_id") for a in access]
    R.check(len(new) > 0 and len(old) > n0,
            "R: SIGUSR1 after a rename starts a new file (%d lines in the "
            "renamed one, %d in the new)" % (len(old) - n0, len(new)),
            "old %d new %d" % (len(old) - n0, len(new)))
    R.check(not any("bad" in x for x in old + new),
            "R: every line is whole JSON under load from 8 connections "
            "and 4 workers",
            repr([x for x in old + new if "bad" in x][:2]))
    R.check(len(ids) == len(set(ids)) and sorted(ids) == sorted(want) and
            len(want) == total,
            "R: no line lost: one line per request nginx logged (%d)" %
            total, "%d lines, %d distinct, %d logged, %d sent" % (
                len(ids), len(set(ids)), len(want), total))


def sections(h, out):
    R.note("client: task %s" % json.dumps({k: out.get(k) for k in
                                           ("task", "task_error", "get",
                                            "get_error")})[:600])
    section_a(h, out)
    section_d(h)
    section_t(h)
    section_r(h)


if __name__ == "__main__":
    sys.exit(wymcp_observe.main(AuditHarness, sections, "audit.mjs", SCRIPT,
                                e2e_sdk_listen.provision))
