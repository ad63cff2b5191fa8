import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createDependencies, type Dependencies } from '../../src/dependencies';
import { answerParserErrorsAsJson } from '../../src/http/parser-errors';
import { signCustomerToken } from '../../src/identity/customer-token';
import { createLogger, type Logger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPgliteDatabase } from '../../src/store/pglite';
import { startOpenAIStub, type OpenAIStub } from './openai-stub';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const HELP_CENTER_DIR = path.join(REPO_ROOT, 'knowledge/help-center');
export const TEST_AGENT_KEY = 'test-agent-key';
/** The shop's customer-token secret in test services (CUSTOMER_IDENTITY_SECRET); set it to '' for the generated demo secret. */
export const TEST_CUSTOMER_SECRET = 'test-customer-identity-secret-for-the-shop-0123456789';

/** X-Customer-Token for a customer, signed as the shop's backend signs it (HS256, TEST_CUSTOMER_SECRET). */
export async function customerTokenHeader(customerId: string, secret = TEST_CUSTOMER_SECRET): Promise<Record<string, string>> {
  return { 'x-customer-token': await signCustomerToken(secret, customerId) };
}

/** The real service (real wiring, real PGlite) listening on a loopback port. */
export interface TestService {
  baseURL: string;
  config: Config;
  deps: Dependencies;
  db: SqlDatabase;
  dataDir: string;
  /** Stops the server and closes the database (keeps dataDir, so a restart can reopen it). */
  close(): Promise<void>;
  /**
   * POST /api/v1/chat. Like the widget, it keeps each session's token from the
   * answers and sends it back when it continues that session, unless the test
   * passes its own X-Session-Token header.
   */
  postChat(body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** The session token postChat has kept for a session (for requests made without postChat). */
  sessionToken(sessionId: string): string | undefined;
  getHistory(sessionId: string, query?: string, key?: string | null): Promise<{ status: number; body: any }>;
  /** Any other endpoint: a JSON body when given, the agent key unless key is null. */
  request(method: string, path: string, body?: unknown, key?: string | null): Promise<{ status: number; body: any }>;
  /** Rows in a table, to check that a rejected request stored nothing. */
  countRows(table: 'chat_messages' | 'chat_sessions' | 'documents' | 'conversation_summaries'): Promise<number>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** Keep the database in files here (to test restarts); in memory when omitted. */
  dataDir?: string;
  /** Where the service logs; silent when omitted. */
  logger?: Logger;
}

/**
 * The environment of a service answering with the real OpenAI clients against the
 * loopback OpenAI-compatible stub. The stub's vectors are pseudo-random, so every
 * nearest passage is kept and nothing is escalated unless a test says otherwise.
 */
export function openAIStubEnv(baseURL: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: baseURL,
    OPENAI_TIMEOUT_MS: '3000',
    OPENAI_MAX_RETRIES: '0',
    RETRIEVAL_MIN_SIMILARITY: '-1',
    ESCALATION_CONFIDENCE_THRESHOLD: '0',
    // Follow-ups carry their topic offline instead of a rewrite call, so the replies a test
    // queues go to the answers it expects; the tests of the rewrite ask for QUERY_REWRITE=model.
    QUERY_REWRITE: 'topic',
    ...overrides,
  };
}

/** A test file's two services: one offline, one answering through the loopback OpenAI-compatible stub. */
export interface OfflineAndOnline {
  stub: OpenAIStub;
  offline: TestService;
  online: TestService;
  close(): Promise<void>;
}

/** Starts the stub and both services together; `onlineEnv` goes on top of openAIStubEnv. */
export async function startOfflineAndOnline(options: { offline?: TestServiceOptions; onlineEnv?: Record<string, string> } = {}): Promise<OfflineAndOnline> {
  const stub = await startOpenAIStub();
  const [offline, online] = await Promise.all([
    startTestService(options.offline),
    startTestService({ env: openAIStubEnv(stub.baseURL, options.onlineEnv) }),
  ]);
  return {
    stub,
    offline,
    online,
    close: async () => {
      await Promise.all([offline.close(), online.close()]);
      await stub.close();
    },
  };
}

export async function makeTempDir(prefix = 'support-agent-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? (await makeTempDir());
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AGENT_API_KEY: TEST_AGENT_KEY,
    CUSTOMER_IDENTITY_SECRET: TEST_CUSTOMER_SECRET,
    KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
    // Tests fire many requests from one address; the rate-limit test sets its own.
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_SESSION: '1000000',
    // The instant word-hashing embedder, so a test's start does not embed the help center
    // with the sentence encoder (seconds each); the tests of retrieval quality ask for it.
    OFFLINE_EMBEDDER: 'hashing',
    ...options.env,
  });
  const db = await openPgliteDatabase(options.dataDir ? path.join(dataDir, 'pglite') : undefined);
  const deps = await createDependencies(config, options.logger ?? createLogger('silent'), db);
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
    answerParserErrorsAsJson(s);
  });
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sessionTokens = new Map<string, string>();
  const call = async (url: string, init?: RequestInit) => {
    const response = await fetch(url, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the test sees the raw text
    }
    return { status: response.status, body: body as any };
  };

  return {
    baseURL,
    config,
    deps,
    db,
    dataDir,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.close();
    },
    postChat: async (body, headers = {}) => {
      const sessionId = typeof body === 'object' && body !== null ? (body as { session_id?: unknown }).session_id : undefined;
      const token = typeof sessionId === 'string' ? sessionTokens.get(sessionId) : undefined;
      const hasOwnToken = Object.keys(headers).some((h) => h.toLowerCase() === 'x-session-token');
      const response = await call(`${baseURL}/api/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && !hasOwnToken && { 'x-session-token': token }), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      if (typeof response.body?.session_token === 'string') sessionTokens.set(response.body.session_id, response.body.session_token);
      return response;
    },
    sessionToken: (sessionId) => sessionTokens.get(sessionId),
    getHistory: (sessionId, query = '', key = TEST_AGENT_KEY) =>
      call(`${baseURL}/api/v1/chat/history/${encodeURIComponent(sessionId)}${query}`, {
        headers: key === null ? {} : { authorization: `Bearer ${key}` },
      }),
    request: (method, path, body, key = TEST_AGENT_KEY) =>
      call(`${baseURL}${path}`, {
        method,
        headers: {
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(key !== null && { authorization: `Bearer ${key}` }),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    countRows: async (table) => {
      const [row] = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
      return row!.n;
    },
  };
}

/** One app served on a free loopback port, over dependencies a test made itself (e.g. on a real PostgreSQL server). */
export interface AppInstance {
  baseURL: string;
  server: Server;
  deps: Dependencies;
}

/** Serves `createApp(deps.appParts)` on 127.0.0.1, port 0. */
export async function listenApp(deps: Dependencies): Promise<AppInstance> {
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
  });
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, deps };
}

/** Closes each instance: its open connections, its server, then its dependencies (pool, tracing). */
export async function closeAppInstances(instances: AppInstance[]): Promise<void> {
  for (const { server, deps } of instances) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await deps.close();
  }
}
