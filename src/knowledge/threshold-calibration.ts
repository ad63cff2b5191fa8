import type { Logger } from '../observability/logger';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { RetrievedDocument } from '../store/types';
import type { Retriever } from './retriever';

/**
 * The escalation threshold measured for this knowledge base and this embedder. Similarities
 * differ in scale from one embedding model to another, and with how alike a shop's articles
 * are, so one constant cannot fit every shop. The questions the knowledge base itself poses (each
 * article's title and headings) are asked twice: with their article (the best similarity its own
 * article gives: a question the help center answers) and without it (the best any other article
 * gives: a question about a topic it lacks). The threshold goes where the two distributions part.
 *
 * It is computed, not stored: the same knowledge base and embedder give the same figure on every
 * instance, at start and after each change of the knowledge base.
 */

/** At most this many questions are asked (the first sections of each article, articles in name order): a few seconds offline. */
export const CALIBRATION_MAX_QUESTIONS = 120;
/** Too few questions say nothing about a distribution: below this, the configured default stands. */
export const CALIBRATION_MIN_QUESTIONS = 8;
/**
 * The share of own-article questions the threshold may leave below it. Headings are easier than
 * customers' questions (they share the article's words), so the bar is set where almost all of
 * them clear it.
 */
export const CALIBRATION_ANSWERED_BELOW_SHARE = 0.05;

export interface CalibrationSample {
  question: string;
  source: string;
  /** The confidence the question gets with its article in the knowledge base. */
  withArticle: number;
  /** The confidence it gets from the other articles alone. */
  withoutArticle: number;
}

export interface ThresholdCalibration {
  /** The threshold on the confidence's own scale (the embedder's similarity). */
  threshold: number;
  questions: number;
  /** Of those, how many fall below the threshold with their article, and without it. */
  answeredBelow: number;
  unansweredBelow: number;
  calibratedAt: string;
}

/** The questions a knowledge base poses: each article's title, then its section headings, deduplicated. */
export function calibrationQuestions(articles: { source: string; title: string; content: string }[], max = CALIBRATION_MAX_QUESTIONS): { question: string; source: string }[] {
  const perArticle = articles.map((a) => {
    const headings = [...a.content.matchAll(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/gmu)].map((m) => m[1]!.replaceAll('**', '').trim());
    return [...new Set([a.title.trim(), ...headings])].filter((q) => q.length > 2).map((question) => ({ question, source: a.source }));
  });
  // Round robin over the articles, so a cap keeps every article's title before anyone's later sections.
  const questions: { question: string; source: string }[] = [];
  for (let i = 0; questions.length < max && perArticle.some((qs) => i < qs.length); i++) {
    for (const qs of perArticle) if (i < qs.length && questions.length < max) questions.push(qs[i]!);
  }
  return questions;
}

/**
 * The threshold: the highest at which at most CALIBRATION_ANSWERED_BELOW_SHARE of the
 * own-article questions fall below it (those that found their article at all). Null when
 * there are too few questions. How many questions without their article fall below it is
 * reported beside it: where that is few, the embedder barely separates the two.
 */
