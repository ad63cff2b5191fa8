/**
 * The review console at /review, for support agents. Every request carries the
 * agent key as a Bearer token; the key is asked for once and kept in
 * sessionStorage, so it is gone when the tab is closed. All server text is
 * inserted as text, never as HTML.
 */
import { ApiError, apiErrorOf, getJson } from './api';
import { el, renderAnswerText, sourceHref, sourcePage, type Child } from './dom';
import { createHandoffConsole, describeEscalationReason } from './handoff-console';
import { knowledgePage } from './knowledge';
import { toolsPage } from './shop-tools';
import { languageName } from '../src/knowledge/language/language-names';

interface SessionSummary {
  session_id: string;
  user_id: string | null;
  agent_type: string;
  title: string | null;
  last_message: string | null;
  message_count: number;
  escalated: boolean;
  updated_at: string;
  created_at: string;
  memory_strategy: Record<string, unknown> | null;
  /** Who answers the customer: the bot, or the person named in agent_name. */
  handler?: 'bot' | 'human';
  agent_name?: string | null;
  waiting_since?: string | null;
  escalation_reason?: string | null;
  handoff_summary?: string | null;
}

interface SessionPage {
  sessions: SessionSummary[];
  next_cursor: string | null;
}

interface Source {
  title: string;
  source: string;
  score?: number;
  /** Where the document came from, and the PDF page of the cited passage. */
  url?: string;
  page?: number;
}

/** Why a document was retrieved: its standing on each side of the search (metadata.retrieval.documents). */
interface RetrievalEvidence {
  source: string;
  place: number;
  score: number;
  full_text: { place: number | null; score: number };
  vectors: { place: number; similarity: number };
  history: { score: number };
}

/** How an answer's knowledge was searched for. */
interface Retrieval {
  query: string;
  method: string;
  vector_query?: string;
  history?: { text: string; weight: number }[];
  documents?: RetrievalEvidence[];
}

interface ToolCall {
  id: string;
  name: string;
  /** For an action or MCP tool: as sent to the shop's system. */
  arguments: unknown;
  /** Names in `arguments` filled from the verified customer (absent in older rows). */
  bound?: string[];
  /** What the model asked for, when the tool sent something else or nothing. */
  model_arguments?: unknown;
  /** The tool called nothing. */
  not_sent?: true;
}

interface HistoryMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  timestamp: string;
  confidence?: number;
  escalated?: boolean;
  /** Why an escalated answer was escalated. */
  escalation_reason?: string | null;
  /** The summary for the person who takes over, on the answer that handed over. */
  handoff_summary?: string;
  sources?: Source[];
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  author?: { type: 'customer' | 'bot' | 'system' } | { type: 'human'; name: string };
  /** A person joining or leaving (a system note). */
  handoff?: { handler: 'bot' | 'human'; agent_name: string | null };
  /** The customer's rating of an answer (null: not rated). */
  feedback?: { rating: 'up' | 'down'; comment: string | null; updated_at: string } | null;
  /** An answer's tokens, summed over its model calls; cached_tokens were served from the provider's prompt cache. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cached_tokens: number };
  /** An answer's estimated cost (MODEL_PRICES); absent when its model has no price. */
  cost?: number;
  retrieval?: Retrieval;
}

/** The whole conversation's answers, as the history endpoint sums them. */
interface ConversationUsage {
  answers: number;
  prompt_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
  cost?: number;
  priced_answers?: number;
}

interface History {
  messages: HistoryMessage[];
  count: number;
  total: number;
  /** The customer's language as the conversation keeps it (ISO 639-1), null until told. */
  language?: string | null;
  usage?: ConversationUsage;
  /** Why the conversation was last escalated, and the summary for the person who takes over. */
  escalation_reason?: string | null;
  handoff_summary?: string | null;
}

interface MemoryView {
  memory_strategy: Record<string, unknown> | null;
  memory_injection: boolean | null;
  /** What the next message gets when the request names none, and where it comes from. */
  effective: { memory_strategy: Record<string, unknown>; source: 'conversation' | 'agent' | 'default'; memory_injection: boolean };
  summary: string | null;
  summarized_through_seq: number | null;
}

