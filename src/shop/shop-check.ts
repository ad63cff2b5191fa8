import path from 'node:path';
import type { StructuredTool } from '@langchain/core/tools';
import { TOOL_NAMES } from '../agent/tools';
import { exampleOrderNumber } from '../agent/tools/lookup-order';
import { loadActionTools } from '../connectors/actions';
import { ShopFileError, type ActionConfig, type ShopFileProblem } from '../connectors/connector-config';
import { expandRecord, type ConnectorContext } from '../connectors/connector-context';
import { connectMcpServers, type McpServerStatus } from '../connectors/mcp-servers';
import { parseOpenApiDocument, readOpenApiText, type OpenApiDocument } from '../connectors/openapi-document';
import type { Config } from '../config';
import { configuredKnowledgeSites } from '../knowledge/site-sync-binding';
import { SiteFetcher } from '../knowledge/sources/site-fetcher';
import { looksLikeSitemap } from '../knowledge/sources/sitemap';
import { offlineActionsOf } from '../models/offline-actions';
import { loadShop, ShopFileRejectedError, type Shop } from './load-shop';
import { describeShopTools, type ToolDescription } from './tool-descriptions';

/**
 * What one named check did against one of the shop's systems, in words: "GET
 * https://api.example/status: HTTP 200". A check that failed has its problem; the
 * problem also stands in ShopCheck.problems with the file and the field.
 */
export interface SetupProbe {
  /** The check's name: `action API`, `knowledge site`. */
  check: string;
  /** The shop file's field (or setting) it checks: `actions[0]`, `knowledge.sites[1]`, `KNOWLEDGE_SYNC_URLS`. */
  at: string;
  /** What was sent and what answered. */
  result: string;
  /** Null when it passed. */
  problem: string | null;
}

/**
 * A check that reaches the shop's systems once each and says what it found. The
 * report lists them in this order; another one (an embedder's calibration) is
 * another entry of SETUP_CHECKS.
 */
interface SetupCheck {
  name: string;
  run(shop: Shop, ctx: ConnectorContext, known: CheckContext): Promise<Array<Omit<SetupProbe, 'check'>>>;
}

/** What the checks are given beyond the shop: the problems found so far (a field with one is not probed again), the service's own sites. */
interface CheckContext {
  problems: ShopFileProblem[];
  knowledgeSync: ConfiguredSyncSites;
}

/** KNOWLEDGE_SYNC_URLS and KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK, which the service syncs beside the shop file's sites. */
export type ConfiguredSyncSites = Pick<Config['knowledgeSync'], 'siteUrls' | 'allowPrivateNetwork'>;

/** What `npm run shop -- check` found. */
export interface ShopCheck {
  file: string;
  /** null when the file itself could not be read. */
  name: string | null;
  agents: Array<{ key: string; tools: string[]; offline: string | null }>;
  tools: ToolDescription[];
  mcpServers: McpServerStatus[];
  /** What each named check sent and what answered, in order (SETUP_CHECKS). */
  probes: SetupProbe[];
  /** One line each (`<file>: <field>: <what is wrong>`); none when the shop is ready. */
  problems: string[];
}

/** The most bytes read of a probe's answer: only its status matters (a sitemap's first bytes say it is one). */
const PROBE_MAX_BYTES = 64 * 1024;
/** A knowledge site's probe waits this long, as a sync's request would. */
const SITE_PROBE_TIMEOUT_MS = 15_000;

const SETUP_CHECKS: SetupCheck[] = [
  { name: 'action API', run: probeActionApis },
  { name: 'knowledge site', run: probeKnowledgeSites },
];

/**
 * Checks a shop file as the service would use it, and more: the file (fields,
 * `${VAR}`s, the agents' tool names), every OpenAPI document read and every
 * allowlisted operation found in it, every MCP server connected and asked for its
 * allowlisted tools, then the named SETUP_CHECKS: each action's API called once
 * with the file's headers (a read-only operation that needs no customer, else the
 * server's root), where a refused key (401, 403), a failing server (5xx) or one
 * that cannot be reached is a problem; and each knowledge site's sitemap or start
 * page fetched, where anything but a 200 is a problem. Everything goes through the
 * network guard. Nothing is written anywhere; MCP connections are closed.
 */
