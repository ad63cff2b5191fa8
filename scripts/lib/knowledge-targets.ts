/**
 * Where `npm run ingest` writes: the database directly, or a running service's
 * knowledge API (the embedded default's database is locked by the service that runs
 * on it; INGEST_SERVICE_URL names any other). Both chunk and embed with
 * ingestDocument (the service does it on its side), so the outcome is the same.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../src/config';
import { describeStorage, openStorage } from '../../src/dependencies';
import { createEmbedder } from '../../src/knowledge/embeddings';
import { TOOL_NAMES } from '../../src/agent/tools';
import { loadConfiguredShop } from '../../src/shop/load-shop';
import { ingestDocument, type DocumentIngestResult, type DocumentToIngest, type KnowledgeWriter } from '../../src/knowledge/ingest';
import { DocumentSkipped } from '../../src/knowledge/sources/convert';
import type { SiteSyncRecords } from '../../src/knowledge/sources/site-sync';
import type { SyncCounts, SyncError } from '../../src/store/site-sync-store';
import { looksLikeLinkedDocument } from '../../src/knowledge/sources/site-urls';
import { readServiceAddress } from '../../src/service-address';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import { createSupabaseClient, supabaseFunctionCaller } from '../../src/store/supabase';
import { applyMigrations } from '../../src/store/migrations';
import { DataDirInUseError } from '../../src/store/pglite';

/** What is stored for a source: enough to tell whether a file changed. */
export interface StoredSource {
  contentHash: string;
  embeddingModel: string;
}

export interface KnowledgeTarget {
  /** For messages: "pglite (./.data)" or "the service at http://…". */
  description: string;
  /** The model the target embeds with. */
  embeddingModel: string;
  /** Every stored source. */
  listSources(): Promise<Map<string, StoredSource>>;
  /** Stores one document; throws DocumentSkipped when the service refuses it as too large (its KNOWLEDGE_DOCUMENT_MAX_BYTES caps the JSON body). */
  put(doc: DocumentToIngest): Promise<DocumentIngestResult>;
  remove(source: string): Promise<void>;
  /**
   * Where a site's sync keeps its run records and crawl state: the database's tables;
   * through a service, a stand-in that knows the site's stored sources (so gone pages
   * are still found and removed) but keeps no ETags and records no run.
   */
  siteRecords: SiteSyncRecords;
  /** True when runs are recorded (the database); false through a service's API. */
  recordsRuns: boolean;
  /**
   * Through a running service: syncs a site in the service (POST /api/v1/knowledge/syncs),
   * which keeps the crawl state and records the run as its schedule does, and resolves
   * with the recorded run once it ends; null when the service has no such route (an
   * older one), so the command crawls itself. Absent for the database.
   */
  syncInService?: (site: string, options: ServiceSyncOptions) => Promise<SyncRun | null>;
  close(): Promise<void>;
}

/** What `npm run ingest -- <url>` asks of the service's sync. */
export interface ServiceSyncOptions {
  prune: boolean;
  /** The site may be on the private network (`--allow-private-network`; the service honours it from its own machine). */
  allowPrivateNetwork: boolean;
  maxPages?: number;
  concurrency?: number;
  /** Hears of the recorded run's id once the service started it, and of each wait for another sync to end. */
  onStarted?: (runId: number) => void;
  onBusy?: (retryAfterSeconds: number) => void;
}

/** A run as GET /api/v1/knowledge/syncs lists it. */
export interface SyncRun {
  id: number;
  site: string;
  status: 'running' | 'succeeded' | 'held' | 'failed';
  started_at: string;
  finished_at: string | null;
  counts: Partial<SyncCounts>;
  errors: SyncError[];
  message: string | null;
}

/** How often the command asks whether the service's run has ended. */
const RUN_POLL_MS = 500;
/** Asking again this soon (rather than the service's Retry-After of 30 s): a sync of a small site ends in seconds. */
const BUSY_RETRY_SECONDS = 5;
/** How long the command waits for another sync to end before giving up. */
const BUSY_WAIT_MAX_MS = 15 * 60_000;

/**
 * INGEST_SERVICE_URL's service; else the configured database; else, when the embedded
 * database is held by a running service, that service (DATA_DIR/service-url).
 */
