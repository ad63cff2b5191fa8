/**
 * Offline quotes (not a test): does the offline responder's FIRST quoted sentence hold
 * the gold answer? Replays the sets through the real service on the embedded default
 * (no key) and prints, per set, the share of answerable questions whose first quoted
 * sentence contains the gold answer's words, and the share of questions escalated.
 *
 *   npm run eval:offline-quotes                              the help center, and ../shared/eval/xquad-* when --xquad-answers is given
 *   npm run eval:offline-quotes -- --xquad-answers <dir>     dir holds XQuAD's own xquad.<lang>.json (google-deepmind/xquad,
 *                                                            CC BY-SA 4.0): the sets carry no answer texts, XQuAD does
 *   npm run eval:offline-quotes -- --only help-center|xquad-de …   one set
 *   npm run eval:offline-quotes -- --eval-dir <dir>          the shared sets' folder (default ../shared/eval)
 *
 * Gold answers: eval/help-center-dialogues.jsonl's `fact` of each turn; XQuAD's answer
 * texts for each question (any of them). Comparison after NFKC, lower case, digits of
 * every script folded and whitespace runs as one space. The MTRAG sets carry passage
 * ids, not answer texts, so they are not measured here.
 *
 * Progress goes to stderr; the table to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { firstQuoteHolds, loadDialogues, loadMtragDialogues, runDialogues, startEvaluatedService, type Dialogue, type TurnResult } from './lib/answer-eval';

const REPO = path.resolve(__dirname, '..');
const argValue = (name: string) => process.argv.flatMap((arg, i) => (arg === name && process.argv[i + 1] ? [process.argv[i + 1]!] : []))[0];
const SHARED_EVAL_DIR = path.resolve(argValue('--eval-dir') ?? path.join(REPO, '../shared/eval'));
const xquadAnswersDir = argValue('--xquad-answers');
const only = argValue('--only');

function progress(message: string): void {
  process.stderr.write(`[eval:offline-quotes] ${message}\n`);
}

interface SetToRun {
  name: string;
  knowledgeDir: string;
  dialogues: Dialogue[];
  /** The gold answers of a turn (empty: not scored for quotes). */
  gold: (result: TurnResult) => string[];
}

/** XQuAD's answers by question text, for one language. */
function xquadAnswers(language: string): Map<string, string[]> {
  const file = path.join(xquadAnswersDir!, `xquad.${language}.json`);
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    data: { paragraphs: { qas: { question: string; answers: { text: string }[] }[] }[] }[];
  };
  const answers = new Map<string, string[]>();
  for (const article of data.data) {
    for (const paragraph of article.paragraphs) {
      for (const qa of paragraph.qas) answers.set(qa.question.trim(), qa.answers.map((a) => a.text));
    }
  }
  return answers;
}

function setsToRun(): SetToRun[] {
  const sets: SetToRun[] = [
    {
      name: 'help-center',
      knowledgeDir: path.join(REPO, 'knowledge/help-center'),
      dialogues: loadDialogues(path.join(REPO, 'eval/help-center-dialogues.jsonl')),
      // Order turns are answered from the order lookup, not quoted.
      gold: (r) => (r.turn.fact && r.turn.type !== 'order' ? [r.turn.fact] : []),
    },
  ];
  if (xquadAnswersDir && fs.existsSync(SHARED_EVAL_DIR)) {
    for (const name of fs.readdirSync(SHARED_EVAL_DIR).filter((n) => n.startsWith('xquad-')).sort()) {
      const dir = path.join(SHARED_EVAL_DIR, name);
      const answers = xquadAnswers(name.slice('xquad-'.length));
      const unanswerable = fs
        .readFileSync(path.join(dir, 'unanswerable.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { id: string; user: string })
        .map((u) => ({ id: `unanswerable-${u.id}`, turns: [{ user: u.user, type: 'off_topic' as const, article: null }] }));
      sets.push({
        name,
        knowledgeDir: path.join(dir, 'docs'),
        dialogues: [...loadMtragDialogues(dir), ...unanswerable],
        gold: (r) => (r.turn.article ? (answers.get(r.turn.user.trim()) ?? []) : []),
      });
    }
  }
  return only ? sets.filter((s) => s.name === only) : sets;
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);

async function main(): Promise<void> {
  const rows = ['| set | answerable | first quote holds the answer | answerable escalated | unanswerable | unanswerable escalated |', '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const set of setsToRun()) {
    progress(`${set.name}: ingesting ${set.knowledgeDir}`);
    const env = { ...process.env };
    delete env['OPENAI_API_KEY'];
    const service = await startEvaluatedService(set.knowledgeDir, env);
    let results: TurnResult[];
    try {
      results = await runDialogues(service.deps, set.dialogues, (done, total) => {
        if (done % 25 === 0 || done === total) progress(`  ${set.name} ${done}/${total}`);
      });
    } finally {
      await service.close();
    }
    const scored = results.filter((r) => set.gold(r).length > 0);
    const held = scored.filter((r) => firstQuoteHolds(r.response, set.gold(r)));
    const answerable = results.filter((r) => r.turn.article);
    const unanswerable = results.filter((r) => !r.turn.article);
    rows.push(
      `| ${set.name} | ${scored.length} | ${pct(held.length, scored.length)} (${held.length}) | ${pct(answerable.filter((r) => r.escalated).length, answerable.length)} | ${unanswerable.length} | ${pct(unanswerable.filter((r) => r.escalated).length, unanswerable.length)} |`,
    );
    progress(rows.at(-1)!);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