export async function checkShop(options: {
  file: string;
  context: Omit<ConnectorContext, 'shopFileDir'>;
  /** The service's own sites (KNOWLEDGE_SYNC_URLS); default none. */
  knowledgeSync?: ConfiguredSyncSites;
}): Promise<ShopCheck> {
  let shop: Shop;
  try {
    shop = loadShop({ file: options.file, sample: false, env: options.context.env, builtInTools: TOOL_NAMES });
  } catch (error) {
    if (!(error instanceof ShopFileRejectedError)) throw error;
    return { file: error.file, name: null, agents: [], tools: [], mcpServers: [], probes: [], problems: error.message.split('\n') };
  }
  const ctx: ConnectorContext = { ...options.context, shopFileDir: path.dirname(shop.file) };
  const problems: ShopFileProblem[] = [];

  let actionTools: StructuredTool[] = [];
  try {
    actionTools = await loadActionTools(shop.actions, ctx);
  } catch (error) {
    if (!(error instanceof ShopFileError)) throw error;
    problems.push(...error.problems);
    // What the other actions offer is still listed: each alone (its own problems are reported above).
    for (const action of shop.actions) actionTools.push(...(await loadActionTools([action], ctx).catch(() => [])));
  }

  let mcpTools: StructuredTool[] = [];
  let mcpServers: McpServerStatus[] = [];
  try {
    const mcp = await connectMcpServers(shop.mcpServers, ctx);
    mcpServers = mcp.status();
    mcpTools = mcp.tools();
    await mcp.close();
  } catch (error) {
    if (!(error instanceof ShopFileError)) throw error;
    problems.push(...error.problems);
  }
  for (const [index, server] of mcpServers.entries()) {
    const config = shop.mcpServers[index]!;
    if (!server.connected) {
      problems.push({ path: `mcp_servers[${index}]`, message: `MCP server ${server.name} cannot be reached (${server.error ?? 'no answer'})` });
      continue;
    }
    config.tools.forEach((name, k) => {
      if (!server.tools.includes(name)) problems.push({ path: `mcp_servers[${index}].tools[${k}]`, message: `MCP server ${server.name} does not offer a tool named "${name}"` });
    });
  }

  const probes: SetupProbe[] = [];
  const known: CheckContext = { problems, knowledgeSync: options.knowledgeSync ?? { siteUrls: [], allowPrivateNetwork: false } };
  for (const check of SETUP_CHECKS) {
    for (const probe of await check.run(shop, ctx, known)) {
      probes.push({ check: check.name, ...probe });
      if (probe.problem !== null) problems.push({ path: probe.at, message: probe.problem });
    }
  }

  const shopTools = [...actionTools, ...mcpTools];
  return {
    file: shop.file,
    name: shop.name,
    agents: shop.agents.map((agent) => ({ key: agent.key, tools: agent.tools, offline: offlineRuleOf(shop, shopTools.filter((t) => agent.tools.includes(t.name))) })),
    tools: describeShopTools(shopTools),
    mcpServers,
    probes,
    problems: problems.map((p) => `${shop.file}: ${p.path}: ${p.message}`),
  };
}

/** Which action the offline responder calls for this agent (offline-actions.ts), in words; null when none. */
function offlineRuleOf(shop: Shop, tools: StructuredTool[]): string | null {
  if (!shop.orderNumbers) return null;
  const [first] = offlineActionsOf(tools);
  if (!first) return null;
  return `with no model, a verified customer's order number (like ${exampleOrderNumber(shop.orderNumbers)}) calls ${first.name}(${first.argument})`;
}

/**
 * Each action's API called once with its real auth (the shop file's headers): the
 * first read-only operation (GET or HEAD; the allowlisted ones first) whose required
 * parameters are none or have a default or example and none is bound to the
 * customer, else a GET of the server's root. 401 or 403 is a refused key, 5xx a
 * failing server, a network error an unreachable one; any other answer passes.
 */
async function probeActionApis(shop: Shop, ctx: ConnectorContext, known: CheckContext): Promise<Array<Omit<SetupProbe, 'check'>>> {
  const probes: Array<Omit<SetupProbe, 'check'>> = [];
  for (const [index, action] of shop.actions.entries()) {
    const at = `actions[${index}]`;
    // A document that could not be read, or a base URL the guard refused, is reported already.
    if (known.problems.some((p) => p.path === `${at}.openapi` || p.path === `${at}.base_url`)) continue;
    const api = await apiOf(action, ctx);
    if (api === null) continue;
    // An unset ${VAR} is reported already (loadActionTools): its header is sent empty here.
    const headers = expandRecord(action.headers, ctx.env, `${at}.headers`, []);
    const target = probeTarget(api.document, action);
    const url = `${api.base}${target.path}`;
    const what = target.operationId ? `${target.method} ${url} (${target.operationId})` : `${target.method} ${url} (the server's root: no read-only operation can be called without a customer)`;
    try {
      const response = await ctx.guard.request({
        url,
        method: target.method,
        headers: { accept: 'application/json', ...headers },
        timeoutMs: action.timeout_ms,
        maxBytes: PROBE_MAX_BYTES,
        overflow: 'truncate',
        maxRedirects: 0,
        allowPrivateNetwork: action.allow_private_network,
      });
      const result = `${what}: HTTP ${response.status}`;
      const status = response.status;
      const problem =
        status === 401 || status === 403
          ? `${what} answered HTTP ${status}: the API refused the credentials the file sends (actions[${index}].headers); check the key`
          : status >= 500
            ? `${what} answered HTTP ${status}: the API is failing`
            : null;
      probes.push({ at, result, problem });
    } catch (error) {
      probes.push({ at, result: `${what}: no answer`, problem: `${what} cannot be reached: ${(error as Error).message}` });
    }
  }
  return probes;
}