const KEY_STORAGE = 'support-review:agent-key';
const PAGE_SIZE = 20;
/** The history endpoint's largest page (HISTORY_LIMIT_MAX's default). */
const HISTORY_LIMIT = 500;
const SEARCH_DELAY_MS = 300;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const signInSection = byId<HTMLElement>('sign-in');
const signInForm = byId<HTMLFormElement>('sign-in-form');
const keyInput = byId<HTMLInputElement>('agent-key');
const signInError = byId<HTMLElement>('sign-in-error');
const signOutButton = byId<HTMLButtonElement>('sign-out');
const consoleView = byId<HTMLElement>('console');
const filters = byId<HTMLFormElement>('filters');
const searchInput = byId<HTMLInputElement>('search');
const escalatedFilter = byId<HTMLSelectElement>('escalated-filter');
const listStatus = byId<HTMLElement>('list-status');
const sessionList = byId<HTMLUListElement>('session-list');
const loadMoreButton = byId<HTMLButtonElement>('load-more');
const detailHeading = byId<HTMLElement>('detail-heading');
const detailStatus = byId<HTMLElement>('detail-status');
const detailFacts = byId<HTMLElement>('detail-facts');
const transcript = byId<HTMLOListElement>('transcript');
const erasePanel = byId<HTMLElement>('erase-panel');
const eraseStart = byId<HTMLButtonElement>('erase-start');
const eraseConfirm = byId<HTMLFormElement>('erase-confirm');
const eraseConfirmButton = byId<HTMLButtonElement>('erase-confirm-button');
const eraseCancel = byId<HTMLButtonElement>('erase-cancel');
const viewsNav = byId<HTMLElement>('views');
const knowledgeView = byId<HTMLElement>('knowledge');
const toolsView = byId<HTMLElement>('tools');
const viewLinks = {
  conversations: byId<HTMLAnchorElement>('view-conversations'),
  knowledge: byId<HTMLAnchorElement>('view-knowledge'),
  tools: byId<HTMLAnchorElement>('view-tools'),
};

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

let agentKey: string | null = readStoredKey();
let nextCursor: string | null = null;
let openSessionId: string | null = null;
/** Bumped by every new request, so a slow older answer never overwrites a newer one. */
let listRequest = 0;
let detailRequest = 0;
const loadedSessions = new Map<string, SessionSummary>();

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

function storeKey(key: string | null): void {
  agentKey = key;
  try {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  } catch {
    // the key then lasts as long as the page
  }
}

/** GET with the agent key; a refused key signs the agent out. */
async function agentGet<T>(path: string): Promise<T> {
  try {
    return await getJson<T>(path, { authorization: `Bearer ${agentKey ?? ''}` });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      signOut('The agent key was not accepted. Sign in again.');
    }
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong. Please try again.';
}

// --- signing in and out ---------------------------------------------------

function showConsole(): void {
  signInSection.hidden = true;
  signOutButton.hidden = false;
  handoff.start();
  viewsNav.hidden = false;
  showViewFromAddress();
}

type View = keyof typeof viewLinks;

