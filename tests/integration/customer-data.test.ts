/**
 * The customer-data lifecycle on the embedded default (PGlite), answering through
 * the real OpenAI client against the loopback stub: see customer-data.cases.ts.
 */
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';
import { customerDataCases } from './customer-data.cases';

let stub: OpenAIStub;
let service: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { STREAM_HEARTBEAT_MS: '200', EVENTS_POLL_MS: '100' }) });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await stub?.close();
});

describe('customer data lifecycle (PGlite)', () => {
  customerDataCases(() => ({ baseURLs: [service.baseURL], stub, query: (sql, params) => service.db.query(sql, params) }));
});
