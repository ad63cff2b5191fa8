import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../observability/logger';
import type { SqlQueryable } from '../store/database';
import { TOOL_NAMES } from '../agent/tools';
import { loadConfiguredShop, SAMPLE_SHOP_FILE, type Shop } from './load-shop';

/**
 * What only the sample shop has (the service run without SHOP_FILE): its seed of
 * customers and orders, its demo customer, whose token the demo page at / signs.
 * A shop file of one's own gets none of it.
 */

/** The sample shop's customers and orders, beside its shop file. */
export const SAMPLE_SEED_FILE = path.join(path.dirname(SAMPLE_SHOP_FILE), 'seed.sql');

/** The demo shop's signed-in customer (sample data), whose token the demo page signs. */
export const DEMO_CUSTOMER = { customerId: 'lukas@example.com', name: 'Lukas Brandt' } as const;

/**
 * Puts the sample customers and orders in when both tables are empty (a fresh
 * database, or one whose sample rows migration 20261126000400 removed), so a
 * shop's own rows are never mixed with them. True when it seeded.
 */
export async function seedSampleData(db: SqlQueryable, logger?: Logger): Promise<boolean> {
  const [row] = await db.query<{ empty: boolean }>(
    'select not exists (select 1 from customer_profiles) and not exists (select 1 from orders) as empty',
  );
  if (!row?.empty) return false;
  await db.exec(await fs.readFile(SAMPLE_SEED_FILE, 'utf8'));
  logger?.info({ file: SAMPLE_SEED_FILE }, 'The sample shop runs (no SHOP_FILE): seeded its sample customers and orders');
  return true;
}

/** The sample shop as the service runs it without SHOP_FILE (for scripts and tests that need its agents). */
export function loadSampleShop(): Shop {
  return loadConfiguredShop({ file: null, env: {} }, TOOL_NAMES);
}
