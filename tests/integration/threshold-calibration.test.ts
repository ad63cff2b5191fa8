import path from 'node:path';
import { REPO_ROOT, startTestService, type TestService } from '../support/test-service';

/**
 * Issue 41, item 4: the escalation threshold measured for the knowledge base and the embedder.
 * A small help center, the hashing embedder (its default threshold 0.2): the questions its titles
 * and headings pose find their article above 0.2, so the measured threshold is higher, and a
 * question about a topic it lacks, which the default let through, is escalated.
 */
const KNOWLEDGE = path.join(REPO_ROOT, 'tests/fixtures/calibration-kb');
const UNRELATED = 'Can you store my bike in winter?';
const COVERED = 'What does a basic service cost?';

jest.setTimeout(120_000);

let calibrated: TestService;
let uncalibrated: TestService;

beforeAll(async () => {
  [calibrated, uncalibrated] = await Promise.all([
    startTestService({ env: { KNOWLEDGE_SEED_DIR: KNOWLEDGE, ESCALATION_CALIBRATION: 'on' } }),
    startTestService({ env: { KNOWLEDGE_SEED_DIR: KNOWLEDGE, ESCALATION_CALIBRATION: 'off' } }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([calibrated?.close(), uncalibrated?.close()]);
});

/** /health's escalation_threshold, once the calibration started with the service has finished. */
async function measuredThreshold(service: TestService) {
  for (;;) {
    const health = (await service.request('GET', '/health')).body;
    if (health.escalation_threshold.source !== 'default') return health.escalation_threshold;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the escalation threshold is calibrated for the knowledge base and embedder', () => {
  it('reports the measured threshold in /health, above the embedder default here, with how it was measured', async () => {
    const threshold = await measuredThreshold(calibrated);
    expect(threshold).toMatchObject({ threshold: 0.2, source: 'calibrated', calibration: { questions: expect.any(Number) } });
    // Titles and headings: 3 articles, 3 sections each.
    expect(threshold.calibration.questions).toBeGreaterThanOrEqual(8);
    expect(threshold.similarity_threshold).toBeGreaterThan(0.25);
    expect(threshold.calibration.answered_below).toBeLessThanOrEqual(Math.floor(0.05 * threshold.calibration.questions) + 1);
    expect((await uncalibrated.request('GET', '/health')).body.escalation_threshold).toEqual({ threshold: 0.2, source: 'default' });
  });

  it('escalates a question about a topic the help center lacks, which the default threshold answered', async () => {
    await measuredThreshold(calibrated);
    const before = await uncalibrated.postChat({ message: UNRELATED });
    expect(before.body.escalated).toBe(false);
    const after = await calibrated.postChat({ message: UNRELATED });
    expect(after.status).toBe(200);
    expect(after.body.escalated).toBe(true);
    // On the threshold's scale: below the 0.2 it is compared with.
    expect(after.body.confidence).toBeLessThan(0.2);
  });

  it('still answers a question the help center covers', async () => {
    await measuredThreshold(calibrated);
    const { body } = await calibrated.postChat({ message: COVERED });
    expect(body.escalated).toBe(false);
    expect(body.response).toContain('59 EUR');
  });

  it('ESCALATION_CONFIDENCE_THRESHOLD overrides it: nothing is measured', async () => {
    const configured = await startTestService({ env: { KNOWLEDGE_SEED_DIR: KNOWLEDGE, ESCALATION_CALIBRATION: 'on', ESCALATION_CONFIDENCE_THRESHOLD: '0.2' } });
    try {
      expect((await configured.request('GET', '/health')).body.escalation_threshold).toEqual({ threshold: 0.2, source: 'configured' });
      expect((await configured.postChat({ message: UNRELATED })).body.escalated).toBe(false);
    } finally {
      await configured.close();
    }
  });
});
