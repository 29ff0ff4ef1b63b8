// host.mjs - a minimal MCP Apps host page, for t/e2e/e2e_apps.py.
//
// Built on the official packages, as a host application would be: the
// TypeScript client v2 (@modelcontextprotocol/client) talks to wymcp
// through nginx (Streamable HTTP, same origin as this page) declaring
// the extension io.modelcontextprotocol/ui; the ext-apps host side
// (@modelcontextprotocol/ext-apps/app-bridge: AppBridge over its
// PostMessageTransport) runs the view.  esbuild bundles it into
// host.js; host.html loads it.  Nothing comes from the network.
//
// What it does: tools/list; the tool named in the page's ?tool= (default
// book_room) gives its view's ui:// URI (getToolUiResourceUri); the
// resource is read; the HTML goes into an iframe with
// sandbox="allow-scripts" only (an opaque origin, not this page's), a
// Content Security Policy built from the resource's _meta.ui (the
// contents entry's, else the listing's: apps.mdx "Metadata Location")
// put first in its <head>; the bridge answers ui/initialize, sends the
// tool's input, and proxies the view's tools/call to the server only
// for tools whose visibility includes "app" (apps.mdx "Visibility").
// What happened is in window.hostLog, for the test to read.
import { Client, StreamableHTTPClientTransport } from
    '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE,
    getToolUiResourceUri, isToolVisibilityAppOnly } from
    '@modelcontextprotocol/ext-apps/app-bridge';

const log = window.hostLog = { events: [], calls: [], refused: [] };
const say = (what) => {
  log.events.push(what);
  document.getElementById('status').textContent = what;
};

// The CSP of apps.mdx "Security Implications" 4, from _meta.ui.csp.
function cspOf(ui) {
  const c = (ui && ui.csp) || {};
  const r = (c.resourceDomains || []).join(' ');
  return ["default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${r}`,
    `style-src 'self' 'unsafe-inline' ${r}`,
    `connect-src ${(c.connectDomains || []).join(' ') || "'none'"}`,
    `img-src 'self' data: ${r}`, `font-src 'self' ${r}`,
    `media-src 'self' data: ${r}`,
    `frame-src ${(c.frameDomains || []).join(' ') || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(c.baseUriDomains || []).join(' ') || "'self'"}`,
  ].map((d) => d.trim()).join('; ');
}

async function main() {
  const params = new URLSearchParams(location.search);
  const want = params.get('tool') || 'book_room';
  const client = new Client({ name: 'wymcp-apps-host', version: '1.0.0' }, {
    versionNegotiation: { mode: 'auto' },
    capabilities: { extensions: { 'io.modelcontextprotocol/ui':
        { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
  await client.connect(new StreamableHTTPClientTransport(
      new URL('/mcp', location.href)));
  log.era = client.getProtocolEra ? client.getProtocolEra() : null;
  log.serverCaps = client.getServerCapabilities();
  const tools = (await client.listTools()).tools;
  log.tools = tools.map((t) => t.name);
  // What the model would be offered: no app-only tools.
  log.modelTools = tools.filter((t) => !isToolVisibilityAppOnly(t))
      .map((t) => t.name);
  const tool = tools.find((t) => t.name === want);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri)
    throw new Error(`tool ${want} names no ui:// view`);
  log.uri = uri;
  const listed = (await client.listResources()).resources
      .find((r) => r.uri === uri);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  log.mimeType = content.mimeType;
  const ui = content._meta?.ui ?? listed?._meta?.ui;
  log.ui = ui ?? null;
  log.csp = cspOf(ui);
  const html = content.text.replace(/<head>/i, '<head><meta ' +
      `http-equiv="Content-Security-Policy" content="${log.csp}">`);

  const bridge = new AppBridge(null,
      { name: 'wymcp-apps-host', version: '1.0.0' },
      { serverTools: {}, logging: {} },
      { hostContext: { theme: 'light', displayMode: 'inline' } });
  bridge.oncalltool = async (p) => {
    const t = tools.find((x) => x.name === p.name);
    const vis = t?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!t || !vis.includes('app')) {
      log.refused.push(p.name);
      throw new Error(`tool ${p.name} is not callable from the app`);
    }
    log.calls.push({ name: p.name, arguments: p.arguments });
    const res = await client.callTool(p);
    log.calls[log.calls.length - 1].result = res;
    return res;
  };
  bridge.onsizechange = ({ height }) => {
    if (height)
      document.getElementById('view').style.height = `${height + 4}px`;
  };
  bridge.oninitialized = async () => {
    log.appInfo = bridge.getAppVersion();
    say('view initialized');
    await bridge.sendToolInput({ arguments: { day: '2026-12-24' } });
  };
  // host.html gives it sandbox="allow-scripts" and nothing else.
  const frame = document.getElementById('view');
  if (ui?.prefersBorder)
    frame.classList.add('bordered');
  await bridge.connect(new PostMessageTransport(frame.contentWindow,
      frame.contentWindow));
  frame.srcdoc = html;
  say('view loading');
}

main().catch((e) => {
  log.error = String(e && e.stack || e);
  say('host error: ' + e);
});
