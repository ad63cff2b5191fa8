/**
 * Loopback OpenAI-compatible server for tests.
 *
 * Lets the real `ChatOpenAI` / `OpenAIEmbeddings` clients (and the `openai` SDK
 * underneath) run end to end without internet: point `configuration.baseURL`
 * at `stub.baseURL`. Replies are scripted per test via `enqueueChat` /
 * `setDefaultChat` / `setEmbeddingsFailure`, and every request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { PrefixCacheSimulator } from './prefix-cache';
import { seededRandom } from './seeded-random';

export interface RecordedRequest {
  path: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** True when the client went away before the full response was written. */
  aborted: boolean;
  /** The usage a chat reply reported (prompt_tokens_details.cached_tokens included), once it was written. */
  usage?: StubUsage;
}

/** Usage as the stub reports it, in OpenAI's shape. */
export interface StubUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
}

/** Scripted usage: counts a test chose, so the simulated cache does not apply (cached_tokens defaults to 0). */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

export type ChatReply =
  | { content: string; usage?: ScriptedUsage } // normal answer
  | { status: number; error?: string } // HTTP error (e.g. 500, 429)
  | { delayMs: number; content?: string } // answer after a delay (for timeouts/aborts)
  | { toolCalls: StubToolCall[]; content?: string; usage?: ScriptedUsage }; // the model calls tools (and may say something beside them)

export interface StubToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface OpenAIStub {
  baseURL: string;
  requests: RecordedRequest[];
  chatRequests(): RecordedRequest[];
  embeddingRequests(): RecordedRequest[];
  /** Queue replies for the next chat completions, consumed in order; when the queue is empty, the default reply is used. */
  enqueueChat(...replies: ChatReply[]): void;
  setDefaultChat(reply: ChatReply | ((body: any) => ChatReply)): void;
  setEmbeddingsFailure(status: number | null): void;
  /** Forgets the cached prompts (reset() does too). */
  clearPromptCache(): void;
  reset(): void;
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';
// Large enough for RAG prompts stuffed with context, small enough to catch runaway payloads.
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Rough token estimate (~4 chars per token); tests only need stable, plausible numbers. */
const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** Text of a chat message `content`, which may be a string or an array of content parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
      .join('');
  }
  return '';
}

function messagesOf(body: any): any[] {
  return Array.isArray(body?.messages) ? body.messages : [];
}

/**
 * The prompt as the model reads it, for token counts and the prefix cache: the tool
 * definitions first, then every message with its role, name, calls and content.
 */
export function renderPrompt(body: any): string {
  const tools = Array.isArray(body?.tools) && body.tools.length > 0 ? `${JSON.stringify(body.tools)}\n` : '';
  const messages = messagesOf(body).map((m) => {
    const calls = Array.isArray(m?.tool_calls) ? JSON.stringify(m.tool_calls) : '';
    const callId = typeof m?.tool_call_id === 'string' ? ` ${m.tool_call_id}` : '';
    return `<${m?.role}${m?.name ? ` ${m.name}` : ''}${callId}>\n${contentText(m?.content)}${calls}\n`;
  });
  return tools + messages.join('');
}

/** Built-in default: echo the last user message so tests can tell calls apart. */
function defaultChatReply(body: any): { content: string } {
  const lastUser = [...messagesOf(body)].reverse().find((m) => m?.role === 'user');
  return { content: `stub answer to: ${contentText(lastUser?.content)}` };
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401) return 'authentication_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: errorType(status), code: status === 429 ? 'rate_limit_exceeded' : null, param: null } });
}

