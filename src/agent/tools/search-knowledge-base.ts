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
    `Search ${outline.shopName}'s knowledge base${holds} for passages that answer a question. Use it for policies, prices, ` +
    'deadlines and procedures; answer from the passages and cite their titles.'
  );
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
