/**
 * The conversation-acts set (eval/acts/<language>.jsonl): whole first messages of
 * customers, each labelled with what it is. Read by the unit test that runs the acts
 * classifier on every line and by `npm run eval:answers -- --acts`, which sends every
 * line through the real service.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What a message is: small talk (answered, not escalated, nothing quoted), a request for a person (escalated as customer_asked), or a question that only looks like one of them (searched). */
export type ExpectedAct = 'small_talk' | 'ask_person' | 'question';
export const EXPECTED_ACTS: readonly ExpectedAct[] = ['small_talk', 'ask_person', 'question'];

export interface ActLine {
  text: string;
  expect: ExpectedAct;
}

export interface LanguageActs {
  /** The file's name without `.jsonl`: an ISO 639-1 code. */
  language: string;
  lines: ActLine[];
}

/** Every `<language>.jsonl` of the folder, sorted by language; a line that is not `{text, expect}` refuses the set. */
export function loadActsSet(dir: string): LanguageActs[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const lines = fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line, i) => {
          const parsed = JSON.parse(line) as Partial<ActLine>;
          if (typeof parsed.text !== 'string' || parsed.text.trim() === '' || !EXPECTED_ACTS.includes(parsed.expect as ExpectedAct)) {
            throw new Error(`${file}:${i + 1}: each line must be {"text": "…", "expect": "small_talk" | "ask_person" | "question"}`);
          }
          return { text: parsed.text, expect: parsed.expect as ExpectedAct };
        });
      return { language: name.replace(/\.jsonl$/u, ''), lines };
    });
}

/** The share each language must reach on each kind, in the unit test and the target. */
export const ACTS_TARGET = 0.95;
