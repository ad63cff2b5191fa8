import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL, type Embedder } from '../../src/knowledge/embeddings';
import { findSourceFiles, ingestDocument, ingestFiles, type IngestProgress } from '../../src/knowledge/ingest';
import { convertDocument } from '../../src/knowledge/sources/convert';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';
import { CHROME_MARKERS, MANUAL_PAGES, encryptedPdf, helpArticlePage, noTextPdf, policyDocx, threePagePdf } from '../support/documents';
import { makeTempDir } from '../support/test-service';

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

interface Row {
  source: string;
  title: string;
  chunk_index: number;
  content: string;
  metadata: Record<string, unknown>;
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

const rows = (source: string) =>
  db.query<Row>('select source, title, chunk_index, content, metadata from documents where source = $1 order by chunk_index', [source]);

/** Pages long enough to make several chunks each, so a chunk could span two if they were joined. */
const LONG_PAGES = [1, 2, 3].map((n) => `Page ${n} topic. ${`Fact ${n} of the manual about the kettle number ${n}. `.repeat(40)}`);

describe('ingesting a folder of mixed documents', () => {
  it('stores markdown, HTML, PDF and Word files, reports the PDF without text and the encrypted PDF as skipped with why, and stores nothing of them', async () => {
    const dir = await makeTempDir();
    await fs.writeFile(path.join(dir, 'shipping.md'), '# Shipping\n\nWe ship within two working days.\n');
    await fs.writeFile(path.join(dir, 'refunds.html'), helpArticlePage());
    await fs.writeFile(path.join(dir, 'manual.pdf'), await threePagePdf());
    await fs.writeFile(path.join(dir, 'scan.pdf'), await noTextPdf());
    await fs.writeFile(path.join(dir, 'locked.pdf'), await encryptedPdf());
    await fs.writeFile(path.join(dir, 'policy.docx'), await policyDocx());
    await fs.writeFile(path.join(dir, 'photo.png'), 'not a document');

    const files = await findSourceFiles([dir], dir);
    expect(files.map((f) => f.source)).toEqual(['locked.pdf', 'manual.pdf', 'policy.docx', 'refunds.html', 'scan.pdf', 'shipping.md']);

    const progress: IngestProgress[] = [];
    const embedder = countingEmbedder();
    const summary = await ingestFiles(files, store, embedder, (p) => progress.push(p));
    expect(summary).toMatchObject({ files: 6, added: 4, skipped: 2 });
    expect(summary.skippedFiles).toEqual([
      { source: 'locked.pdf', reason: 'unreadable', message: expect.stringMatching(/encrypted and needs a password/) },
      { source: 'scan.pdf', reason: 'no_text_layer', message: expect.stringMatching(/no text layer/) },
    ]);
    expect(progress.filter((p) => p.outcome === 'skipped').map((p) => p.skipped?.reason)).toEqual(['unreadable', 'no_text_layer']);

    const sources = await db.query<{ source: string; title: string }>('select distinct source, title from documents order by source');
    expect(sources).toEqual([
      { source: 'manual.pdf', title: 'manual' },
      { source: 'policy.docx', title: 'Warranty policy' },
      { source: 'refunds.html', title: 'Returns and refunds' },
      { source: 'shipping.md', title: 'Shipping' },
    ]);
    const html = (await rows('refunds.html')).map((r) => r.content).join('\n');
    for (const marker of CHROME_MARKERS) expect({ marker, stored: html.includes(marker) }).toEqual({ marker, stored: false });
    expect(html).toContain('| Credit card | 5-7 business days |');

    const manual = await rows('manual.pdf');
    expect(manual.map((r) => r.metadata)).toEqual([1, 2, 3].map((page) => ({ format: 'markdown', page })));
    expect(manual.map((r) => r.content.replace(/\s+/g, ' '))).toEqual(MANUAL_PAGES);
    expect((await rows('shipping.md'))[0]!.metadata).toEqual({ format: 'markdown' });

    const again = await ingestFiles(files, store, embedder);
    expect(again).toMatchObject({ unchanged: 4, skipped: 2, embedded: 0 });
  });

  it('refuses a named file of a type it does not take, naming the types it does', async () => {
    const dir = await makeTempDir();
    await fs.writeFile(path.join(dir, 'prices.xlsx'), 'x');
    await expect(findSourceFiles([path.join(dir, 'prices.xlsx')], dir)).rejects.toThrow(/\(\.md, \.markdown, \.txt, \.html, \.htm, \.pdf, \.docx\): .*prices\.xlsx$/);
  });
});

describe('ingesting a converted document', () => {
  it('cuts a PDF’s chunks within its pages, so each chunk knows its page and carries the url', async () => {
    const doc = await convertDocument(await threePagePdf(LONG_PAGES), 'pdf');
    const url = 'https://acme.test/files/manual.pdf';
    const result = await ingestDocument({ source: url, url, ...doc }, store, countingEmbedder());
    expect(result.outcome).toBe('added');
    const stored = await rows(url);
    expect(stored.length).toBeGreaterThan(3);
    expect(stored[0]!.title).toBe('manual');
    for (const row of stored) {
      const page = row.metadata['page'] as number;
      expect(row.metadata).toEqual({ format: 'markdown', url, page });
      // Text of one page only: every page number it mentions is its own.
      const mentioned = [...row.content.matchAll(/(?:Page|Fact|number)\s+(\d)/g)].map((m) => Number(m[1]));
      expect(new Set(mentioned)).toEqual(new Set([page]));
    }
    expect(new Set(stored.map((r) => r.metadata['page']))).toEqual(new Set([1, 2, 3]));
  });

  it('embeds nothing again for an unchanged document, and stores a page that moved with its new number', async () => {
    const embedder = countingEmbedder();
    const source = 'manual.pdf';
    const first = await convertDocument(await threePagePdf(MANUAL_PAGES), 'pdf');
    await ingestDocument({ source, ...first }, store, embedder);
    const unchanged = await ingestDocument({ source, ...first }, store, embedder);
    expect(unchanged).toMatchObject({ outcome: 'unchanged', embedded: 0 });

    // A blank page inserted at the front: the same texts, each one page later.
    const moved = await convertDocument(await threePagePdf(['', ...MANUAL_PAGES]), 'pdf');
    const result = await ingestDocument({ source, ...moved }, store, embedder);
    expect(result.outcome).toBe('updated');
    expect((await rows(source)).map((r) => r.metadata['page'])).toEqual([2, 3, 4]);
  });

  it('keeps plain markdown hashed as before, so a knowledge base ingested earlier is not embedded again', async () => {
    const embedder = countingEmbedder();
    await ingestDocument({ source: 'a.md', text: '# A\n\nSome text.', format: 'markdown' }, store, embedder);
    const [row] = await db.query<{ content_hash: string }>('select content_hash from documents');
    // sha256 of the title, a blank line and the chunk: the hash every earlier ingest stored.
    expect(row!.content_hash).toBe(createHash('sha256').update('A\n\n# A\n\nSome text.').digest('hex'));
  });
});