/** The console's pages: the conversations, the knowledge base (#knowledge) and the shop's tools (#tools). */
function showView(view: View): void {
  consoleView.hidden = view !== 'conversations';
  knowledgeView.hidden = view !== 'knowledge';
  toolsView.hidden = view !== 'tools';
  for (const [name, link] of Object.entries(viewLinks)) {
    if (name === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (view === 'knowledge') knowledge.show();
  if (view === 'tools') tools.show();
}

function showViewFromAddress(): void {
  showView(location.hash === '#knowledge' ? 'knowledge' : location.hash === '#tools' ? 'tools' : 'conversations');
}

window.addEventListener('hashchange', () => {
  if (!agentKey || !signInSection.hidden) return;
  showViewFromAddress();
  openSessionFromAddress();
});

function signOut(reason = ''): void {
  storeKey(null);
  listRequest++;
  detailRequest++;
  consoleView.hidden = true;
  knowledgeView.hidden = true;
  toolsView.hidden = true;
  viewsNav.hidden = true;
  knowledge.reset();
  tools.reset();
  signOutButton.hidden = true;
  handoff.stop();
  signInSection.hidden = false;
  sessionList.replaceChildren();
  clearDetail();
  signInError.textContent = reason;
  keyInput.value = '';
  keyInput.focus();
}

signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (!key) {
    signInError.textContent = 'Enter the agent key.';
    keyInput.focus();
    return;
  }
  signInError.textContent = '';
  storeKey(key);
  // The first page of sessions proves the key; a refused key comes back to this form.
  if (await loadSessions(true)) {
    showConsole();
    keyInput.value = '';
    openSessionFromAddress();
    if (knowledgeView.hidden) searchInput.focus();
    else byId<HTMLInputElement>('article-search').focus();
  } else if (agentKey) {
    storeKey(null); // unproven: ask again next time
  }
});

signOutButton.addEventListener('click', () => signOut());

// --- the list of sessions ---------------------------------------------------

/** Loads the first page (reset) or the next one; false when it failed. */
async function loadSessions(reset: boolean): Promise<boolean> {
  const request = ++listRequest;
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  const text = searchInput.value.trim();
  if (text) params.set('q', text);
  if (escalatedFilter.value) params.set('escalated', escalatedFilter.value);
  if (!reset && nextCursor) params.set('cursor', nextCursor);

  listStatus.textContent = 'Loading conversations…';
  loadMoreButton.disabled = true;
  try {
    const page = await agentGet<SessionPage>(`/api/v1/chat/sessions?${params}`);
    if (request !== listRequest) return true;
    const sessions = (Array.isArray(page.sessions) ? page.sessions : []).filter((s) => typeof s?.session_id === 'string');
    if (reset) {
      sessionList.replaceChildren();
      loadedSessions.clear();
    }
    for (const session of sessions) {
      // A conversation active since the first page moved up: it is listed already.
      if (loadedSessions.has(session.session_id)) continue;
      loadedSessions.set(session.session_id, session);
      sessionList.append(sessionItem(session));
    }
    nextCursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
    loadMoreButton.hidden = nextCursor === null;
    const shown = sessionList.childElementCount;
    const more = nextCursor ? ', more available' : '';
    listStatus.textContent =
      shown > 0 ? `${shown} conversation${shown === 1 ? '' : 's'} shown${more}.`
      : text || escalatedFilter.value ? 'No conversations match.'
      : 'No conversations yet.';
    return true;
  } catch (error) {
    if (request !== listRequest) return false;
    if (error instanceof ApiError && error.status === 401) return false; // signOut() said so
    const problem = `Conversations could not be loaded: ${messageOf(error)}`;
    if (!signInSection.hidden) signInError.textContent = problem;
    else listStatus.textContent = problem;
    return false;
  } finally {
    if (request === listRequest) loadMoreButton.disabled = false;
  }
}

/**
 * Text a customer wrote (or chose: a user id) in its own bidi island: dir="auto"
 * and unicode-bidi: isolate, so a right-to-left override inside it cannot reorder
 * what surrounds it on the page.
 */
function customerText(text: string): HTMLElement {
  return el('bdi', { class: 'customer-text', dir: 'auto' }, text);
}

function sessionItem(session: SessionSummary): HTMLLIElement {
  const button = el(
    'button',
    { type: 'button', class: 'session', 'data-session-id': session.session_id },
    el(
      'span',
      { class: 'session-top' },
      el('span', { class: 'session-title customer-text', dir: 'auto' }, session.title || session.session_id),
      session.escalated && el('span', { class: 'badge escalated' }, 'Escalated'),
      session.handler === 'human' && el('span', { class: 'badge held' }, `Held by ${session.agent_name ?? 'a person'}`),
    ),
    el('span', { class: 'session-last customer-text', dir: 'auto' }, session.last_message ?? ''),
    el(
      'span',
      { class: 'session-meta' },
      `${session.message_count} message${session.message_count === 1 ? '' : 's'} · `,
      timeElement(session.updated_at),
      session.user_id ? ' · ' : '',
      session.user_id && customerText(session.user_id),
    ),
  );
  if (session.session_id === openSessionId) button.setAttribute('aria-current', 'true');
  button.addEventListener('click', () => void openSession(session.session_id));
  return el('li', {}, button);
}

