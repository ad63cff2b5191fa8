import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

// Migration 20261122001500_rate_limits.
const FUNCTIONS = {
  hit: sqlFunction('rate_limit_hit', { p_key: 'text', p_window_ms: 'integer' }),
  undo: sqlFunction('rate_limit_undo', { p_key: 'text', p_window_ms: 'integer' }),
  reset: sqlFunction('rate_limit_reset', { p_key: 'text' }),
  // Migration 20261123000200_rate_limit_peek.
  peek: sqlFunction('rate_limit_peek', { p_key: 'text', p_window_ms: 'integer' }),
};

/**
 * Fixed-window hit counters in the database (table rate_limit_counters), shared by
 * every instance of the service. Windows follow the database's clock.
 */
export class RateLimitCounters {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** Counts a hit of `key` in the current window of `windowMs`: the window's hits so far, this one included, and when it ends. */
  async hit(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }> {
    const [row] = await this.fn.rows<{ hits: number; reset_at: Date | string }>(FUNCTIONS.hit, { p_key: key, p_window_ms: windowMs });
    if (!row) throw new Error('rate_limit_hit() returned no row');
    return { hits: row.hits, resetAt: new Date(row.reset_at) };
  }

  /** The hits `key` has in the current window of `windowMs`, without counting one. */
  peek(key: string, windowMs: number): Promise<number> {
    return this.fn.value<number>(FUNCTIONS.peek, { p_key: key, p_window_ms: windowMs });
  }

  /** Takes back one hit of `key` in the current window; false when it had none. */
  undo(key: string, windowMs: number): Promise<boolean> {
    return this.fn.value<boolean>(FUNCTIONS.undo, { p_key: key, p_window_ms: windowMs });
  }

  /** Forgets every hit of `key`; false when it had none. */
  reset(key: string): Promise<boolean> {
    return this.fn.value<boolean>(FUNCTIONS.reset, { p_key: key });
  }
}

/** Thrown by DatabaseRateLimitStore when the counters cannot be reached; `cause` is the database's error. */
export class RateLimitStoreError extends Error {
  override name = 'RateLimitStoreError';
}

/**
 * express-rate-limit's Store over the shared counters. One per limiter (the
 * library refuses a store shared by two), each with its own key prefix.
 */
export class DatabaseRateLimitStore implements Store {
  /** Keys are counted in the database, so other instances' hits count too. */
  readonly localKeys = false;
  private windowMs = 60_000;

  constructor(
    private readonly counters: RateLimitCounters,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const { hits, resetAt } = await this.failing(() => this.counters.hit(this.prefix + key, this.windowMs));
    return { totalHits: hits, resetTime: resetAt };
  }

  async decrement(key: string): Promise<void> {
    await this.failing(() => this.counters.undo(this.prefix + key, this.windowMs));
  }

  async resetKey(key: string): Promise<void> {
    await this.failing(() => this.counters.reset(this.prefix + key));
  }

  /** Marks the database's errors, so the limiter's log can tell them from its own. */
  private async failing<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new RateLimitStoreError(`The rate-limit counters are unavailable: ${(error as Error).message}`, { cause: error });
    }
  }
}
