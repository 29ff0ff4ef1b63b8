#!/usr/bin/env python3
"""e2e_otlp.py - spans to an OTLP receiver (wymcp-fcgi --otlp-endpoint).

Usage: e2e_otlp.py [--builddir DIR] [--keep] [--cache DIR] [--otel DIR]

The receiver is built from the OpenTelemetry project's own code: the
generated protobuf types of opentelemetry-proto shipped in the npm
package @opentelemetry/otlp-transformer (pinned, with protobufjs, into
--otel, default _build/otel).  It takes OTLP/HTTP JSON posts, maps
each onto opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest
(fromObject, encode, decode: a member the proto does not name is lost
on the way, a wrong type fails), and writes the spans it decoded, one
JSON line each.  wymcp-fcgi (2 workers, the examples module, a status
page, --otlp-endpoint) runs behind a private nginx.  Proves:

  C  the TypeScript client v2 (pinned as in e2e_sdk_listen.py) books a
     room in two questions and gets a tool error, its requests carrying
     a client span's traceparent in params._meta: four SERVER spans of
     that trace, children of the client's span, named "tools/call
     book_room", with mcp.method.name, gen_ai.tool.name,
     gen_ai.operation.name execute_tool, jsonrpc.request.id,
     mcp.protocol.version, wymcp.round 0, 1, 2, and error.type
     tool_error on the tool error's (status ERROR);
  H  without _meta's, the HTTP traceparent header is the parent; with
     neither, a root span of a new trace; a JSON-RPC error's span has
     error.type and rpc.response.status_code;
  T  a task made in that trace: the runner's run of it is an INTERNAL
     span of the trace, a child of the tools/call that made it;
  M  the status page's Prometheus text: the
     mcp_server_operation_duration_seconds histogram per method, tool
     and outcome counts those calls (cumulative buckets, +Inf equal to
     the count), and a tool name a client made up makes no series;
  K  the exporter SIGKILLed: the supervisor forks another, and the
     next request's span arrives;
  X  the mcp.server.operation.duration histogram the exporter posts to
     /v1/metrics (--otlp-metrics-interval 1), mapped onto the official
     ExportMetricsServiceRequest the same way: unit s, a histogram,
     cumulative, the convention's bucket boundaries, every SERVER span
     counted; then calls of known outcome (a tool's input_required, a
     tool error, a JSON-RPC error, a tools/list) move the counts per
     mcp.method.name, gen_ai.tool.name and error.type by exactly those
     calls, with mcp.protocol.version, rpc.response.status_code and
     sums > 0;
  D  the receiver down: requests are answered as before, and the
     status page counts the spans and metrics posts the endpoint did
     not take;
  E  wymcp-fcgi again with --otlp-metrics-interval 3600: no post during
     the calls, and the one the exporter makes as it stops (SIGTERM to
     the supervisor) carries them: nothing of the last interval is lost;
     the supervisor waits for it (systemd's KillMode=mixed would SIGKILL
     an exporter left behind).

Prints "ok - NAME" / "not ok - NAME: DETAIL" and "N passed, M failed";
exit 77 without nginx or npm.  Python 3 standard library only.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "lib")]
import e2e_sdk_listen			# the pinned clients  # noqa: E402
import wymcp_conformance		# npm  # noqa: E402
import wymcp_e2e			# noqa: E402
from wymcp_e2e import R, Client, enc, hlist, std_headers  # noqa: E402

SRCDIR = os.path.dirname(os.path.dirname(HERE))
STATUS = "/wymcp-status"
OTEL = [("@opentelemetry/otlp-transformer", "0.57.2"),
        ("protobufjs", "7.4.0")]
CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
METRIC = "mcp.server.operation.duration"
BOUNDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

RECEIVER = r"""
// An OTLP/HTTP (JSON) trace receiver on the official proto types.
import { createRequire } from 'node:module';
import * as http from 'node:http';
import * as fs from 'node:fs';
const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const T = root.opentelemetry.proto.collector.trace.v1
    .ExportTraceServiceRequest;
const M = root.opentelemetry.proto.collector.metrics.v1
    .ExportMetricsServiceRequest;
