/**
 * The customer-data lifecycle on the embedded default (PGlite), answering through
 * the real OpenAI client against the loopback stub: see customer-data.cases.ts.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';
import { customerDataCases } from './customer-data.cases';

let stub: OpenAIStub;
let service: TestService;
/** The service's log lines, as written. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter((line) => line.trim() !== ''));
    done();
  },
});

beforeAll(async () => {
  stub = await startOpenAIStub();
  service = await startTestService({
    env: openAIStubEnv(stub.baseURL, { STREAM_HEARTBEAT_MS: '200', EVENTS_POLL_MS: '100' }),
    logger: createLogger('info', logSink),
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await stub?.close();
});

describe('customer data lifecycle (PGlite)', () => {
  customerDataCases(() => ({ baseURLs: [service.baseURL], stub, query: (sql, params) => service.db.query(sql, params) }));

  it('logs every erasure as an event with who, counts and the pseudonym, and no content or raw id', async () => {
    const events = logLines.filter((line) => line.includes('"event":"customer_data_erased"'));
    const audit = await service.request('GET', '/api/v1/audit/erasures?limit=100');
    expect(events).toHaveLength(audit.body.erasures.length);
    const parsed = events.map((line) => JSON.parse(line));
    expect(parsed.map((e) => e.erasure_id).sort((a, b) => a - b)).toEqual(audit.body.erasures.map((r: any) => Number(r.id)).sort((a: number, b: number) => a - b));
    expect(parsed.find((e) => e.scope === 'customer')).toMatchObject({ actor: 'agent', customer: expect.stringMatching(/^c_[0-9a-f]{32}$/), counts: { conversations: 2 } });
    for (const line of events) {
      for (const personal of ['lukas', 'life-own', 'refund', 'air fryer']) expect({ personal, found: line.toLowerCase().includes(personal) }).toEqual({ personal, found: false });
    }
  });
});