let searchTimer: ReturnType<typeof setTimeout> | undefined;
searchInput.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => void loadSessions(true), SEARCH_DELAY_MS);
});
filters.addEventListener('submit', (event) => {
  event.preventDefault();
  clearTimeout(searchTimer);
  void loadSessions(true);
});
escalatedFilter.addEventListener('change', () => void loadSessions(true));
loadMoreButton.addEventListener('click', () => void loadSessions(false));

// --- one conversation ---------------------------------------------------------

function clearDetail(): void {
  handoff.close();
  hideErase();
  openSessionId = null;
  detailHeading.textContent = 'Select a conversation';
  detailStatus.textContent = '';
  detailFacts.hidden = true;
  detailFacts.replaceChildren();
  transcript.replaceChildren();
}

/** Opens one conversation; moveFocus takes keyboard and screen-reader users to it. */
async function openSession(sessionId: string, moveFocus = true): Promise<void> {
  const request = ++detailRequest;
  openSessionId = sessionId;
  for (const button of sessionList.querySelectorAll<HTMLButtonElement>('button.session')) {
    if (button.dataset['sessionId'] === sessionId) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  history.replaceState(null, '', `#session=${encodeURIComponent(sessionId)}`);
  detailHeading.textContent = loadedSessions.get(sessionId)?.title || sessionId;
  detailStatus.textContent = 'Loading the conversation…';
  detailFacts.hidden = true;
  hideErase();
  transcript.replaceChildren();
  if (moveFocus) detailHeading.focus();

  const id = encodeURIComponent(sessionId);
  const [historyResult, memoryResult, summaryResult] = await Promise.allSettled([
    agentGet<History>(`/api/v1/chat/history/${id}?limit=${HISTORY_LIMIT}`),
    agentGet<MemoryView>(`/api/v1/conversations/${id}/memory`),
    loadedSessions.get(sessionId) ?? findSession(sessionId),
  ]);
  if (request !== detailRequest) return;
  const summary = summaryResult.status === 'fulfilled' ? summaryResult.value : undefined;
  if (summary?.title) detailHeading.textContent = summary.title;
  if (historyResult.status === 'rejected') {
    detailStatus.textContent = `This conversation could not be loaded: ${messageOf(historyResult.reason)}`;
    return;
  }
  const conversation = historyResult.value;
  // Only well-formed messages are shown; content is always text.
  const messages = (Array.isArray(conversation.messages) ? conversation.messages : [])
    .filter((m) => typeof m?.role === 'string')
    .map((m) => ({ ...m, content: typeof m.content === 'string' ? m.content : '' }));
  const memory = memoryResult.status === 'fulfilled' ? memoryResult.value : null;
  renderFacts(sessionId, summary, conversation, memory);
  erasePanel.hidden = false;
  transcript.replaceChildren(...transcriptItems(messages));
  handoff.open(sessionId, summary, messages);
  detailStatus.textContent =
    conversation.total > messages.length ? `Showing the newest ${messages.length} of ${conversation.total} messages.` : '';
}

// --- erasing a conversation (asked twice: it cannot be undone) ---------------------

function hideErase(): void {
  erasePanel.hidden = true;
  eraseConfirm.hidden = true;
  eraseStart.hidden = false;
  eraseConfirmButton.disabled = false;
}

eraseStart.addEventListener('click', () => {
  eraseStart.hidden = true;
  eraseConfirm.hidden = false;
  eraseCancel.focus();
});

eraseCancel.addEventListener('click', () => {
  eraseConfirm.hidden = true;
  eraseStart.hidden = false;
  eraseStart.focus();
});

eraseConfirm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const sessionId = openSessionId;
  if (!sessionId) return;
  eraseConfirmButton.disabled = true;
  detailStatus.textContent = 'Erasing…';
  try {
    let response: Response;
    try {
      response = await fetch(`/api/v1/chat/conversation/${encodeURIComponent(sessionId)}`, {
        method: 'DELETE',
        headers: { accept: 'application/json', authorization: `Bearer ${agentKey ?? ''}` },
      });
    } catch {
      throw new ApiError(0, 'network_error', 'The server could not be reached. Check the connection and try again.');
    }
    if (response.status === 401) {
      signOut('The agent key was not accepted. Sign in again.');
      return;
    }
    if (!response.ok) throw await apiErrorOf(response);
    const result = (await response.json()) as { erased: { messages: number } };
    clearDetail();
    history.replaceState(null, '', '#');
    detailStatus.textContent = `Conversation ${sessionId} was erased (${result.erased.messages} messages).`;
    void loadSessions(true);
    handoff.refresh();
  } catch (error) {
    eraseConfirmButton.disabled = false;
    detailStatus.textContent = `The conversation could not be erased: ${messageOf(error)}`;
  }
});

