import robotsParser from 'robots-parser';

/**
 * robots.txt as the crawler reads it, bounded: a hostile file of thousands of wildcard
 * rules made each `isAllowed()` cost most of a second. The file is capped in size, each
 * rule in wildcards, and the matching itself runs in a worker thread with a time budget
 * (see site-fetcher.ts).
 */

/** robots.txt larger than this is not used (the site is crawled as if it had none). */
export const ROBOTS_MAX_BYTES = 128 * 1024;
/** A rule with more `*` than this (after runs of `*` are merged) is dropped: no real site needs them, and each one multiplies matching's cost. */
export const ROBOTS_MAX_WILDCARDS_PER_RULE = 8;

/** The rules of one robots.txt for one user agent. */
export interface ParsedRobots {
  isAllowed(url: string): boolean;
  /** Crawl-delay in seconds, or 0. */
  crawlDelaySeconds: number;
  /** Rules dropped for having too many wildcards. */
  droppedRules: number;
}

/**
 * The text with runs of `*` in Allow and Disallow rules merged (`**` means `*`) and rules
 * left with more than maxWildcards `*` removed; how many were removed.
 */
export function boundRobotsText(text: string, maxWildcards = ROBOTS_MAX_WILDCARDS_PER_RULE): { text: string; dropped: number } {
  let dropped = 0;
  const lines = text.split(/\r\n|\r|\n/).flatMap((line) => {
    if (!/^\s*(dis)?allow\s*:/i.test(line)) return [line];
    const merged = line.replace(/\*{2,}/g, '*');
    if ((merged.match(/\*/g)?.length ?? 0) > maxWildcards) {
      dropped += 1;
      return [];
    }
    return [merged];
  });
  return { text: lines.join('\n'), dropped };
}

/** Parses robots.txt (bounded by boundRobotsText) for `userAgent`. */
export function parseRobots(url: string, text: string, userAgent: string): ParsedRobots {
  const bounded = boundRobotsText(text);
  const robots = robotsParser(url, bounded.text);
  const delay = Number(robots.getCrawlDelay(userAgent) ?? 0);
  return {
    // robots-parser answers undefined for another origin: the crawler never goes there anyway.
    isAllowed: (u) => robots.isAllowed(u, userAgent) !== false,
    crawlDelaySeconds: Number.isFinite(delay) && delay > 0 ? delay : 0,
    droppedRules: bounded.dropped,
  };
}