export async function openKnowledgeTarget(config: Config): Promise<KnowledgeTarget> {
  if (config.ingestServiceUrl) return serviceTarget(config.ingestServiceUrl, await agentKey(config));
  try {
    return await databaseTarget(config);
  } catch (error) {
    if (!(error instanceof DataDirInUseError) || config.storage.kind !== 'pglite') throw error;
    const url = await readServiceAddress(config.storage.dataDir);
    if (!url) throw new Error(`${error.message} (It left no service-url in ${config.storage.dataDir}: set INGEST_SERVICE_URL to its address.)`);
    return serviceTarget(url, await agentKey(config));
  }
}

async function databaseTarget(config: Config): Promise<KnowledgeTarget> {
  const storage = await openStorage(config);
  try {
    // Through Supabase's API nothing can be migrated: the schema must be there already.
    if (storage.db) await applyMigrations(storage.db);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const embedder = createEmbedder(config);
  // The shop's languages guide the detection of each document's language, as in the service.
  // A shop file the service would refuse leaves detection to decide alone: ingesting needs no shop.
  let languages: readonly string[] = [];
  try {
    languages = loadConfiguredShop(config.shop, TOOL_NAMES).languages;
  } catch {
    // The service's start reports what is wrong with the shop file.
  }
  const writer: KnowledgeWriter = {
    listSourceChunks: (source) => storage.store.listSourceChunks(source),
    findEmbeddingsByHash: (hashes, model) => storage.store.findEmbeddingsByHash(hashes, model),
    // The same per-source lock as the knowledge API's writes, should a service write too.
    replaceSourceChunks: (source, chunks) => storage.knowledgeAdmin.replaceSourceChunks(source, chunks),
  };
  return {
    description: describeStorage(config.storage),
    embeddingModel: embedder.model,
    listSources: async () => {
      const found = new Map<string, StoredSource>();
      let after: string | undefined;
      for (;;) {
        const page = await storage.knowledgeAdmin.listSources({ after, limit: 500 });
        for (const s of page.sources) found.set(s.source, { contentHash: s.contentHash, embeddingModel: s.embeddingModel });
        if (!page.nextAfter) return found;
        after = page.nextAfter;
      }
    },
    put: (doc) => ingestDocument(doc, writer, embedder, { languages }),
    remove: async (source) => {
      await storage.knowledgeAdmin.deleteSource(source);
    },
    siteRecords: new SiteSyncStore(storage.db ?? supabaseFunctionCaller(createSupabaseClient(config.storage as Extract<Config['storage'], { kind: 'supabase' }>))),
    recordsRuns: true,
    close: () => storage.close(),
  };
}

/** The knowledge API of a running service, with the agent key. */
async function serviceTarget(baseUrl: string, key: string): Promise<KnowledgeTarget> {
  const call = async (method: string, pathAndQuery: string, body?: unknown) => {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${pathAndQuery}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new Error(`Cannot reach the service at ${baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    const payload = (await response.json().catch(() => null)) as any;
    return { status: response.status, payload };
  };
  const fail = (what: string, status: number, payload: any) =>
    new Error(`${what}: ${status} ${payload?.error?.code ?? ''} ${payload?.error?.message ?? ''}`.trim());
  const sourcePath = (source: string) => `/api/v1/knowledge/sources/${encodeURIComponent(source)}`;

  const health = await call('GET', '/health');
  if (health.status !== 200) throw fail(`The service at ${baseUrl} is not ready`, health.status, health.payload);
  const target: KnowledgeTarget = {
    description: `the service at ${baseUrl}`,
    embeddingModel: String(health.payload.embedding_model),
    listSources: async () => {
      const found = new Map<string, StoredSource>();
      let after: string | undefined;
      for (;;) {
        const { status, payload } = await call('GET', `/api/v1/knowledge/sources?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        if (status !== 200) throw fail('Listing the knowledge base failed', status, payload);
        for (const s of payload.sources) found.set(s.source, { contentHash: s.content_hash, embeddingModel: s.embedding_model });
        if (!payload.next_after) return found;
        after = payload.next_after;
      }
    },
    put: async (doc) => {
      const body = {
        format: doc.format,
        ...(doc.title && { title: doc.title }),
        ...(doc.url !== undefined && { url: doc.url }),
        ...(doc.parts ? { parts: doc.parts.map((p) => ({ content: p.markdown, ...(p.page !== undefined && { page: p.page }) })) } : { content: doc.text }),
      };
      const { status, payload } = await call('PUT', sourcePath(doc.source), body);
      // A document the service will not store (too large for its KNOWLEDGE_DOCUMENT_MAX_BYTES) is skipped, as a file with no text is.
      if (status === 413) throw new DocumentSkipped('too_large', `${payload?.error?.message ?? 'The service refused it as too large.'}`);
      if (status !== 200 && status !== 201) throw fail(`${doc.source} was refused`, status, payload);
      return { outcome: payload.outcome, title: payload.title, chunks: payload.chunk_count, embedded: payload.embedded };
    },
    remove: async (source) => {
      const { status, payload } = await call('DELETE', sourcePath(source));
      // Gone already (someone else removed it) is what was wanted.
      if (status !== 200 && status !== 404) throw fail(`Removing ${source} failed`, status, payload);
    },
    siteRecords: {
      startRun: async () => 0,
      finishRun: async () => true,
      // The site's pages are the stored sources on its host; a PDF or Word file among them was found as a link.
      pageStates: async (site) => {
        const origin = `${new URL(site).origin}/`;
        const sources = [...(await target.listSources()).keys()].filter((s) => s.startsWith(origin));
        return new Map(sources.map((s) => [s, { url: s, source: s, etag: null, lastModified: null, lastmod: null, linked: looksLikeLinkedDocument(s) }]));
      },
      putPageState: async () => {},
      markPagesChecked: async () => 0,
      forgetSource: async () => 0,
    },
    recordsRuns: false,
    syncInService: async (site, options) => {
      const body = { site, prune: options.prune, allow_private_network: options.allowPrivateNetwork, ...(options.maxPages && { max_pages: options.maxPages }), ...(options.concurrency && { concurrency: options.concurrency }) };
      const waitUntil = Date.now() + BUSY_WAIT_MAX_MS;
      let started: { status: number; payload: any };
      for (;;) {
        started = await call('POST', '/api/v1/knowledge/syncs', body);
        if (started.status !== 409 || Date.now() > waitUntil) break;
        // Another sync (the service's schedule, another command) is going on: wait for it, as a scheduled turn would.
        options.onBusy?.(BUSY_RETRY_SECONDS);
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_SECONDS * 1000));
      }
      if (started.status === 404 && started.payload?.error?.code === 'not_found') return null;
      if (started.status !== 202) throw fail(`The service refused to sync ${site}`, started.status, started.payload);
      const runId = Number(started.payload.id);
      options.onStarted?.(runId);
      const recorded = String(started.payload.site);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, RUN_POLL_MS));
        const { status, payload } = await pollRuns(() => call('GET', `/api/v1/knowledge/syncs?site=${encodeURIComponent(recorded)}&limit=20`));
        if (status !== 200) throw fail('Reading the sync runs failed', status, payload);
        const run = (payload.syncs as SyncRun[]).find((r) => r.id === runId);
        if (run && run.status !== 'running') return run;
      }
    },
    close: async () => {},
  };
  return target;
}

/** Failed polls in a row the command bears before it gives up. */
const POLL_ATTEMPTS = 10;

/**
 * One poll of the runs, asked again when the connection fails: while the service embeds a
 * page its event loop is busy, and a kept-alive connection it closes late can reset the
 * next request. Reading the runs changes nothing, so asking again is safe.
 */
async function pollRuns<T>(poll: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await poll();
    } catch (error) {
      if (attempt >= POLL_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** AGENT_API_KEY, or on the embedded default the key the service generated in DATA_DIR. */
async function agentKey(config: Config): Promise<string> {
  if (config.agentApiKey) return config.agentApiKey;
  if (config.storage.kind === 'pglite') {
    const file = path.join(config.storage.dataDir, 'agent-api-key');
    const key = (await fs.readFile(file, 'utf8').catch(() => '')).trim();
    if (key) return key;
  }
  throw new Error('Ingesting through the service needs its agent key: set AGENT_API_KEY.');
}
