import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import type { ActionConfig, McpServerConfig, ShopFileProblem } from '../connectors/connector-config';
import { expandRecord } from '../connectors/connector-context';
import type { AgentSpec } from '../agent-specs/spec';
import type { SupportSchedule } from '../chat/support-hours';
import { shopFileSchema, type OrderNumberFormat, type ShopWords } from './shop-file';
import type { KnowledgeSite } from '../knowledge/site-sync-binding';

/** The sample shop's file: what runs without SHOP_FILE, and what an operator copies to start their own. */
export const SAMPLE_SHOP_FILE = path.resolve(__dirname, '../../shops/sample/shop.yaml');

/** A shop, checked and ready to build the service from. */
export interface Shop {
  /** The shop file it came from (absolute). */
  file: string;
  /** True only for the sample shop run without SHOP_FILE: its seed data, help center and demo page come with it. */
  sample: boolean;
  name: string;
  /** The agents, the default first. */
  agents: AgentSpec[];
  actions: ActionConfig[];
  mcpServers: McpServerConfig[];
  /** Folders (absolute) ingested when the knowledge base is empty, and sites for the knowledge sync. */
  knowledge: { folders: string[]; sites: KnowledgeSite[] };
  orderNumbers: OrderNumberFormat | null;
  /** The shop file's `languages` (ISO 639-1, the default first); empty when it names none. */
  languages: readonly string[];
  words: ShopWords;
  /** null: the shop file sets no hours (SUPPORT_HOURS applies, if set). */
  supportHours: SupportSchedule | null;
}

/**
 * A shop file that cannot be used: every problem, one line each, naming the
 * file and the field (`shop.yaml: agents[1].tools[2]: ...`). The start reports
 * it and exits with code 1.
 */
export class ShopFileRejectedError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ShopFileProblem[],
  ) {
    super(problems.map((p) => `${file}: ${p.path}: ${p.message}`).join('\n'));
    this.name = new.target.name;
  }
}

/**
 * Reads and checks a shop file (YAML or JSON): unknown fields, wrong types,
 * unset `${VAR}`s in headers and env, and agents naming tools nothing provides
 * are all reported together. Headers and env keep their `${VAR}`s: the
 * connectors replace them from the same environment. `builtInTools` are the tool names the
 * service itself provides; actions' operations and MCP servers' tools are taken
 * from the file (without connecting to anything).
 */
