import pino from 'pino';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { makeTempDir, startTestService } from '../support/test-service';

/** A real pino logger whose JSON lines the test can read. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

let stub: OpenAIStub;
beforeAll(async () => {
  stub = await startOpenAIStub();
});
afterAll(async () => {
  await stub.close();
});

const openaiEnv = () => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: stub.baseURL, OPENAI_MAX_RETRIES: '0' });

describe('starting the service', () => {
  it('starts without the seed knowledge when the embedder is down, logs why, and answers without it, marked', async () => {
    stub.reset();
    stub.setEmbeddingsFailure(503);
    const { logger, lines } = capturingLogger();
    const service = await startTestService({ env: openaiEnv(), logger });
    try {
      expect(lines.some((l) => l.level === 50 && l.msg.startsWith('Could not ingest the seed knowledge base'))).toBe(true);
      expect(await service.countRows('documents')).toBe(0);
      expect((await fetch(`${service.baseURL}/health`)).status).toBe(200);
      const { status, body } = await service.postChat({ message: 'Where is my parcel?' });
      expect(status).toBe(200);
      expect(body.degraded).toEqual(['knowledge_unavailable']);
      expect(body.escalated).toBe(true);
    } finally {
      await service.close();
    }
  });

  it('warns at start when the stored knowledge was embedded by another model, and questions say how to fix it', async () => {
    stub.reset();
    const dataDir = await makeTempDir();
    const offline = await startTestService({ dataDir });
    await offline.close();

    const { logger, lines } = capturingLogger();
    const switched = await startTestService({ dataDir, env: openaiEnv(), logger });
    try {
      const warning = lines.find((l) => l.level === 40 && l.msg.includes('embedded with offline-hashing-v1'));
      expect(warning?.msg).toMatch(/not text-embedding-3-small.*re-ingested/);
      const { status, body } = await switched.postChat({ message: 'Where is my parcel?' });
      expect(status).toBe(500);
      expect(body.error).toEqual({ code: 'embedding_model_mismatch', message: expect.stringMatching(/re-ingest/) });
      expect(await switched.countRows('chat_messages')).toBe(0);
    } finally {
      await switched.close();
    }
  });
});
