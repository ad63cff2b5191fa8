/**
 * The customer-data lifecycle on a real PostgreSQL server (TEST_DATABASE_URL): two
 * instances of the service on one database, requests alternating between them, so
 * an answer in flight on one instance races the erasure made through the other, and
 * the event stream on one is ended by the other's NOTIFY. See customer-data.cases.ts.
 */
import { describeOnTestServer } from '../support/postgres';
import { TEST_CUSTOMER_SECRET } from '../support/test-service';
import { useTwoInstancesOnTestServer } from '../support/two-instances';
import { customerDataCases } from './customer-data.cases';

describeOnTestServer('customer data lifecycle (two instances on a PostgreSQL server)', () => {
  const service = useTwoInstancesOnTestServer({ env: { CUSTOMER_IDENTITY_SECRET: TEST_CUSTOMER_SECRET } });

  customerDataCases(() => {
    const { instances, stub, db } = service();
    return { baseURLs: instances.map((i) => i.baseURL), stub, query: (sql, params) => db.query(sql, params) };
  });
});