export function loadShop(options: { file: string; sample: boolean; env: Readonly<Record<string, string | undefined>>; builtInTools: readonly string[] }): Shop {
  const file = path.resolve(options.file);
  const reject = (problems: ShopFileProblem[]): never => {
    throw new ShopFileRejectedError(file, problems);
  };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return reject([{ path: '(file)', message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); SHOP_FILE must name a YAML or JSON file` }]);
  }
  // YAML 1.2 reads JSON as well.
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return reject(document.errors.map((e) => ({ path: `(line ${e.linePos?.[0]?.line ?? '?'})`, message: `is not valid YAML or JSON: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}` })));
  }
  const raw: unknown = document.toJS();
  const parsed = shopFileSchema.safeParse(raw);
  // The other checks run on what could be read, so one start reports every mistake, not only the first kind.
  const readable = parsed.success ? parsed.data : leniently(raw);
  const problems: ShopFileProblem[] = parsed.success ? [] : parsed.error.issues.flatMap(problemsOf);
  // `${VAR}`s are replaced by the connectors as they build the tools; an unset one is reported now, with the rest.
  readable.actions.forEach((a, i) => expandRecord(a.headers, options.env, `actions[${i}].headers`, problems));
  readable.mcp_servers.forEach((m, i) => {
    expandRecord(m.headers, options.env, `mcp_servers[${i}].headers`, problems);
    expandRecord(m.env, options.env, `mcp_servers[${i}].env`, problems);
  });
  problems.push(...unknownTools(readable, options.builtInTools));
  if (!parsed.success || problems.length > 0) return reject(problems);
  const content = parsed.data;

  const dir = path.dirname(file);
  return {
    file,
    sample: options.sample,
    name: content.name,
    agents: content.agents.map((a) => ({
      key: a.key,
      description: a.description,
      instructions: a.instructions,
      tools: a.tools,
      ...(a.memory && { memoryStrategy: a.memory }),
      ...(a.memory_injection !== undefined && { memoryInjection: a.memory_injection }),
      ...(!a.hand_off && { handOff: false }),
    })),
    actions: content.actions,
    mcpServers: content.mcp_servers,
    knowledge: { folders: content.knowledge.folders.map((f) => path.resolve(dir, f)), sites: content.knowledge.sites.map((s) => ({ url: s.url, allowPrivateNetwork: s.allow_private_network })) },
    orderNumbers: content.order_numbers ?? null,
    languages: content.languages ?? [],
    words: content.words,
    supportHours: content.support_hours
      ? {
          timeZone: content.support_hours.time_zone,
          entries: Object.entries(content.support_hours.weekly).flatMap(([days, ranges]) => ranges.map((hours) => ({ days, hours }))),
          closedDates: content.support_hours.closed,
        }
      : null,
  };
}

/** Only what the names and `${VAR}` checks need, from a file that failed its schema: lists of strings where they are lists of strings. */
type CheckedParts = {
  agents: Array<{ tools: string[] }>;
  actions: Array<ActionConfig>;
  mcp_servers: Array<McpServerConfig>;
};

function leniently(raw: unknown): CheckedParts {
  const list = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const record = (value: unknown): Record<string, string> =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'))
      : {};
  const top = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return {
    agents: list(top['agents']).map((a) => ({ tools: strings(a['tools']) })),
    actions: list(top['actions']).map((a) => ({ ...(a as unknown as ActionConfig), operations: strings(a['operations']), headers: record(a['headers']) })),
    mcp_servers: list(top['mcp_servers']).map((m) => ({
      ...(m as unknown as McpServerConfig),
      tools: strings(m['tools']),
      headers: record(m['headers']),
      env: record(m['env']),
    })),
  };
}

/** Every tool name the file's agents may use, by where it comes from. */
export function toolsOfShopFile(content: Pick<CheckedParts, 'actions' | 'mcp_servers'>, builtInTools: readonly string[]): string[] {
  return [...builtInTools, ...content.actions.flatMap((a) => a.operations), ...content.mcp_servers.flatMap((s) => s.tools)];
}

function unknownTools(content: CheckedParts, builtInTools: readonly string[]): ShopFileProblem[] {
  const known = new Set(toolsOfShopFile(content, builtInTools));
  const sources = [
    `built-in: ${builtInTools.join(', ')}`,
    content.actions.length > 0 ? `actions: ${content.actions.flatMap((a) => a.operations).join(', ')}` : null,
    content.mcp_servers.length > 0 ? `MCP servers: ${content.mcp_servers.flatMap((s) => s.tools).join(', ')}` : null,
  ].filter(Boolean);
  return content.agents.flatMap((agent, i) =>
    agent.tools.flatMap((name, j) =>
      known.has(name)
        ? []
        : [{ path: `agents[${i}].tools[${j}]`, message: `no tool is named "${name}"; the tools are (${sources.join('; ')})` }],
    ),
  );
}

/** One zod issue as the operator reads it: the field's path and what was expected. */
function problemsOf(issue: z.core.$ZodIssue): ShopFileProblem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'is not a field of the shop file here (unknown fields are mistakes; check the spelling)' }));
  }
  // A record's key that failed its check: the check's own message says what was expected.
  if (issue.code === 'invalid_key') return [{ path: formatPath(issue.path), message: issue.issues[0]?.message ?? issue.message }];
  return [{ path: formatPath(issue.path), message: issue.message }];
}

/** ['actions', 0, 'operations', 1] -> 'actions[0].operations[1]'. */
export function formatPath(segments: ReadonlyArray<PropertyKey>): string {
  if (segments.length === 0) return '(top level)';
  return segments
    .map((s, i) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(s)) ? `${i === 0 ? '' : '.'}${String(s)}` : `[${JSON.stringify(String(s))}]`))
    .join('');
}

/** The shop the configuration names: SHOP_FILE, or the sample shop's own file. */
export function loadConfiguredShop(shop: { file: string | null; env: Readonly<Record<string, string | undefined>> }, builtInTools: readonly string[]): Shop {
  return loadShop({ file: shop.file ?? SAMPLE_SHOP_FILE, sample: shop.file === null, env: shop.env, builtInTools });
}
