import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { FunctionArguments, SqlFunction, SqlFunctionCaller } from './sql-functions';

// The same deadline the pg backend gives a connection: an unreachable project
// fails requests (and /health answers 503) instead of hanging them.
const REQUEST_TIMEOUT_MS = 10_000;

export interface SupabaseOptions {
  /** The project's API URL, e.g. https://abcd.supabase.co. */
  url: string;
  /** The service_role key (secret): it bypasses row-level security, which shuts everyone else out. */
  serviceRoleKey: string;
}

/** An error from PostgREST with the Postgres SQLSTATE in `code`, like the SQL backends' errors. */
export class SupabaseRpcError extends Error {
  override name = 'SupabaseRpcError';
  constructor(
    readonly fn: string,
    readonly code: string | undefined,
    message: string,
    readonly details?: string | null,
    readonly hint?: string | null,
  ) {
    super(message);
  }
}

/**
 * Realtime is never used, but supabase-js builds its client anyway and, on Node 20
 * (no global WebSocket), fails unless given a transport. This one refuses to open.
 */
class RealtimeNotUsed {
  constructor() {
    throw new Error('The support agent does not use Supabase Realtime');
  }
}

/** A supabase-js client for server use: no session kept, no token refresh. */
export function createSupabaseClient(options: SupabaseOptions): SupabaseClient {
  return createClient(options.url, options.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: RealtimeNotUsed as never },
  });
}

/**
 * The SQL functions called through Supabase's API (PostgREST), with
 * `supabase.rpc(name, namedArguments)`: one HTTP request per call, a POST to
 * /rest/v1/rpc/<name> that PostgREST runs in a transaction of its own. supabase-js
 * never retries a POST, so a turn is never sent twice by the client library.
 */
export function supabaseFunctionCaller(client: SupabaseClient): SqlFunctionCaller {
  const call = async (fn: SqlFunction, args: FunctionArguments): Promise<unknown> => {
    const { data, error } = await client.rpc(fn.name, args).abortSignal(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
    if (error) {
      const code = error.code || undefined;
      const hint = code === 'PGRST202' ? ' The function is missing: apply the migrations (supabase db push, or npm run db:migrate with DATABASE_URL).' : '';
      throw new SupabaseRpcError(fn.name, code, `${fn.name}(): ${error.message}${hint}`, error.details, error.hint);
    }
    return data;
  };
  return {
    rows: async <Row>(fn: SqlFunction, args: FunctionArguments) => {
      const data = await call(fn, args);
      if (!Array.isArray(data)) throw new SupabaseRpcError(fn.name, undefined, `${fn.name}() answered ${typeof data}, not rows`);
      return data as Row[];
    },
    value: async <T>(fn: SqlFunction, args: FunctionArguments) => (await call(fn, args)) as T,
  };
}
