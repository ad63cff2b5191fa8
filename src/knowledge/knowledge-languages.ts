/** How long the knowledge base's language list is reused before it is asked again: it changes only with an ingest. */
export const KNOWLEDGE_LANGUAGES_TTL_MS = 60_000;

/**
 * The knowledge base's languages (most chunks first), asked of the store at most
 * once per `ttlMs` and shared by concurrent callers, so a turn does not pay a query
 * for them. A failed listing is not kept: the next call asks again.
 */
export function cachedKnowledgeLanguages(list: () => Promise<string[]>, ttlMs = KNOWLEDGE_LANGUAGES_TTL_MS, now = () => Date.now()): () => Promise<string[]> {
  let cached: { at: number; languages: Promise<string[]> } | null = null;
  return () => {
    if (cached && now() - cached.at < ttlMs) return cached.languages;
    const entry = { at: now(), languages: list() };
    entry.languages.catch(() => {
      if (cached === entry) cached = null;
    });
    cached = entry;
    return entry.languages;
  };
}
