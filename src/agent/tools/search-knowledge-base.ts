import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { Retriever } from '../../knowledge/retriever';
import type { RetrievedDocument } from '../../store/types';
import { formatKnowledge } from '../prompts';

export const SEARCH_KNOWLEDGE_BASE = 'search_knowledge_base';

/** At most this many stored titles describe the knowledge base to the model, each cut to TITLE_MAX_CHARS. */
export const DESCRIBED_TITLES_MAX = 12;
const TITLE_MAX_CHARS = 60;

/** What the knowledge base holds, as the tool's description tells the model: the shop's name and stored sources' titles. */
export interface KnowledgeBaseOutline {
  shopName: string;
  /** Titles of stored sources (the first DESCRIBED_TITLES_MAX are used). */
  titles: string[];
}

/** The tool's description: what it searches, from what is stored, not from a list written for one shop. */
export function describeKnowledgeBase(outline: KnowledgeBaseOutline): string {
  const titles = [...new Set(outline.titles.map((t) => t.trim()).filter(Boolean))]
    .slice(0, DESCRIBED_TITLES_MAX)
    .map((t) => (t.length > TITLE_MAX_CHARS ? `${t.slice(0, TITLE_MAX_CHARS - 1)}…` : t));
  const holds = titles.length > 0 ? ` (articles such as: ${titles.join('; ')})` : '';
  return (
    `Search ${possessive(outline.shopName)} knowledge base${holds} for passages that answer a question. Use it for policies, prices, ` +
    'deadlines and procedures; answer from the passages and cite their titles.'
  );
}

/**
 * A name's possessive as English writes it: "Pine & Pebble's", "Harbor Lane Ceramics'"
 * (a name ending in s takes the apostrophe alone), "the shop's".
 */
export function possessive(name: string): string {
  const trimmed = name.trim();
  return /s$/i.test(trimmed) ? `${trimmed}'` : `${trimmed}'s`;
}

/**
 * The stored sources' titles the knowledge tool's description names, kept current
 * while the service runs: read again in the background after this service wrote a
 * source (`changed()`), and at most every `maxAgeMs` otherwise (another instance or
 * `npm run ingest` may have written). Never on an answer's path: `titles()` answers
 * from what was last read. `version` grows each time the titles change.
 */
export class KnowledgeTitles {
  private current: string[];
  private readAt = Date.now();
  private reading: Promise<void> | null = null;
  private stale = false;
  version = 0;

  /**
   * @param read the titles as stored now (the first DESCRIBED_TITLES_MAX sources').
   * @param maxAgeMs how old the titles may get without a write seen here. Default 60 s.
   */
  constructor(
    private readonly read: () => Promise<string[]>,
    initial: string[],
    private readonly maxAgeMs = 60_000,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.current = initial;
  }

  /** The titles last read; starts a read when they are older than maxAgeMs. */
  titles(): string[] {
    if (Date.now() - this.readAt > this.maxAgeMs) this.refresh();
    return this.current;
  }

  /** A source was written: read the titles again (once more after a read in progress). */
  changed(): void {
    this.stale = true;
    this.refresh();
  }

  /** Resolves when no read is in progress (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.reading) await this.reading;
  }

  private refresh(): void {
    if (this.reading) return;
    this.stale = false;
    this.reading = (async () => {
      try {
        const titles = await this.read();
        this.readAt = Date.now();
        if (titles.length !== this.current.length || titles.some((t, i) => t !== this.current[i])) {
          this.current = titles;
          this.version += 1;
        }
      } catch (error) {
        this.readAt = Date.now();
        this.onError(error);
      } finally {
        this.reading = null;
      }
      if (this.stale) this.refresh();
    })();
  }
}

/**
 * search_knowledge_base(query): the help-center passages nearest to the query,
 * fenced by formatKnowledge as reference data (so instructions inside a passage
 * are not taken as the model's instructions); a plain sentence when none match.
 * The passages also come back as the tool message's artifact, so the answer
 * cites them as sources. Retrieval failures (embedding model unavailable)
 * propagate as errors.
 */
export function createSearchKnowledgeBaseTool(retriever: Retriever, outline: KnowledgeBaseOutline = { shopName: 'the shop', titles: [] }) {
  return tool(
    async ({ query }, config): Promise<[string, RetrievedDocument[]]> => {
      const text = query.trim();
      if (!text) return ['The search query was empty. Search the help center with a few words about the question.', []];
      const documents = await retriever.retrieve(text, config.signal);
      if (documents.length === 0) return [`No help-center article matched ${JSON.stringify(text)}.`, []];
      return [formatKnowledge(documents), documents];
    },
    {
      name: SEARCH_KNOWLEDGE_BASE,
      responseFormat: 'content_and_artifact',
      description: describeKnowledgeBase(outline),
      schema: z.object({
        query: z.string().describe('What to look up, in a few words, e.g. "refund after a return".'),
      }),
    },
  );
}

/** The passages this turn's knowledge searches found (the search tool's artifacts), in the order found. */
export function documentsFoundBySearch(messages: BaseMessage[]): RetrievedDocument[] {
  return messages.flatMap((m) =>
    ToolMessage.isInstance(m) && m.name === SEARCH_KNOWLEDGE_BASE && Array.isArray(m.artifact) ? (m.artifact as RetrievedDocument[]) : [],
  );
}
