/**
 * The one background timer the knowledge sync and the retention sweep share: runs on
 * its interval, one run at a time, errors reported and never thrown, stop() final.
 */
import { PeriodicTask } from '../../src/background/periodic-task';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a run asked for while one goes on joins it instead of starting a second', async () => {
  let runs = 0;
  let finish!: () => void;
  const task = new PeriodicTask(
    () => {
      runs += 1;
      return new Promise<number>((resolve) => (finish = () => resolve(runs)));
    },
    60_000,
    () => {},
  );
  const first = task.runNow();
  const second = task.runNow();
  expect(second).toBe(first);
  finish();
  expect(await Promise.all([first, second])).toEqual([1, 1]);
  // Once it ended, the next ask is a new run.
  const third = task.runNow();
  finish();
  expect(await third).toBe(2);
});

test('runs shortly after start and then every interval', async () => {
  const at: number[] = [];
  const started = Date.now();
  const task = new PeriodicTask(async () => at.push(Date.now() - started), 150, () => {});
  task.start(10);
  await wait(600);
  await task.stop();
  expect(at.length).toBeGreaterThanOrEqual(3);
  expect(at[0]!).toBeLessThan(140);
});

test('a run that throws is reported and resolves null; the next one runs', async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const task = new PeriodicTask(
    async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
      return 'ok';
    },
    60_000,
    (error) => errors.push(error),
  );
  expect(await task.runNow()).toBeNull();
  expect(errors).toEqual([expect.objectContaining({ message: 'database down' })]);
  expect(await task.runNow()).toBe('ok');
});

test('stop() aborts the run in progress, waits for it, and nothing runs after it', async () => {
  let sawAbort = false;
  const task = new PeriodicTask(
    (signal) =>
      new Promise<string>((resolve) =>
        signal.addEventListener('abort', () => {
          sawAbort = true;
          resolve('stopped');
        }),
      ),
    60_000,
    () => {},
  );
  const running = task.runNow();
  await task.stop();
  expect(sawAbort).toBe(true);
  expect(await running).toBe('stopped');
  expect(await task.runNow()).toBeNull();
  task.start(0);
  await wait(50);
  expect(await task.runNow()).toBeNull();
});