/** A conversation that is not on the loaded pages (opened from a link): the list's search finds it by id. */
async function findSession(sessionId: string): Promise<SessionSummary | undefined> {
  const params = new URLSearchParams({ q: sessionId, limit: String(PAGE_SIZE) });
  const page = await agentGet<SessionPage>(`/api/v1/chat/sessions?${params}`);
  return (Array.isArray(page.sessions) ? page.sessions : []).find((s) => s.session_id === sessionId);
}

/** "German (de)": the language a person who takes over should answer in. */
function describeLanguage(code: string | null | undefined): string {
  if (!code) return 'not told yet';
  const name = languageName(code);
  return name === code ? code : `${name} (${code})`;
}

function renderFacts(sessionId: string, summary: SessionSummary | undefined, conversation: History, memory: MemoryView | null): void {
  const facts: [string, Child][] = [
    ['Session', el('code', {}, sessionId)],
    ['Customer', summary ? (summary.user_id === null ? 'anonymous' : customerText(summary.user_id)) : 'unknown'],
    ['Agent', summary?.agent_type ?? 'unknown'],
    ['Memory strategy', describeMemory(memory, summary?.agent_type)],
    ['Language', describeLanguage(conversation.language)],
    ['Messages', String(conversation.total ?? conversation.count)],
    ...(conversation.usage ? ([['Tokens', describeUsage(conversation.usage)]] as [string, Child][]) : []),
    ...(conversation.usage?.cost !== undefined ? ([['Estimated cost', describeCost(conversation.usage)]] as [string, Child][]) : []),
    ['Escalated', describeEscalation(summary, conversation)],
    ...(conversation.handoff_summary ? ([['Hand-off summary', el('span', { class: 'handoff-summary customer-text', dir: 'auto' }, conversation.handoff_summary)]] as [string, Child][]) : []),
  ];
  if (summary) {
    facts.push(['Started', timeElement(summary.created_at)], ['Last activity', timeElement(summary.updated_at)]);
  }
  detailFacts.replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
  if (memory?.summary) {
    const through = memory.summarized_through_seq ? ` (messages 1–${memory.summarized_through_seq})` : '';
    detailFacts.append(
      el('dt', {}, 'Rolling summary'),
      el('dd', {}, el('details', {}, el('summary', {}, `Show the summary${through}`), el('p', { class: 'summary-text customer-text', dir: 'auto' }, memory.summary))),
    );
  }
  detailFacts.hidden = false;
}

/** "yes, the customer asked for a person": whether, and why, the conversation was handed to a human. */
function describeEscalation(summary: SessionSummary | undefined, conversation: History): string {
  const why = describeEscalationReason(conversation.escalation_reason);
  if (why) return `yes: ${why}`;
  return summary ? (summary.escalated ? 'yes, handed to a human' : 'no') : 'unknown';
}