/** The request that checks an action's API: a read-only operation callable without a customer, else the root. */
function probeTarget(document: OpenApiDocument, action: ActionConfig): { method: string; path: string; operationId: string | null } {
  const operations = [...document.operations.values()];
  // The allowlisted operations first: the ones the agents will call.
  operations.sort((a, b) => Number(!action.operations.includes(a.operationId)) - Number(!action.operations.includes(b.operationId)));
  for (const operation of operations) {
    if (operation.method !== 'GET' && operation.method !== 'HEAD') continue;
    const required = operation.parameters.filter((p) => p.required);
    if (required.some((p) => p.name in action.bind)) continue;
    const values = new Map(required.map((p) => [p, fillableValue(p.schema)]));
    if ([...values.values()].some((v) => v === undefined)) continue;
    let path = operation.path;
    const query = new URLSearchParams();
    for (const [p, value] of values) {
      if (p.in === 'path') path = path.replaceAll(`{${p.name}}`, encodeURIComponent(String(value)));
      else if (p.in === 'query') query.append(p.name, String(value));
      // A required header or cookie parameter: not worth guessing.
      else return { method: 'GET', path: '/', operationId: null };
    }
    const search = query.toString();
    return { method: operation.method, path: `${path}${search ? `?${search}` : ''}`, operationId: operation.operationId };
  }
  return { method: 'GET', path: '/', operationId: null };
}

/** A value the document itself gives for a parameter (its default, example or first enum value); undefined when none. */
function fillableValue(schema: Record<string, unknown>): string | number | boolean | undefined {
  const candidates = [schema.default, schema.example, Array.isArray(schema.enum) ? schema.enum[0] : undefined];
  return candidates.find((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v));
}

/**
 * Each knowledge site the service syncs (the shop file's `knowledge.sites` and
 * KNOWLEDGE_SYNC_URLS) fetched once as its sync would start: its sitemap or start
 * page, through the guard with the crawler's user agent. Anything but a 200 is a
 * problem, named with the URL and the status or the network error.
 */
async function probeKnowledgeSites(shop: Shop, ctx: ConnectorContext, known: CheckContext): Promise<Array<Omit<SetupProbe, 'check'>>> {
  const fromSettings = new Set(known.knowledgeSync.siteUrls);
  const probes: Array<Omit<SetupProbe, 'check'>> = [];
  for (const site of configuredKnowledgeSites(known.knowledgeSync, shop.knowledge.sites)) {
    const index = shop.knowledge.sites.findIndex((s) => s.url === site.url);
    const at = index >= 0 ? `knowledge.sites[${index}]` : fromSettings.has(site.url) ? 'KNOWLEDGE_SYNC_URLS' : 'knowledge.sites';
    const fetcher = new SiteFetcher(ctx.guard, { allowPrivateNetwork: site.allowPrivateNetwork, concurrency: 1, timeoutMs: SITE_PROBE_TIMEOUT_MS });
    try {
      const response = await fetcher.get({ url: site.url, maxBytes: PROBE_MAX_BYTES, overflow: 'truncate' });
      const kind = looksLikeSitemap(response.headers['content-type'], response.body) ? 'a sitemap' : 'a start page (crawled from its links)';
      probes.push(
        response.status === 200
          ? { at, result: `GET ${site.url}: HTTP 200, ${kind}`, problem: null }
          : { at, result: `GET ${site.url}: HTTP ${response.status}`, problem: `${site.url} answers HTTP ${response.status}; expected its sitemap or start page` },
      );
    } catch (error) {
      probes.push({ at, result: `GET ${site.url}: no answer`, problem: `${site.url} cannot be fetched: ${(error as Error).message}` });
    }
  }
  return probes;
}

/** The action's API as loadActionTools takes it: the document, and base_url, else the document's first server (relative to the document's URL). */
async function apiOf(action: ActionConfig, ctx: ConnectorContext): Promise<{ base: string; document: OpenApiDocument } | null> {
  try {
    const read = await readOpenApiText(action.openapi, ctx.shopFileDir, ctx.guard, action.allow_private_network);
    const document = parseOpenApiDocument(read.text);
    const first = action.base_url ?? document.servers[0];
    if (first === undefined) return null;
    const base = /^https?:\/\//i.test(first) ? first : read.baseUrl ? new URL(first, read.baseUrl).href : null;
    return base === null ? null : { base: base.replace(/\/+$/, ''), document };
  } catch {
    return null;
  }
}
