/**
 * The answer-quality evaluation, shared by `npm run eval:answers` and the test that
 * asserts its levels: replays labelled dialogues through the real ChatService (one
 * session per dialogue, every turn a request, so history, retrieval, escalation and
 * the responder are the service's own) and scores each turn's cited sources
 * against the labelled article.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createDependencies, type Dependencies } from '../../src/dependencies';
import type { RetrievalRecord } from '../../src/knowledge/retrieval-record';
import { foldDecimalDigits } from '../../src/knowledge/language/digits';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPgliteDatabase } from '../../src/store/pglite';
import type { ExpectedAct } from './acts-set';

/**
 * What a turn tests; scored and reported per type. `off_topic`: the help center does not
 * answer it (it should be escalated); `small_talk`: greetings, thanks, "ok" (never escalated,
 * nothing quoted); `ask_person`: the customer asks for a person (escalated as `customer_asked`).
 */
export type TurnType = 'first' | 'follow_up' | 'new_topic' | 'paraphrase' | 'order' | 'off_topic' | 'small_talk' | 'ask_person';
export const TURN_TYPES: readonly TurnType[] = ['first', 'follow_up', 'new_topic', 'paraphrase', 'order', 'off_topic', 'small_talk', 'ask_person'];

/** One labelled customer turn. */
export interface LabelledTurn {
  user: string;
  type: TurnType;
  /** File name of the article that answers it (any of `articles` when there are several); null for off-topic. */
  article: string | null;
  articles?: string[];
  /** A phrase of the article the answer should state. */
  fact?: string;
  /** The tool a model should call (order questions). */
  tool?: string;
  /** Sent for the history but not scored for retrieval (mtrag's unjudged turns). */
  unscored?: boolean;
  /**
   * The set's answerability label (mtrag: ANSWERABLE, PARTIAL, UNANSWERABLE, CONVERSATIONAL;
   * a set's unanswerable.jsonl: UNANSWERABLE). Escalation is reported per label, unscored turns included.
   */
  answerability?: string;
}

export interface Dialogue {
  id: string;
  turns: LabelledTurn[];
}

export interface TurnResult {
  dialogue: string;
  index: number;
  turn: LabelledTurn;
  /** Cited documents' file names, in the order the answer cites them. */
  cited: string[];
  /** 1-based rank of the first labelled article among the cited documents; null when absent. */
  rank: number | null;
  escalated: boolean;
  /** The answer's `escalation_reason` where the service gives one (null otherwise). */
  escalationReason: string | null;
  confidence: number;
  /** The answer states the labelled fact (case-insensitive); null when the turn has none. */
  factStated: boolean | null;
  /** The answer's text. */
  response: string;
  /** What the knowledge base was searched with (stored on the answer). */
  retrievalQuery: string | null;
  /** The answer's whole metadata.retrieval: how the query was made, and why each document came. */
  retrieval: RetrievalRecord | null;
  latencyMs: number;
  /** Sent for the history only: counts for escalation by answerability, never for retrieval. */
  unscored?: boolean;
}

/** The help center dialogues of this repository, one JSON object per line. */
export function loadDialogues(file: string): Dialogue[] {
  const dialogues = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Dialogue);
  for (const d of dialogues) {
    for (const t of d.turns) {
      if (!TURN_TYPES.includes(t.type)) throw new Error(`${file}: dialogue ${d.id} has a turn of unknown type "${t.type}"`);
    }
  }
  return dialogues;
}

/**
 * A shop set: a folder with the shop's help center (docs/) and its customers' dialogues
 * (dialogues.jsonl, as eval/help-center-dialogues.jsonl). Every labelled fact must be a
 * substring of its article, or the set is refused: a typo in a label would read as a miss.
 */
export function loadShopSet(dir: string): Dialogue[] {
  const file = path.join(dir, 'dialogues.jsonl');
  const dialogues = loadDialogues(file);
  for (const d of dialogues) {
    for (const t of d.turns) {
      if (!t.article || !t.fact) continue;
      const article = path.join(dir, 'docs', t.article);
      if (!fs.existsSync(article)) throw new Error(`${file}: dialogue ${d.id} names ${t.article}, which docs/ lacks`);
      if (!fs.readFileSync(article, 'utf8').includes(t.fact)) throw new Error(`${file}: dialogue ${d.id}: "${t.fact}" is not in ${t.article}`);
    }
  }
  return dialogues;
}

/** Whether a folder is a shop set (docs/ and dialogues.jsonl). */
export function isShopSet(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'dialogues.jsonl')) && fs.existsSync(path.join(dir, 'docs'));
}

/**
 * mtrag-cloud's conversations as dialogues: judged turns typed `first` (turn 1) or
 * `follow_up` (later), unjudged turns sent unscored so the history is complete.
 */