/** The conversation's tokens: prompt (and how much of it the provider's cache served) and completion. */
function describeUsage(usage: ConversationUsage): string {
  const share = usage.prompt_tokens > 0 ? ` (${Math.round((usage.cached_tokens / usage.prompt_tokens) * 100)}% cached)` : '';
  return `${usage.prompt_tokens.toLocaleString('en-US')} prompt, ${usage.cached_tokens.toLocaleString('en-US')} of them cached${share}; ${usage.completion_tokens.toLocaleString('en-US')} completion, over ${usage.answers} answers`;
}

function describeCost(usage: ConversationUsage): string {
  const partly = usage.priced_answers !== undefined && usage.priced_answers < usage.answers ? ` (${usage.priced_answers} of ${usage.answers} answers priced)` : '';
  return `${formatCost(usage.cost!)}${partly}`;
}

/** A cost in the price table's unit, with the digits a fraction of a cent needs. */
function formatCost(cost: number): string {
  return cost >= 0.01 ? cost.toFixed(4) : cost.toPrecision(2);
}

/** The active memory strategy, with its options as they were set and where it comes from. */
function describeMemory(memory: MemoryView | null, agentType: string | undefined): string {
  if (!memory) return 'could not be loaded';
  const { memory_strategy: strategy, source, memory_injection } = memory.effective;
  const options = Object.entries(strategy)
    .filter(([key]) => key !== 'mode')
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  const agent = agentType ? `the ${agentType} agent's` : "the agent's";
  const origin = {
    conversation: 'set for this conversation',
    agent: `${agent} default (no setting for this conversation)`,
    default: `the service's default (no setting for this conversation or ${agentType ? `the ${agentType} agent` : 'its agent'})`,
  }[source];
  return `${String(strategy['mode'])}${options.length ? ` (${options.join('; ')})` : ''}, ${origin}${memory_injection ? '; cross-session memory on' : ''}`;
}

/** Each stored message, tool calls folded together with their results. */
function transcriptItems(messages: HistoryMessage[]): HTMLLIElement[] {
  const results = new Map<string, HistoryMessage>();
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m);
  const shownResults = new Set<string>();
  const items: HTMLLIElement[] = [];

  for (const m of messages) {
    if (m.role === 'tool') {
      if (m.tool_call_id && shownResults.has(m.tool_call_id)) continue;
      // A result whose call is not on this page (older than the limit) is still shown.
      items.push(el('li', { class: 'entry tool' }, toolDetails(m.name ?? 'tool', undefined, m)));
      continue;
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const entry = el('li', { class: 'entry tool' });
      if (m.content.trim()) entry.append(el('p', { class: 'text' }, m.content));
      for (const call of m.tool_calls) {
        const result = results.get(call.id);
        if (result) shownResults.add(call.id);
        entry.append(toolDetails(call.name, call.arguments, result, call));
      }
      items.push(entry);
      continue;
    }
    items.push(m.role === 'user' ? userEntry(m) : m.role === 'assistant' ? answerEntry(m) : systemEntry(m));
  }
  return items;
}

function entryHeader(who: string, m: HistoryMessage, ...extras: Child[]): HTMLElement {
  return el('p', { class: 'entry-header' }, el('span', { class: 'who' }, who), timeElement(m.timestamp), ...extras);
}

/** Human takeover: the queue, who holds the open conversation, Take over / Release, the reply box, live messages. */
const handoff = createHandoffConsole({
  agentKey: () => agentKey,
  onUnauthorized: () => signOut('The agent key was not accepted. Sign in again.'),
  openSession: (sessionId) => void openSession(sessionId),
  renderMessages: (messages) => transcriptItems(messages.map((m) => ({ timestamp: new Date().toISOString(), ...m }))),
  onHandlerChanged: () => void loadSessions(true),
});

function userEntry(m: HistoryMessage): HTMLLIElement {
  return el('li', { class: 'entry user' }, entryHeader('Customer', m), el('p', { class: 'text plain customer-text', dir: 'auto' }, m.content));
}

