import { z } from 'zod';
import { DOCUMENT_TITLE_MAX_CHARS } from '../knowledge/sources/convert';
import { searchTextSchema, sessionIdSchema } from './schemas';

/** Source names are paths such as `knowledge/help-center/refunds.md`: printable text, no surrounding spaces. */
export const SOURCE_MAX_CHARS = 512;
export const TITLE_MAX_CHARS = DOCUMENT_TITLE_MAX_CHARS;

/** The `{source}` of /api/v1/knowledge/sources/{source} (URL-encoded in the path: `/` as `%2F`). */
export const knowledgeSourceSchema = z
  .string({ error: 'source must be a string' })
  .min(1, 'source must not be empty')
  .max(SOURCE_MAX_CHARS, `source must be at most ${SOURCE_MAX_CHARS} characters`)
  .regex(/^[^\p{Cc}\s](?:[^\p{Cc}]*[^\p{Cc}\s])?$/u, 'source must be printable text without control characters or surrounding spaces')
  .refine((s) => s.isWellFormed(), 'source must be valid unicode')
  .meta({ example: 'knowledge/help-center/refunds.md' });

/** GET /api/v1/knowledge/sources?q=&limit=&after= */
export const knowledgeListQuerySchema = z.object({
  q: searchTextSchema.meta({ description: 'Text to find in titles and source names (case-insensitive).' }),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(200, 'limit must be at most 200')
    .default(50),
  after: knowledgeSourceSchema.optional().meta({ description: 'The `next_after` of the previous page.' }),
});

/** The text of an article: not empty, no NUL, valid unicode. */
export const articleContentSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'content is required' : 'content must be a string') })
  .refine((c) => c.trim().length > 0, 'content must not be empty')
  .refine((c) => !c.includes('\u0000') && c.isWellFormed(), 'content must be text: no NUL characters or broken unicode');

/** Where a document came from: an absolute http(s) URL, which citations link to. */
export const documentUrlSchema = z
  .string({ error: 'url must be a string' })
  .max(2048, 'url must be at most 2048 characters')
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), 'url must be an absolute http or https URL')
  .meta({ example: 'https://help.example.com/hc/articles/refunds' });

/** PUT /api/v1/knowledge/sources/{source}?url= for a body that is not JSON: where the document came from. */
export const knowledgePutQuerySchema = z.object({
  url: documentUrlSchema.optional().meta({ description: "Where the document came from (not for JSON bodies, which carry `url`); each answer's source links to it." }),
});

/** PUT /api/v1/knowledge/sources/{source} as JSON: `content`, or `parts` (a PDF's pages, each chunked apart and cited with its page). */
export const knowledgeArticleSchema = z
  .strictObject({
    title: z
      .string({ error: 'title must be a string' })
      .trim()
      .min(1, 'title must not be empty')
      .max(TITLE_MAX_CHARS, `title must be at most ${TITLE_MAX_CHARS} characters`)
      .regex(/^[^\p{Cc}]*$/u, 'title must not contain control characters')
      .optional()
      .meta({ description: "Defaults to the markdown's first `# ` heading, else the source's file name." }),
    content: articleContentSchema.optional(),
    parts: z
      .array(
        z.strictObject({
          content: articleContentSchema,
          page: z.int('page must be a whole number').min(1, 'page must be at least 1').optional(),
        }),
        { error: 'parts must be an array' },
      )
      .min(1, 'parts must not be empty')
      .max(10_000, 'parts must have at most 10000 items')
      .optional()
      .meta({ description: 'The document in parts (a PDF: one per page, with its `page`), instead of `content`.' }),
    format: z.enum(['markdown', 'text'], { error: 'format must be "markdown" or "text"' }).default('markdown'),
    url: documentUrlSchema.optional().meta({ description: "Where the document came from; each answer's source links to it." }),
  })
  .refine((a) => (a.content === undefined) !== (a.parts === undefined), {
    error: 'send either content or parts (exactly one)',
    path: ['content'],
  });

