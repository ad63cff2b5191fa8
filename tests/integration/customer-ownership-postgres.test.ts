/**
 * Whose data it is, and the paged export, on a real PostgreSQL server
 * (TEST_DATABASE_URL): two instances on one database, requests alternating between
 * them, so the export limit is seen counted in the database. See
 * customer-ownership.cases.ts.
 */
import { describeOnTestServer } from '../support/postgres';
import { TEST_CUSTOMER_SECRET } from '../support/test-service';
import { useTwoInstancesOnTestServer } from '../support/two-instances';
import { customerOwnershipCases, EXPORTS_PER_HOUR } from './customer-ownership.cases';

describeOnTestServer('customer ownership and the paged export (two instances on a PostgreSQL server)', () => {
  const service = useTwoInstancesOnTestServer({
    env: { CUSTOMER_IDENTITY_SECRET: TEST_CUSTOMER_SECRET, CUSTOMER_EXPORTS_PER_HOUR: String(EXPORTS_PER_HOUR) },
  });

  customerOwnershipCases(() => {
    const { instances, db } = service();
    return { baseURLs: instances.map((i) => i.baseURL), db };
  });
});
