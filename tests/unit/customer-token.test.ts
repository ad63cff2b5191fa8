/**
 * The customer token check, against tokens made with jose as a shop's backend
 * would make them (HS256 with the shared secret; RS256 with a private key whose
 * public half is configured as PEM; ES256 published in a JWKS that a loopback
 * server serves), and against the forgeries an attacker would try.
 */
import { createHmac, generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type CustomerIdentityConfig } from '../../src/config';
import { CustomerTokenVerifier, signCustomerToken } from '../../src/identity/customer-token';

const SECRET = 'a-shop-secret-of-at-least-thirty-two-characters';
const NO_KEYS: CustomerIdentityConfig = { secret: null, publicKeyPem: null, jwksUrl: null, issuer: null, audience: null, clockSkewSeconds: 30 };

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
let jose: Jose;
beforeAll(async () => {
  jose = await import('jose');
});

const now = () => Math.floor(Date.now() / 1000);

async function hs256(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new jose.SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function refusal(verifier: CustomerTokenVerifier, token: string): Promise<{ status: number; code: string }> {
  try {
    await verifier.verify(token);
  } catch (error) {
    const { status, code } = error as { status: number; code: string };
    return { status, code };
  }
  throw new Error('the token was accepted');
}

describe('HS256 customer tokens (CUSTOMER_IDENTITY_SECRET)', () => {
  const verifier = new CustomerTokenVerifier({ ...NO_KEYS, secret: SECRET });

  it('accepts a token the shop signed: sub is the customer', async () => {
    expect(await verifier.verify(await hs256({ sub: 'lukas@example.com', exp: now() + 600 }))).toEqual({ customerId: 'lukas@example.com', email: null });
    expect(await verifier.verify(await signCustomerToken(SECRET, 'ingrid.holm@example.com'))).toEqual({ customerId: 'ingrid.holm@example.com', email: null });
  });

  it('reads the e-mail claim when it is an address, for tools that bind customer.email, and ignores one that is not', async () => {
    expect(await verifier.verify(await signCustomerToken(SECRET, 'cust-1042', 600, { email: ' ada@books.example ' }))).toEqual({ customerId: 'cust-1042', email: 'ada@books.example' });
    expect(await verifier.verify(await hs256({ sub: 'cust-1042', exp: now() + 600, email: 'not an address' }))).toEqual({ customerId: 'cust-1042', email: null });
    expect(await verifier.verify(await hs256({ sub: 'cust-1042', exp: now() + 600, email: 42 }))).toEqual({ customerId: 'cust-1042', email: null });
  });

  it('tolerates a little clock skew on exp, and no more', async () => {
    expect(await verifier.verify(await hs256({ sub: 'lukas@example.com', exp: now() - 10 }))).toEqual({ customerId: 'lukas@example.com', email: null });
    expect(await refusal(verifier, await hs256({ sub: 'lukas@example.com', exp: now() - 120 }))).toEqual({ status: 401, code: 'customer_token_expired' });
  });

  it.each([
    ['without exp', { sub: 'lukas@example.com' }],
    ['without sub', { exp: now() + 600 }],
    ['with an empty sub', { sub: ' ', exp: now() + 600 }],
    ['with a sub longer than a customer id may be', { sub: 'x'.repeat(129), exp: now() + 600 }],
    ['not valid yet', { sub: 'lukas@example.com', exp: now() + 600, nbf: now() + 300 }],
  ])('refuses a token %s', async (_case, claims) => {
    expect(await refusal(verifier, await hs256(claims))).toEqual({ status: 401, code: 'customer_token_invalid' });
  });

  it('refuses forgeries: another secret, a changed sub, alg none, and text that is no token', async () => {
    const genuine = await hs256({ sub: 'lukas@example.com', exp: now() + 600 });
    const [header, , signature] = genuine.split('.');
    const forged = [
      await hs256({ sub: 'lukas@example.com', exp: now() + 600 }, 'another-secret-that-is-also-long-enough!!'),
      `${header}.${base64url({ sub: 'tomasz.nowak@example.com', exp: now() + 600 })}.${signature}`,
      `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'lukas@example.com', exp: now() + 600 })}.`,
      'lukas@example.com',
      '',
    ];
    for (const token of forged) expect(await refusal(verifier, token)).toEqual({ status: 401, code: 'customer_token_invalid' });
  });

  it('checks issuer and audience when they are configured', async () => {
    const strict = new CustomerTokenVerifier({ ...NO_KEYS, secret: SECRET, issuer: 'https://shop.example', audience: 'support' });
    const claims = { sub: 'lukas@example.com', exp: now() + 600 };
    expect(await strict.verify(await hs256({ ...claims, iss: 'https://shop.example', aud: 'support' }))).toEqual({ customerId: 'lukas@example.com', email: null });
    expect(await refusal(strict, await hs256({ ...claims, iss: 'https://evil.example', aud: 'support' }))).toMatchObject({ code: 'customer_token_invalid' });
    expect(await refusal(strict, await hs256(claims))).toMatchObject({ code: 'customer_token_invalid' });
  });
});

describe('RS256 and ES256 customer tokens (a public key or a JWKS)', () => {
  it('verifies RS256 with the configured PEM public key, and refuses an HS256 token "signed" with that public key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const verifier = new CustomerTokenVerifier({ ...NO_KEYS, publicKeyPem: pem });
    const token = await new jose.SignJWT({ sub: 'priya.raman@example.com' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
    expect(await verifier.verify(token)).toEqual({ customerId: 'priya.raman@example.com', email: null });

    // The classic confusion: the attacker knows the public key and uses it as an HMAC secret.
    const header = base64url({ alg: 'HS256', typ: 'JWT' });
    const payload = base64url({ sub: 'priya.raman@example.com', exp: now() + 600 });
    const confused = `${header}.${payload}.${createHmac('sha256', pem).update(`${header}.${payload}`).digest('base64url')}`;
    expect(await refusal(verifier, confused)).toEqual({ status: 401, code: 'customer_token_invalid' });
  });

  it('verifies ES256 against a JWKS served on loopback, and refuses a key that is not in it', async () => {
    const shopKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const strangerKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...(await jose.exportJWK(shopKeys.publicKey)), kid: 'shop-1', alg: 'ES256', use: 'sig' };
    let fetched = 0;
    const server = http.createServer((_req, res) => {
      fetched++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
      const verifier = new CustomerTokenVerifier({ ...NO_KEYS, jwksUrl: url });
      const sign = (key: typeof shopKeys.privateKey) =>
        new jose.SignJWT({ sub: 'amara.okafor@example.com' }).setProtectedHeader({ alg: 'ES256', kid: 'shop-1' }).setExpirationTime('5m').sign(key);
      expect(await verifier.verify(await sign(shopKeys.privateKey))).toEqual({ customerId: 'amara.okafor@example.com', email: null });
      expect(await refusal(verifier, await sign(strangerKeys.privateKey))).toEqual({ status: 401, code: 'customer_token_invalid' });
      // HS256 is not accepted where no secret is configured, whatever key it claims.
      expect(await refusal(verifier, await hs256({ sub: 'amara.okafor@example.com', exp: now() + 600 }))).toEqual({ status: 401, code: 'customer_token_invalid' });
      expect(fetched).toBeGreaterThanOrEqual(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a PEM that is not a public key at start, naming the variable', () => {
    expect(() => new CustomerTokenVerifier({ ...NO_KEYS, publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' })).toThrow(ConfigError);
    expect(() => new CustomerTokenVerifier({ ...NO_KEYS, publicKeyPem: 'nonsense' })).toThrow(/CUSTOMER_IDENTITY_PUBLIC_KEY/);
  });
});

describe('without any configured key', () => {
  it('refuses every token, saying the service is not set up for them', async () => {
    const verifier = new CustomerTokenVerifier(NO_KEYS);
    expect(verifier.enabled).toBe(false);
    await expect(verifier.verify(await hs256({ sub: 'lukas@example.com', exp: now() + 600 }))).rejects.toMatchObject({
      status: 401,
      code: 'customer_token_invalid',
      message: expect.stringContaining('not set up to verify customer tokens'),
    });
  });
});
