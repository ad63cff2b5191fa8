import { createHmac } from 'node:crypto';

/** The name the generated pseudonym key is kept under in service_secrets (when CUSTOMER_PSEUDONYM_SECRET is not set). */
export const PSEUDONYM_SECRET_NAME = 'customer_pseudonym_secret';

/**
 * A customer's pseudonym: a keyed hash (HMAC-SHA-256) of the customer id under a
 * server secret, so the same customer gets the same pseudonym on every instance
 * and in every record (traces, the erasure audit), while nobody without the secret
 * can tell who it is or test a guess. Ids are compared as the shop compares them
 * (trimmed, case-insensitive), so `Lukas@Example.com` and `lukas@example.com` are one.
 */
export class CustomerPseudonyms {
  constructor(private readonly secret: string) {}

  of(customerId: string): string {
    return `c_${createHmac('sha256', this.secret).update(`customer:${customerId.trim().toLowerCase()}`).digest('hex').slice(0, 32)}`;
  }
}
