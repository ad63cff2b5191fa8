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
import { trainRequestModel, type LabelledMessage, type RequestModelLabel } from '../src/chat/request-model';

const ROOT = path.resolve(__dirname, '..');
export const REQUEST_MODEL_PATH = path.join(ROOT, 'src/chat/request-model.json');

function jsonLines<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

interface DialogueTurn {
  user: string;
  type?: string;
}

const labelOfTurn = (turn: DialogueTurn): RequestModelLabel => (turn.type === 'small_talk' ? 'small_talk' : turn.type === 'ask_person' ? 'ask_person' : 'question');

/** The labelled messages the model is trained on, in a fixed order. */
export function trainingMessages(): LabelledMessage[] {
  const messages: { text: string; label: RequestModelLabel }[] = [];
  const actsDir = path.join(ROOT, 'eval/acts');
  for (const file of fs.readdirSync(actsDir).filter((name) => name.endsWith('.jsonl')).sort()) {
    for (const line of jsonLines<{ text: string; expect: RequestModelLabel }>(path.join(actsDir, file))) messages.push({ text: line.text, label: line.expect });
  }
  const dialogues = ['eval/help-center-dialogues.jsonl', 'eval/dev-shop/en/dialogues.jsonl', 'eval/dev-shop/de/dialogues.jsonl'];
  for (const file of dialogues) {
    for (const dialogue of jsonLines<{ turns: DialogueTurn[] }>(path.join(ROOT, file))) for (const turn of dialogue.turns) messages.push({ text: turn.user, label: labelOfTurn(turn) });
  }
  return messages.map(({ text, label }) => ({ features: messageFeatures(text), label }));
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
