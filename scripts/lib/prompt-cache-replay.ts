/**
 * The prompt-cache replay of `npm run eval:memory`: long conversations that move
 * between topics (the knowledge passages change every turn) are replayed request
 * by request through a memory strategy, each prompt rendered as the service sends
 * it (tool definitions, instructions, the history as the strategy left it, this
 * turn's passages, the question), and fed to the same simulated OpenAI prompt cache
 * as the loopback stub (tests/support/prefix-cache.ts), counted in real tokens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { buildSystemPrompt, formatKnowledge } from '../../src/agent/prompts';
import { createSupportTools } from '../../src/agent/tools';
import { loadSampleShop } from '../../src/shop/sample-shop';

/** The sample shop's default agent. */
const supportAgent = loadSampleShop().agents[0]!;
import { chunkDocument, markdownTitle } from '../../src/knowledge/chunking';
import type { OrderProofs } from '../../src/identity/order-proofs';
import type { Retriever } from '../../src/knowledge/retriever';
import { capToolOutput, type ContextMessage, type CountMessageTokens } from '../../src/memory/context';
import type { MemorySettings } from '../../src/memory/settings';
import {
  EMPTY_MEMORY_STATE,
  compactStrategy,
  noneStrategy,
  OPENING_READ_MESSAGES,
  windowLoadPlan,
  summarizeStrategy,
  trimStrategy,
  windowStrategy,
  type MemoryState,
  type StrategyInput,
  type StrategyResult,
  type WindowLimits,
} from '../../src/memory/strategies';
import type { Summarizer } from '../../src/memory/summarizer';
import type { CommerceStore } from '../../src/store/commerce-store';
import type { RetrievedDocument } from '../../src/store/types';
import { PrefixCacheSimulator } from '../../tests/support/prefix-cache';
import { renderPrompt } from '../../tests/support/openai-stub';
import { seededRandom } from '../../tests/support/seeded-random';

export const CACHE_TURNS = 30;
/** The turns the targets count (1-based, inclusive): the cache needs a few turns to have something to serve. */
export const COUNTED_TURNS = { from: 5, to: 30 } as const;
const PASSAGES_PER_TURN = 3;
/** Every this-many turns the customer gives an order number and the agent looks it up. */
const TOOL_TURN_EVERY = 4;

export interface CacheConversation {
  id: string;
  turns: Array<{ question: string; knowledge: RetrievedDocument[]; reply: ContextMessage[] }>;
}

/** How the prompt is laid out: as now (passages after the history), or as before (passages in the system prompt). */
export type PromptOrder = 'stable-prefix' | 'passages-in-system-prompt';

export interface CacheRun {
  /** Sum over the counted turns. */
  promptTokens: number;
  cachedTokens: number;
  /** Largest prompt as the strategy counts it (system, passages, question, history; tool definitions not included). */
  maxStrategyTokens: number;
  requests: number;
}

/**
 * Generated conversations over the help center (fixed seed): each turn asks about a
 * different article than the one before, with that article's section among the
 * three passages retrieved for it; the agent answers from the section; every
 * fourth turn also looks up an order (a call and its JSON result).
 */
