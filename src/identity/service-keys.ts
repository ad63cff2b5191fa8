import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, type Config } from '../config';
import type { Logger } from '../observability/logger';

/**
 * AGENT_API_KEY when set (required with DATABASE_URL). Otherwise the embedded default makes a random key once
 * and keeps it in DATA_DIR/agent-api-key (owner-only), so the review endpoints are
 * never open, yet a developer can read the key from that file.
 */
export async function resolveAgentApiKey(config: Config, logger: Logger): Promise<string> {
  if (config.agentApiKey) return config.agentApiKey;
  if (config.storage.kind !== 'pglite') {
    // Instances behind a load balancer must accept one key; a key generated per machine would differ.
    throw new ConfigError(
      `AGENT_API_KEY is required with ${config.storage.kind === 'supabase' ? 'SUPABASE_URL' : 'DATABASE_URL'}: every instance of the service must accept the same key.`,
    );
  }
  const file = path.join(config.storage.dataDir, 'agent-api-key');
  const existing = await fs.readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) {
    logger.info({ file }, `AGENT_API_KEY is not set: using the generated key in ${file}`);
    return existing.trim();
  }
  const key = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${key}\n`, { mode: 0o600 });
  logger.warn({ file }, `AGENT_API_KEY is not set: generated one and saved it in ${file}`);
  return key;
}

/**
 * The HS256 secret for customer tokens: CUSTOMER_IDENTITY_SECRET when set.
 * Otherwise the embedded default (PGlite) makes one once and keeps it in
 * DATA_DIR/customer-identity-secret (owner-only), like the agent key, and the demo
 * shop page signs its signed-in customer's token with it (`demo`). With a
 * database server and no secret, HS256 tokens are refused (a public key or JWKS
 * may still verify RS256/ES256 ones): instances must share one secret.
 */
export async function resolveCustomerIdentitySecret(config: Config, logger: Logger): Promise<{ secret: string | null; demo: boolean }> {
  if (config.customerIdentity.secret) return { secret: config.customerIdentity.secret, demo: false };
  if (config.storage.kind !== 'pglite') return { secret: null, demo: false };
  const file = path.join(config.storage.dataDir, 'customer-identity-secret');
  const existing = (await fs.readFile(file, 'utf8').catch(() => null))?.trim();
  if (existing) return { secret: existing, demo: true };
  const secret = randomBytes(32).toString('base64url');
  await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  logger.warn({ file }, `CUSTOMER_IDENTITY_SECRET is not set: generated a demo secret and saved it in ${file}; the sample shop's demo page signs its customer's token with it`);
  return { secret, demo: true };
}
