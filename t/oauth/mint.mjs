// mint.mjs - the tokens of the refusal tests, signed with the test
// authorization server's own keys (as.mjs writes them) where a
// signature must be right, so that each token differs from a valid one
// in the one thing it tests.
//
//   node mint.mjs KEYS.json ISSUER AUDIENCE PUBLIC_JWKS_TEXT
//
// Prints one JSON object: name -> token.  Test keys only: nothing here
// is a secret of anything but this test run.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { SignJWT, importJWK, generateKeyPair } from 'jose';

const [keysFile, iss, aud, publicJwks] = process.argv.slice(2);
const keys = JSON.parse(fs.readFileSync(keysFile, 'utf8')).keys;
const rsa = await importJWK(keys.find((k) => k.kid === 'rs1'), 'RS256');
const now = Math.floor(Date.now() / 1000);
const b64 = (s) => Buffer.from(s).toString('base64url');

function claims(extra = {}) {
  return { iss, aud, sub: 'mallory', client_id: 'minted',
    scope: 'mcp:tools', iat: now - 5, exp: now + 300, ...extra };
}
async function sign(c, { key = rsa, alg = 'RS256', kid = 'rs1' } = {}) {
  return new SignJWT(c).setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .sign(key);
}
function hs256(c, secret) {
  const input = `${b64(JSON.stringify({ alg: 'HS256', kid: 'rs1' }))}.` +
    b64(JSON.stringify(c));
  const mac = crypto.createHmac('sha256', secret).update(input)
    .digest('base64url');
  return `${input}.${mac}`;
}

const out = {};
out.valid = await sign(claims());
// For nginx's limit_req (deploy/nginx/ratelimit.conf): mallory's second
// token, and another principal's.
out.valid_again = await sign(claims({ jti: 'again' }));
out.valid_other = await sign(claims({ sub: 'trudy' }));
out.expired = await sign(claims({ iat: now - 7200, exp: now - 3600 }));
out.not_yet_valid = await sign(claims({ nbf: now + 3600 }));
out.issued_in_future = await sign(claims({ iat: now + 3600 }));
out.wrong_issuer = await sign(claims({ iss: 'http://127.0.0.1:1' }));
out.wrong_audience = await sign(claims({ aud: aud + '/other' }));
{
  const [h, p, s] = out.valid.split('.');
  const flip = s[10] === 'A' ? 'B' : 'A';
  out.bad_signature = `${h}.${p}.${s.slice(0, 10)}${flip}${s.slice(11)}`;
  // A valid signature over other claims.
  const [, p2] = (await sign(claims({ sub: 'root' }))).split('.');
  out.swapped_payload = `${h}.${p2}.${s}`;
}
out.alg_none = `${b64(JSON.stringify({ alg: 'none' }))}.` +
  `${b64(JSON.stringify(claims()))}.`;
out.hs256_with_public_jwks = hs256(claims(), publicJwks);
{
  const pub = crypto.createPublicKey({ key: keys.find((k) =>
    k.kid === 'rs1'), format: 'jwk' });
  out.hs256_with_public_pem = hs256(claims(), pub.export({ type: 'spki',
    format: 'pem' }));
}
{
  const { privateKey } = await generateKeyPair('RS256');
  out.unknown_kid = await sign(claims(), { key: privateKey, kid: 'nope' });
  out.foreign_key_known_kid = await sign(claims(), { key: privateKey });
}
out.missing_scope = await sign(claims({ scope: 'openid' }));
out.oversized = await sign(claims({ pad: 'x'.repeat(9000) }));
out.malformed_base64 = 'eyJhbGciOiJSUzI1NiJ9.e30!.AAAA';
out.malformed_json = `${b64('{"alg":"RS256",')}.${b64('{"sub":1')}.AAAA`;
out.two_parts = out.valid.split('.').slice(0, 2).join('.');
console.log(JSON.stringify(out));