/** Deterministic, L2-normalised vector for a text: same text, same vector, across runs. */
function fakeEmbedding(text: string, dims: number): number[] {
  const rand = seededRandom(createHash('sha256').update(text).digest().readUInt32LE(0));
  const v = Array.from({ length: dims }, () => rand() * 2 - 1);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** The SDK decodes base64 embeddings as little-endian float32; write LE explicitly rather than rely on host endianness. */
function toBase64Float32(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('request body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startOpenAIStub(opts: { embeddingDimensions?: number } = {}): Promise<OpenAIStub> {
  const embeddingDimensions = opts.embeddingDimensions ?? 1536;

  // Kept as the same array instance across reset() so callers may hold a reference.
  const requests: RecordedRequest[] = [];
  let chatQueue: ChatReply[] = [];
  let defaultChat: ChatReply | ((body: any) => ChatReply) | null = null;
  let embeddingsFailure: number | null = null;
  let seq = 0;
  // Simulated OpenAI prompt cache over the rendered prompts (chars/4 tokens, like the usage).
  const promptCache = new PrefixCacheSimulator(estimateTokens);
  // Pending delay timers, cleared on disconnect/close so jest isn't kept alive.
  const timers = new Set<NodeJS.Timeout>();

  function nextChatReply(body: any): ChatReply {
    const queued = chatQueue.shift();
    if (queued) return queued;
    if (typeof defaultChat === 'function') return defaultChat(body);
    return defaultChat ?? defaultChatReply(body);
  }

  function writeChat(
    rec: RecordedRequest,
    res: ServerResponse,
    content: string,
    usageIn?: ScriptedUsage,
    toolCalls: StubToolCall[] = [],
  ): void {
    const body = rec.body;
    const cache = promptCache.serve(renderPrompt(body));
    const promptTokens = usageIn?.prompt_tokens ?? cache.promptTokens;
    const completionTokens =
      usageIn?.completion_tokens ?? estimateTokens(content) + (toolCalls.length > 0 ? estimateTokens(JSON.stringify(toolCalls)) : 0);
    const cachedTokens = usageIn ? (usageIn.cached_tokens ?? 0) : cache.cachedTokens;
    const wireCalls = toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const usage: StubUsage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    };
    rec.usage = usage;
    const id = `chatcmpl-stub-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body?.model ?? 'stub-model';

    if (!body?.stream) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: toolCalls.length > 0 && !content ? null : content, refusal: null, ...(toolCalls.length > 0 && { tool_calls: wireCalls }) },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
        system_fingerprint: null,
      });
      return;
    }

    const includeUsage = body?.stream_options?.include_usage === true;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: null, choices, ...extra })}\n\n`);
    // Like OpenAI, every chunk carries `usage: null` when usage was requested; the real numbers come last.
    const usageNull = includeUsage ? { usage: null } : {};
    const delta = (d: Record<string, unknown>, finish: string | null = null) => [{ index: 0, delta: d, logprobs: null, finish_reason: finish }];

    // Role must arrive on the first chunk: LangChain keys message type (and usage) off it.
    send(delta({ role: 'assistant', content: '', refusal: null }), usageNull);
    // Word-sized pieces (whitespace kept) so streaming is observable and the pieces rejoin exactly.
    const pieces = content.match(/\s*\S+\s*/g) ?? (content ? [content] : []);
    for (const piece of pieces) send(delta({ content: piece }), usageNull);
    wireCalls.forEach((call, index) => send(delta({ tool_calls: [{ index, ...call }] }), usageNull));
    send(delta({}, finishReason), usageNull);
    if (includeUsage) send([], { usage });
    res.end('data: [DONE]\n\n');
  }

  function handleChat(rec: RecordedRequest, res: ServerResponse): void {
    const body = rec.body;
    const reply = nextChatReply(body);

    if ('status' in reply) {
      sendError(res, reply.status, reply.error ?? `stub error ${reply.status}`);
      return;
    }
    if ('delayMs' in reply) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (res.destroyed || res.writableEnded) return;
        writeChat(rec, res, reply.content ?? defaultChatReply(body).content);
      }, reply.delayMs);
      timer.unref();
      timers.add(timer);
      // Client gave up while we were "thinking": stop the timer so nothing is written or kept alive.
      res.on('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
      return;
    }
    if ('toolCalls' in reply) {
      writeChat(rec, res, reply.content ?? '', reply.usage, reply.toolCalls);
      return;
    }
    writeChat(rec, res, reply.content, reply.usage);
  }

  function handleEmbeddings(rec: RecordedRequest, res: ServerResponse): void {
    if (embeddingsFailure !== null) {
      sendError(res, embeddingsFailure, `stub embeddings error ${embeddingsFailure}`);
      return;
    }
    const body = rec.body ?? {};
    const raw = body.input;
    if (raw === undefined || raw === null) {
      sendError(res, 400, "'input' is required");
      return;
    }
    // Accept strings, string arrays, and token arrays (number[] / number[][]) like the real API.
    const inputs: unknown[] =
      typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.length > 0 && typeof raw[0] === 'number' ? [raw] : Array.isArray(raw) ? raw : [raw];
    const texts = inputs.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
    // Honour the `dimensions` request parameter (text-embedding-3-*), else the stub's configured size.
    const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : embeddingDimensions;
    const base64 = body.encoding_format === 'base64';
    const tokens = texts.reduce((n, t) => n + estimateTokens(t), 0);
    sendJson(res, 200, {
      object: 'list',
      data: texts.map((t, index) => {
        const v = fakeEmbedding(t, dims);
        return { object: 'embedding', index, embedding: base64 ? toBase64Float32(v) : v };
      }),
      model: body.model ?? 'stub-embedding-model',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const rec: RecordedRequest = { path, body: undefined, headers: { ...req.headers }, aborted: false };
    requests.push(rec);
    // Any disconnect before we finished writing counts as an abort (delays, mid-stream cancels, close()).
    res.on('close', () => {
      if (!res.writableEnded) rec.aborted = true;
    });

    let text: string;
    try {
      text = await readBody(req);
    } catch (err: any) {
      if (!res.destroyed) sendError(res, err?.status ?? 400, String(err?.message ?? err));
      return;
    }
    if (text) {
      try {
        rec.body = JSON.parse(text);
      } catch {
        rec.body = text;
        sendError(res, 400, 'request body is not valid JSON');
        return;
      }
    }

    if (req.method === 'POST' && path === CHAT_PATH) return handleChat(rec, res);
    if (req.method === 'POST' && path === EMBEDDINGS_PATH) return handleEmbeddings(rec, res);
    sendError(res, 404, `stub: no route for ${req.method} ${path}`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === CHAT_PATH),
    embeddingRequests: () => requests.filter((r) => r.path === EMBEDDINGS_PATH),
    enqueueChat: (...replies) => {
      chatQueue.push(...replies);
    },
    setDefaultChat: (reply) => {
      defaultChat = reply;
    },
    setEmbeddingsFailure: (status) => {
      embeddingsFailure = status;
    },
    clearPromptCache: () => promptCache.clear(),
    reset: () => {
      promptCache.clear();
      requests.length = 0;
      chatQueue = [];
      defaultChat = null;
      embeddingsFailure = null;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        // Idempotent: a second close() (e.g. from both a test and afterAll) is not an error.
        server.close((err) => (err && (err as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING' ? reject(err) : resolve()));
        // server.close() alone waits for keep-alive sockets held by the clients' fetch pool.
        server.closeAllConnections();
      }),
  };
}
