// client.mjs - the official MCP TypeScript client (v2, pinned by
// t/oauth/oauth.py) through the OAuth flow of MCP basic/authorization,
// against a wymcp endpoint behind nginx or Apache and wymcp-authz.
//
//   node client.mjs MCP_URL MACHINE_SECRET
//
// 1. A person: the client's OAuthClientProvider interface, in memory.
//    The first request gets 401; the client reads the protected-
//    resource metadata, the authorization server's metadata, registers
//    (RFC 7591), and sends the browser to the authorization endpoint
//    with PKCE and the resource indicator.  This script is the browser:
//    it signs in as "alice" and consents on oidc-provider's pages over
//    HTTP, and hands the callback to finishAuth(), which redeems the
//    code (with the resource) for a JWT access token.  Then tools/list
//    and tools/call whoami; then write_note, whose scope the token
//    lacks: 403 insufficient_scope, the client's step-up sends the
//    browser again for the union of the scopes, and the retried call
//    passes.
// 2. A machine: ClientCredentialsProvider, then whoami.
//
// Prints one JSON object: what each step saw, and every HTTP exchange
// (method, URL, status; for the token endpoint whether it carried the
// resource parameter).  oauth.py judges it.  Never prints a token.
import {
  Client, StreamableHTTPClientTransport, ClientCredentialsProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/client';

const [mcpUrl, machineSecret] = process.argv.slice(2);
const REDIRECT = 'http://127.0.0.1:1/callback';	// never served
const out = { exchanges: [], steps: {} };

// Every HTTP exchange the client makes, recorded.
async function recordingFetch(url, init = {}) {
  const u = String(url instanceof Request ? url.url : url);
  const res = await fetch(url, init);
  const e = { method: init.method || 'GET', url: u, status: res.status };
  if (init.body instanceof URLSearchParams) {
    e.resource = init.body.get('resource');
    e.grant_type = init.body.get('grant_type');
    e.has_verifier = init.body.has('code_verifier');
  }
  const h = init.headers instanceof Headers ? init.headers :
    new Headers(init.headers || {});
  e.bearer = (h.get('authorization') || '').startsWith('Bearer ');
  if (res.status === 401 || res.status === 403)
    e.challenge = res.headers.get('www-authenticate');
  out.exchanges.push(e);
  return res;
}

class MemoryProvider {
  constructor() {
    this.pending = null;
    this._tokens = undefined;
    this._client = undefined;
    this._verifier = undefined;
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return {
      client_name: 'wymcp oauth e2e',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; }
  tokens() { return this._tokens; }
  saveTokens(t) { this._tokens = t; }
  redirectToAuthorization(url) { this.pending = new URL(url); }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
}

// The browser: follow the authorization server's redirects, sign in
// and consent, until it redirects to REDIRECT.  A tiny cookie jar.
async function browse(start, login) {
  const jar = new Map();
  const seen = [];
  let url = start, method = 'GET', body;
  for (let hop = 0; hop < 20; hop++) {
    const headers = { cookie: [...jar].map(([k, v]) => `${k}=${v}`)
      .join('; ') };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method, headers, body,
      redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(';');
      const i = kv.indexOf('=');
      const k = kv.slice(0, i), v = kv.slice(i + 1);
      if (v === '' || /expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(k);
      else jar.set(k, v);
    }
    seen.push(`${method} ${new URL(url).pathname} ${res.status}`);
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      const loc = new URL(res.headers.get('location'), url);
      if (loc.href.startsWith(REDIRECT))
        return { callback: loc, seen };
      url = loc.href;
      method = 'GET';
      continue;
    }
    const html = await res.text();
    if (res.status !== 200)
      throw new Error(`browser: ${url}: HTTP ${res.status}: ` +
        html.slice(0, 300));
    const action = /<form[^>]*action="([^"]+)"/.exec(html);
    const prompt = /name="prompt" value="(\w+)"/.exec(html);
    if (!action || !prompt)
      throw new Error(`browser: ${url}: no form`);
    url = new URL(action[1].replace(/&amp;/g, '&'), url).href;
    method = 'POST';
    body = prompt[1] === 'login' ?
      new URLSearchParams({ prompt: 'login', login, password: 'any' }) :
      new URLSearchParams({ prompt: 'consent' });
    body = body.toString();
  }
  throw new Error('browser: too many redirects');
}

