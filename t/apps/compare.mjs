// compare.mjs - what an MCP client sees of an MCP App server, for
// t/e2e/e2e_apps.py: the TypeScript client v2 (2026-07-28, or what it
// negotiates), declaring io.modelcontextprotocol/ui when the second
// argument is "ui", lists the tools and resources and reads the ui://
// resource.  Prints RESULT {json}.
//
// Usage: node compare.mjs URL ui|plain
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';

const [url, mode] = process.argv.slice(2);
const caps = mode === 'ui' ? { extensions: { 'io.modelcontextprotocol/ui':
    { mimeTypes: ['text/html;profile=mcp-app'] } } } : {};
const out = {};
try {
  const c = new Client({ name: 'wymcp-apps-compare', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' }, capabilities: caps });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  out.era = c.getProtocolEra ? c.getProtocolEra() : null;
  out.caps = c.getServerCapabilities();
  out.tools = (await c.listTools()).tools;
  out.resources = (await c.listResources()).resources;
  out.read = (await c.readResource({ uri: 'ui://examples/book-room' }))
      .contents;
  try {
    out.call = await c.callTool({ name: 'reserve_room', arguments: {
      day: '2026-12-24', room: 'Cirrus', people: 3 } });
  } catch (e) {
    out.callError = String(e && e.message || e);
  }
  await c.close();
} catch (e) {
  out.error = String(e && e.stack || e);
}
console.log('RESULT ' + JSON.stringify(out));
process.exit(0);
