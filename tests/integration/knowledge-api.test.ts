/**
 * The knowledge API on the real service (PGlite, offline embedder; the embedding
 * failure case through the real OpenAI client against the loopback stub).
 */
import { openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';

const SOURCE = 'kb/gift-wrapping.md';
const path = (source: string) => `/api/v1/knowledge/sources/${encodeURIComponent(source)}`;

const ARTICLE_V1 = `# Gift Wrapping

Gift wrapping costs 4 euros per parcel and comes in kraft paper with a linen ribbon.

## Gift messages

A handwritten gift message card is included free of charge with every wrapped parcel.
`;
const ARTICLE_V2 = `# Gift Wrapping

Gift wrapping is now free for every parcel and comes in recycled paper with a cotton ribbon.

## Gift messages

A printed gift message card is included with every wrapped parcel.
`;

let service: TestService;

async function put(source: string, body: string | Buffer, contentType: string, key: string | null = TEST_AGENT_KEY) {
  const response = await fetch(`${service.baseURL}${path(source)}`, {
    method: 'PUT',
    headers: { 'content-type': contentType, ...(key && { authorization: `Bearer ${key}` }) },
    body,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

beforeAll(async () => {
  service = await startTestService({ env: { KNOWLEDGE_DOCUMENT_MAX_BYTES: '4096' } });
});
afterAll(async () => {
  await service?.close();
});

describe('an article through the knowledge API', () => {
  test('is added, listed, read, answered from, replaced (old wording gone), left alone when unchanged, and deleted (never cited again)', async () => {
    const added = await put(SOURCE, ARTICLE_V1, 'text/markdown');
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ source: SOURCE, title: 'Gift Wrapping', outcome: 'added', embedding_model: 'offline-hashing-v1' });
    expect(added.body.chunk_count).toBeGreaterThan(0);

    const list = await service.request('GET', '/api/v1/knowledge/sources?q=gift');
    expect(list.status).toBe(200);
    expect(list.body.sources).toEqual([
      expect.objectContaining({ source: SOURCE, title: 'Gift Wrapping', chunk_count: added.body.chunk_count, embedding_model: 'offline-hashing-v1' }),
    ]);
    const hashV1 = list.body.sources[0].content_hash;
    expect(hashV1).toMatch(/^[0-9a-f]{64}$/);

    const one = await service.request('GET', path(SOURCE));
    expect(one.status).toBe(200);
    expect(one.body.chunks.map((c: any) => c.content).join('\n')).toContain('kraft paper with a linen ribbon');

    const answer = await service.postChat({ message: 'How much does gift wrapping cost?' });
    expect(answer.status).toBe(200);
    expect(answer.body.sources.map((s: any) => s.source)).toContain(SOURCE);
    expect(answer.body.response).toContain('4 euros');

    const unchanged = await put(SOURCE, ARTICLE_V1, 'text/markdown');
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ outcome: 'unchanged', embedded: 0 });
    const afterNoop = await service.request('GET', path(SOURCE));
    expect(afterNoop.body.updated_at).toBe(one.body.updated_at);

    const replaced = await put(SOURCE, ARTICLE_V2, 'text/markdown');
    expect(replaced.body.outcome).toBe('updated');
    const listed = await service.request('GET', '/api/v1/knowledge/sources?q=gift');
    expect(listed.body.sources[0].content_hash).not.toBe(hashV1);
    for (let i = 0; i < 3; i++) {
      const again = await service.postChat({ message: 'How much does gift wrapping cost, and what ribbon is it?' });
      expect(again.body.sources.map((s: any) => s.source)).toContain(SOURCE);
      expect(again.body.response).not.toMatch(/4 euros|kraft|linen/);
      expect(again.body.response).toMatch(/free|recycled|cotton/);
    }

    const deleted = await service.request('DELETE', path(SOURCE));
    expect(deleted).toEqual({ status: 200, body: { source: SOURCE, deleted_chunks: replaced.body.chunk_count } });
    const afterDelete = await service.postChat({ message: 'How much does gift wrapping cost, and what ribbon is it?' });
    expect(afterDelete.body.sources.map((s: any) => s.source)).not.toContain(SOURCE);
    expect(afterDelete.body.response).not.toMatch(/recycled paper|cotton ribbon/);
    expect((await service.request('GET', path(SOURCE))).status).toBe(404);
    expect((await service.request('DELETE', path(SOURCE))).status).toBe(404);
  });

  test('JSON {title, content} sets the title; plain text is chunked as text', async () => {
    const json = await put('kb/json-article', JSON.stringify({ title: 'Loyalty Points', content: 'Every euro spent earns one loyalty point.' }), 'application/json');
    expect(json.status).toBe(201);
    expect(json.body.title).toBe('Loyalty Points');
    const text = await put('kb/notes.txt', 'Store hours are nine to five on weekdays.', 'text/plain; charset=utf-8');
    expect(text.status).toBe(201);
    expect(text.body.title).toBe('notes');
    const page = await service.request('GET', '/api/v1/knowledge/sources?q=kb%2F&limit=1');
    expect(page.body.sources).toHaveLength(1);
    expect(page.body.next_after).toBe('kb/json-article');
    const next = await service.request('GET', `/api/v1/knowledge/sources?q=kb%2F&limit=1&after=${encodeURIComponent(page.body.next_after)}`);
    expect(next.body.sources.map((s: any) => s.source)).toEqual(['kb/notes.txt']);
    expect(next.body.next_after).toBeNull();
  });
});

