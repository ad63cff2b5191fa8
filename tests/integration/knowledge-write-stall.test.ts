/**
 * Issue 42, finding 2: ingesting one page stalled every customer. On the default setup (the
 * offline sentence encoder, PGlite) a PUT of one 260,000-character word stopped the event loop
 * for 43 s: each chunk was encoded on the service's thread, then every chunk written in one
 * PGlite statement, with no turn for anything else in between.
 *
 * Each test counts the ticks of a 10 ms interval timer in this process (the service's own) while
 * a write runs through the real app. A blocked event loop cannot run the timer, so on the old
 * code it fired (almost) never until the write had ended; now the write gives the loop back
 * often, so the timer keeps firing. The check is on the count, allowing ten times fewer ticks
 * than the clock would give, so a busy machine does not fail it; it is not a timing target
 * (those are in `npm run bench:adversarial`).
 */
import { startStallService, putDocument, type StallService } from '../../scripts/lib/ingest-stall';
import { CHUNK_SIZE, MAX_RUN_CHARS } from '../../src/knowledge/chunking';
import { DOCUMENT_TITLE_MAX_CHARS } from '../../src/knowledge/sources/convert';
import { unbrokenWord } from '../support/adversarial-text';
import { describeOnTestServer, TEST_DATABASE_URL } from '../support/postgres';
import { TEST_AGENT_KEY } from '../support/test-service';

jest.setTimeout(300_000);

/** Runs `work` while a 10 ms interval timer counts its ticks; the ticks and the time it took. */
async function whileTicking<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; elapsedMs: number }> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 10);
  const started = performance.now();
  try {
    const result = await work();
    return { result, ticks, elapsedMs: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

/** The timer kept firing: at least a tenth of the ticks its 10 ms interval would give, and some. */
function expectTheLoopKeptTurning({ ticks, elapsedMs }: { ticks: number; elapsedMs: number }): void {
  expect(ticks).toBeGreaterThanOrEqual(Math.max(3, Math.floor(elapsedMs / 100)));
}

async function storedSource(service: StallService, source: string): Promise<{ title: string; chunks: { content: string }[] }> {
  const response = await fetch(`${service.baseURL}/api/v1/knowledge/sources/${encodeURIComponent(source)}`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { title: string; chunks: { content: string }[] };
}

/** The longest run without whitespace in `text`. */
function longestRun(text: string): number {
  return Math.max(0, ...(text.match(/\S+/g) ?? []).map((run) => run.length));
}

function writesThatDoNotStall(backend: string, databaseUrl: () => string | undefined) {
  describe(`knowledge writes give the event loop back (${backend}, the offline sentence encoder)`, () => {
    let service: StallService;
    beforeAll(async () => {
      service = await startStallService(databaseUrl(), { KNOWLEDGE_SEED_DIR: 'none' });
      // The encoder loads once per thread; its load is not the write under test.
      expect((await putDocument(service, 'warm-up.md', '# Warm up\n\nThe encoder loads once.')).status).toBe(201);
    });
    afterAll(async () => {
      await service?.close();
    });

    test('while one 20,000-character word is ingested, a 10 ms timer keeps firing, and no stored chunk holds a run longer than a chunk', async () => {
      const word = unbrokenWord(20_000, 7);
      const run = await whileTicking(() => putDocument(service, 'one-long-word.txt', word));
      expect(run.result).toEqual({ status: 201, chunks: expect.any(Number) });
      expectTheLoopKeptTurning(run);

      const stored = await storedSource(service, 'one-long-word.txt');
      expect(stored.chunks.length).toBeGreaterThanOrEqual(20);
      for (const chunk of stored.chunks) {
        expect(chunk.content.length).toBeLessThanOrEqual(CHUNK_SIZE);
        expect(longestRun(chunk.content)).toBeLessThan(CHUNK_SIZE);
      }
      // Nothing of the word is lost: the pieces, joined, are the word.
      expect(stored.chunks.map((c) => c.content).join('')).toBe(word);
    });

    test('a markdown heading of one 5,000-character word becomes a title of at most 200 characters, not 5,000 embedded with every chunk', async () => {
      const heading = unbrokenWord(5_000, 8);
      const body = `# ${heading}\n\nReturns are free within 30 days of delivery.`;
      expect((await putDocument(service, 'long-heading.md', body)).status).toBe(201);
      const stored = await storedSource(service, 'long-heading.md');
      expect(stored.title).toBe(heading.slice(0, DOCUMENT_TITLE_MAX_CHARS));
      for (const chunk of stored.chunks) expect(longestRun(chunk.content)).toBeLessThanOrEqual(MAX_RUN_CHARS);
    });
  });
}

writesThatDoNotStall('PGlite', () => undefined);
describeOnTestServer('on the PostgreSQL server', () => writesThatDoNotStall('PostgreSQL server', () => TEST_DATABASE_URL));

describe('a long write on PGlite (the hashing embedder, so the database is what is left)', () => {
  let service: StallService;
  beforeAll(async () => {
    service = await startStallService(undefined, { KNOWLEDGE_SEED_DIR: 'none', OFFLINE_EMBEDDER: 'hashing' });
  });
  afterAll(async () => {
    await service?.close();
  });

  test('is written in short statements: a 10 ms timer keeps firing, and readers see the old chunks or the new ones, never a mix', async () => {
    const source = 'replaced-article.txt';
    // Three paragraphs of about 600 characters: three chunks.
    const old = [1, 2, 3].map((k) => `Section ${k}. ${'Returns are free within 30 days of delivery. '.repeat(13)}`).join('\n\n');
    expect((await putDocument(service, source, old)).status).toBe(201);
    const oldCount = (await storedSource(service, source)).chunks.length;

    // Readers ask for the source again and again while the new version (150 chunks) is written.
    const seen = new Set<number>();
    let writing = true;
    const reader = (async () => {
      while (writing) seen.add((await storedSource(service, source)).chunks.length);
    })();
    const run = await whileTicking(() => putDocument(service, source, unbrokenWord(150_000, 9)));
    writing = false;
    await reader;

    expect(run.result.status).toBe(200);
    expectTheLoopKeptTurning(run);
    const newCount = (await storedSource(service, source)).chunks.length;
    expect(newCount).toBeGreaterThanOrEqual(150);
    expect([...seen].every((count) => count === oldCount || count === newCount)).toBe(true);
  });
});
