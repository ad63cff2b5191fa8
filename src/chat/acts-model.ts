/**
 * The acts stage's second readers: logistic regression over a message's features (the acts
 * stage's words, their character n-grams and neighbours: conversation-acts.ts), one model an act,
 * trained on labelled customer messages by `npm run train:acts` and kept in src/chat/acts-model.json.
 * The wording lists read what they list; a model reads the rest of its class ("can a human take
 * over please", "ich will keinen bot"; "Thanks a lot, you've been really helpful. Have a lovely
 * evening!") from the pieces it shares with the examples, across typos and inflections. Only asked
 * about a message the lists left to search, and only believed beside the wordings the act is made
 * of (conversation-acts.ts, learnedRequestOf and learnedSmallTalkOf).
 */

/** An example: a message's features, and whether it is the model's act (eval/acts/README.md labels them). */
export interface LabelledMessage {
  features: readonly string[];
  isAct: boolean;
}

/** One act's model as stored: the bias, and one entry a feature ("feature<TAB>weight"), sorted, so a retrained file's diff reads. */
export interface ActModel {
  bias: number;
  weights: readonly string[];
}

/** The stored file: a model for requests for a person, one for small talk. */
export interface ActModels {
  askForPerson: ActModel;
  smallTalk: ActModel;
}

/** Passes over the examples in each order, and the step size of each (AdaGrad: each feature's step shrinks as it is seen). */
const EPOCHS = 8;
const STEP = 0.3;
/** L2 pull of each weight towards 0, so a feature seen in one example does not decide alone. */
const L2 = 1e-4;
/**
 * Runs over the examples in different orders, whose weights are averaged: one run's probability
 * for a message near the threshold moves with the order it happened to see the examples in (one
 * look-alike read 0.006 to 0.75 over five orders), and so with every example added.
 */
const ORDERS = 5;
/** Weights smaller than this are left out of the file: they move no probability that matters. */
const STORED_WEIGHT = 0.005;

/**
 * Trains one act's model: each message is the act or not. The examples are visited in
 * orders shuffled by fixed seeds, so the same examples give the same file.
 */
export function trainActModel(messages: readonly LabelledMessage[]): ActModel {
  // Features as numbers into typed arrays: the same arithmetic as over a Map, several times faster.
  const ids = new Map<string, number>();
  const features = messages.map((m) => Int32Array.from(new Set(m.features), (feature) => ids.get(feature) ?? ids.set(feature, ids.size).size - 1));
  const averaged = new Float64Array(ids.size);
  let averagedBias = 0;
  for (let seed = 1; seed <= ORDERS; seed++) {
    const { weights, bias } = trainInOrder(messages, features, ids.size, seed);
    for (let id = 0; id < ids.size; id++) averaged[id] = averaged[id]! + weights[id]! / ORDERS;
    averagedBias += bias / ORDERS;
  }
  const lines = [...ids]
    .filter(([feature, id]) => Math.abs(averaged[id]!) >= STORED_WEIGHT && !/[\t\n]/u.test(feature))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([feature, id]) => `${feature}\t${averaged[id]!.toFixed(3)}`);
  return { bias: Number(averagedBias.toFixed(3)), weights: lines };
}

/** One run of logistic regression by AdaGrad over the examples, in an order shuffled by `seed`. */
function trainInOrder(messages: readonly LabelledMessage[], features: readonly Int32Array[], size: number, seed: number): { weights: Float64Array; bias: number } {
  const weights = new Float64Array(size);
  const squaredGradients = new Float64Array(size);
  let bias = 0;
  let biasSquaredGradient = 0;
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const order = messages.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) {
      let z = bias;
      for (const feature of features[i]!) z += weights[feature]!;
      const gradient = sigmoid(z) - (messages[i]!.isAct ? 1 : 0);
      for (const feature of features[i]!) {
        const weight = weights[feature]!;
        const g = gradient + L2 * weight;
        squaredGradients[feature] = squaredGradients[feature]! + g * g;
        weights[feature] = weight - (STEP * g) / Math.sqrt(squaredGradients[feature]! + 1e-8);
      }
      biasSquaredGradient += gradient * gradient;
      bias -= (STEP * gradient) / Math.sqrt(biasSquaredGradient + 1e-8);
    }
  }
  return { weights, bias };
}

/** A stored model, read for scoring. */
export interface ReadModel {
  bias: number;
  weights: Map<string, number>;
}

export function readActModel(model: ActModel): ReadModel {
  const weights = new Map<string, number>();
  for (const line of model.weights) {
    const [feature, weight] = line.split('\t');
    weights.set(feature!, Number(weight));
  }
  return { bias: model.bias, weights };
}

/** The probability that a message with these features is the model's act; a feature no example had says nothing. */
export function actProbability(model: ReadModel, features: readonly string[]): number {
  return sigmoid(model.bias + sum(new Set(features), model.weights));
}

function sum(features: Iterable<string>, weights: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const feature of features) total += weights.get(feature) ?? 0;
  return total;
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}
