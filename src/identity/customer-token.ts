import { createPublicKey, type KeyObject } from 'node:crypto';
import type { CompactJWSHeaderParameters, FlattenedJWSInput, JWSHeaderParameters, JWTPayload } from 'jose' with { 'resolution-mode': 'import' };
import { ConfigError, type CustomerIdentityConfig } from '../config';
import { CustomerTokenError } from '../errors';

/** The header the widget and the shop's backend send the customer token in. */
export const CUSTOMER_TOKEN_HEADER = 'x-customer-token';

/** A customer id as the API accepts it in user_id: 1–128 characters without control characters. */
const CUSTOMER_ID = /^[^\p{Cc}]{1,128}$/u;

// jose is an ES module only; this CommonJS service loads it once, on first use.
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
let joseModule: Promise<Jose> | undefined;
const loadJose = () => (joseModule ??= import('jose'));

/** A customer the shop vouched for: the token's `sub`, and its `email` claim when it has a usable one. */
export interface VerifiedCustomer {
  customerId: string;
  /** For actions and MCP tools that bind `customer.email`; null when the token has no (usable) `email`. */
  email: string | null;
}

/** An e-mail address as a claim may carry it: something@something, no spaces or control characters, at most 254 characters. */
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;

/**
 * Checks customer tokens: JWTs the shop's backend signs for its signed-in
 * customer, `sub` = the customer id, `exp` required. HS256 with the shared secret
 * (CUSTOMER_IDENTITY_SECRET); RS256 or ES256 with the shop's public key
 * (CUSTOMER_IDENTITY_PUBLIC_KEY) or its JWKS (CUSTOMER_IDENTITY_JWKS_URL). Each
 * algorithm is accepted only with its own kind of key, so an HS256 token "signed"
 * with the public key, or an unsigned one (`alg: none`), never passes.
 */
export class CustomerTokenVerifier {
  private readonly publicKey: KeyObject | null;
  private readonly algorithms: string[];
  private jwks: ReturnType<Jose['createRemoteJWKSet']> | undefined;

  constructor(private readonly config: CustomerIdentityConfig) {
    this.publicKey = config.publicKeyPem ? parsePublicKey(config.publicKeyPem) : null;
    const asymmetric = config.jwksUrl ? ['RS256', 'ES256'] : this.publicKey ? [this.publicKey.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256'] : [];
    this.algorithms = [...(config.secret ? ['HS256'] : []), ...asymmetric];
  }

  /** Whether any key is configured: without one, every token is refused. */
  get enabled(): boolean {
    return this.algorithms.length > 0;
  }

  /** The customer a token vouches for; CustomerTokenError (401) when it is not valid now. */
  async verify(token: string): Promise<VerifiedCustomer> {
    if (!this.enabled) {
      throw new CustomerTokenError('customer_token_invalid', 'This service is not set up to verify customer tokens (no CUSTOMER_IDENTITY_* key is configured).');
    }
    const jose = await loadJose();
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, (header, input) => this.keyFor(header, input), {
        algorithms: this.algorithms,
        clockTolerance: this.config.clockSkewSeconds,
        requiredClaims: ['exp', 'sub'],
        ...(this.config.issuer && { issuer: this.config.issuer }),
        ...(this.config.audience && { audience: this.config.audience }),
      }));
    } catch (error) {
      if (error instanceof jose.errors.JWTExpired) {
        throw new CustomerTokenError('customer_token_expired', 'The customer token has expired: the shop must issue a new one (X-Customer-Token).', { cause: error });
      }
      throw new CustomerTokenError('customer_token_invalid', 'The customer token is not valid (X-Customer-Token): its signature, algorithm or claims were refused.', {
        cause: error,
      });
    }
    const sub = typeof payload.sub === 'string' ? payload.sub.trim() : '';
    if (!CUSTOMER_ID.test(sub)) {
      throw new CustomerTokenError('customer_token_invalid', 'The customer token has no usable sub: it must be the customer id, 1–128 characters.');
    }
    const email = typeof payload.email === 'string' ? payload.email.trim() : '';
    return { customerId: sub, email: email.length <= 254 && EMAIL.test(email) ? email : null };
  }

  private async keyFor(header: JWSHeaderParameters, input: FlattenedJWSInput) {
    if (header.alg === 'HS256') return new TextEncoder().encode(this.config.secret!);
    if (this.config.jwksUrl) {
      const jose = await loadJose();
      this.jwks ??= jose.createRemoteJWKSet(new URL(this.config.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
      // jose has checked the header is a compact JWS header (alg among `algorithms`) before asking for its key.
      return this.jwks(header as CompactJWSHeaderParameters, input);
    }
    return this.publicKey!;
  }
}

function parsePublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new ConfigError(`Invalid environment:\n  CUSTOMER_IDENTITY_PUBLIC_KEY: not a PEM public key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
    throw new ConfigError(`Invalid environment:\n  CUSTOMER_IDENTITY_PUBLIC_KEY: must be an RSA (RS256) or EC P-256 (ES256) key, not ${key.asymmetricKeyType}`);
  }
  return key;
}

/**
 * Signs a customer token with an HS256 secret, as a shop's backend would: the
 * demo shop page uses it for its signed-in customer.
 */
export async function signCustomerToken(secret: string, customerId: string, lifetimeSeconds = 3600, claims: { email?: string } = {}): Promise<string> {
  const jose = await loadJose();
  return new jose.SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(customerId)
    .setIssuedAt()
    .setExpirationTime(`${lifetimeSeconds}s`)
    .sign(new TextEncoder().encode(secret));
}
