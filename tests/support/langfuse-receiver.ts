/**
 * A stand-in Langfuse on loopback for tests: it accepts what the real Langfuse SDK
 * sends, records it, and can be made slow or failing.
 *
 * - Spans: OTLP over HTTP, JSON (the SDK's LangfuseSpanProcessor uses the OTLP
 *   HTTP exporter), POST /api/public/otel/v1/traces.
 * - Scores: the ingestion API, POST /api/public/ingestion `{batch: [{type: "score-create", body}]}`.
 * - Trace deletion: the public API, DELETE /api/public/traces `{traceIds: [...]}`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export const TRACES_PATH = '/api/public/otel/v1/traces';
export const INGESTION_PATH = '/api/public/ingestion';
export const TRACES_DELETE_PATH = '/api/public/traces';

/** One OTLP span, attributes flattened to plain values (JSON-encoded ones left as strings). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  attributes: Record<string, unknown>;
  startMs: number;
  endMs: number;
}

export interface ReceivedScore {
  id: string;
  traceId: string;
  name: string;
  value: number;
  dataType?: string;
  comment?: string;
}

export interface LangfuseReceiver {
  baseUrl: string;
  spans: ReceivedSpan[];
  scores: ReceivedScore[];
  /** Trace ids deleted through DELETE /api/public/traces, in order. */
  deletedTraceIds: string[];
  /** Every request, with its path and Authorization header. */
  requests: { path: string; method?: string; authorization: string | undefined }[];
  /** Answer every request after this delay (a slow Langfuse). */
  setDelay(ms: number): void;
  /** Answer every request with this status (a failing Langfuse); null: 200. */
  setStatus(status: number | null): void;
  /** Resolves when fn is true of what was received, polling; rejects after timeoutMs. */
  waitFor(fn: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function flatten(value: any): unknown {
  if (value == null) return null;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(flatten);
  if ('kvlistValue' in value) return Object.fromEntries((value.kvlistValue.values ?? []).map((kv: any) => [kv.key, flatten(kv.value)]));
  return null;
}

/** OTLP JSON ids are hex; some encoders send base64. Either way, hex here. */
function hexId(id: unknown): string {
  if (typeof id !== 'string' || id === '') return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function nanosToMs(value: unknown): number {
  return Number(BigInt(String(value ?? 0)) / 1_000_000n);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startLangfuseReceiver(): Promise<LangfuseReceiver> {
  const spans: ReceivedSpan[] = [];
  const scores: ReceivedScore[] = [];
  const deletedTraceIds: string[] = [];
  const requests: LangfuseReceiver['requests'] = [];
  let delayMs = 0;
  let status: number | null = null;
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ path, method: req.method, authorization: req.headers.authorization });
    let raw = await readBody(req);
    if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);

    const answer = () => {
      if (res.destroyed) return;
      if (status !== null) {
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"message":"receiver told to fail"}');
        return;
      }
      // Recorded only when accepted: a failed export did not arrive.
      const body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
      if (path === TRACES_PATH) {
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const s of scope.spans ?? []) {
              spans.push({
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId) || null,
                name: s.name,
                attributes: Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, flatten(a.value)])),
                startMs: nanosToMs(s.startTimeUnixNano),
                endMs: nanosToMs(s.endTimeUnixNano),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (path === TRACES_DELETE_PATH && req.method === 'DELETE') {
        deletedTraceIds.push(...(body.traceIds ?? []));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"Traces deleted"}');
        return;
      }
      if (path === INGESTION_PATH) {
        const successes = [];
        for (const event of body.batch ?? []) {
          if (event.type === 'score-create') scores.push(event.body);
          successes.push({ id: event.id, status: 201 });
        }
        res.writeHead(207, { 'content-type': 'application/json' }).end(JSON.stringify({ successes, errors: [] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no such route"}');
    };

    if (delayMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, delayMs);
      timers.add(timer);
    } else {
      answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    spans,
    scores,
    deletedTraceIds,
    requests,
    setDelay: (ms) => {
      delayMs = ms;
    },
    setStatus: (s) => {
      status = s;
    },
    waitFor: async (fn, timeoutMs = 10_000) => {
      const until = Date.now() + timeoutMs;
      while (!fn()) {
        if (Date.now() > until) throw new Error('The Langfuse receiver did not get what was expected in time');
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