export function chooseThreshold(measured: CalibrationSample[]): ThresholdCalibration | null {
  // A heading that does not find its own article ("How it works") is no question about it.
  const samples = measured.filter((s) => s.withArticle > 0);
  if (samples.length < CALIBRATION_MIN_QUESTIONS) return null;
  const withArticle = samples.map((s) => s.withArticle).sort((a, b) => a - b);
  const allowedBelow = Math.floor(CALIBRATION_ANSWERED_BELOW_SHARE * samples.length);
  const threshold = round(withArticle[allowedBelow]!);
  return {
    threshold,
    questions: samples.length,
    answeredBelow: samples.filter((s) => s.withArticle < threshold).length,
    unansweredBelow: samples.filter((s) => s.withoutArticle < threshold).length,
    calibratedAt: new Date().toISOString(),
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Asks each question of the retriever, and scores it with and without its own article. */
export async function measureCalibration(
  questions: { question: string; source: string }[],
  retriever: Retriever,
  confidenceOf: (documents: RetrievedDocument[]) => number,
): Promise<CalibrationSample[]> {
  const samples: CalibrationSample[] = [];
  for (const q of questions) {
    const documents = await retriever.retrieve(q.question);
    samples.push({
      question: q.question,
      source: q.source,
      withArticle: confidenceOf(documents.filter((d) => d.source === q.source)),
      withoutArticle: confidenceOf(documents.filter((d) => d.source !== q.source)),
    });
  }
  return samples;
}

/** The knowledge base's articles, as calibration reads them (title and the text of their chunks). */
export async function calibrationArticles(admin: Pick<KnowledgeAdminStore, 'listSources' | 'sourceChunks'>): Promise<{ source: string; title: string; content: string }[]> {
  const articles: { source: string; title: string; content: string }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await admin.listSources({ after, limit: 200 });
    for (const s of page.sources) {
      const chunks = await admin.sourceChunks(s.source);
      articles.push({ source: s.source, title: s.title, content: chunks.map((c) => c.content).join('\n') });
    }
    if (!page.nextAfter || articles.length >= CALIBRATION_MAX_QUESTIONS) return articles;
    after = page.nextAfter;
  }
}

/** What /health and `npm run shop -- check` report of the threshold. */
export interface EscalationThresholdStatus {
  /** The threshold confidence is compared with, on its reported scale. */
  threshold: number;
  /** `configured`: ESCALATION_CONFIDENCE_THRESHOLD; `calibrated`: measured here; `default`: not (yet) measured, or too few questions. */
  source: 'configured' | 'calibrated' | 'default';
  /** The measured threshold on the embedder's own similarity scale, and how it was measured. */
  calibration: ThresholdCalibration | null;
}

/**
 * The calibration in effect. Confidence by meaning is put on the threshold's scale (as word
 * coverage already is, retrievalConfidence): a similarity at the measured threshold reports the
 * configured one, so every reader of confidence (the escalation, the unanswered questions)
 * compares with one figure, and the API's confidence keeps one meaning.
 */
export class EscalationCalibration {
  private current: ThresholdCalibration | null = null;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly parts: {
      admin: Pick<KnowledgeAdminStore, 'listSources' | 'sourceChunks'>;
      retriever: Retriever;
      /** The confidence of retrieved documents before any calibration (retrievalConfidence). */
      confidenceOf: (documents: RetrievedDocument[]) => number;
      logger: Logger;
    },
    private readonly options: { threshold: number; enabled: boolean; configured: boolean },
  ) {}

  /** What a similarity is multiplied by to be on the threshold's scale (1 until calibrated). */
  meaningScale(): number {
    return this.current && this.current.threshold > 0 ? this.options.threshold / this.current.threshold : 1;
  }

  status(): EscalationThresholdStatus {
    if (!this.options.enabled) return { threshold: this.options.threshold, source: this.options.configured ? 'configured' : 'default', calibration: null };
    return { threshold: this.options.threshold, source: this.current ? 'calibrated' : 'default', calibration: this.current };
  }

  /** Measures the threshold on the knowledge base as it is now (at start, and after it changed). */
  async recalibrate(): Promise<ThresholdCalibration | null> {
    if (!this.options.enabled) return null;
    const questions = calibrationQuestions(await calibrationArticles(this.parts.admin));
    this.current = chooseThreshold(await measureCalibration(questions, this.parts.retriever, this.parts.confidenceOf));
    return this.current;
  }

  /** recalibrate without waiting: one run at a time, and one more after it when asked meanwhile (a sync finished). */
  recalibrateInBackground(): void {
    if (!this.options.enabled) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.recalibrate()
      .then((measured) => {
        if (measured) this.parts.logger.info({ escalation_calibration: measured }, 'Escalation threshold calibrated for the knowledge base');
      })
      .catch((error: unknown) => this.parts.logger.warn({ err: error }, 'Escalation threshold calibration failed: the default threshold stands'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.recalibrateInBackground();
        }
      });
  }

  /** Resolves when no calibration is running (tests, and the check command, wait for it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
