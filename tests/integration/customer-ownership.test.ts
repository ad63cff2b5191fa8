/**
 * Whose data it is, and the paged export, on the embedded default (PGlite): see
 * customer-ownership.cases.ts.
 */
import { startTestService, type TestService } from '../support/test-service';
import { customerOwnershipCases, EXPORTS_PER_HOUR } from './customer-ownership.cases';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { CUSTOMER_EXPORTS_PER_HOUR: String(EXPORTS_PER_HOUR) } });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

describe('customer ownership and the paged export (PGlite)', () => {
  customerOwnershipCases(() => ({ baseURLs: [service.baseURL], db: service.db }));
});