export function loadMtragDialogues(dir: string): Dialogue[] {
  const lines = fs.readFileSync(path.join(dir, 'cases.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const c = JSON.parse(line) as {
      id: string;
      turns: { user: string; turn: number; docs: string[]; answerability?: string }[];
      skipped_turns?: { user: string; turn: number; answerability?: string }[];
    };
    const turns = [
      ...c.turns.map((t) => ({
        n: t.turn,
        turn: { user: t.user, type: t.turn === 1 ? 'first' : 'follow_up', article: t.docs[0] ?? null, articles: t.docs, answerability: t.answerability } as LabelledTurn,
      })),
      ...(c.skipped_turns ?? []).map((t) => ({
        n: t.turn,
        turn: { user: t.user, type: 'follow_up', article: null, unscored: true, answerability: t.answerability } as LabelledTurn,
      })),
    ].sort((a, b) => a.n - b.n);
    return { id: c.id, turns: turns.map((t) => t.turn) };
  });
}

/**
 * A set's unanswerable.jsonl (`{id, user}` a line: questions about articles the set's docs/
 * lack), each question a one-turn dialogue that should be escalated; none when the file is absent.
 */
export function loadUnanswerable(dir: string): Dialogue[] {
  const file = path.join(dir, 'unanswerable.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const q = JSON.parse(line) as { id: string; user: string };
      return { id: q.id, turns: [{ user: q.user, type: 'off_topic', article: null, answerability: 'UNANSWERABLE' } as LabelledTurn] };
    });
}

/** Escalated turns among those of each answerability label (scored and unscored turns alike). */
export function escalationByAnswerability(results: TurnResult[]): Map<string, { turns: number; escalated: number }> {
  const byLabel = new Map<string, { turns: number; escalated: number }>();
  for (const r of results) {
    const label = r.turn.answerability ?? (r.turn.article ? 'ANSWERABLE' : 'UNLABELLED');
    const entry = byLabel.get(label) ?? { turns: 0, escalated: 0 };
    entry.turns += 1;
    if (r.escalated) entry.escalated += 1;
    byLabel.set(label, entry);
  }
  return byLabel;
}