function connectWith(provider) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: provider, fetch: recordingFetch,
  });
  const client = new Client({ name: 'wymcp-oauth-e2e', version: '1' });
  return { client, transport };
}

function summary(result) {
  return { structured: result.structuredContent ?? null,
    text: result.content?.[0]?.text ?? null,
    isError: result.isError ?? false };
}

async function person() {
  const provider = new MemoryProvider();
  let { client, transport } = connectWith(provider);
  try {
    await client.connect(transport);
    out.steps.first_connect = 'connected without authorization?';
    return;
  } catch (e) {
    out.steps.first_connect = e instanceof UnauthorizedError ?
      'UnauthorizedError' : String(e);
  }
  if (!provider.pending)
    throw new Error('no redirect to the authorization endpoint');
  const auth = provider.pending;
  out.steps.authorize = {
    resource: auth.searchParams.get('resource'),
    scope: auth.searchParams.get('scope'),
    code_challenge_method: auth.searchParams.get('code_challenge_method'),
    has_challenge: auth.searchParams.has('code_challenge'),
  };
  const b = await browse(auth.href, 'alice');
  out.steps.browser = b.seen;
  out.steps.callback_has_iss = b.callback.searchParams.has('iss');
  await transport.finishAuth(b.callback.searchParams);
  out.steps.token_scope = provider.tokens()?.scope ?? null;
  provider.pending = null;

  ({ client, transport } = connectWith(provider));
  await client.connect(transport);
  out.steps.tools = (await client.listTools()).tools.map((t) => t.name);
  out.steps.whoami = summary(await client.callTool({ name: 'whoami',
    arguments: {} }));

  // Step-up: write_note needs notes:write, which was not asked for.
  try {
    const r = await client.callTool({ name: 'write_note',
      arguments: { text: 'hi' } });
    out.steps.write_note_first = { unexpected: summary(r) };
  } catch (e) {
    out.steps.write_note_first = e instanceof UnauthorizedError ?
      'UnauthorizedError' : String(e);
  }
  if (provider.pending) {
    out.steps.stepup_scope = provider.pending.searchParams.get('scope');
    out.steps.stepup_resource = provider.pending.searchParams.get(
      'resource');
    const b2 = await browse(provider.pending.href, 'alice');
    await transport.finishAuth(b2.callback.searchParams);
    out.steps.stepup_token_scope = provider.tokens()?.scope ?? null;
    // The session's server stream (its GET) ends with its client.
    await client.close();
    ({ client, transport } = connectWith(provider));
    await client.connect(transport);
    out.steps.write_note = summary(await client.callTool({
      name: 'write_note', arguments: { text: 'hi' } }));
    out.steps.tools_after = (await client.listTools()).tools.map(
      (t) => t.name);
  }
  await client.close();
}

async function machine() {
  const issuer = JSON.parse(await (await fetch(new URL(
    '/.well-known/oauth-protected-resource' + new URL(mcpUrl).pathname,
    mcpUrl))).text()).authorization_servers[0];
  const provider = new ClientCredentialsProvider({ clientId: 'machine',
    clientSecret: machineSecret, expectedIssuer: issuer,
    scope: 'mcp:tools' });
  const { client, transport } = connectWith(provider);
  await client.connect(transport);
  out.steps.machine_whoami = summary(await client.callTool({
    name: 'whoami', arguments: {} }));
  await client.close();
}

try {
  await person();
  await machine();
} catch (e) {
  out.error = String(e && e.stack || e);
}
console.log(JSON.stringify(out));
