import { parentPort } from 'node:worker_threads';
import { getResolvedPDFJS } from 'unpdf';
import { convertDocumentHere, type ConvertOptions, type DocumentFormat } from './convert';
import { parseRobots, type ParsedRobots } from './robots';
import { parseSitemap, sitemapText } from './sitemap';

/**
 * The worker thread of off-thread.ts: converts documents, parses sitemaps and matches robots.txt rules, so a
 * hostile file costs this thread, not the service's event loop. Answers each job by its id.
 */

type Job =
  | { id: number; task: 'convert'; input: { bytes: Uint8Array; format: DocumentFormat; options: ConvertOptions } }
  | { id: number; task: 'sitemap'; input: { bytes: Uint8Array; url: string; maxBytes: number; maxEntries: number } }
  | { id: number; task: 'robots'; input: { key: string; url: string; text: string; userAgent: string; check: string[] } };

/** Parsed robots.txt by the key its caller gave (one per crawl run); the last few are kept. */
const robotsByKey = new Map<string, ParsedRobots>();
const MAX_ROBOTS_KEPT = 8;

async function perform(job: Job): Promise<unknown> {
  switch (job.task) {
    case 'convert':
      return convertDocumentHere(job.input.bytes, job.input.format, job.input.options);
    case 'sitemap': {
      const { bytes, url, maxBytes, maxEntries } = job.input;
      return parseSitemap(sitemapText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), url, maxBytes), url, maxEntries);
    }
    case 'robots': {
      const { key, url, text, userAgent, check } = job.input;
      let robots = robotsByKey.get(key);
      if (!robots) {
        robots = parseRobots(url, text, userAgent);
        robotsByKey.set(key, robots);
        if (robotsByKey.size > MAX_ROBOTS_KEPT) robotsByKey.delete(robotsByKey.keys().next().value!);
      }
      return { crawlDelaySeconds: robots.crawlDelaySeconds, droppedRules: robots.droppedRules, allowed: check.map((u) => robots.isAllowed(u)) };
    }
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
Promise.all([import('linkedom'), getResolvedPDFJS()]).finally(() => parentPort!.postMessage({ ready: true }));
