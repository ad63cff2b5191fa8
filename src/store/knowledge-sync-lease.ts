import type { SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

const FUNCTIONS = {
  take: sqlFunction('take_knowledge_sync_lease', { p_holder: 'text', p_lease_seconds: 'double precision' }),
  renew: sqlFunction('renew_knowledge_sync_lease', { p_holder: 'text', p_lease_seconds: 'double precision' }),
  release: sqlFunction('release_knowledge_sync_lease', { p_holder: 'text' }),
};

/**
 * The lease that lets one instance at a time run the knowledge sync (see
 * 20261126000580_knowledge_sync_lease.sql): taken for a while, renewed while the
 * run goes on, given back at its end. Each call is one short transaction, so it
 * works on every backend, behind a transaction pooler too.
 */
export class KnowledgeSyncLease {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** True when `holder` now holds the lease for `leaseMs`; false when another instance holds it. */
  async take(holder: string, leaseMs: number): Promise<boolean> {
    return (await this.fn.value<string>(FUNCTIONS.take, { p_holder: holder, p_lease_seconds: leaseMs / 1000 })) === 'taken';
  }

  /** Extends `holder`'s lease to `leaseMs` from now; false when it is no longer `holder`'s. */
  async renew(holder: string, leaseMs: number): Promise<boolean> {
    return (await this.fn.value<boolean>(FUNCTIONS.renew, { p_holder: holder, p_lease_seconds: leaseMs / 1000 })) === true;
  }

  /** Gives `holder`'s lease back; false when it did not hold it (any more). */
  async release(holder: string): Promise<boolean> {
    return (await this.fn.value<boolean>(FUNCTIONS.release, { p_holder: holder })) === true;
  }
}