function systemEntry(m: HistoryMessage): HTMLLIElement {
  return el('li', { class: 'entry system' }, entryHeader(m.handoff ? 'Handoff' : m.role, m), el('p', { class: 'text plain' }, m.content));
}

function answerEntry(m: HistoryMessage): HTMLLIElement {
  const confidence = typeof m.confidence === 'number' ? el('span', { class: 'badge' }, `confidence ${m.confidence.toFixed(2)}`) : null;
  const why = describeEscalationReason(m.escalation_reason);
  const escalated = m.escalated ? el('span', { class: 'badge escalated' }, why ? `Escalated: ${why}` : 'Escalated') : null;
  const rated = m.feedback
    ? el('span', { class: `badge rated-${m.feedback.rating}` }, m.feedback.rating === 'up' ? 'Rated helpful' : 'Rated not helpful')
    : null;
  const text = el('div', { class: 'text' });
  renderAnswerText(text, m.content);
  const usage = m.usage
    ? el(
        'span',
        { class: 'badge usage', title: `${m.usage.prompt_tokens} prompt tokens (${m.usage.cached_tokens} served from the prompt cache), ${m.usage.completion_tokens} completion tokens` },
        `${m.usage.prompt_tokens} tokens in (${m.usage.cached_tokens} cached), ${m.usage.completion_tokens} out${typeof m.cost === 'number' ? ` · cost ${formatCost(m.cost)}` : ''}`,
      )
    : null;
  const who = m.author?.type === 'human' ? `${m.author.name} (support team)` : 'Support agent (AI)';
  const entry = el('li', { class: `entry assistant${m.author?.type === 'human' ? ' human' : ''}` }, entryHeader(who, m, confidence, escalated, rated, usage), text);
  if (m.handoff_summary) {
    entry.append(el('blockquote', { class: 'handoff-summary' }, el('strong', {}, 'Summary for the person who takes over: '), customerText(m.handoff_summary)));
  }
  if (m.feedback?.comment) {
    entry.append(el('blockquote', { class: 'feedback-comment' }, el('strong', {}, "Customer's comment: "), customerText(m.feedback.comment)));
  }
  const sources = Array.isArray(m.sources) ? m.sources.filter((s) => typeof s?.title === 'string' && typeof s?.source === 'string') : [];
  if (sources.length > 0) {
    entry.append(
      el(
        'div',
        { class: 'sources' },
        el('p', { class: 'sources-label' }, 'Sources'),
        el(
          'ul',
          {},
          ...sources.map((s) =>
            el(
              'li',
              {},
              sourceLinkOrTitle(s),
              sourcePage(s) !== null ? ` (page ${sourcePage(s)})` : null,
              ' ',
              el('code', {}, s.source),
              typeof s.url === 'string' && s.url !== s.source ? el('span', { class: 'source-url' }, ` ${s.url}`) : null,
              typeof s.score === 'number' ? el('span', { class: 'score' }, ` score ${s.score.toFixed(2)}`) : null,
              whyCited(m.retrieval?.documents?.find((d) => d.source === s.source)),
            ),
          ),
        ),
        m.retrieval ? searchDetails(m.retrieval) : null,
      ),
    );
  }
  return entry;
}

/** One line saying which side of the search put a document there: words (and earlier turns' words), meaning, or both. */
function whyCited(e: RetrievalEvidence | undefined): HTMLElement | null {
  if (!e) return null;
  const words = e.full_text.place === null ? 'no word of the question' : `#${e.full_text.place} by words (${e.full_text.score.toFixed(2)}${e.history.score > 0 ? `, ${e.history.score.toFixed(2)} of it from earlier messages` : ''})`;
  const meaning = `#${e.vectors.place} by meaning (similarity ${e.vectors.similarity.toFixed(2)})`;
  return el('span', { class: 'why-cited' }, `Retrieved #${e.place}, score ${e.score.toFixed(2)}: ${words}; ${meaning}`);
}

