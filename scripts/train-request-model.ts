/**
 * npm run train:acts: trains the acts stage's second reader of requests for a person
 * (src/chat/request-model.ts) and writes src/chat/request-model.json.
 *
 * Examples: every labelled line of eval/acts/ (small talk, requests for a person, look-alike
 * questions, seventeen languages), and as questions every customer turn of the repository's
 * help-center dialogues and of the development shop (its small talk and requests as labelled).
 * Never eval/acts-held-out/ nor the held-out shop: they measure it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { messageFeatures } from '../src/chat/conversation-acts';
import { trainRequestModel, type LabelledMessage } from '../src/chat/request-model';
import { loadActsSet } from './lib/acts-set';
import { loadDialogues } from './lib/answer-eval';

const ROOT = path.resolve(__dirname, '..');
export const REQUEST_MODEL_PATH = path.join(ROOT, 'src/chat/request-model.json');
const DIALOGUES = ['eval/help-center-dialogues.jsonl', 'eval/dev-shop/en/dialogues.jsonl', 'eval/dev-shop/de/dialogues.jsonl'];

/** The labelled messages the model is trained on, in a fixed order. */
export function trainingMessages(): LabelledMessage[] {
  const acts = loadActsSet(path.join(ROOT, 'eval/acts')).flatMap(({ lines }) => lines.map((line) => ({ text: line.text, asksForPerson: line.expect === 'ask_person' })));
  const turns = DIALOGUES.flatMap((file) => loadDialogues(path.join(ROOT, file)).flatMap((dialogue) => dialogue.turns));
  return [...acts, ...turns.map((turn) => ({ text: turn.user, asksForPerson: turn.type === 'ask_person' }))].map(({ text, asksForPerson }) => ({
    features: messageFeatures(text),
    asksForPerson,
  }));
}

/** The model file's text, as this script writes it. */
export function requestModelText(messages = trainingMessages()): string {
  return `${JSON.stringify(trainRequestModel(messages), null, 1)}\n`;
}

if (require.main === module) {
  const started = Date.now();
  const messages = trainingMessages();
  console.log(`[train:acts] training on ${messages.length} labelled messages`);
  const text = requestModelText(messages);
  fs.writeFileSync(REQUEST_MODEL_PATH, text);
  console.log(`[train:acts] wrote ${path.relative(ROOT, REQUEST_MODEL_PATH)} (${text.length} characters) in ${Date.now() - started} ms`);
}
