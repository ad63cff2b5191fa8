import fs from 'node:fs/promises';
import path from 'node:path';
import { EmbeddingModelMismatchError } from '../../src/errors';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL, type Embedder } from '../../src/knowledge/embeddings';
import { findSourceFiles, ingestFiles } from '../../src/knowledge/ingest';
import { loadLanguageDetector } from '../../src/knowledge/language/detect';
import { createRetriever } from '../../src/knowledge/retriever';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';
import { HELP_CENTER_DIR, REPO_ROOT, makeTempDir } from '../support/test-service';

/** The offline embedder, counting the texts it is asked to embed. */
function countingEmbedder(): Embedder & { embedded: string[] } {
  const embedded: string[] = [];
  const embeddings = new HashingEmbeddings();
  const embedDocuments = embeddings.embedDocuments.bind(embeddings);
  embeddings.embedDocuments = async (texts: string[]) => {
    embedded.push(...texts);
    return embedDocuments(texts);
  };
  return { embeddings, model: OFFLINE_EMBEDDING_MODEL, embedded };
}

let db: SqlDatabase;
let store: SqlStore;

beforeAll(async () => {
  ({ db, store } = await openTestStore());
});
afterAll(async () => {
  await db.close();
});
beforeEach(async () => {
  await db.query('truncate documents');
});

describe('ingesting the knowledge base', () => {
  it('names sources by path from the working directory, whether a file is given directly or through its folder', async () => {
    const viaFolder = await findSourceFiles([HELP_CENTER_DIR], REPO_ROOT);
    const direct = await findSourceFiles([path.join(HELP_CENTER_DIR, 'refunds.md')], REPO_ROOT);
    expect(viaFolder).toHaveLength(10);
    expect(direct[0]!.source).toBe('knowledge/help-center/refunds.md');
    expect(viaFolder.map((f) => f.source)).toContain(direct[0]!.source);
    await expect(findSourceFiles(['/no/such/folder'])).rejects.toThrow(/No such file or folder/);
  });

  it('is idempotent: a second run over unchanged files embeds and changes nothing', async () => {
    const files = await findSourceFiles([HELP_CENTER_DIR], REPO_ROOT);
    const embedder = countingEmbedder();
    const first = await ingestFiles(files, store, embedder);
    expect(first).toMatchObject({ files: 10, added: 10, unchanged: 0 });
    const ids = await db.query<{ id: string }>('select id from documents order by id');

    const progress: string[] = [];
    const second = await ingestFiles(files, store, embedder, (p) => progress.push(`${p.index}/${p.total} ${p.outcome}`));
    expect(second).toMatchObject({ files: 10, added: 0, updated: 0, unchanged: 10, embedded: 0 });
    expect(progress).toHaveLength(10);
    expect(progress[9]).toBe('10/10 unchanged');
    expect(embedder.embedded).toHaveLength(first.chunks);
    expect(await db.query<{ id: string }>('select id from documents order by id')).toEqual(ids);
  });

  it('replaces a changed file’s chunks and re-embeds only the text that changed', async () => {
    const dir = await makeTempDir();
    const file = path.join(dir, 'gift-cards.md');
    const section = (n: number) => `## Section ${n}\n${`Gift cards are valid for three years and can be used for any product. `.repeat(12)}`;
    await fs.writeFile(file, `# Gift cards\n\n${section(1)}\n\n${section(2)}\n`);
    const files = await findSourceFiles([file], dir);
    const embedder = countingEmbedder();
    const first = await ingestFiles(files, store, embedder);
    expect(first.chunks).toBeGreaterThan(1);

    const changed = `## Section 2\n${'Gift cards cannot be exchanged for cash. '.repeat(15)}`;
    await fs.writeFile(file, `# Gift cards\n\n${section(1)}\n\n${changed}\n`);
    const second = await ingestFiles(files, store, embedder);
    expect(second.updated).toBe(1);
    expect(second.embedded).toBeLessThan(second.chunks);

    const stored = await db.query<{ content: string }>(`select content from documents where source = 'gift-cards.md' order by chunk_index`);
    expect(stored).toHaveLength(second.chunks);
    expect(stored.map((r) => r.content).join('\n')).toContain('cannot be exchanged for cash');
    expect(stored.map((r) => r.content).join('\n')).not.toContain('## Section 2\nGift cards are valid');
  });

  it('re-embeds every chunk when the document title changes, since the title is part of what is embedded', async () => {
    const dir = await makeTempDir();
    const file = path.join(dir, 'kettles.md');
    const body = `${'The Lumen kettle boils a litre in three minutes. '.repeat(25)}\n\n${'Descale it monthly. '.repeat(40)}`;
    await fs.writeFile(file, `# Kettles\n\n${body}`);
    const files = await findSourceFiles([file], dir);
    const embedder = countingEmbedder();
    const first = await ingestFiles(files, store, embedder);

    await fs.writeFile(file, `# Lumen kettle care\n\n${body}`);
    const second = await ingestFiles(files, store, embedder);
    expect(second).toMatchObject({ updated: 1, embedded: first.chunks });
    expect(embedder.embedded.slice(-1)[0]!.startsWith('Lumen kettle care\n\n')).toBe(true);
    const titles = await db.query<{ title: string }>(`select distinct title from documents where source = 'kettles.md'`);
    expect(titles).toEqual([{ title: 'Lumen kettle care' }]);
  });
});