/** GET /api/v1/knowledge/insights?days=&limit= */
export const knowledgeInsightsQuerySchema = z.object({
  days: z.coerce
    .number({ error: 'days must be a number' })
    .int('days must be a whole number')
    .min(1, 'days must be at least 1')
    .max(365, 'days must be at most 365')
    .default(30),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(10),
});

// ── responses ────────────────────────────────────────────────────────────────

export const knowledgeSourceSummarySchema = z.object({
  source: z.string(),
  title: z.string(),
  chunk_count: z.int(),
  content_hash: z.string().meta({ description: "sha256 over the chunks' content hashes in order" }),
  embedding_model: z.string(),
  char_count: z.int(),
  updated_at: z.iso.datetime(),
});

export const knowledgeSourceListSchema = z.object({
  sources: z.array(knowledgeSourceSummarySchema),
  next_after: z.string().nullable(),
});

export const knowledgeSourceDetailSchema = knowledgeSourceSummarySchema.extend({
  chunks: z.array(
    z.object({
      chunk_index: z.int(),
      content: z.string(),
      content_hash: z.string(),
    }),
  ),
});

export const knowledgePutResultSchema = z.object({
  source: z.string(),
  title: z.string(),
  outcome: z.enum(['added', 'updated', 'unchanged']),
  chunk_count: z.int(),
  embedded: z.int().meta({ description: 'Chunks embedded by this request (unchanged text reuses its vector).' }),
  embedding_model: z.string(),
});

export const knowledgeDeleteResultSchema = z.object({ source: z.string(), deleted_chunks: z.int() });

export const knowledgeInsightsSchema = z.object({
  since: z.iso.datetime(),
  most_cited: z.array(
    z.object({
      source: z.string(),
      title: z.string(),
      answers: z.int(),
      last_cited_at: z.iso.datetime(),
      in_knowledge_base: z.boolean(),
    }),
  ),
  unanswered: z.array(
    z.object({
      question: z.string(),
      times: z.int(),
      best_confidence: z.number(),
      escalated: z.int(),
      last_asked_at: z.iso.datetime(),
      session_id: z.string(),
    }),
  ),
  gaps: z
    .array(
      z.object({
        question: z.string().meta({ description: 'The asking most like the others, as a customer wrote it (redacted as stored).' }),
        count: z.int().meta({ description: 'Askings in the group (within the newest 300 unanswered askings of the period).' }),
        examples: z.array(z.string()).meta({ description: 'Up to three other wordings, newest first.' }),
        reasons: z.record(z.string(), z.int()).meta({
          description: 'Askings per escalation reason (`not_in_help_center`, `model`), and `below_threshold` for answers kept below ESCALATION_CONFIDENCE_THRESHOLD without a hand-over.',
          example: { not_in_help_center: 3, model: 1 },
        }),
        session_ids: z.array(z.string()).meta({ description: 'Conversations it was asked in, newest first (at most five).' }),
        last_asked_at: z.iso.datetime(),
      }),
    )
    .meta({ description: 'Questions the help center could not answer, grouped by what they ask (in any language), the most asked first; at most `limit`.' }),
});

/** POST /api/v1/knowledge/drafts: the conversation to draft an article from. */
export const knowledgeDraftRequestSchema = z.strictObject({
  session_id: sessionIdSchema.meta({ description: 'A conversation with an escalated question and a reply from a person.' }),
});

export const knowledgeDraftSchema = z.object({
  session_id: z.string(),
  title: z.string().meta({ description: "The customer's escalated question, cleaned and redacted." }),
  body: z.string().meta({ description: "The person's replies in their own wording, greetings and sign-offs dropped, personal data masked." }),
  source: z.string().meta({ description: 'A suggested source name to publish it under (PUT /api/v1/knowledge/sources/{source}).', example: 'learned/do-you-sell-gift-cards.md' }),
});

