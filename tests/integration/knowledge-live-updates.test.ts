/**
 * The "done when": with the service running on the embedded default (PGlite
 * files, offline model), an article is uploaded, replaced again and again, deleted and
 * uploaded anew through the knowledge API while customers keep chatting. Every chat
 * must succeed, and no answer may mix two editions of the article (a half-replaced
 * article would show as passages of two editions in one answer). Afterwards the last
 * edition answers at once, and once deleted the article is never cited.
 */
import { makeTempDir, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const SOURCE = 'kb/parcel-lockers.md';
const URL_PATH = `/api/v1/knowledge/sources/${encodeURIComponent(SOURCE)}`;
const QUESTION = 'How long do parcel lockers hold a parcel, and how do I open a parcel locker?';

/** Every sentence names its edition, so each quoted passage shows which edition it came from. */
function edition(n: number): string {
  const sections = ['Holding time', 'Opening a locker', 'Locker locations', 'Oversized parcels', 'Returns through lockers'];
  return [
    `# Parcel Lockers`,
    ...sections.map((section, k) =>
      [
        `## ${section}`,
        ...Array.from({ length: 4 }, (_, line) =>
          `Edition${n} says: parcel lockers hold a parcel for ${n + k + line} days, and a parcel locker opens with the code from edition${n} of the email, section ${k}, line ${line}, which customers use to open the parcel locker.`,
        ),
      ].join('\n\n'),
    ),
  ].join('\n\n');
}

const editionsIn = (text: string) => new Set([...text.matchAll(/edition(\d+)/gi)].map((m) => m[1]));

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ dataDir: await makeTempDir('support-agent-live-kb-') });
});
afterAll(async () => {
  await service?.close();
});

async function putEdition(n: number) {
  const response = await fetch(`${service.baseURL}${URL_PATH}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_AGENT_KEY}`, 'content-type': 'text/markdown' },
    body: edition(n),
  });
  return { status: response.status, body: (await response.json()) as any };
}

test('updates while customers chat: no chat fails, no answer mixes editions, the last edition answers, a deleted article is never cited', async () => {
  const first = await putEdition(1);
  expect(first.status).toBe(201);
  expect(first.body.chunk_count).toBeGreaterThan(3);

  let writing = true;
  const writes: { action: string; status: number }[] = [];
  const answers: { status: number; body: any }[] = [];
  const writer = (async () => {
    try {
      for (let n = 2; n <= 9; n++) {
        // Paced by the chats, not the clock: every edition is live while some answers are made.
        while (answers.length < n - 1) await new Promise((resolve) => setTimeout(resolve, 10));
        if (n % 3 === 0) {
          const deleted = await service.request('DELETE', URL_PATH);
          writes.push({ action: 'delete', status: deleted.status });
        }
        const put = await putEdition(n);
        writes.push({ action: `put ${n}`, status: put.status });
      }
    } finally {
      writing = false;
    }
  })();

  const customer = async (id: number) => {
    for (let turn = 0; writing || turn < 3; turn++) {
      answers.push(await service.postChat({ message: QUESTION, session_id: `locker-customer-${id}-${turn % 2}` }));
    }
  };
  await Promise.all([writer, customer(1), customer(2), customer(3), customer(4)]);

  expect(writes.filter((w) => w.action === 'delete').map((w) => w.status)).toEqual([200, 200, 200]);
  expect(writes.filter((w) => w.action.startsWith('put')).every((w) => w.status === 200 || w.status === 201)).toBe(true);
  expect(answers.length).toBeGreaterThan(12);
  const failed = answers.filter((a) => a.status !== 200);
  expect(failed).toEqual([]);
  const citing = answers.filter((a) => a.body.sources.some((s: any) => s.source === SOURCE));
  // Most answers came while the article was there; none of them mixes two editions.
  expect(citing.length).toBeGreaterThan(answers.length / 2);
  const quotedEditions = citing.map((a) => [...editionsIn(a.body.response)]);
  expect(quotedEditions.filter((e) => e.length !== 1)).toEqual([]);
  expect(new Set(quotedEditions.flat()).size).toBeGreaterThan(1);

  // The last edition answers straight away, and nothing of the others.
  const latest = await service.postChat({ message: QUESTION });
  expect([...editionsIn(latest.body.response)]).toEqual(['9']);

  const deleted = await service.request('DELETE', URL_PATH);
  expect(deleted.status).toBe(200);
  for (let i = 0; i < 3; i++) {
    const after = await service.postChat({ message: QUESTION });
    expect(after.status).toBe(200);
    expect(after.body.sources.map((s: any) => s.source)).not.toContain(SOURCE);
    expect(editionsIn(after.body.response).size).toBe(0);
  }
}, 120_000);
