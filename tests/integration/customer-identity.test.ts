/** Customer identity attacks (customer-identity.suite.ts) on the embedded database, PGlite. */
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';
import { describeIdentityAttacks, IDENTITY_ENV, type IdentityHarness } from './customer-identity.suite';

let stub: OpenAIStub;
let offline: TestService;
let online: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  [offline, online] = await Promise.all([
    startTestService({ env: { ...IDENTITY_ENV, OFFLINE_STREAM_DELAY_MS: '0' } }),
    startTestService({ env: openAIStubEnv(stub.baseURL, IDENTITY_ENV) }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([offline?.close(), online?.close()]);
  await stub?.close();
});

describe('customer identity on PGlite', () => {
  describeIdentityAttacks(
    (): IdentityHarness => ({
      offline: { baseURL: offline.baseURL, db: offline.db },
      online: { baseURL: online.baseURL, db: online.db },
      stub,
    }),
  );
});
