import { z } from 'zod';
import { actionSchema, mcpServerSchema } from '../connectors/connector-config';
import { parseDays, parseTimeRange } from '../chat/support-hours';
import { memoryStrategySchema } from '../memory/settings';
import { DEFAULT_LABELS, type WidgetLabel } from './widget-labels';

/**
 * The shop file (SHOP_FILE, YAML or JSON): who the shop is, which agents answer,
 * how to reach its own systems (actions, MCP servers), where its knowledge is,
 * the words customers read around the answers, and its support hours. Every
 * object is strict: an unknown field is a mistake, reported with its path.
 * docs/your-shop.md describes each field for operators.
 */

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** One agent a request may choose with `agent_type`; the first in the list is the default. */
const agentSchema = z.strictObject({
  key: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1-40 lowercase letters, digits, "_" or "-" (what requests send as agent_type)'),
  description: text(500),
  /** The system prompt: who the agent is, for which shop, what it may do. */
  instructions: text(20_000),
  /** Built-in tools, actions' operationIds and MCP servers' tools, by name. */
  tools: z.array(z.string().min(1, 'must not be empty')).default([]),
  /** The agent's default memory strategy (as a request's memory_strategy); a conversation's or a request's setting wins. */
  memory: memoryStrategySchema.optional(),
  /** Whether a verified customer's earlier conversations are summarised into the prompt by default. */
  memory_injection: z.boolean().optional(),
  /** Whether the model may hand the conversation to a person (the built-in hand_off_to_person tool); default true. */
  hand_off: z.boolean().default(true),
});

/** Days and a time range: `mon-fri: 09:00-17:00`, `sat: [10:00-14:00, 22:00-02:00]`. */
const weeklyHours = z.record(
  z.string().refine((days) => parseDays(days) !== null, 'must be days such as "mon", "mon-fri" or "sat,sun"'),
  z
    .union([z.string(), z.array(z.string()).min(1)])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .pipe(z.array(z.string().refine((range) => parseTimeRange(range) !== null, 'must be a time range such as "09:00-17:00" or "22:00-02:00" (24-hour clock)'))),
);

const supportHoursSchema = z.strictObject({
  /** The IANA time zone the hours and dates are in, e.g. Europe/Berlin. */
  time_zone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
  weekly: weeklyHours,
  /** Dates (YYYY-MM-DD) nobody answers, e.g. public holidays. */
  closed: z.array(z.iso.date({ error: 'must be a date as YYYY-MM-DD' })).default([]),
});

/**
 * The widget's own words (its buttons, status lines and notes: widget-labels.ts names them),
 * each optional, any set of them per language.
 */
const widgetLabelsSchema = z.strictObject(Object.fromEntries(Object.keys(DEFAULT_LABELS).map((name) => [name, text(300).optional()])) as Record<WidgetLabel, z.ZodOptional<ReturnType<typeof text>>>);

/**
 * The short replies to small talk (docs/escalation.md, Conversation acts), each optional: a reply the
 * shop leaves out is the built-in one in the customer's language (defaultActReply).
 */
const actRepliesSchema = z.strictObject({
  greeting: text(500).optional(),
  thanks: text(500).optional(),
  goodbye: text(500).optional(),
  acknowledgement: text(500).optional(),
});

/**
 * One language's words, every field optional: what it leaves out is the built-in words of
 * that language (src/shop/words/), see wordsFor. src/shop/words/types.ts says what each is.
 */
const wordSetSchema = z.strictObject({
  human_offer: text(1000).optional(),
  outside_hours: text(1000).optional(),
  handover: text(1000).optional(),
  handover_outside_hours: text(1000).optional(),
  offline_notice: text(1000).optional(),
  sign_in: text(1000).optional(),
  tool_failure: text(1000).optional(),
  order_not_found: text(1000).optional(),
  proof_limited: text(1000).optional(),
  page_intro: text(1000).optional(),
  /** The replies to small talk in this language; one left out is the built-in one in this language, not the default language's. */
  acts: actRepliesSchema.optional(),
  widget: z
    .strictObject({
      title: text(80).optional(),
      subtitle: text(200).optional(),
      welcome: text(1000).optional(),
      outside_hours: text(1000).optional(),
      labels: widgetLabelsSchema.optional(),
    })
    .optional(),
});
export type LanguageWords = z.infer<typeof wordSetSchema>;

const WORD_FIELDS = new Set(Object.keys(wordSetSchema.shape));

/**
 * What customers read that is not the model's answer, over the built-in words. The fields
 * at the top are the default language's (the first of `languages`, else English); a
 * two-letter language code holds another language's set (`de: {human_offer: …}`). Any
 * other field is a mistake, reported with its path, as in a strict object.
 */
