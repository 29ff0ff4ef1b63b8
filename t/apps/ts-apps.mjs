// ts-apps.mjs - the examples module's MCP App, declared with the
// official TypeScript SDK v2 (@modelcontextprotocol/server) and the
// ext-apps server helpers (registerAppTool, registerAppResource of
// @modelcontextprotocol/ext-apps/server), for t/e2e/e2e_apps.py to
// compare with wymcp's: book_room with its view, reserve_room for the
// app only, and ui://examples/book-room, whose HTML is the file
// tools/apps/book_room.html (wymcp compiles the same file in).  The
// tools' bodies only answer; the comparison is of what is listed and
// read.  Served statelessly as the SDK's docs show (createMcpHandler).
//
// Usage: node ts-apps.mjs PORT HTMLFILE   (listens on 127.0.0.1:PORT)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { localhostHostValidation, toNodeHandler } from
    '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from
    '@modelcontextprotocol/ext-apps/server';
import * as z from 'zod';

const [port, file] = process.argv.slice(2);
const html = readFileSync(file, 'utf8');
const URI = 'ui://examples/book-room';
const UI = { csp: {}, prefersBorder: true };
const say = (text) => ({ content: [{ type: 'text', text }] });

function build() {
  const server = new McpServer({ name: 'ts-apps', version: '1.0.0' });
  registerAppTool(server, 'book_room', {
    title: 'Book a room',
    description: 'Books a meeting room for a day. Asks the user which ' +
        'room and for how many people.',
    inputSchema: z.object({ day: z.string()
        .describe('The day, e.g. 2026-12-01.') }).strict(),
    _meta: { ui: { resourceUri: URI } },
  }, async ({ day }) => say(`Booked a room on ${day}.`));
  registerAppTool(server, 'reserve_room', {
    title: 'Reserve a room',
    description: 'Books a meeting room with no questions: the day, the ' +
        'room and the number of people. Called by the book_room form ' +
        '(an MCP App), not by the model.',
    inputSchema: z.object({
      day: z.string().describe('The day, e.g. 2026-12-01.'),
      room: z.enum(['Aurora', 'Borealis', 'Cirrus']),
      people: z.number().int().min(1).max(20) }).strict(),
    _meta: { ui: { resourceUri: URI, visibility: ['app'] } },
  }, async ({ day, room, people }) =>
    say(`Booked ${room} for ${people} on ${day}.`));
  registerAppResource(server, 'book_room_form', URI, {
    title: 'Book a room',
    description: 'A form that books a meeting room (an MCP App: ' +
        "book_room's view, booking through reserve_room).",
    _meta: { ui: UI },
  }, async (uri) => ({ contents: [{ uri: uri.href,
    mimeType: RESOURCE_MIME_TYPE, text: html, _meta: { ui: UI } }] }));
  return server;
}

const handler = toNodeHandler(createMcpHandler(build));
const validateHost = localhostHostValidation();
const http = createServer((req, res) => {
  if (validateHost(req, res))
    handler(req, res);
});
http.listen(Number(port), '127.0.0.1', () => console.log('LISTENING'));
for (const sig of ['SIGTERM', 'SIGINT'])
  process.on(sig, () => http.close(() => process.exit(0)));
