import type { SqlQueryable } from './database';

/** The Postgres types the store's function arguments have. */
export type ArgumentType = 'text' | 'integer' | 'bigint' | 'double precision' | 'boolean' | 'jsonb' | 'uuid' | 'text[]' | 'vector';

/**
 * A SQL function of the migrations, as the store calls it: its name and its
 * arguments' names and types, in order. The same description serves a `select`
 * (pg, PGlite) and a PostgREST `.rpc()` call (Supabase).
 */
export interface SqlFunction {
  name: string;
  args: Readonly<Record<string, ArgumentType>>;
}

/**
 * Argument values as JavaScript: jsonb arguments as objects or arrays, text[] as
 * arrays, vectors as pgvector's text form ('[0.1,0.2]').
 */
export type FunctionArguments = Record<string, unknown>;

/**
 * Calls the migrations' SQL functions. Both backends implement it; the store's
 * logic (what to call, how rows become records) is written once above it.
 * Errors carry the Postgres SQLSTATE in `code` on every backend.
 */
export interface SqlFunctionCaller {
  /** A function that returns rows (setof, table): its rows as objects. */
  rows<Row>(fn: SqlFunction, args: FunctionArguments): Promise<Row[]>;
  /** A function that returns one value (boolean, integer). */
  value<T>(fn: SqlFunction, args: FunctionArguments): Promise<T>;
}

/** Declares a function of the migrations. */
export function sqlFunction(name: string, args: Record<string, ArgumentType>): SqlFunction {
  return { name, args };
}

/**
 * The caller over a SQL connection (pg pool, PGlite): named-argument calls with
 * typed parameters, `select * from fn(p_a => $1::text, …)`. jsonb values are sent
 * as JSON text, since drivers differ on objects.
 */
export function sqlFunctionCaller(db: SqlQueryable): SqlFunctionCaller {
  const statement = (fn: SqlFunction, args: FunctionArguments) => {
    const names = Object.keys(fn.args);
    const unknown = Object.keys(args).filter((a) => !(a in fn.args));
    if (unknown.length > 0) throw new Error(`${fn.name}() has no argument ${unknown.join(', ')}`);
    const call = `${fn.name}(${names.map((n, i) => `${n} => $${i + 1}::${fn.args[n]}`).join(', ')})`;
    const params = names.map((n) => {
      const value = args[n] ?? null;
      return fn.args[n] === 'jsonb' && value !== null ? JSON.stringify(value) : value;
    });
    return { call, params };
  };
  return {
    rows: async <Row>(fn: SqlFunction, args: FunctionArguments) => {
      const { call, params } = statement(fn, args);
      return db.query<Row>(`select * from ${call}`, params);
    },
    value: async <T>(fn: SqlFunction, args: FunctionArguments) => {
      const { call, params } = statement(fn, args);
      const [row] = await db.query<{ value: T }>(`select ${call} as value`, params);
      return row!.value;
    },
  };
}

/** Tells a caller from a connection, for constructors that accept either. */
export function isSqlFunctionCaller(target: SqlQueryable | SqlFunctionCaller): target is SqlFunctionCaller {
  return typeof (target as SqlFunctionCaller).rows === 'function';
}
