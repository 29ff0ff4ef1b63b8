// ts-peer.mjs - the peer of the benchmark (t/bench/bench.py): the
// official TypeScript SDK v2 (@modelcontextprotocol/server, with the
// Node adapter @modelcontextprotocol/node; versions pinned in bench.py)
// serving MCP 2026-07-28 statelessly, the way its docs show: a fresh
// McpServer per request from createMcpHandler(), wrapped for node:http
// with toNodeHandler(), with the Host and Origin guards the framework
// factories apply.  One process, as Node is usually run.
//
// Tools: "echo" (returns its text) and "sleep200" (an async 200 ms
// sleep, then a text), the same as wymcp's echo module and
// t/bench/sleep200.c.
//
// Usage: node ts-peer.mjs SOCKETPATH    (a unix socket, mode 0666;
//        nginx proxies to it).  bench.py runs it from a directory whose
//        node_modules holds the pinned packages.
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { localhostHostValidation, localhostOriginValidation, toNodeHandler }
    from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const sock = process.argv[2];
if (!sock) {
    console.error('usage: node ts-peer.mjs SOCKETPATH');
    process.exit(2);
}

function build() {
    const server = new McpServer({ name: 'ts-peer', version: '1.0.0' });
    server.registerTool('echo', {
        title: 'Echo',
        description: 'Returns the text it is given, unchanged.',
        inputSchema: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true, idempotentHint: true,
                       openWorldHint: false },
    }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('sleep200', {
        description: 'Waits 200 ms, then answers.',
        inputSchema: z.object({}),
    }, async () => {
        await sleep(200);
        return { content: [{ type: 'text', text: 'slept 200 ms' }] };
    });
    return server;
}

const handler = toNodeHandler(createMcpHandler(build));
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

try {
    unlinkSync(sock);
} catch {
    // not there
}
const http = createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res))
        return;
    handler(req, res);
});
http.keepAliveTimeout = 60000;
http.listen(sock, () => chmodSync(sock, 0o666));
for (const sig of ['SIGTERM', 'SIGINT'])
    process.on(sig, () => http.close(() => process.exit(0)));
