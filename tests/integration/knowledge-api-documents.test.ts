/**
 * HTML pages, PDFs and Word files through the knowledge API on the real service (PGlite,
 * offline embedder), and an answer that cites a PDF's page and the URL it came from.
 */
import { CHROME_MARKERS, corruptPdf, encryptedPdf, helpArticlePage, noTextPdf, policyDocx, threePagePdf } from '../support/documents';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const MAX_BYTES = 32 * 1024;
const path = (source: string, query = '') => `/api/v1/knowledge/sources/${encodeURIComponent(source)}${query}`;

let service: TestService;

async function put(source: string, body: string | Uint8Array, contentType: string, query = '') {
  const response = await fetch(`${service.baseURL}${path(source, query)}`, {
    method: 'PUT',
    headers: { 'content-type': contentType, authorization: `Bearer ${TEST_AGENT_KEY}` },
    body: typeof body === 'string' ? body : Buffer.from(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function storedChunks(source: string) {
  return service.db.query<{ content: string; metadata: Record<string, unknown> }>(
    'select content, metadata from documents where source = $1 order by chunk_index',
    [source],
  );
}

beforeAll(async () => {
  service = await startTestService({ env: { KNOWLEDGE_DOCUMENT_MAX_BYTES: String(MAX_BYTES) } });
});
afterAll(async () => {
  await service?.close();
});

describe('documents uploaded by content type', () => {
  test('an HTML page keeps its article only and remembers the ?url= it came from', async () => {
    const url = 'https://help.acme.test/hc/en-us/articles/refunds';
    const added = await put('help.acme.test/refunds', helpArticlePage(), 'text/html; charset=utf-8', `?url=${encodeURIComponent(url)}`);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ title: 'Returns and refunds', outcome: 'added' });
    const chunks = await storedChunks('help.acme.test/refunds');
    const text = chunks.map((c) => c.content).join('\n');
    for (const marker of CHROME_MARKERS) expect({ marker, stored: text.includes(marker) }).toEqual({ marker, stored: false });
    expect(text).toContain('| PayPal | 1-2 business days |');
    expect(chunks.every((c) => c.metadata['url'] === url)).toBe(true);

    const again = await put('help.acme.test/refunds', helpArticlePage(), 'text/html', `?url=${encodeURIComponent(url)}`);
    expect(again.body).toMatchObject({ outcome: 'unchanged', embedded: 0 });
  });

  test('a PDF is stored page by page, each chunk with its page', async () => {
    const added = await put('manuals/kettle.pdf', await threePagePdf(), 'application/pdf');
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ title: 'kettle', chunk_count: 3 });
    expect((await storedChunks('manuals/kettle.pdf')).map((c) => c.metadata)).toEqual([1, 2, 3].map((page) => ({ format: 'markdown', page })));
  });

  test('a Word file keeps its heading, list and table', async () => {
    const added = await put('policies/warranty.docx', await policyDocx(), DOCX);
    expect(added.status).toBe(201);
    expect(added.body.title).toBe('Warranty policy');
    const text = (await service.request('GET', path('policies/warranty.docx'))).body.chunks.map((c: any) => c.content).join('\n');
    expect(text).toMatch(/- +Limescale from skipped descaling/);
    expect(text).toContain('| Kettle | 2 years |');
  });

  test('JSON in parts keeps each part’s page and the url', async () => {
    const url = 'https://acme.test/files/guide.pdf';
    const added = await service.request('PUT', path('guide.pdf'), {
      title: 'Setup guide',
      url,
      parts: [
        { content: 'Fill the kettle to the MAX line.', page: 1 },
        { content: 'Never boil it empty.', page: 2 },
      ],
    });
    expect(added.status).toBe(201);
    expect((await storedChunks('guide.pdf')).map((c) => c.metadata)).toEqual([
      { format: 'markdown', url, page: 1 },
      { format: 'markdown', url, page: 2 },
    ]);
  });
});

describe('documents that cannot be stored are refused clearly and store nothing', () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, number, string, RegExp][] = [
    ['a zip file', async () => put('x.zip', 'PK\u0003\u0004', 'application/zip'), 415, 'unsupported_media_type', /application\/pdf/],
    ['a PDF over KNOWLEDGE_DOCUMENT_MAX_BYTES', async () => put('big.pdf', new Uint8Array(MAX_BYTES + 1), 'application/pdf'), 413, 'payload_too_large', /KNOWLEDGE_DOCUMENT_MAX_BYTES/],
    ['an encrypted PDF', async () => put('locked.pdf', await encryptedPdf(), 'application/pdf'), 422, 'unreadable_document', /encrypted.*Nothing was stored/],
    ['a corrupt PDF', async () => put('broken.pdf', await corruptPdf(), 'application/pdf'), 422, 'unreadable_document', /cannot be read/],
    ['a PDF without a text layer', async () => put('scan.pdf', await noTextPdf(), 'application/pdf'), 422, 'no_text_layer', /no text layer/],
    ['a Word file that is not one', async () => put('fake.docx', 'not a zip', DOCX), 422, 'unreadable_document', /Word file cannot be read/],
    ['a page of chrome only', async () => put('nav.html', '<html><body><nav><a href="/">Home</a></nav></body></html>', 'text/html'), 422, 'empty_document', /no text/],
    ['an empty PDF body', async () => put('empty.pdf', '', 'application/pdf'), 400, 'invalid_request', /empty/],
    ['a url that is not http(s)', async () => put('p.html', helpArticlePage(), 'text/html', '?url=javascript%3Aalert(1)'), 400, 'invalid_request', /url must be an absolute http/],
  ];
  test.each(cases)('%s', async (_name, send, status, code, message) => {
    const before = await service.countRows('documents');
    const response = await send();
    expect({ status: response.status, code: response.body.error?.code }).toEqual({ status, code });
    expect(response.body.error.message).toMatch(message);
    expect(await service.countRows('documents')).toBe(before);
  });
});

describe('an answer from a PDF', () => {
  test('cites the PDF with the page of the passage and the url it came from, in the answer and in the stored history', async () => {
    const url = 'https://acme.test/files/lumen-manual.pdf';
    const added = await put('lumen-manual.pdf', await threePagePdf(), 'application/pdf', `?url=${encodeURIComponent(url)}`);
    expect(added.status).toBe(201);

    const answer = await service.postChat({ message: 'Where do I send the serial number from the base plate of my kettle?' });
    expect(answer.status).toBe(200);
    const cited = answer.body.sources.find((s: any) => s.source === 'lumen-manual.pdf');
    expect(cited).toMatchObject({ url, page: 3 });
    // Sources without a url or page (the markdown help center) carry neither.
    const helpCenter = answer.body.sources.filter((x: any) => x.source.startsWith('knowledge/help-center/'));
    expect(helpCenter.length).toBeGreaterThan(0);
    for (const s of helpCenter) expect(Object.keys(s).sort()).toEqual(['score', 'source', 'title']);

    const history = await service.getHistory(answer.body.session_id);
    const stored = history.body.messages.find((m: any) => m.role === 'assistant');
    expect(stored.sources.find((s: any) => s.source === 'lumen-manual.pdf')).toMatchObject({ url, page: 3 });
  });
});