const wordsSchema = z
  .record(z.string(), z.unknown())
  .superRefine((words, ctx) => {
    const top: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(words)) {
      if (WORD_FIELDS.has(key)) {
        top[key] = value;
        continue;
      }
      if (!/^[a-z]{2}$/.test(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `unknown field "${key}" (another language's words go under its two-letter ISO 639-1 code, such as "de")` });
        continue;
      }
      reportIssues(wordSetSchema.safeParse(value), [key], ctx);
    }
    reportIssues(wordSetSchema.safeParse(top), [], ctx);
  })
  .transform((words) => {
    const byLanguage: Record<string, LanguageWords> = {};
    const top: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(words)) {
      if (WORD_FIELDS.has(key)) top[key] = value;
      else byLanguage[key] = wordSetSchema.parse(value);
    }
    return { ...wordSetSchema.parse(top), by_language: byLanguage };
  });

/** A word set's problems under `path`; an unknown field keeps its code, so it is reported as a strict object's are ("is not a field"). */
function reportIssues(parsed: z.ZodSafeParseResult<unknown>, path: PropertyKey[], ctx: z.RefinementCtx): void {
  for (const issue of parsed.error?.issues ?? []) {
    if (issue.code === 'unrecognized_keys') ctx.addIssue({ ...issue, path: [...path, ...issue.path] });
    else ctx.addIssue({ ...issue, code: 'custom', path: [...path, ...issue.path], message: issue.message });
  }
}

const siteUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const knowledgeSchema = z.strictObject({
  /** Folders of Markdown and text files, relative to the shop file; ingested when the knowledge base is empty. */
  folders: z.array(text(1000)).default([]),
  /**
   * Sites (a sitemap or a start page) the shop's help lives on, kept in sync by the running service like
   * KNOWLEDGE_SYNC_URLS (docs/knowledge.md). A URL alone is crawled public-only; `{url, allow_private_network: true}`
   * is the operator's choice to crawl a site on the private network.
   */
  sites: z
    .array(
      z.union([
        siteUrl.transform((url) => ({ url, allow_private_network: false })),
        z.strictObject({ url: siteUrl, allow_private_network: z.boolean().default(false) }),
      ]),
    )
    .default([]),
});

/** Order numbers as the built-in lookup_order reads them: a prefix and a number of digits, e.g. ZX-14440. */
const orderNumbersSchema = z.strictObject({
  prefix: z.string().regex(/^[A-Za-z]{1,8}$/, 'must be 1-8 letters'),
  digits: z.number().int().min(1).max(20),
});

export const shopFileSchema = z
  .strictObject({
    /** The shop's name, as customers know it: built-in tools' descriptions and the widget's default title use it. */
    name: text(120),
    /**
     * The languages the shop writes and answers in (ISO 639-1 codes), the first the default:
     * they guide language detection and are the fallback when a text's language cannot be told.
     * Unset: detection alone decides, and English is the fallback.
     */
    languages: z
      .array(z.string().regex(/^[a-z]{2}$/, 'must be a two-letter ISO 639-1 code such as "de" or "en"'))
      .min(1, 'must name at least one language (the first is the default)')
      .refine((codes) => new Set(codes).size === codes.length, 'must not name a language twice')
      .optional(),
    agents: z.array(agentSchema).min(1, 'must list at least one agent (the first is the default)'),
    actions: z.array(actionSchema).default([]),
    mcp_servers: z.array(mcpServerSchema).default([]),
    knowledge: knowledgeSchema.default({ folders: [], sites: [] }),
    /** The built-in lookup_order's order number format; without it any order reference up to 40 letters, digits and "-" is looked up as written. */
    order_numbers: orderNumbersSchema.optional(),
    words: wordsSchema.default(() => wordsSchema.parse({})),
    /** Unset: no hours are promised or refused (SUPPORT_HOURS and SUPPORT_TIMEZONE still apply). */
    support_hours: supportHoursSchema.optional(),
  })
  .superRefine((shop, ctx) => {
    const seen = new Map<string, number>();
    shop.agents.forEach((agent, i) => {
      if (seen.has(agent.key)) ctx.addIssue({ code: 'custom', path: ['agents', i, 'key'], message: `"${agent.key}" is already the key of agents[${seen.get(agent.key)}]` });
      else seen.set(agent.key, i);
    });
  });

/** The shop file as read (before `${VAR}` expansion and tool checks). */
export type ShopFileContent = z.infer<typeof shopFileSchema>;
export type ShopAgent = ShopFileContent['agents'][number];
/** The shop file's words: the default language's at the top, other languages' in `by_language`; each field optional. */
export type ShopWords = ShopFileContent['words'];
export type ShopKnowledge = ShopFileContent['knowledge'];
export type OrderNumberFormat = z.infer<typeof orderNumbersSchema>;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