/** GET /api/v1/knowledge/syncs?site=&limit=&cursor= */
export const knowledgeSyncsQuerySchema = z.object({
  site: z
    .url({ protocol: /^https?$/, error: 'site must be an http(s) URL, as the sync was given it' })
    .max(2048, 'site must be at most 2048 characters')
    .optional()
    .meta({ description: "Only this site's runs (the sitemap or start page URL, as configured)." }),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(20),
  cursor: z
    .string({ error: 'cursor must be a string' })
    .regex(/^[1-9][0-9]{0,17}$/, 'cursor must be a next_cursor from a previous page')
    .optional()
    .meta({ description: 'The next_cursor of the previous page.' }),
});

export const knowledgeSyncRunSchema = z.object({
  id: z.int(),
  site: z.string().meta({ description: 'The sitemap or start page URL the run synced.' }),
  trigger: z.string().meta({ description: '`schedule` (the service: KNOWLEDGE_SYNC_URLS and the shop file sites), `api` (POST /api/v1/knowledge/syncs, which npm run ingest uses while the service runs) or `cli` (npm run ingest on the database).' }),
  status: z.enum(['running', 'succeeded', 'held', 'failed']).meta({
    description: '`held`: stored what changed but removed nothing, since it would have removed more than KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT of the pages.',
  }),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable().meta({ description: 'Null while it runs.' }),
  counts: z.record(z.string(), z.number()).meta({
    description: 'fetched, added, updated, unchanged, skipped, failed, removed, removalsHeld, embedded',
    example: { fetched: 3, added: 1, updated: 1, unchanged: 47, skipped: 2, failed: 0, removed: 1, removalsHeld: 0, embedded: 4 },
  }),
  errors: z.array(z.object({ url: z.string(), reason: z.string(), message: z.string() })).meta({ description: "Pages' problems (at most 50)." }),
  message: z.string().nullable().meta({ description: 'Why the run failed or held its removals back.' }),
});

export const knowledgeSyncListSchema = z.object({
  syncs: z.array(knowledgeSyncRunSchema),
  next_cursor: z.string().nullable(),
});

/** POST /api/v1/knowledge/syncs: a site to sync now, in the service. */
export const knowledgeSyncRequestSchema = z
  .object({
    site: z
      .url({ protocol: /^https?$/, error: 'site must be an http(s) URL: a sitemap or a start page' })
      .max(2048, 'site must be at most 2048 characters')
      .meta({ description: 'A sitemap (or sitemap index) URL, or a start page whose links under its folder are followed.', example: 'https://help.example.com/sitemap.xml' }),
    prune: z
      .boolean({ error: 'prune must be true or false' })
      .default(false)
      .meta({ description: 'Remove every page that is gone, even past KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT.' }),
    allow_private_network: z
      .boolean({ error: 'allow_private_network must be true or false' })
      .default(false)
      .meta({
        description:
          "The site may be on the private network (loopback, 10.x, 192.168.x…). Honoured only from the service's own machine; a configured site's own setting applies without it. Without either, the site is crawled public-only, whatever its DNS answers.",
      }),
    max_pages: z
      .int({ error: 'max_pages must be a whole number' })
      .min(1, 'max_pages must be at least 1')
      .max(100_000, 'max_pages must be at most 100000')
      .optional()
      .meta({ description: 'Pages and linked files taken at most. Default 5000.' }),
    concurrency: z
      .int({ error: 'concurrency must be a whole number' })
      .min(1, 'concurrency must be at least 1')
      .max(16, 'concurrency must be at most 16')
      .optional()
      .meta({ description: "Requests to the site at once. Default 2 (1 with a robots.txt Crawl-delay)." }),
  })
  .strict();

/** 202 of POST /api/v1/knowledge/syncs. */
export const knowledgeSyncStartedSchema = z.object({
  id: z.int().meta({ description: 'The recorded run: GET /api/v1/knowledge/syncs?site= lists it, with its outcome once it ends.' }),
  site: z.string(),
  status: z.literal('running'),
});