/** What the knowledge base was searched with for this answer, folded. */
function searchDetails(r: Retrieval): HTMLDetailsElement {
  return el(
    'details',
    { class: 'search-details' },
    el('summary', {}, `How the knowledge base was searched (${r.method})`),
    el('p', {}, 'Words: ', customerText(r.query)),
    r.vector_query ? el('p', {}, 'Meaning: ', customerText(r.vector_query)) : null,
    ...(r.history ?? []).map((h) => el('p', {}, `Earlier message at weight ${h.weight.toFixed(2)}: `, customerText(h.text))),
  );
}

/** A tool call, folded: its name in the summary, arguments and result inside. */
/**
 * A tool call and its result. For an action or MCP tool the arguments shown are the
 * ones sent, the bound ones (from the verified customer) named as such, and what the
 * model asked for below them: an agent must not read the model's wish as what happened.
 */
function toolDetails(name: string, args: unknown, result: HistoryMessage | undefined, call?: ToolCall): HTMLDetailsElement {
  const argumentText = args === undefined ? '' : prettyJson(args);
  const notSent = call?.not_sent === true;
  const bound = call?.bound ?? [];
  const summaryText = args === undefined ? `Tool result: ${name}` : `Tool call: ${name}(${oneLine(argumentText)})${notSent ? ' (not sent)' : ''}`;
  const showArguments = args !== undefined && !notSent;
  return el(
    'details',
    { class: 'tool-call' },
    el('summary', {}, summaryText),
    showArguments && el('p', { class: 'tool-label' }, call?.model_arguments !== undefined ? 'Arguments as sent' : 'Arguments'),
    showArguments && el('pre', { class: 'tool-arguments-sent' }, argumentText),
    showArguments &&
      bound.length > 0 &&
      el('p', { class: 'tool-bound' }, 'Bound to the signed-in customer (not chosen by the model): ', ...bound.map((b) => el('code', { class: 'badge bound' }, b))),
    notSent && el('p', { class: 'tool-label tool-not-sent' }, 'Not sent: the tool called nothing'),
    call?.model_arguments !== undefined && el('p', { class: 'tool-label' }, 'The model asked for'),
    call?.model_arguments !== undefined && el('pre', { class: 'tool-arguments-model' }, prettyJson(call.model_arguments)),
    el('p', { class: 'tool-label' }, 'Result'),
    el('pre', {}, result ? prettyJson(result.content) : 'No result stored for this call.'),
  );
}

/** JSON (or a string holding JSON) indented for reading; any other text as it is. */
function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

const knowledge = knowledgePage({
  authorization: () => ({ authorization: `Bearer ${agentKey ?? ''}` }),
  onUnauthorized: () => signOut('The agent key was not accepted. Sign in again.'),
  formatTime: (iso) => timeElement(iso),
});

const tools = toolsPage({
  authorization: () => ({ authorization: `Bearer ${agentKey ?? ''}` }),
  onUnauthorized: () => signOut('The agent key was not accepted. Sign in again.'),
});

function timeElement(iso: string): HTMLTimeElement {
  const date = new Date(iso);
  const valid = !Number.isNaN(date.getTime());
  return el('time', { datetime: valid ? date.toISOString() : undefined }, valid ? dateFormat.format(date) : String(iso));
}

/** Opens the conversation named in the address (#session=…), so a link or a reload shows it again. */
function openSessionFromAddress(): void {
  const match = /^#session=(.+)$/.exec(location.hash);
  if (!match) return;
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(match[1]!);
  } catch {
    return; // a malformed address: nothing to open
  }
  void openSession(sessionId, false);
}

// --- start ---------------------------------------------------------------------

if (agentKey) {
  showConsole();
  void loadSessions(true);
  openSessionFromAddress();
} else {
  keyInput.focus();
}

/** A cited source's title, as a link (new tab) to where it came from when it has a web address. */
function sourceLinkOrTitle(s: Source): HTMLElement {
  const href = sourceHref(s);
  return href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, s.title) : el('strong', {}, s.title);
}