/** A service for the evaluation: in-memory PGlite, the given knowledge folder, offline unless the environment has a key. */
export async function startEvaluatedService(
  knowledgeDir: string,
  env: Record<string, string | undefined> = {},
): Promise<{ deps: Dependencies; db: SqlDatabase; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-answers-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, AGENT_API_KEY: 'eval', OFFLINE_STREAM_DELAY_MS: '0', ...env, KNOWLEDGE_SEED_DIR: knowledgeDir });
  const db = await openPgliteDatabase();
  const deps = await createDependencies(config, createLogger('silent'), db);
  return {
    deps,
    db,
    close: async () => {
      await deps.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Sends every dialogue's turns in order, one session per dialogue; `onDialogue` reports
 * progress. `documentOf` names the document a cited source is (default: the source's
 * file name; a crawled page's URL needs the site's own map).
 */
export async function runDialogues(
  deps: Dependencies,
  dialogues: Dialogue[],
  onDialogue: (done: number, total: number, results: TurnResult[]) => void = () => {},
  documentOf: (source: string) => string = (source) => path.basename(source),
): Promise<TurnResult[]> {
  const { chatService } = deps.appParts.chat;
  const all: TurnResult[] = [];
  for (const [n, dialogue] of dialogues.entries()) {
    let sessionId: string | undefined;
    const results: TurnResult[] = [];
    for (const [index, turn] of dialogue.turns.entries()) {
      const startedAt = performance.now();
      const { answer } = await chatService.answer({ message: turn.user, sessionId, mayContinueSession: true });
      const latencyMs = performance.now() - startedAt;
      sessionId = answer.session_id;
      // An unscored turn without a label is history only; a labelled one still counts for escalation.
      if (turn.unscored && !turn.answerability) continue;
      const cited = answer.sources.map((s) => documentOf(s.source));
      const labels = turn.articles ?? (turn.article ? [turn.article] : []);
      const at = cited.findIndex((c) => labels.includes(c));
      const [stored] = (await deps.store.listMessagesAfter(sessionId, 0)).filter((m) => m.id === answer.message_id);
      results.push({
        dialogue: dialogue.id,
        index,
        turn,
        cited,
        rank: at >= 0 ? at + 1 : null,
        escalated: answer.escalated,
        escalationReason: (answer as { escalation_reason?: string | null }).escalation_reason ?? null,
        confidence: answer.confidence,
        response: answer.response,
        factStated: turn.fact ? answer.response.toLowerCase().includes(turn.fact.toLowerCase()) : null,
        retrievalQuery: (stored?.metadata?.['retrieval'] as RetrievalRecord | undefined)?.query ?? null,
        retrieval: (stored?.metadata?.['retrieval'] as RetrievalRecord | undefined) ?? null,
        latencyMs,
        ...(turn.unscored ? { unscored: true } : {}),
      });
    }
    all.push(...results);
    onDialogue(n + 1, dialogues.length, results);
  }
  return all;
}

/** Retrieval and escalation figures for a group of turns. */
export interface TypeScores {
  turns: number;
  /** Turns with a labelled article (hit@k and MRR are over these). */
  labelled: number;
  hitAt1: number;
  hitAt3: number;
  mrr: number;
  escalated: number;
  /** Turns with a labelled fact, and those whose answer stated it. */
  withFact: number;
  factStated: number;
}

export function scoreTurns(results: TurnResult[]): TypeScores {
  const labelled = results.filter((r) => r.turn.article !== null);
  const withFact = results.filter((r) => r.factStated !== null);
  return {
    turns: results.length,
    labelled: labelled.length,
    hitAt1: labelled.filter((r) => r.rank === 1).length,
    hitAt3: labelled.filter((r) => r.rank !== null && r.rank <= 3).length,
    mrr: labelled.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0),
    escalated: results.filter((r) => r.escalated).length,
    withFact: withFact.length,
    factStated: withFact.filter((r) => r.factStated).length,
  };
}

/** Escalation as a classifier: positives are the off-topic turns, which must be escalated. */
export function escalationScores(results: TurnResult[]): { precision: number; recall: number; escalated: number; offTopic: number; truePositives: number } {
  const escalated = results.filter((r) => r.escalated);
  const offTopic = results.filter((r) => r.turn.type === 'off_topic');
  const truePositives = offTopic.filter((r) => r.escalated).length;
  return {
    precision: escalated.length === 0 ? 1 : truePositives / escalated.length,
    recall: offTopic.length === 0 ? 1 : truePositives / offTopic.length,
    escalated: escalated.length,
    offTopic: offTopic.length,
    truePositives,
  };
}

/** Text as quotes are compared: NFKC, lower case, digits of every script folded, whitespace runs as one space. */
export const normaliseForQuotes = (text: string) => foldDecimalDigits(text.normalize('NFKC').toLowerCase()).replace(/\s+/gu, ' ').trim();

/** The first sentence of the answer's first quote (a line starting with "> "), or null when it quotes nothing. */
export function firstQuotedSentence(response: string): string | null {
  const line = response.split('\n').find((l) => l.startsWith('> '));
  if (!line) return null;
  const [first] = new Intl.Segmenter(undefined, { granularity: 'sentence' }).segment(line.slice(2));
  return first?.segment.trim() ?? null;
}

/** Whether the answer's first quoted sentence holds one of the gold answers. */
export function firstQuoteHolds(response: string, gold: string[]): boolean {
  const quote = firstQuotedSentence(response);
  return quote !== null && gold.some((g) => normaliseForQuotes(quote).includes(normaliseForQuotes(g)));
}

/**
 * Whether the service answers what its help center covers and hands over what it does not,
 * counted as issue 41 asks: R@3 and the first quote on answerable turns (those with an
 * article; order turns are answered from a tool, not quoted), escalation of answerable and
 * off-topic turns, small talk escalated or quoted, and requests for a person marked `customer_asked`.
 */
export interface JudgementScores {
  answerable: number;
  hitAt3: number;
  withFact: number;
  firstQuoteHolds: number;
  answerableEscalated: number;
  unanswerable: number;
  unanswerableEscalated: number;
  smallTalk: number;
  smallTalkEscalatedOrQuoted: number;
  askPerson: number;
  askPersonMarked: number;
}

export function judgementScores(results: TurnResult[]): JudgementScores {
  const answerable = results.filter((r) => r.turn.article !== null && !r.unscored);
  const quoted = answerable.filter((r) => r.turn.fact && r.turn.type !== 'order');
  const unanswerable = results.filter((r) => r.turn.type === 'off_topic');
  const smallTalk = results.filter((r) => r.turn.type === 'small_talk');
  const askPerson = results.filter((r) => r.turn.type === 'ask_person');
  return {
    answerable: answerable.length,
    hitAt3: answerable.filter((r) => r.rank !== null && r.rank <= 3).length,
    withFact: quoted.length,
    firstQuoteHolds: quoted.filter((r) => firstQuoteHolds(r.response, [r.turn.fact!])).length,
    answerableEscalated: answerable.filter((r) => r.escalated).length,
    unanswerable: unanswerable.length,
    unanswerableEscalated: unanswerable.filter((r) => r.escalated).length,
    smallTalk: smallTalk.length,
    smallTalkEscalatedOrQuoted: smallTalk.filter((r) => r.escalated || firstQuotedSentence(r.response) !== null).length,
    askPerson: askPerson.length,
    askPersonMarked: askPerson.filter((r) => r.escalated && r.escalationReason === 'customer_asked').length,
  };
}

/** 95% Wilson score interval of a proportion, for small sets. */
export function wilsonInterval(successes: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.96;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Whether the service treated a conversation-acts line (scripts/lib/acts-set.ts) as it is:
 * small talk neither escalated nor quoted; a request for a person escalated as
 * `customer_asked`; a look-alike question searched (not `customer_asked`, and either quoted
 * or escalated as `not_in_help_center`).
 */
export function actHandled(expect: ExpectedAct, result: TurnResult): boolean {
  const quoted = firstQuotedSentence(result.response) !== null;
  if (expect === 'small_talk') return !result.escalated && !quoted;
  if (expect === 'ask_person') return result.escalated && result.escalationReason === 'customer_asked';
  return result.escalationReason !== 'customer_asked' && (quoted || result.escalationReason === 'not_in_help_center');
}