const [port, out, mout] = process.argv.slice(2);
// A metrics post: mapped the same way; one line per post.
function metrics(body) {
  const msg = M.decode(M.encode(M.fromObject(JSON.parse(body))).finish());
  const d = M.toObject(msg, { longs: String, enums: String,
      bytes: String, defaults: false, arrays: true });
  fs.appendFileSync(mout, JSON.stringify(d) + '\n');
}
// OTLP/JSON writes trace and span ids as hex (not proto3 JSON's base64).
const b64 = h => Buffer.from(h ?? '', 'hex').toString('base64');
const hex = b => Buffer.from(b ?? '', 'base64').toString('hex');
http.createServer((req, res) => {
  let body = '';
  req.on('data', c => { body += c; });
  req.on('end', () => {
    let ok = req.method === 'POST' &&
        (req.headers['content-type'] ?? '').startsWith('application/json');
    if (ok && req.url === '/v1/metrics') {
      try { metrics(body); } catch (e) {
        ok = false;
        fs.appendFileSync(mout, JSON.stringify({ error: String(e) }) + '\n');
      }
      res.writeHead(ok ? 200 : 400, { 'Content-Type': 'application/json' });
      res.end('{}');
      return;
    }
    ok = ok && req.url === '/v1/traces';
    try {
      const o = JSON.parse(body);
      for (const rs of o.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) {
            s.traceId = b64(s.traceId); s.spanId = b64(s.spanId);
            if (s.parentSpanId) s.parentSpanId = b64(s.parentSpanId);
          }
      const msg = T.decode(T.encode(T.fromObject(o)).finish());
      const d = T.toObject(msg, { longs: String, enums: String,
          bytes: String, defaults: false });
      for (const rs of d.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? []) {
            s.traceId = hex(s.traceId); s.spanId = hex(s.spanId);
            if (s.parentSpanId) s.parentSpanId = hex(s.parentSpanId);
            s.resource = rs.resource; s.scope = ss.scope;
            fs.appendFileSync(out, JSON.stringify(s) + '\n');
          }
    } catch (e) {
      ok = false;
      fs.appendFileSync(out, JSON.stringify({ error: String(e) }) + '\n');
    }
    res.writeHead(ok ? 200 : 400, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
}).listen(Number(port), '127.0.0.1', () => console.log('LISTENING'));
"""

CLIENT = r"""
// The TypeScript client v2, its calls in a client span's context.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
const [url, tp] = process.argv.slice(2);
const out = {};
const meta = { traceparent: tp };
const a = new Client({ name: 'otlp-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' },
      capabilities: { elicitation: {} } });
const answers = [{ room: 'Aurora' }, { people: 5 }];
let n = 0;
a.setRequestHandler('elicitation/create', async () =>
    ({ action: 'accept', content: answers[n++] }));
await a.connect(new StreamableHTTPClientTransport(new URL(url)));
out.book = (await a.callTool({ name: 'book_room',
    arguments: { day: '2026-12-24' }, _meta: meta })).content?.[0]?.text;
const b = new Client({ name: 'otlp-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: {} });
await b.connect(new StreamableHTTPClientTransport(new URL(url)));
out.error = (await b.callTool({ name: 'book_room',
    arguments: { day: '2026-12-25' }, _meta: meta })).isError ?? false;
await a.close(); await b.close();
console.log('RESULT ' + JSON.stringify(out));
process.exit(0);
"""


class OtlpHarness(wymcp_e2e.Harness):
    status_path = STATUS

    def __init__(self, builddir, keep=False):
        wymcp_e2e.Harness.__init__(self, builddir, keep)
        self.nworkers = 2
        self.tools = ["examples"]
        self.rport = wymcp_e2e.free_port()
        self.minterval = 1

    def start_fcgi(self):
        os.environ["WYMCP_NOTES_DIR"] = self.tmp
        self.extra_args = ["--otlp-endpoint",
                           "http://127.0.0.1:%d/v1/traces" % self.rport,
                           "--otlp-metrics-interval", str(self.minterval),
                           "--status-path", STATUS,
                           "--task-store", "sqlite:" +
                           os.path.join(self.tmp, "tasks.db"),
                           "--task-runners", "1"]
        wymcp_e2e.Harness.start_fcgi(self)


def provision_otel(cache):
    cache = os.path.abspath(cache)
    specs = ["%s@%s" % (p, v) for p, v in OTEL
             if wymcp_conformance.pkg_version(cache, p) != v]
    if specs:
        wymcp_conformance.npm_install(cache, specs)
    with open(os.path.join(cache, "receiver.mjs"), "w") as f:
        f.write(RECEIVER)
    return cache


def spans(path, n=0, timeout=10):
    """The spans the receiver wrote, once there are at least n."""
    end = time.monotonic() + timeout
    while True:
        got = []
        try:
            with open(path) as f:
                got = [json.loads(x) for x in f if x.strip()]
        except FileNotFoundError:
            pass
        if len(got) >= n or time.monotonic() > end:
            return got
        time.sleep(0.1)


def attrs(s):
    out = {}
    for a in s.get("attributes", []):
        v = a.get("value", {})
        out[a["key"]] = v.get("stringValue", v.get("intValue"))
    return out


def raw(port, headers=(), meta_tp=None, name="book_room", rid=7,
        method="tools/call", caps=None, version="2026-07-28"):
    meta = {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "raw",
                                                   "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": caps or {}}
    if meta_tp:
        meta["traceparent"] = meta_tp
    params = {"name": name, "arguments": {"day": "x"}, "_meta": meta}
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    h = hlist(std_headers(method, name)) + list(headers)
    return Client(port).send("POST", "/mcp-anon", enc(body), h)


def section_c(h, out, got):
    mine = [s for s in got if s.get("traceId") == CLIENT_TRACE]
    R.check(out.get("book") == "Booked Aurora for 5 on 2026-12-24." and
            out.get("error") is True, "C: the client v2's calls: a "
            "book_room in two questions and a tool error", json.dumps(out))
    R.check(not any("error" in s and "traceId" not in s for s in got),
            "C: every post maps onto the official ExportTraceServiceRequest",
            json.dumps([s for s in got if "error" in s])[:300])
    calls = [s for s in mine if s.get("name") == "tools/call book_room"]
    R.check(len(calls) == 4 and all(
        s.get("parentSpanId") == CLIENT_SPAN and
        s.get("kind") == "SPAN_KIND_SERVER" for s in calls) and
        len({s["spanId"] for s in calls}) == 4,
        "C: four SERVER spans of the client's trace, children of its span",
        json.dumps(mine)[:500])
    a = [attrs(s) for s in sorted(calls, key=lambda s:
                                  int(s.get("startTimeUnixNano", 0)))]
    R.check(all(x.get("mcp.method.name") == "tools/call" and
                x.get("gen_ai.tool.name") == "book_room" and
                x.get("gen_ai.operation.name") == "execute_tool" and
                x.get("mcp.protocol.version") == "2026-07-28" and
                x.get("jsonrpc.request.id") is not None for x in a),
            "C: the convention's attributes: mcp.method.name, "
            "gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id, "
            "mcp.protocol.version", json.dumps(a)[:500])
    rounds = [x.get("wymcp.round") for x in a]
    R.check(rounds == ["0", "1", "2", "0"],
            "C: each round of the elicitation is a span of the trace",
            repr(rounds))
    err = [s for s, x in zip(sorted(calls, key=lambda s: int(
        s.get("startTimeUnixNano", 0))), a)
        if x.get("error.type") == "tool_error"]
    R.check(len(err) == 1 and (err[0].get("status") or {}).get("code") ==
            "STATUS_CODE_ERROR" and int(err[0]["endTimeUnixNano"]) >=
            int(err[0]["startTimeUnixNano"]),
            "C: the tool error's span: error.type tool_error, status ERROR",
            json.dumps(err)[:400])
    res = (calls[0].get("resource") or {}).get("attributes", []) if calls \
        else []
    R.check(any(x.get("key") == "service.name" for x in res),
            "C: the resource names the service", json.dumps(res))


def section_h(h, path):
    n = len(spans(path))
    tp2 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    raw(h.port, [("traceparent", tp2)], rid=11)
    raw(h.port, rid=12)
    raw(h.port, [("traceparent", tp2)], rid=13, name="nosuch")
    got = spans(path, n + 3)[n:]
    by = {attrs(s).get("jsonrpc.request.id"): s for s in got}
    s11, s12, s13 = by.get("11", {}), by.get("12", {}), by.get("13", {})
    R.check(s11.get("traceId") == tp2[3:35] and
            s11.get("parentSpanId") == tp2[36:52],
            "H: the HTTP traceparent header is the parent without _meta's",
            json.dumps(s11)[:300])
    R.check(len(s12.get("traceId", "")) == 32 and
            s12.get("traceId") not in (tp2[3:35], CLIENT_TRACE) and
            not s12.get("parentSpanId"),
            "H: without either, a root span of a new trace",
            json.dumps(s12)[:300])
    a13 = attrs(s13)
    R.check(a13.get("error.type") not in (None, "tool_error") and
            a13.get("rpc.response.status_code") == a13.get("error.type"),
            "H: a JSON-RPC error's span: error.type and "
            "rpc.response.status_code", json.dumps(a13))


def section_t(h, path):
    """A task made in the client's trace: its run is a span of it."""
    n = len(spans(path))
    tp = "00-%s-%s-01" % (CLIENT_TRACE, CLIENT_SPAN)
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw",
                                                   "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}},
            "traceparent": tp}
    body = {"jsonrpc": "2.0", "id": 21, "method": "tools/call",
            "params": {"name": "book_room", "arguments": {"day": "d"},
                       "_meta": meta}}
    r = Client(h.port).send("POST", "/mcp-anon", enc(body), hlist(
        std_headers("tools/call", "book_room")))
    tid = ((r.json or {}).get("result") or {}).get("taskId")
    got = spans(path, n + 2)[n:]
    call = [s for s in got if attrs(s).get("jsonrpc.request.id") == "21"]
    run = [s for s in got if attrs(s).get("wymcp.task.id") == tid]
    R.check(tid is not None and len(call) == 1 and len(run) == 1 and
            run[0].get("traceId") == CLIENT_TRACE and
            run[0].get("parentSpanId") == call[0].get("spanId") and
            run[0].get("kind") == "SPAN_KIND_INTERNAL" and
            run[0].get("name") == "tools/call book_room",
            "T: a task's run is a span of the client's trace, a child of "
            "the call that made it", "%s %s" % (r.brief(),
                                               json.dumps(got)[:600]))


def histograms(h):
    r = Client(h.port).send("GET", STATUS + "?format=prometheus")
    text = r.raw.decode("utf-8", "replace")
    series = {}
    for line in text.splitlines():
        m = re.match(r'mcp_server_operation_duration_seconds_(bucket|count)'
                     r'\{mcp_method_name="([^"]*)",gen_ai_tool_name="([^"]*)",'
                     r'outcome="([^"]*)"(?:,le="([^"]*)")?\} (\d+)$', line)
        if m:
            kind, meth, tool, outc, le, v = m.groups()
            s = series.setdefault((meth, tool, outc), {"b": []})
            if kind == "count":
                s["count"] = int(v)
            else:
                s["b"].append((le, int(v)))
    return text, series


def section_m(h):
    text, series = histograms(h)
    count = {k[2]: v.get("count") for k, v in series.items()
             if k[:2] == ("tools/call", "book_room")}
    R.check(count.get("input_required") == 2 and
            count.get("complete") == 1 and count.get("tool_error") == 1,
            "M: the histogram counts book_room's calls by outcome",
            repr(count))
    ok = all([c for _, c in v["b"]] == sorted(c for _, c in v["b"]) and
             v["b"][-1] == ("+Inf", v.get("count")) for v in
             series.values() if v["b"])
    R.check(ok and len(series) > 0, "M: cumulative buckets, +Inf equal "
            "to the count", text[:300])


def exporter(h):
    return next((p for p in wymcp_e2e.children(h.sup)
                 if wymcp_e2e.comm(p) == "wymcp-otlp"), None)


def section_k(h, path):
    """The exporter killed: the supervisor starts another."""
    old = exporter(h)
    if old is None:
        R.fail("K: the exporter is a child of the supervisor", "none")
        return
    os.kill(old, signal.SIGKILL)
    end = time.monotonic() + 15
    new = None
    while time.monotonic() < end:
        new = exporter(h)
        if new is not None and new != old:
            break
        time.sleep(0.1)
    h.seen_pids.update(p for p in (old, new) if p)
    n = len(spans(path))
    raw(h.port, rid=31)
    got = spans(path, n + 1)[n:]
    R.check(new is not None and new != old and any(
        attrs(s).get("jsonrpc.request.id") == "31" for s in got),
        "K: the exporter SIGKILLed, the supervisor starts another, and "
        "spans go on", "old %r new %r, %d spans" % (old, new, len(got)))


def metric_posts(path, n=0, timeout=0.0, pred=None):
    """The metrics posts the receiver decoded, once there are n (and the
    last one satisfies pred), or the timeout passed."""
    end = time.monotonic() + timeout
    while True:
        got = []
        try:
            with open(path) as f:
                got = [json.loads(x) for x in f if x.strip()]
        except FileNotFoundError:
            pass
        if (len(got) >= n and (pred is None or (got and pred(got[-1])))) \
                or time.monotonic() > end:
            return got
        time.sleep(0.1)


def histogram(post):
    """The instance and the METRIC of a decoded post ({} without)."""
    rm = (post.get("resourceMetrics") or [{}])[0]
    inst = attrs(rm.get("resource") or {}).get("service.instance.id")
    ms = [m for sm in rm.get("scopeMetrics") or []
          for m in sm.get("metrics") or [] if m.get("name") == METRIC]
    return inst, (ms[0] if len(ms) == 1 else {})


def pkey(dp):
    a = attrs(dp)
    return (a.get("mcp.method.name"), a.get("gen_ai.tool.name"),
            a.get("error.type"))


def counts(post):
    m = histogram(post)[1]
    return {pkey(dp): int(dp.get("count", 0)) for dp in
            (m.get("histogram") or {}).get("dataPoints") or []}


def outcome_of(r, tool):
    """The point a call's answer falls in: (method, tool, error.type)."""
    j = r.json or {}
    if "error" in j:
        return ("tools/call", None, str(j["error"].get("code")))
    if (j.get("result") or {}).get("isError"):
        return ("tools/call", tool, "tool_error")
    return ("tools/call", tool, None)


def known_calls(h, rid):
    """Calls whose outcome the answers tell: the expected counts."""
    want = {}
    elicit = {"elicitation": {}}
    for name, caps in (("book_room", elicit), ("book_room", None),
                       ("book_room", elicit), ("nosuch", None)):
        r = raw(h.port, name=name, rid=rid, caps=caps)
        rid += 1
        k = outcome_of(r, name)
        want[k] = want.get(k, 0) + 1
    r = Client(h.port).send("POST", "/mcp-anon", enc(
        wymcp_e2e.rpc(rid, "tools/list")), hlist(std_headers("tools/list")))
    k = ("tools/list", None, None if "result" in (r.json or {}) else
         str(((r.json or {}).get("error") or {}).get("code")))
    want[k] = want.get(k, 0) + 1
    return want


def made_up(h, mpath, last):
    """Protocol versions a client made up: counted, in no set of theirs."""
    def total(post):
        return sum(counts(post).values())
    for i in range(3):
        raw(h.port, rid=350 + i, version="2031-01-0%d" % (i + 1))
    posts = metric_posts(mpath, 0, 20,
                         lambda p: total(p) == total(last) + 3)
    dps = (histogram(posts[-1])[1].get("histogram") or {}).get(
        "dataPoints") or [] if posts else []
    vs = {attrs(dp).get("mcp.protocol.version") for dp in dps}
    R.check(posts and total(posts[-1]) == total(last) + 3 and
            not any(v and v.startswith("2031") for v in vs),
            "X: three calls with protocol versions a client made up are "
            "counted, in no set of their own", repr(sorted(map(str, vs))))


def section_x(h, mpath, spath):
    """The histogram at /v1/metrics, by the official proto types."""
    def server():
        return [s for s in spans(spath)
                if s.get("kind") == "SPAN_KIND_SERVER"]

    def total(post):
        return sum(counts(post).values())
    # Both settle once the exporter has read every span: compare anew.
    posts = metric_posts(mpath, 1, 30, lambda p: total(p) == len(server()))
    server = server()
    R.check(posts and not any("error" in p for p in posts),
            "X: every metrics post maps onto the official "
            "ExportMetricsServiceRequest",
            json.dumps([p for p in posts if "error" in p])[:300])
    if not posts:
        return
    base = posts[-1]
    inst, m = histogram(base)
    hist = m.get("histogram") or {}
    R.check(m.get("unit") == "s" and hist.get("aggregationTemporality") ==
            "AGGREGATION_TEMPORALITY_CUMULATIVE" and inst and
            hist.get("dataPoints"),
            "X: %s: a histogram, unit s, cumulative, of the instance" % METRIC,
            json.dumps(m)[:400])
    R.check(total(base) == len(server) and len(server) >= 8,
            "X: every SERVER span of the run is counted",
            "%d counted, %d spans" % (total(base), len(server)))
    dps = hist.get("dataPoints") or []
    R.check(all(dp.get("explicitBounds") == BOUNDS and
                len(dp.get("bucketCounts") or []) == len(BOUNDS) + 1 and
                sum(int(c) for c in dp["bucketCounts"]) == int(dp["count"])
                and dp.get("sum", 0) > 0 and
                0 < dp.get("min", 0) <= dp.get("max", 0) <= dp["sum"]
                for dp in dps),
            "X: the convention's bucket boundaries, counts that add up, "
            "sums > 0", json.dumps(dps)[:500])
    before = counts(base)
    want = known_calls(h, 300)
    R.check(("tools/call", "book_room", "tool_error") in want and
            ("tools/call", "book_room", None) in want and
            any(k[2] not in (None, "tool_error") for k in want),
            "X: the calls made: input_required, a tool error, a JSON-RPC "
            "error", repr(want))
    expect = dict(before)
    for k, v in want.items():
        expect[k] = expect.get(k, 0) + v
    posts = metric_posts(mpath, len(posts) + 1, 20,
                         lambda p: counts(p) == expect)
    last = posts[-1] if posts else {}
    R.check(counts(last) == expect,
            "X: the counts per mcp.method.name, gen_ai.tool.name and "
            "error.type move by exactly the calls made",
            "want %r got %r" % (sorted(expect.items(), key=repr),
                                sorted(counts(last).items(), key=repr)))
    dps = {pkey(dp): dp for dp in (histogram(last)[1].get("histogram") or
                                   {}).get("dataPoints") or []}
    err = [dp for k, dp in dps.items() if k in want and
           k[2] not in (None, "tool_error")]
    a = [attrs(dp) for k, dp in dps.items() if k in want]
    R.check(all(x.get("mcp.protocol.version") == "2026-07-28" and
                x.get("network.transport") == "tcp" for x in a) and
            all(x.get("gen_ai.operation.name") == "execute_tool" for x in a
                if x.get("mcp.method.name") == "tools/call") and
            len(err) == 1 and attrs(err[0]).get("rpc.response.status_code")
            == attrs(err[0]).get("error.type") and
            all(dp.get("sum", 0) > 0 for dp in dps.values()),
            "X: the points' attributes: mcp.protocol.version, "
            "gen_ai.operation.name, network.transport, "
            "rpc.response.status_code; sums > 0", json.dumps(a)[:500])
    made_up(h, mpath, last)
    R.check(int(dps and list(dps.values())[0]["startTimeUnixNano"]) ==
            int(histogram(base)[1]["histogram"]["dataPoints"][0]
                ["startTimeUnixNano"]) and
            int(list(dps.values())[0]["timeUnixNano"]) >
            int(histogram(base)[1]["histogram"]["dataPoints"][0]
                ["timeUnixNano"]),
            "X: cumulative: the same start, a later time",
            json.dumps(list(dps.values())[:1])[:300])


def section_e(h, node, otel):
    """Stopped, the exporter posts what the interval had."""
    hits = h.sanitizer_reports()
    h.stop()
    hits += h.sanitizer_reports()
    R.check(not hits, "no sanitizer reports in the first wymcp-fcgi's log",
            "; ".join(hits[:5]))
    if not h.keep:
        shutil.rmtree(h.tmp, ignore_errors=True)
    spath = os.path.join(otel, "spans-e-%d.jsonl" % os.getpid())
    mpath = os.path.join(otel, "metrics-e-%d.jsonl" % os.getpid())
    for p in (spath, mpath):
        if os.path.exists(p):
            os.unlink(p)
    recv = subprocess.Popen([node, "receiver.mjs", str(h.rport), spath,
                             mpath], cwd=otel, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        if recv.stdout.readline().strip() != "LISTENING":
            raise wymcp_e2e.Failed("the receiver did not start again")
        h.minterval = 3600
        h.start()
        want = known_calls(h, 400)
        spans(spath, sum(want.values()))
        early = metric_posts(mpath)
        # As systemd's KillMode=mixed: SIGTERM to the supervisor alone;
        # once it is gone, what is left would be SIGKILLed.
        exp, sup = exporter(h), h.sup
        os.kill(sup, signal.SIGTERM)
        end = time.monotonic() + 30
        while wymcp_e2e.alive(sup) and time.monotonic() < end:
            time.sleep(0.01)
        left = exp is not None and wymcp_e2e.alive(exp)
        h.stop()
        posts = metric_posts(mpath, 1, 15)
        R.check(not early and len(posts) == 1 and counts(posts[0]) == want,
                "E: --otlp-metrics-interval 3600: the calls' points are "
                "posted as wymcp-fcgi stops", "early %d, posts %s, want %r" %
                (len(early), json.dumps(posts)[:400], want))
        R.check(exp is not None and not left,
                "E: the supervisor ends after the exporter's last post, "
                "not before", "exporter %r left %r" % (exp, left))
    finally:
        if recv.poll() is None:
            wymcp_e2e.stop_pid(recv.pid, recv, 5)
        for p in (spath, mpath):
            if os.path.exists(p) and not h.keep:
                os.unlink(p)


def section_d(h, recv):
    wymcp_e2e.stop_pid(recv.pid, recv, 5)
    ok = 0
    for i in range(20):
        r = raw(h.port, rid=100 + i)
        ok += r.status == 200 and "result" in (r.json or {})
    R.check(ok == 20, "D: with the receiver down, 20 requests answered as "
            "before", "%d ok" % ok)
    end = time.monotonic() + 15
    page = mpage = {}
    while time.monotonic() < end:
        try:
            whole = json.loads(Client(h.port).send("GET", STATUS)
                               .raw.decode())
        except ValueError:
            whole = {}
        page = whole.get("spans") or {}
        mpage = whole.get("otlpMetrics") or {}
        if page.get("failed", 0) >= 20 and \
                mpage.get("failed", 0) >= 1:
            break
        time.sleep(0.2)
    R.check(page.get("failed", 0) >= 20 and page.get("exported", 0) > 0,
            "D: the status page counts the spans the endpoint did not "
            "take", json.dumps(page))
    R.check(mpage.get("failed", 0) >= 1 and mpage.get("posts", 0) > 0,
            "D: ... and the metrics posts it did not take",
            json.dumps(mpage))


def body(h):
    node = e2e_sdk_listen.provision(wymcp_e2e.ARGS.cache)
    otel = provision_otel(wymcp_e2e.ARGS.otel)
    with open(os.path.join(wymcp_e2e.ARGS.cache, "otlp.mjs"), "w") as f:
        f.write(CLIENT)
    h.paths()
    path = os.path.join(otel, "spans-%d.jsonl" % os.getpid())
    mpath = os.path.join(otel, "metrics-%d.jsonl" % os.getpid())
    for p in (path, mpath):
        if os.path.exists(p):
            os.unlink(p)
    recv = subprocess.Popen([node, "receiver.mjs", str(h.rport), path,
                             mpath],
                            cwd=otel, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        if recv.stdout.readline().strip() != "LISTENING":
            raise wymcp_e2e.Failed("the receiver did not start")
        h.start()
        url = "http://127.0.0.1:%d/mcp-anon" % h.port
        tp = "00-%s-%s-01" % (CLIENT_TRACE, CLIENT_SPAN)
        p = subprocess.run([node, "otlp.mjs", url, tp],
                           cwd=wymcp_e2e.ARGS.cache, capture_output=True,
                           text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        res = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
        out = json.loads(res[0][7:]) if res else {}
        if not res:
            R.note("client: " + (p.stdout + p.stderr)[-500:])
        got = spans(path, 4)
        section_c(h, out, got)
        section_m(h)
        section_t(h, path)
        section_h(h, path)
        section_x(h, mpath, path)
        section_k(h, path)
        text, _ = histograms(h)
        R.check("nosuch" not in text and 'outcome="error"' in text,
                "M: an unknown tool's error is counted without its name",
                text[-400:])
        section_d(h, recv)
        section_e(h, node, otel)
    finally:
        if recv.poll() is None:
            wymcp_e2e.stop_pid(recv.pid, recv, 5)
        for p in (path, mpath):
            if os.path.exists(p) and not h.keep:
                os.unlink(p)


def options(ap):
    ap.add_argument("--cache", default=os.path.join(SRCDIR, "_build",
                                                    "sdk-listen"))
    ap.add_argument("--otel", default=os.path.join(SRCDIR, "_build",
                                                   "otel"))


if __name__ == "__main__":
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        sys.exit(77)
    sys.exit(wymcp_e2e.run_layer(OtlpHarness, body, options=options))