export async function makeCacheConversations(knowledgeDir: string, count: number, countTokens: CountMessageTokens): Promise<CacheConversation[]> {
  const files = fs.readdirSync(knowledgeDir).filter((f) => f.endsWith('.md')).sort();
  const articles = await Promise.all(
    files.map(async (file) => {
      const text = fs.readFileSync(path.join(knowledgeDir, file), 'utf8');
      const chunks = await chunkDocument(text, 'markdown');
      return { source: `knowledge/help-center/${file}`, title: markdownTitle(text) ?? file, chunks: chunks.map((c) => c.content) };
    }),
  );
  const random = seededRandom(20261123);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const passage = (articleIndex: number, chunkIndex: number): RetrievedDocument => {
    const a = articles[articleIndex]!;
    return {
      id: `${a.source}#${chunkIndex}`,
      source: a.source,
      title: a.title,
      chunkIndex,
      content: a.chunks[chunkIndex]!,
      metadata: {},
      similarity: 0.8,
    };
  };

  const conversations: CacheConversation[] = [];
  for (let c = 0; c < count; c++) {
    let seq = 0;
    let previousArticle = -1;
    const turns: CacheConversation['turns'] = [];
    for (let t = 0; t < CACHE_TURNS; t++) {
      let article = Math.floor(random() * articles.length);
      if (article === previousArticle) article = (article + 1) % articles.length;
      previousArticle = article;
      const chunkIndex = Math.floor(random() * articles[article]!.chunks.length);
      const main = passage(article, chunkIndex);
      const others = Array.from({ length: PASSAGES_PER_TURN - 1 }, () => {
        const other = (article + 1 + Math.floor(random() * (articles.length - 1))) % articles.length;
        return passage(other, Math.floor(random() * articles[other]!.chunks.length));
      });
      const heading = /^#+\s*(.+)$/m.exec(main.content)?.[1] ?? main.title;
      const orderId = `ZX-${14000 + c * 100 + t}`;
      const toolTurn = t % TOOL_TURN_EVERY === TOOL_TURN_EVERY - 1;
      const question =
        pick(['Quick question about', 'Could you explain', 'I need help with', 'What is your policy on', 'Tell me about']) +
        ` ${heading.toLowerCase()}?` +
        (toolTurn ? ` It is about my order ${orderId}.` : '');
      const sentences = main.content.replace(/^#+.*$/gm, '').replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+/);
      const answer = `${sentences.slice(0, 3).join(' ')} (Source: ${main.title})`;

      const message = (m: Omit<ContextMessage, 'tokens' | 'seq'>): ContextMessage => ({ ...m, seq: ++seq, tokens: countTokens(m) });
      const reply: ContextMessage[] = [message({ role: 'user', content: question })];
      if (toolTurn) {
        const call = { id: `call_${c}_${t}`, name: 'lookup_order', arguments: { order_id: orderId } };
        reply.push(message({ role: 'assistant', content: '', tool_calls: [call] }));
        reply.push(message({ role: 'tool', content: orderJson(orderId, t), tool_call_id: call.id, name: 'lookup_order' }));
      }
      reply.push(message({ role: 'assistant', content: toolTurn ? `Your order ${orderId} is on its way. ${answer}` : answer }));
      turns.push({ question, knowledge: [main, ...others], reply });
    }
    conversations.push({ id: `topics-${c + 1}`, turns });
  }
  return conversations;
}

function orderJson(orderId: string, t: number): string {
  const events = Array.from({ length: 4 }, (_, i) => ({ at: `2026-11-${String(10 + i).padStart(2, '0')}T0${i}:15:00Z`, status: ['ordered', 'packed', 'shipped', 'in transit'][i], location: ['Berlin', 'Leipzig', 'Hamburg', 'Bologna'][i] }));
  return JSON.stringify({ order_id: orderId, status: 'in_transit', carrier: 'DHL', ship_date: '2026-11-12', destination_city: 'Bologna', items: [{ sku: `KT-${100 + t}`, name: 'Vesper kettle', quantity: 1 }], tracking_events: events });
}

export interface ReplayOptions {
  settings: MemorySettings;
  /** The window's configured limits (CONVERSATION_HISTORY_MAX_MESSAGES / _TOKENS; token_budget replaces the tokens). */
  windowLimits: WindowLimits;
  toolOutputMaxChars: number;
  countTokens: CountMessageTokens;
  countText: (text: string) => number;
  summarizer: Summarizer;
  order: PromptOrder;
}

/**
 * The window as the service loads it (ChatService.loadHistory): everything while the
 * history fits; past its limits, the pinned opening from the first stored messages
 * and the SQL window (history_window_after) over the rest with the stepped limits
 * windowLoadPlan derives from the session's totals (the plain ones when that holds no
 * whole turn); then windowStrategy on the capped messages, told the session's totals.
 */
export function serviceWindow(stored: ContextMessage[], capped: ContextMessage[], limits: WindowLimits, input: StrategyInput): StrategyResult {
  const totals = { messages: stored.length, tokens: stored.reduce((sum, m) => sum + m.tokens, 0) };
  const sqlWindow = (from: ContextMessage[], l: WindowLimits) => {
    let running = 0;
    const fitting: ContextMessage[] = [];
    for (const m of [...from].reverse().slice(0, l.maxMessages)) {
      running += m.tokens;
      if (running > l.maxTokens) break;
      fitting.unshift(m);
    }
    const firstUser = fitting.findIndex((m) => m.role === 'user');
    return firstUser < 0 ? [] : fitting.slice(firstUser);
  };
  let loaded: ContextMessage[];
  if (totals.messages <= limits.maxMessages && totals.tokens <= limits.maxTokens) {
    loaded = sqlWindow(stored, limits);
  } else {
    const first = input.settings.pin_opening_pct > 0 ? stored.slice(0, OPENING_READ_MESSAGES) : [];
    const plan = windowLoadPlan(first, totals, limits, input.settings, input.countTokens);
    const rest = stored.slice(plan.openingCount);
    const stepped = sqlWindow(rest, plan.stepped);
    const tail = stepped.length > 0 ? stepped : sqlWindow(rest, plan.plain);
    loaded = tail.length > 0 ? [...first.slice(0, plan.openingCount), ...tail] : sqlWindow(stored, limits);
  }
  const seqs = new Set(loaded.map((m) => m.seq));
  return windowStrategy(
    { ...input, messages: capped.filter((m) => seqs.has(m.seq)), historyMessagesTotal: totals.messages, historyTokensTotal: totals.tokens },
    limits,
  );
}

/** Replays one conversation; returns the counted turns' prompt and cached tokens. */
export async function replayForCache(conversation: CacheConversation, options: ReplayOptions): Promise<CacheRun> {
  const { settings, countTokens } = options;
  const cache = new PrefixCacheSimulator(options.countText);
  const tools = createSupportTools({ commerce: {} as CommerceStore, retriever: {} as Retriever, orderProofs: {} as OrderProofs })
    .filter((t) => supportAgent.tools.includes(t.name))
    .map((t) => convertToOpenAITool(t));
  const system = buildSystemPrompt({ instructions: supportAgent.instructions });
  let state: MemoryState = EMPTY_MEMORY_STATE;
  const stored: ContextMessage[] = [];
  const run: CacheRun = { promptTokens: 0, cachedTokens: 0, maxStrategyTokens: 0, requests: 0 };

  for (const [index, turn] of conversation.turns.entries()) {
    const knowledge = formatKnowledge(turn.knowledge);
    const fixedTokens = countTokens({ content: system }) + countTokens({ content: knowledge }) + countTokens({ content: turn.question });
    const capped = stored.map((m) => capToolOutput(m, options.toolOutputMaxChars, countTokens));
    const input = (messages: ContextMessage[]): StrategyInput => ({ messages, state, settings, fixedTokens, countTokens });
    let result: StrategyResult;
    switch (settings.mode) {
      case 'none':
        result = noneStrategy(input(capped));
        break;
      case 'window':
        result = serviceWindow(stored, capped, { ...options.windowLimits, maxTokens: settings.token_budget ?? options.windowLimits.maxTokens }, input(capped));
        break;
      case 'trim':
        result = trimStrategy(input(capped));
        break;
      case 'compact':
        result = compactStrategy(input(capped));
        break;
      case 'summarize': {
        const after = capped.filter((m) => state.summarizedThroughSeq === null || m.seq! > state.summarizedThroughSeq);
        const summarized = await summarizeStrategy(input(after), (request) => options.summarizer.summarize(request));
        if (summarized.summarizerError) throw summarized.summarizerError;
        if (summarized.newState) state = summarized.newState;
        result = summarized;
        break;
      }
    }

    const history = result.messages.map(wireMessage);
    const messages =
      options.order === 'stable-prefix'
        ? [{ role: 'system', content: system }, ...history, { role: 'system', content: knowledge }, { role: 'user', content: turn.question }]
        : [{ role: 'system', content: `${system}\n\n${knowledge}` }, ...history, { role: 'user', content: turn.question }];
    const served = cache.serve(renderPrompt({ tools, messages }));
    const turnNumber = index + 1;
    if (turnNumber >= COUNTED_TURNS.from && turnNumber <= COUNTED_TURNS.to) {
      run.promptTokens += served.promptTokens;
      run.cachedTokens += served.cachedTokens;
      run.requests++;
    }
    run.maxStrategyTokens = Math.max(run.maxStrategyTokens, result.report.tokens_after);
    stored.push(...turn.reply);
  }
  return run;
}

/** A history message as the chat completions API receives it (what the stub renders). */
function wireMessage(m: ContextMessage): Record<string, unknown> {
  const calls = m.tool_calls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
  return {
    role: m.role,
    content: m.content,
    ...(calls?.length && { tool_calls: calls }),
    ...(m.tool_call_id && { tool_call_id: m.tool_call_id }),
    ...(m.role === 'tool' && m.name && { name: m.name }),
  };
}
