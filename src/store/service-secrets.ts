import type { SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

// Migration 20261123000201_service_secrets.
const KEEP = sqlFunction('keep_service_secret', { p_name: 'text', p_candidate: 'text' });

/**
 * Secrets the service generates for itself, kept in the database (table
 * service_secrets) so that every instance over it uses the same one.
 */
export class ServiceSecrets {
  private readonly fn: SqlFunctionCaller;

  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** The secret kept under `name`; `candidate` (fresh random bytes) becomes it when there is none yet. */
  keep(name: string, candidate: string): Promise<string> {
    return this.fn.value<string>(KEEP, { p_name: name, p_candidate: candidate });
  }
}
