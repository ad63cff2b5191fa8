import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Work on hostile content (a crawled page, an uploaded PDF, a site's robots.txt) done in a
 * worker thread, so a file that is slow or heavy to read stalls that thread, never the
 * service's event loop, and a file past a limit ends the worker, not the process. Jobs run
 * one at a time per runner; a job past its time budget or memory limit terminates the
 * worker (the next job starts a fresh one) and is refused with an OffThreadLimitError.
 */

/** Why a job was stopped: it ran past its time budget, or its memory grew past the limit. */
export class OffThreadLimitError extends Error {
  constructor(
    readonly limit: 'time' | 'memory',
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error thrown inside the worker, carried back by name, message and the fields it had. */
export interface WorkerFailure {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

export class WorkerJobError extends Error {
  constructor(readonly failure: WorkerFailure) {
    super(failure.message);
    this.name = failure.name;
  }
}

export interface OffThreadLimits {
  /** The worker's V8 heap (old generation), in MB: past it V8 stops the worker. */
  maxHeapMb: number;
  /**
   * How much the process's resident memory may grow while one job runs, in MB. Buffers
   * (an inflated stream) live outside the V8 heap, so the heap limit alone misses them;
   * the resident set is sampled every 20 ms and the worker terminated past this.
   */
  maxGrowthMb: number;
  /** Load the converters before the first job (the conversion worker); others load what their task needs. */
  preload?: boolean;
}

interface Job {
  id: number;
  task: string;
  input: unknown;
  timeoutMs: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** The worker's script: compiled JavaScript next to this file, else the TypeScript source run through tsx (tests, scripts). */
function workerEntry(): string {
  const compiled = path.join(__dirname, 'document-worker.js');
  return fs.existsSync(compiled) ? compiled : path.join(__dirname, 'document-worker.ts');
}

/**
 * tsx's CommonJS hook, resolved here: an eval'd worker resolves a bare name from the process's
 * working directory, which need not hold node_modules (a service started elsewhere failed with
 * "Cannot find module 'tsx/cjs'").
 */
function tsxHook(entry: string): string | null {
  return entry.endsWith('.ts') ? require.resolve('tsx/cjs') : null;
}

/** Loads the worker's script; TypeScript through tsx's CommonJS hook, registered in that thread only. */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.tsxHook) require(workerData.tsxHook);
require(workerData.entry);
`;

const MEMORY_SAMPLE_MS = 20;

/** One worker thread and its queue of jobs. */
export class OffThreadRunner {
  private worker: Worker | null = null;
  /** The worker has loaded its modules: a job's time and memory are counted from then on, not its start-up. */
  private ready = false;
  private readonly queue: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout | undefined; sampler: NodeJS.Timeout | undefined } | null = null;
  private nextId = 1;

  constructor(
    private readonly name: string,
    private readonly limits: OffThreadLimits,
  ) {}

  /** Runs `task` with `input` in the worker; rejects with OffThreadLimitError past a limit, WorkerJobError for the task's own error. */
  run<T>(task: string, input: unknown, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, input, timeoutMs, resolve: resolve as (value: unknown) => void, reject });
      this.startNext();
    });
  }

  /** Ends the worker (the next job starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      name: this.name,
      workerData: { entry: workerEntry(), tsxHook: tsxHook(workerEntry()), preload: this.limits.preload === true },
      // Not the parent's flags: a parent run with tsx's ESM loader (`--import`) left the process
      // unable to exit once the worker had started. The bootstrap registers what it needs.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxHeapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    // An idle worker must not keep a CLI or a test process alive.
    worker.unref();
    worker.on('message', (message: { ready?: true; id: number; ok: boolean; value?: unknown; failure?: WorkerFailure }) => {
      if (message.ready) {
        this.ready = true;
        if (this.current) this.watch(worker, this.current.job);
        return;
      }
      const current = this.current;
      if (!current || current.job.id !== message.id) return;
      this.finish();
      if (message.ok) current.job.resolve(message.value);
      else current.job.reject(new WorkerJobError(message.failure!));
    });
    worker.on('error', (error: Error & { code?: string }) => this.lost(worker, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : null, error));
    worker.on('exit', (code) => this.lost(worker, null, new Error(`the ${this.name} worker exited (code ${code})`)));
    this.worker = worker;
    this.ready = false;
    return worker;
  }

  private startNext(): void {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    let worker: Worker;
    try {
      worker = this.ensureWorker();
    } catch (error) {
      job.reject(error as Error);
      return this.startNext();
    }
    this.current = { job, timer: undefined, sampler: undefined };
    if (this.ready) this.watch(worker, job);
    worker.ref(); // a job in flight keeps the process alive until it ends
    worker.postMessage({ id: job.id, task: job.task, input: job.input });
  }

  /** Starts the job's clock and its memory watch. */
  private watch(worker: Worker, job: Job): void {
    const baseline = process.memoryUsage.rss();
    const timer = setTimeout(() => this.stop(worker, new OffThreadLimitError('time', `it took longer than ${job.timeoutMs} ms`)), job.timeoutMs);
    const sampler = setInterval(() => {
      const grownMb = (process.memoryUsage.rss() - baseline) / 1024 / 1024;
      if (grownMb > this.limits.maxGrowthMb) this.stop(worker, new OffThreadLimitError('memory', `it needed more than ${this.limits.maxGrowthMb} MB of memory`));
    }, MEMORY_SAMPLE_MS);
    this.current = { job, timer, sampler };
  }

  private finish(): void {
    if (!this.current) return;
    clearTimeout(this.current.timer);
    clearInterval(this.current.sampler);
    this.current = null;
    this.worker?.unref();
    setImmediate(() => this.startNext());
  }

  /** Ends the worker for the job in flight, which is refused with `error`. */
  private stop(worker: Worker, error: OffThreadLimitError): void {
    const current = this.current;
    if (!current || this.worker !== worker) return;
    this.worker = null;
    this.finish();
    current.job.reject(error);
    void worker.terminate();
  }

  /** The worker died by itself (V8's heap limit, a crash): the job in flight is refused, the next starts a new worker. */
  private lost(worker: Worker, limit: 'memory' | null, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const current = this.current;
    if (!current) return;
    this.finish();
    current.job.reject(limit ? new OffThreadLimitError('memory', `it needed more than the ${this.limits.maxHeapMb} MB heap allowed`) : error);
  }
}
