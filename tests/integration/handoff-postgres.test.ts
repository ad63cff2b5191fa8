/**
 * Human takeover on a real PostgreSQL server (TEST_DATABASE_URL): two instances
 * of the service (two apps, each with its own `pg` pool and its own LISTEN
 * connection) on one database, requests alternating between them, so takeovers,
 * replies and customer messages race for real and an event stream on one
 * instance is woken by NOTIFY from the other. The knowledge base is empty and the
 * confidence threshold 1, so every answer is escalated.
 */
import { describeOnTestServer } from '../support/postgres';
import { useTwoInstancesOnTestServer } from '../support/two-instances';
import { handoffCases } from './handoff.cases';

describeOnTestServer('human takeover (two instances on a PostgreSQL server)', () => {
  const service = useTwoInstancesOnTestServer({
    env: { RATE_LIMIT_STORE: 'memory' },
    modelEnv: { ESCALATION_CONFIDENCE_THRESHOLD: '1' },
    checkConfig: (config) => expect(config.handoff.delivery).toBe('listen'),
  });

  handoffCases(() => {
    const { instances, stub, db } = service();
    return {
      baseURLs: instances.map((i) => i.baseURL),
      stub,
      query: (sql, params) => db.query(sql, params),
      endStreams: () => instances[0]!.deps.endStreams(),
    };
  });
});
