import type * as JsTiktoken from 'js-tiktoken' with { 'resolution-mode': 'import' };
import type { Tiktoken, TiktokenEncoding, TiktokenModel } from 'js-tiktoken' with { 'resolution-mode': 'import' };

// js-tiktoken ships CommonJS, but its type declarations are ESM-only, so TypeScript
// refuses a plain import from this CommonJS module: require it, typed from the ESM side.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getEncoding, getEncodingNameForModel }: typeof JsTiktoken = require('js-tiktoken');

/**
 * Tokens a chat message costs beyond its text: OpenAI's chat format wraps each
 * message in role and separator tokens (3 for the gpt-4o family).
 */
export const MESSAGE_OVERHEAD_TOKENS = 3;

/** Runs without whitespace longer than this are counted in slices of this size. */
const RUN_SLICE = 64;
const LONG_RUN = /\S{65}/;
const LONG_RUNS = /\S{65,}/g;

/** What a message needs for counting: its text and, for assistant tool calls, their calls. */
export interface CountableMessage {
  content: string;
  tool_calls?: unknown;
  name?: string | null;
}

/**
 * Counts tokens with the chat model's real encoding from js-tiktoken's bundled
 * ranks (no download). Loading an encoding takes about a second, so encoders are
 * cached per encoding for the life of the process.
 */
export class TokenCounter {
  private static readonly encoders = new Map<TiktokenEncoding, Tiktoken>();
  readonly encodingName: TiktokenEncoding;
  private readonly encoder: Tiktoken;

  constructor(model: string) {
    this.encodingName = encodingForChatModel(model);
    let encoder = TokenCounter.encoders.get(this.encodingName);
    if (!encoder) {
      encoder = getEncoding(this.encodingName);
      TokenCounter.encoders.set(this.encodingName, encoder);
    }
    this.encoder = encoder;
  }

  /** Tokens in a plain text. */
  countText(text: string): number {
    if (!LONG_RUN.test(text)) return this.encode(text);
    // js-tiktoken's cost grows with the square of a run without spaces ("!!!!…", CJK
    // text): a 4,000-character run took seconds and blocked the server. Such runs are
    // counted in slices, which can overcount by at most a token per slice.
    let total = 0;
    let last = 0;
    for (const run of text.matchAll(LONG_RUNS)) {
      total += this.encode(text.slice(last, run.index));
      for (let at = 0; at < run[0].length; at += RUN_SLICE) total += this.encode(run[0].slice(at, at + RUN_SLICE));
      last = run.index + run[0].length;
    }
    return total + this.encode(text.slice(last));
  }

  private encode(text: string): number {
    // allowedSpecial 'all' would let "<|endoftext|>" in a customer's message be read
    // as a control token; counting it as ordinary text is what the API bills.
    return text === '' ? 0 : this.encoder.encode(text, [], []).length;
  }

  /** Tokens a stored message costs in a chat request: text, tool calls, name, framing. */
  countMessage(message: CountableMessage): number {
    let tokens = MESSAGE_OVERHEAD_TOKENS + this.countText(message.content);
    if (message.tool_calls) tokens += this.countText(JSON.stringify(message.tool_calls));
    if (message.name) tokens += this.countText(message.name);
    return tokens;
  }
}

/** The seed design's estimate, kept only as a measured comparison (see BENCHMARKS.md). */
export function estimateTokensByChars(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The encoding js-tiktoken knows for the model; o200k_base (the gpt-4o family's)
 * for names it does not know, such as models served behind OPENAI_BASE_URL.
 */
export function encodingForChatModel(model: string): TiktokenEncoding {
  try {
    return getEncodingNameForModel(model as TiktokenModel);
  } catch {
    return 'o200k_base';
  }
}
