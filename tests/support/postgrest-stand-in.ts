/**
 * A STAND-IN FOR POSTGREST, NOT POSTGREST: no PostgREST server can run here, so
 * this loopback HTTP server speaks just enough of its protocol for supabase-js's
 * `.rpc()`: `POST /rest/v1/rpc/<function>` with the arguments as a JSON object
 * of named values, the service key in `apikey` and `Authorization: Bearer`.
 * Like PostgREST it reads the function's arguments from the catalog, converts the
 * JSON object to them with jsonb_to_record (so a JSON string feeds the type's
 * input function, an array becomes a Postgres array, an object stays jsonb),
 * answers rows as a JSON array (json_agg) and a scalar as a JSON value, and maps
 * errors to {code, message, details, hint} with the SQLSTATE as code. It executes
 * the migrations' real SQL functions on PGlite. Roles, JWTs, schemas other than
 * public, filters and everything else PostgREST does are not imitated.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sqlStateOf, type SqlQueryable } from '../../src/store/database';

export interface RecordedRpc {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  status: number;
}

export interface PostgrestStandIn {
  /** The "project URL" to give supabase-js. */
  url: string;
  requests: RecordedRpc[];
  close(): Promise<void>;
}

interface FunctionInfo {
  args: Array<{ name: string; type: string }>;
  returnsRows: boolean;
}

const RPC_PATH = /^\/rest\/v1\/rpc\/([a-z_][a-z0-9_]*)$/;

export async function startPostgrestStandIn(db: SqlQueryable, serviceRoleKey: string): Promise<PostgrestStandIn> {
  const requests: RecordedRpc[] = [];
  const functions = new Map<string, FunctionInfo>();

  async function lookUp(name: string): Promise<FunctionInfo | null> {
    if (!functions.has(name)) {
      const rows = await db.query<{ names: string[] | null; types: string[]; retset: boolean; composite: boolean; table: boolean }>(
        `select p.proargnames[1:p.pronargs] as names,
                array(select format_type(t, null) from unnest(p.proargtypes::oid[]) with ordinality as a(t, i) order by i) as types,
                p.proretset as retset,
                (select typtype = 'c' from pg_type where oid = p.prorettype) as composite,
                'table' = any(coalesce(p.proargmodes::text[], '{}')) or 't' = any(coalesce(p.proargmodes::text[], '{}')) as table
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'public' and p.proname = $1`,
        [name],
      );
      const row = rows.length === 1 ? rows[0]! : null;
      // A missing function is looked up again next time (the tests rename one and back).
      if (!row) return null;
      functions.set(name, {
        args: (row.names ?? []).map((argName, i) => ({ name: argName, type: row.types[i]! })),
        // Like PostgREST: setof and table functions answer an array of objects, even with one column.
        returnsRows: row.retset || row.composite || row.table,
      });
    }
    return functions.get(name)!;
  }

  async function call(name: string, body: Record<string, unknown>): Promise<{ status: number; payload: unknown }> {
    const fn = await lookUp(name);
    const given = Object.keys(body).sort();
    if (!fn || fn.args.map((a) => a.name).sort().join() !== given.join()) {
      return {
        status: 404,
        payload: {
          code: 'PGRST202',
          message: `Could not find the function public.${name}(${given.join(', ')}) in the schema cache`,
          details: null,
          hint: null,
        },
      };
    }
    const call = `${name}(${fn.args.map((a) => `${a.name} => r.${a.name}`).join(', ')})`;
    const from = fn.args.length > 0 ? `jsonb_to_record($1::jsonb) as r(${fn.args.map((a) => `${a.name} ${a.type}`).join(', ')})` : null;
    // Rows as objects named by their columns (select *), as PostgREST answers them.
    const sql = fn.returnsRows
      ? `select coalesce(json_agg(t), '[]'::json) as payload from (select f.* from ${from ? `${from} cross join lateral ` : ''}${call} f) t`
      : `select to_json(${call}) as payload${from ? ` from ${from}` : ''}`;
    try {
      const [row] = await db.query<{ payload: unknown }>(sql, from ? [JSON.stringify(body)] : []);
      return { status: 200, payload: row?.payload ?? null };
    } catch (error) {
      const code = sqlStateOf(error) ?? 'XX000';
      const e = error as { message: string; detail?: string; hint?: string };
      // PostgREST's mapping, roughly: constraint violations 409, privileges 403, the rest of the client's errors 400.
      const status = code.startsWith('23') ? 409 : code === '42501' ? 403 : 400;
      return { status, payload: { code, message: e.message, details: e.detail ?? null, hint: e.hint ?? null } };
    }
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const record: RecordedRpc = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: undefined, status: 0 };
    requests.push(record);
    const send = (status: number, payload: unknown) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(payload));
    };

    const match = RPC_PATH.exec((req.url ?? '').split('?')[0]!);
    if (req.method !== 'POST' || !match) return send(404, { code: 'PGRST125', message: `stand-in: no route for ${req.method} ${req.url}` });
    if (req.headers.apikey !== serviceRoleKey || req.headers.authorization !== `Bearer ${serviceRoleKey}`) {
      return send(401, { code: 'PGRST301', message: 'stand-in: the service role key is required', details: null, hint: null });
    }
    try {
      record.body = text ? JSON.parse(text) : {};
    } catch {
      return send(400, { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null });
    }
    const { status, payload } = await call(match[1]!, record.body as Record<string, unknown>);
    send(status, payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
