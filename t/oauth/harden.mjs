// harden.mjs - keys and tokens of oauth.py's hardening checks (issue
// 21), made with jose: two issuers, A with two key files and B with
// one, so that a token of A signed with B's key, the same sub of A and
// of B, and every key file of A can each be tried.
//
//   node harden.mjs DIR AUDIENCE ISSUER_A ISSUER_B
//
// Writes DIR/a1.jwks, DIR/a2.jwks and DIR/b.jwks (public keys) and
// prints one JSON object: name -> token.  Test keys only.
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT, CompactSign, generateKeyPair, exportJWK } from 'jose';

const [dir, aud, issA, issB] = process.argv.slice(2);
const now = Math.floor(Date.now() / 1000);

async function pair(kid, alg = 'RS256') {
  const { publicKey, privateKey } = await generateKeyPair(alg,
    { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, jwk, key: privateKey };
}
const a1 = await pair('a1');
const a2 = await pair('a2', 'ES256');
const b = await pair('b1');
for (const [f, k] of [['a1', a1], ['a2', a2], ['b', b]])
  fs.writeFileSync(path.join(dir, f + '.jwks'),
    JSON.stringify({ keys: [k.jwk] }));

function claims(iss, extra = {}) {
  return { iss, aud, sub: 'alice', scope: 'mcp:tools', iat: now - 5,
    exp: now + 600, ...extra };
}
async function sign(c, k, header = {}) {
  return new SignJWT(c).setProtectedHeader({ alg: k.alg, kid: k.kid,
    typ: 'at+jwt', ...header }).sign(k.key);
}
// A payload of raw bytes (not valid UTF-8), signed as it is.
async function signRaw(bytes, k) {
  return new CompactSign(bytes).setProtectedHeader({ alg: k.alg,
    kid: k.kid }).sign(k.key);
}
function rawClaims(iss, sub, extra = '') {
  const head = Buffer.from(`{"iss":${JSON.stringify(iss)},` +
    `"aud":${JSON.stringify(aud)},"scope":"mcp:tools",` +
    `"iat":${now - 5},"exp":${now + 600}${extra},"sub":"`);
  return Buffer.concat([head, sub, Buffer.from('"}')]);
}

const out = {};
out.a1_alice = await sign(claims(issA), a1);
out.a2_alice = await sign(claims(issA), a2);
out.b_alice = await sign(claims(issB), b);
out.a_signed_by_b = await sign(claims(issA), b);
out.a_signed_by_b_no_kid = await new SignJWT(claims(issA))
  .setProtectedHeader({ alg: 'RS256' }).sign(b.key);
out.b_signed_by_a = await sign(claims(issB), a1);
// sub "al\xffice", "\xc0\xafx" (overlong), a lone surrogate (escaped)
out.sub_invalid_utf8 = await signRaw(rawClaims(issA,
  Buffer.from([0x61, 0x6c, 0xff, 0x69, 0x63, 0x65])), a1);
out.sub_overlong = await signRaw(rawClaims(issA,
  Buffer.from([0xc0, 0xaf, 0x78])), a1);
out.sub_surrogate = await signRaw(rawClaims(issA,
  Buffer.from('\\ud800x')), a1);
out.sub_utf8 = await sign(claims(issA, { sub: 'zo\u00eb-\u{1f600}' }), a1);
console.log(JSON.stringify(out));
