// ts-listen-peer.mjs - the peer of make bench-listen
// (t/bench/listenbench.py): the official TypeScript SDK v2
// (@modelcontextprotocol/server with the Node adapter
// @modelcontextprotocol/node; the versions bench.py pins) holding MCP
// 2026-07-28 subscriptions/listen streams the way its docs show: a
// stateless createMcpHandler() (its per-stream listen router on the
// default in-process event bus) wrapped for node:http by
// toNodeHandler(), the servers declaring resources.subscribe so that
// resourceSubscriptions are honoured.
//
// Each line on stdin is a URI: handler.notify.resourceUpdated(URI), the
// SDK's publish of notifications/resources/updated to every open stream
// that subscribed to it (the counterpart of an event datagram to
// wymcp's hub).
//
// Usage: node ts-listen-peer.mjs SOCKETPATH MAXSTREAMS (a unix socket,
//        mode 0666; nginx proxies to it).  Run from a directory whose
//        node_modules holds the pinned packages.
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

import { localhostHostValidation, localhostOriginValidation, toNodeHandler }
    from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

const sock = process.argv[2];
const max = Number(process.argv[3] || 1024);
if (!sock) {
    console.error('usage: node ts-listen-peer.mjs SOCKETPATH MAXSTREAMS');
    process.exit(2);
}

function build() {
    const server = new McpServer({ name: 'ts-listen-peer', version: '1.0.0' },
        { capabilities: { resources: { subscribe: true } } });
    server.registerResource('note', 'note://fan', {
        description: 'A note the benchmark updates.',
        mimeType: 'text/plain',
    }, async (uri) => ({ contents: [{ uri: uri.href, text: 'fan' }] }));
    return server;
}

const mcp = createMcpHandler(build, { maxSubscriptions: max });
const handler = toNodeHandler(mcp);
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
http.maxConnections = max;
http.listen({ path: sock, backlog: 4096 }, () => {
    chmodSync(sock, 0o666);
    console.log('ready');
});
createInterface({ input: process.stdin }).on('line', (uri) => {
    if (uri)
        mcp.notify.resourceUpdated(uri);
});
for (const sig of ['SIGTERM', 'SIGINT'])
    process.on(sig, () => process.exit(0));
