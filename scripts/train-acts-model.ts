/**
 * npm run train:acts: trains the acts stage's second readers (src/chat/acts-model.ts), one for
 * requests for a person and one for small talk, and writes src/chat/acts-model.json.
 *
 * Examples: every labelled line of eval/acts/ (small talk, requests for a person, look-alike
 * questions, seventeen languages) and of eval/acts-training/ (the same, ten languages, kept for
 * training only), and as questions every customer turn of the repository's help-center dialogues
 * and of the development shop (its small talk and requests as labelled). Never
 * eval/acts-held-out/ nor the held-out shop: they measure it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { messageFeatures } from '../src/chat/conversation-acts';
import { trainActModel, type ActModels } from '../src/chat/acts-model';
import { loadActsSet, type ExpectedAct } from './lib/acts-set';
import { loadDialogues } from './lib/answer-eval';

const ROOT = path.resolve(__dirname, '..');
export const ACTS_MODEL_PATH = path.join(ROOT, 'src/chat/acts-model.json');
const ACTS_SETS = ['eval/acts', 'eval/acts-training'];
const DIALOGUES = ['eval/help-center-dialogues.jsonl', 'eval/dev-shop/en/dialogues.jsonl', 'eval/dev-shop/de/dialogues.jsonl'];

/** A labelled message's features and label. */
export interface TrainingMessage {
  features: string[];
  label: ExpectedAct;
}

/** The labelled messages the models are trained on, in a fixed order. */
export function trainingMessages(): TrainingMessage[] {
  const acts = ACTS_SETS.flatMap((set) => loadActsSet(path.join(ROOT, set))).flatMap(({ lines }) => lines.map((line) => ({ text: line.text, label: line.expect })));
  const turns = DIALOGUES.flatMap((file) => loadDialogues(path.join(ROOT, file)).flatMap((dialogue) => dialogue.turns));
  const turnLabel = (type: string): ExpectedAct => (type === 'ask_person' || type === 'small_talk' ? type : 'question');
  return [...acts, ...turns.map((turn) => ({ text: turn.user, label: turnLabel(turn.type) }))].map(({ text, label }) => ({ features: messageFeatures(text), label }));
}

/** The model file's text, as this script writes it. */
export function actsModelText(messages = trainingMessages()): string {
  const modelOf = (label: ExpectedAct) => trainActModel(messages.map(({ features, label: other }) => ({ features, isAct: other === label })));
  const models: ActModels = { askForPerson: modelOf('ask_person'), smallTalk: modelOf('small_talk') };
  return `${JSON.stringify(models, null, 1)}\n`;
}

if (require.main === module) {
  const started = Date.now();
  const messages = trainingMessages();
  console.log(`[train:acts] training on ${messages.length} labelled messages`);
  const text = actsModelText(messages);
  fs.writeFileSync(ACTS_MODEL_PATH, text);
  console.log(`[train:acts] wrote ${path.relative(ROOT, ACTS_MODEL_PATH)} (${text.length} characters) in ${Date.now() - started} ms`);
}
