/**
 * The little a store needs from a Postgres connection. PGlite implements it
 * in-process; a `pg` pool can implement it over the wire. Parameters use $1, $2…;
 * pass jsonb values as JSON strings, since drivers differ on objects.
 */
export interface SqlQueryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDatabase extends SqlQueryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A Postgres error's SQLSTATE, when the error carries one. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A jsonb column as the driver hands it back: PGlite parses jsonb, some setups give text. */
export function parseJsonColumn<T>(value: T | string): T;
export function parseJsonColumn<T>(value: T | string | null): T | null;
export function parseJsonColumn<T>(value: T | string | null): T | null {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}
