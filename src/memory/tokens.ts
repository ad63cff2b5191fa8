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

/**
 * Pre-tokenizer pieces longer than LONG_PIECE are counted in slices of SLICE
 * characters. BPE merging (js-tiktoken's) is quadratic in the length of one piece,
 * and a piece can be any long run: a word, CJK text, punctuation, combining marks,
 * or whitespace of any kind (3,990 × U+3000 took 12 s). Slicing keeps counting
 * linear in the text; each slice boundary can overcount by at most a token, and
 * ordinary text (pieces of at most LONG_PIECE characters) is counted exactly.
 */
const LONG_PIECE = 64;
const SLICE = 16;
/** Counts of recent pieces: words repeat, and a run of one repeated character costs one encoding. */
const PIECE_CACHE_SIZE = 50_000;

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
  /** The encoding's pre-tokenizer (matchAll copies it, so the shared lastIndex is never used). */
  private readonly pieces: RegExp;
  private readonly pieceCounts = new Map<string, number>();
  private readonly utf8 = new TextEncoder();
  /** The encoding's merge ranks by byte sequence ("104,105"): js-tiktoken's rankMap. */
  private readonly ranks: Map<string, number> | null;

  constructor(model: string) {
    this.encodingName = encodingForChatModel(model);
    let encoder = TokenCounter.encoders.get(this.encodingName);
    if (!encoder) {
      encoder = getEncoding(this.encodingName);
      TokenCounter.encoders.set(this.encodingName, encoder);
    }
    this.encoder = encoder;
    // js-tiktoken keeps the encoding's split pattern as a public field (patStr); the
    // fallback splits on runs of whitespace and of anything else, which bounds every piece too.
    const pattern = (encoder as unknown as { patStr?: unknown }).patStr;
    const ranks = (encoder as unknown as { rankMap?: unknown }).rankMap;
    this.ranks = ranks instanceof Map ? (ranks as Map<string, number>) : null;
    this.pieces = typeof pattern === 'string' ? new RegExp(pattern, 'gu') : /\s+|\S+/gu;
  }

  /** Tokens in a plain text, in time linear in its length (see LONG_PIECE). */
  countText(text: string): number {
    if (text.length <= LONG_PIECE) return this.encode(text);
    let total = 0;
    if (this.ranks) {
      // js-tiktoken's encode, piece by piece, with each piece's count remembered:
      // the same counts, without its per-piece allocations, and repeated pieces are free.
      for (const [piece] of text.matchAll(this.pieces)) {
        if (piece.length <= LONG_PIECE) total += this.pieceTokens(piece);
        else for (const slice of slices(piece, SLICE)) total += this.pieceTokens(slice);
      }
      return total;
    }
    // Without the ranks: text between long pieces in one encode call, long pieces in slices.
    let last = 0;
    for (const piece of text.matchAll(this.pieces)) {
      if (piece[0].length <= LONG_PIECE) continue;
      total += this.encode(text.slice(last, piece.index));
      for (const slice of slices(piece[0], SLICE)) total += this.encode(slice);
      last = piece.index + piece[0].length;
    }
    return total + this.encode(text.slice(last));
  }

  /** One pre-tokenizer piece's tokens (with the ranks), remembered. */
  private pieceTokens(piece: string): number {
    let tokens = this.pieceCounts.get(piece);
    if (tokens === undefined) {
      const bytes = this.utf8.encode(piece);
      tokens = this.ranks!.has(bytes.join(',')) ? 1 : countBytePairs(bytes, this.ranks!);
      if (this.pieceCounts.size >= PIECE_CACHE_SIZE) this.pieceCounts.clear();
      this.pieceCounts.set(piece, tokens);
    }
    return tokens;
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

/**
 * The number of tokens byte-pair encoding makes of one piece: js-tiktoken's merge
 * (repeatedly merge the adjacent pair of lowest rank, leftmost first), keeping
 * each pair's rank and recomputing only the two next to a merge, where js-tiktoken
 * rebuilds every pair's key on every round. The same count, in a fraction of the time.
 */
export function countBytePairs(bytes: Uint8Array, ranks: Map<string, number>): number {
  if (bytes.length <= 1) return bytes.length;
  // parts[i] is part i's key in rankMap's form ("227,128,128"); pairRank[i] the rank
  // of parts i and i+1 merged (Infinity: no such token).
  const parts = Array.from(bytes, String);
  const rankOf = (i: number) => ranks.get(`${parts[i]},${parts[i + 1]}`) ?? Infinity;
  const pairRank = Array.from({ length: parts.length - 1 }, (_, i) => rankOf(i));
  for (;;) {
    let at = -1;
    let lowest = Infinity;
    for (let i = 0; i < pairRank.length; i++) {
      if (pairRank[i]! < lowest) {
        lowest = pairRank[i]!;
        at = i;
      }
    }
    if (at < 0) return parts.length;
    parts.splice(at, 2, `${parts[at]},${parts[at + 1]}`);
    pairRank.splice(at, 1);
    if (at < pairRank.length) pairRank[at] = rankOf(at);
    if (at > 0) pairRank[at - 1] = rankOf(at - 1);
  }
}

/** `text` in pieces of at most `size` UTF-16 units, never splitting a surrogate pair. */
function* slices(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + size, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end++;
    yield text.slice(at, end);
    at = end;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
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
