import { parentPort, workerData } from 'node:worker_threads';
import type { ConvertOptions, DocumentFormat } from './convert';
import type { ParsedRobots } from './robots';

// Each task's modules load when it first runs: the robots and sitemap workers never load the
// converters (mammoth, pdf.js, linkedom), which take seconds to load.
/* eslint-disable @typescript-eslint/no-require-imports */
const converters = () => require('./convert') as typeof import('./convert');
const robotsRules = () => require('./robots') as typeof import('./robots');
const sitemaps = () => require('./sitemap') as typeof import('./sitemap');
const sentenceEncoder = () => require('../sentence-encoder') as typeof import('../sentence-encoder');

/**
 * The worker thread of off-thread.ts: converts documents, parses sitemaps, matches robots.txt rules and
 * encodes documents' chunks with the offline sentence encoder, so a hostile file (or a long one) costs
 * this thread, not the service's event loop. Answers each job by its id.
 */

type Job =
  | { id: number; task: 'convert'; input: { bytes: Uint8Array; format: DocumentFormat; options: ConvertOptions } }
  | { id: number; task: 'sitemap'; input: { bytes: Uint8Array; url: string; maxBytes: number; maxEntries: number } }
  | { id: number; task: 'robots'; input: { key: string; url: string; text: string; userAgent: string; check: string[] } }
  | { id: number; task: 'encode'; input: { texts: string[] } };

/** Parsed robots.txt by the key its caller gave (one per crawl run); the last few are kept. */
const robotsByKey = new Map<string, ParsedRobots>();
const MAX_ROBOTS_KEPT = 8;

async function perform(job: Job): Promise<unknown> {
  switch (job.task) {
    case 'convert':
      return converters().convertDocumentHere(job.input.bytes, job.input.format, job.input.options);
    case 'sitemap': {
      const { bytes, url, maxBytes, maxEntries } = job.input;
      const { parseSitemap, sitemapText } = sitemaps();
      return parseSitemap(sitemapText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), url, maxBytes), url, maxEntries);
    }
    case 'robots': {
      const { key, url, text, userAgent, check } = job.input;
      let robots = robotsByKey.get(key);
      if (!robots) {
        robots = robotsRules().parseRobots(url, text, userAgent);
        robotsByKey.set(key, robots);
        if (robotsByKey.size > MAX_ROBOTS_KEPT) robotsByKey.delete(robotsByKey.keys().next().value!);
      }
      return { crawlDelaySeconds: robots.crawlDelaySeconds, droppedRules: robots.droppedRules, allowed: check.map((u) => robots.isAllowed(u)) };
    }
    case 'encode':
      return sentenceEncoder().encodeSentences(job.input.texts);
    default:
      throw new Error(`unknown task ${(job as { task: string }).task}`);
  }
}

parentPort!.on('message', (job: Job) => {
  perform(job).then(
    (value) => parentPort!.postMessage({ id: job.id, ok: true, value }),
    (error: Error) => {
      // The error's own fields (a DocumentSkipped's reason) cross with it.
      const fields = Object.fromEntries(Object.entries(error ?? {}).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)));
      parentPort!.postMessage({ id: job.id, ok: false, failure: { name: error?.name ?? 'Error', message: error?.message ?? String(error), fields } });
    },
  );
});

// The converters' lazily loaded modules (linkedom, pdf.js) are loaded now, then the runner is
// told: from there on it counts each job's time and memory, not the worker's start-up.
const preload = (workerData as { preload?: boolean }).preload
  ? Promise.all([Promise.resolve(converters()), import('linkedom'), import('unpdf').then((m) => m.getResolvedPDFJS())])
  : Promise.resolve();
preload.finally(() => parentPort!.postMessage({ ready: true }));