describe('retrieval', () => {
  it('finds the help-center article that answers a question', async () => {
    const embedder = countingEmbedder();
    await ingestFiles(await findSourceFiles([HELP_CENTER_DIR], REPO_ROOT), store, embedder);
    const retriever = createRetriever(store, embedder, { topK: 3, minSimilarity: 0.1 });
    const expectations: Array<[string, string]> = [
      ['Can I pay with Klarna?', 'payments.md'],
      ['My parcel is held at the depot', 'order-tracking.md'],
      ['How do I reset my password?', 'account.md'],
      ['What are your support hours?', 'contact-and-escalation.md'],
      ['Can I cancel my order?', 'cancellations-and-changes.md'],
    ];
    for (const [question, file] of expectations) {
      const [best] = await retriever.retrieve(question);
      expect({ question, source: best?.source }).toEqual({ question, source: `knowledge/help-center/${file}` });
    }
  });

  it("asks the documents' coverage of the question only when the embedder does not know its language", async () => {
    await ingestFiles(await findSourceFiles([HELP_CENTER_DIR], REPO_ROOT), store, countingEmbedder());
    // An embedder of English alone, as the offline sentence encoder is, and the service's detector.
    const englishOnly: Embedder = { ...countingEmbedder(), languages: ['en'] };
    const detector = await loadLanguageDetector();
    const retriever = createRetriever(store, englishOnly, { topK: 3, minSimilarity: 0, detectLanguage: async (text) => detector.detect(text) });
    const asked: string[] = [];
    const queryCoverage = store.queryCoverage.bind(store);
    const spy = jest.spyOn(store, 'queryCoverage').mockImplementation(async (text, sources) => {
      asked.push(text);
      return queryCoverage(text, sources);
    });
    try {
      // English: meaning decides confidence, so the coverage round trip is not made.
      const english = await retriever.retrieve('How long does a refund take after I return an item?');
      expect(english.length).toBeGreaterThan(0);
      expect(asked).toEqual([]);
      expect(english.every((d) => d.evidence?.queryCoverage === undefined && d.evidence?.semanticInLanguage === undefined)).toBe(true);

      // German: the vectors mean nothing, so the documents' coverage of the question decides.
      // Its one word the English help center holds is the payment provider's name.
      const german = 'Kann ich meine Bestellung mit Klarna bezahlen oder brauche ich eine Kreditkarte?';
      const found = await retriever.retrieve(german);
      expect(asked).toEqual([german]);
      expect(found.length).toBeGreaterThan(0);
      for (const d of found) expect(d.evidence).toMatchObject({ semanticInLanguage: false, queryCoverage: expect.any(Number) });
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a query embedded by another model than the stored chunks, with a clear error', async () => {
    await ingestFiles(await findSourceFiles([HELP_CENTER_DIR], REPO_ROOT), store, countingEmbedder());
    const otherModel: Embedder = { embeddings: new HashingEmbeddings(), model: 'text-embedding-3-small' };
    const retriever = createRetriever(store, otherModel, { topK: 3, minSimilarity: 0 });
    const attempt = retriever.retrieve('refund');
    await expect(attempt).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
    await expect(retriever.retrieve('refund')).rejects.toThrow(/embedded with "offline-hashing-v1".*"text-embedding-3-small".*re-ingest/);
  });
});
