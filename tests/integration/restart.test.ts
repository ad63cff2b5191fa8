import { makeTempDir, startTestService } from '../support/test-service';

describe('the embedded default keeps conversations across a restart', () => {
  it('returns every turn after a restart, and the window continues from the stored history', async () => {
    const dataDir = await makeTempDir();
    const first = await startTestService({ dataDir });
    let token: string | undefined;
    try {
      for (const message of ['How do I return an item?', 'Is the return label free in the UK?']) {
        expect((await first.postChat({ message, session_id: 'restart-1' })).status).toBe(200);
      }
      token = first.sessionToken('restart-1');
    } finally {
      await first.close();
    }

    const second = await startTestService({ dataDir });
    try {
      const history = await second.getHistory('restart-1');
      expect(history.status).toBe(200);
      expect(history.body.messages.map((m: { seq: number; role: string }) => `${m.seq}:${m.role}`)).toEqual([
        '1:user',
        '2:assistant',
        '3:user',
        '4:assistant',
      ]);
      expect(history.body.messages[2].content).toBe('Is the return label free in the UK?');

      // The customer's browser kept the session token across the restart.
      const next = await second.postChat({ message: 'And how long is the label valid?', session_id: 'restart-1' }, { 'x-session-token': token! });
      expect(next.status).toBe(200);
      expect(next.body.history.messages).toBe(4);
      // The sample help center was ingested once, on the first start only.
      const [row] = await second.db.query<{ n: number }>('select count(distinct source)::int as n from documents');
      expect(row!.n).toBe(10);
    } finally {
      await second.close();
    }
  });
});