describe('bad requests to the knowledge API are refused and change nothing', () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, number, string][] = [
    ['no agent key', () => put('kb/a.md', '# A\n\ntext', 'text/markdown', null), 401, 'unauthorized'],
    ['an empty body', () => put('kb/a.md', '', 'text/markdown'), 400, 'invalid_request'],
    ['only whitespace', () => put('kb/a.md', '  \n\t ', 'text/plain'), 400, 'invalid_request'],
    ['bytes that are not UTF-8', () => put('kb/a.md', Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x41]), 'text/plain'), 400, 'invalid_request'],
    ['a NUL character', () => put('kb/a.md', 'text\u0000more', 'text/plain'), 400, 'invalid_request'],
    ['an image', () => put('kb/a.md', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png'), 415, 'unsupported_media_type'],
    ['no content type', () => put('kb/a.md', 'text', ''), 415, 'unsupported_media_type'],
    ['a body over KNOWLEDGE_DOCUMENT_MAX_BYTES', () => put('kb/a.md', `# Big\n\n${'word '.repeat(1000)}`, 'text/markdown'), 413, 'payload_too_large'],
    ['JSON over the limit too', () => put('kb/a.md', JSON.stringify({ content: 'word '.repeat(1000) }), 'application/json'), 413, 'payload_too_large'],
    ['invalid JSON', () => put('kb/a.md', '{"content": ', 'application/json'), 400, 'invalid_json'],
    ['an unknown JSON field', () => put('kb/a.md', JSON.stringify({ content: 'x', tags: [] }), 'application/json'), 400, 'invalid_request'],
    ['JSON without content', () => put('kb/a.md', JSON.stringify({ title: 'x' }), 'application/json'), 400, 'invalid_request'],
    ['a source with a control character', () => put('kb/a\u0001.md', 'text', 'text/plain'), 400, 'invalid_request'],
    ['a source with surrounding spaces', () => put(' kb/a.md', 'text', 'text/plain'), 400, 'invalid_request'],
    ['a bad limit', () => service.request('GET', '/api/v1/knowledge/sources?limit=0'), 400, 'invalid_request'],
    ['a list without the key', () => service.request('GET', '/api/v1/knowledge/sources', undefined, null), 401, 'unauthorized'],
    ['a delete without the key', () => service.request('DELETE', path('knowledge/help-center/refunds.md'), undefined, null), 401, 'unauthorized'],
  ];
  test.each(cases)('%s', async (_name, send, status, code) => {
    const before = await service.countRows('documents');
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(typeof response.body.error.message).toBe('string');
    expect(await service.countRows('documents')).toBe(before);
  });

  test('the 413 names the limit', async () => {
    const response = await put('kb/a.md', 'x'.repeat(5000), 'text/plain');
    expect(response.body.error.message).toContain('4096 bytes');
  });

  test('while stored vectors come from another embedding model, a write answers 409 and changes nothing', async () => {
    await service.deps.store.replaceSourceChunks('kb/other-model.md', [
      { source: 'kb/other-model.md', title: 'Other', chunkIndex: 0, content: 'x', contentHash: 'h', metadata: {}, embedding: new Array(1536).fill(0.01), embeddingModel: 'another-model' },
    ]);
    try {
      const before = await service.countRows('documents');
      const response = await put('kb/new.md', '# New\n\nSomething new.', 'text/markdown');
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('embedding_model_mismatch');
      expect(response.body.error.message).toContain('another-model');
      expect(await service.countRows('documents')).toBe(before);
    } finally {
      await service.request('DELETE', path('kb/other-model.md'));
    }
  });
});

describe('when the embedding model is unavailable', () => {
  let stub: OpenAIStub;
  let online: TestService;
  beforeAll(async () => {
    stub = await startOpenAIStub();
    online = await startTestService({ env: openAIStubEnv(stub.baseURL) });
  });
  afterAll(async () => {
    await online?.close();
    await stub?.close();
  });

  test('a new article and a replacement answer 503 with Retry-After, and the stored article stays whole', async () => {
    const source = 'knowledge/help-center/refunds.md';
    const before = await online.request('GET', path(source));
    expect(before.status).toBe(200);
    stub.setEmbeddingsFailure(500);
    try {
      for (const target of ['kb/brand-new.md', source]) {
        const response = await fetch(`${online.baseURL}${path(target)}`, {
          method: 'PUT',
          headers: { 'content-type': 'text/markdown', authorization: `Bearer ${TEST_AGENT_KEY}` },
          body: `# Changed\n\nEntirely new wording ${target}.`,
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('30');
        const body = (await response.json()) as any;
        expect(body.error.code).toBe('embedding_unavailable');
        expect(body.error.message).toMatch(/embedding model .* is unavailable/);
      }
    } finally {
      stub.setEmbeddingsFailure(null);
    }
    expect((await online.request('GET', path('kb/brand-new.md'))).status).toBe(404);
    expect(await online.request('GET', path(source))).toEqual(before);
  });
});
