// as.mjs - the test's authorization server: oidc-provider (pinned by
// t/oauth/oauth.py) on 127.0.0.1, issuing JWT access tokens for the
// wymcp resources it is told of (RFC 8707 resource indicators), with
// dynamic client registration (RFC 7591), PKCE required, the
// development login and consent pages (driven over HTTP by client.mjs),
// a client-credentials client for machines, and one whose tokens are
// opaque, for wymcp-authz's introspection (RFC 7662).
//
//   node as.mjs PORT KEYS.json RESOURCE...
//
// KEYS.json: the private signing keys (RS256 and ES256), written here
// when absent; t/oauth/mint.mjs signs the refusal tests' tokens with
// them.  Prints "ready" on stdout once listening.
import fs from 'node:fs';
import { generateKeyPair, exportJWK } from 'jose';
import Provider, { errors } from 'oidc-provider';

const [port, keysFile, ...resources] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

async function keys() {
  if (fs.existsSync(keysFile))
    return JSON.parse(fs.readFileSync(keysFile, 'utf8'));
  const out = { keys: [] };
  for (const [alg, kid] of [['RS256', 'rs1'], ['ES256', 'es1']]) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(privateKey);
    out.keys.push({ ...jwk, alg, kid, use: 'sig' });
  }
  fs.writeFileSync(keysFile, JSON.stringify(out), { mode: 0o600 });
  return out;
}

const RESOURCE_SCOPES = 'mcp:tools notes:write';

const provider = new Provider(issuer, {
  jwks: await keys(),
  clients: [{
    client_id: 'machine',
    client_secret: process.env.MACHINE_SECRET,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: RESOURCE_SCOPES,
  }, {
    // A machine whose access tokens are opaque: wymcp-authz asks the
    // introspection endpoint about them.
    client_id: 'opaque-machine',
    client_secret: process.env.MACHINE_SECRET,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: RESOURCE_SCOPES,
  }, {
    // wymcp-authz itself, as the introspection endpoint's client.
    client_id: 'wymcp-rs',
    client_secret: process.env.RS_SECRET,
    grant_types: [],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  scopes: ['openid', 'offline_access', 'mcp:tools', 'notes:write'],
  // A registered client is not held to the scope it first asked for
  // (the MCP client registers with the scope of its first challenge):
  // it may ask for more on a step-up.  The resource's scopes are
  // granted per request (getResourceServerInfo, consent).
  extraClientMetadata: {
    properties: ['x_wymcp_test'],
    validator(ctx, key, value, metadata) {
      delete metadata.scope;
    },
  },
  claims: { openid: ['sub'], email: ['email'] },
  findAccount: async (ctx, id) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: `${id}@example.com` }),
  }),
  // The principal's mail in the access token too (an assign).
  // An opaque machine token names its client as the subject too (the
  // introspection answer has no sub for a client-credentials token).
  extraTokenClaims: async (ctx, token) =>
    token.accountId ? { email: `${token.accountId}@example.com` } :
      token.clientId === 'opaque-machine' ? { sub: token.clientId } :
        undefined,
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resources[0],
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, client) => {
        if (!resources.includes(indicator))
          throw new errors.InvalidTarget();
        if (client.clientId === 'opaque-machine')
          return { scope: RESOURCE_SCOPES, audience: indicator,
            accessTokenTTL: 300, accessTokenFormat: 'opaque' };
        return {
          scope: RESOURCE_SCOPES,
          audience: indicator,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          // Machines get ES256 tokens, people RS256: both verified.
          jwt: { sign: { alg: client.clientId === 'machine' ?
            'ES256' : 'RS256' } },
        };
      },
    },
  },
  clientBasedCORS: () => true,
  ttl: { AccessToken: 300, AuthorizationCode: 60, Grant: 3600,
    Interaction: 600, Session: 3600, ClientCredentials: 300 },
  cookies: { keys: ['wymcp-oauth-test-cookie-key'] },
});
provider.on('server_error', (ctx, err) => console.error('server_error',
  err));
provider.listen(Number(port), '127.0.0.1', () => {
  console.log('ready');
});
