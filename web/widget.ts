/**
 * The customer chat widget. A shop embeds it with one tag:
 *
 *   <script src="https://support.example.com/widget.js" data-title="Pine &amp; Pebble support" defer></script>
 *
 * data-api-base: where the API is (default: where widget.js came from);
 * data-title: the panel's heading (default: the shop file's words.widget.title, which the server fills in);
 * data-user-id: the shop's id for its customer (optional): a label shown to agents, it unlocks nothing;
 * data-user-token: the signed token the shop's backend issued for its signed-in customer (optional), sent as
 *   X-Customer-Token with every request: with it the assistant may answer about that customer's orders and account.
 *
 * It renders into a shadow root, so the shop's CSS and the widget's never mix.
 * Answers stream over POST /api/v1/chat/stream (fetch, since EventSource cannot
 * POST). The session id and its token are kept in localStorage, so a reload shows
 * the conversation again and continues it; the agent key never comes near it.
 */
import { apiErrorOf, ApiError, getJson } from './api';
import { el, renderAnswerText, sourceHref, sourcePage, type CitedSource } from './dom';
import { DEFAULT_LABELS, DEFAULT_WIDGET_WORDS, fill, RIGHT_TO_LEFT, widgetLabels, type WidgetLabels } from '../src/shop/widget-labels';
import { handoffNoteText, LiveConnection, readEvents, type LiveMessage, type LiveReady } from './handoff-live';

interface WidgetConfig {
  apiBase: string;
  title: string;
  userId: string | undefined;
  /** The shop's signed customer token (a JWT), sent as X-Customer-Token. */
  userToken: string | undefined;
}

type Source = CitedSource;

/** What the widget remembers of a conversation between page loads. */
interface StoredSession {
  session_id: string;
  session_token: string;
}

/** The `done` event's payload, as far as the widget uses it (the same as POST /api/v1/chat). */
interface ChatAnswer {
  session_id: string;
  message_id: string;
  session_token?: string;
  response: string;
  escalated: boolean;
  sources: Source[];
}

/** GET /api/v1/chat/conversation/:session_id: the customer's own view of it. */
interface Conversation {
  handler?: 'bot' | 'human';
  agent_name?: string | null;
  support?: LiveReady['support'];
  messages: (LiveMessage & {
    sources?: Source[];
    escalated?: boolean;
    feedback?: { rating: Rating } | null;
  })[];
}

/** POST /chat/stream's `queued` event: a person holds the conversation and will answer it. */
interface Queued {
  session_id: string;
  agent_name: string;
  message_id: string;
}

type Rating = 'up' | 'down';

/** The API's message limit (MESSAGE_MAX_CHARS' default); the server checks it again. */
const MESSAGE_MAX_CHARS = 4000;
const SESSION_TOKEN_HEADER = 'X-Session-Token';
const CUSTOMER_TOKEN_HEADER = 'X-Customer-Token';
/**
 * The shop's words (the shop file's `words.widget`, and `words.<lang>.widget` for
 * each other language, as `{default_language, sets: {<lang>: words}}`): the server
 * writes them over this literal as it serves widget.js. Left as it is (the file
 * served from elsewhere), the defaults below apply.
 */
const SHOP_WIDGET_WORDS = '__SHOP_WIDGET_WORDS__';

interface WidgetWords {
  title: string;
  subtitle: string;
  /** `{title}` becomes the panel's title. */
  welcome: string;
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: string;
  /** The widget's own words (widget-labels.ts names them), complete in every set the server sends. */
  labels: WidgetLabels;
}

const DEFAULT_WORDS: WidgetWords = {
  ...DEFAULT_WIDGET_WORDS,
  title: DEFAULT_LABELS.support,
  labels: { ...DEFAULT_LABELS },
};

/** The page's language (its `lang`), then the browser's, as two-letter codes, in that order. */
function customerLanguages(): string[] {
  const tags = [document.documentElement.lang, ...(navigator.languages ?? []), navigator.language];
  const codes = tags.map((tag) => (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '').filter((code) => /^[a-z]{2}$/.test(code));
  return [...new Set(codes)];
}

/**
 * The words in the customer's language (the page's `lang`, then the browser's) when the
 * server sent a set for it (the built-in languages and the shop file's), else in the shop's
 * default language; each field checked, else English; and the language they are in.
 */
function shopWidgetWords(): { words: WidgetWords; language: string } {
  let given: { default_language?: unknown; sets?: Record<string, Partial<Record<keyof WidgetWords, unknown>>> } = {};
  try {
    given = JSON.parse(SHOP_WIDGET_WORDS) as typeof given;
  } catch {
    // not filled in: the defaults
  }
  const sets = given.sets && typeof given.sets === 'object' ? given.sets : {};
  const defaultLanguage = typeof given.default_language === 'string' ? given.default_language : 'en';
  const language = customerLanguages().find((code) => Object.hasOwn(sets, code)) ?? defaultLanguage;
  const chosen = sets[language] ?? {};
  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() ? value.trim() : fallback);
  return {
    language,
    words: {
      title: text(chosen.title, DEFAULT_WORDS.title),
      subtitle: text(chosen.subtitle, DEFAULT_WORDS.subtitle),
      welcome: text(chosen.welcome, DEFAULT_WORDS.welcome),
      outside_hours: text(chosen.outside_hours, DEFAULT_WORDS.outside_hours),
      labels: widgetLabels(chosen.labels),
    },
  };
}

const { words: WORDS, language: WORDS_LANGUAGE } = shopWidgetWords();
const LABELS = WORDS.labels;
/**
 * Sent as Accept-Language with every question: the page's language first, then the
 * browser's. The service answers in the language the customer writes; this only
 * decides when a message is too short to tell ("ok").
 */
const LANGUAGE_HINT = customerLanguages()
  .slice(0, 5)
  .map((code, i) => (i === 0 ? code : `${code};q=${(1 - i / 10).toFixed(1)}`))
  .join(',');
const DEFAULT_SUBTITLE = WORDS.subtitle;

start();

function start(): void {
  const marker = '__supportAgentWidget';
  const flags = window as unknown as Record<string, boolean>;
  if (flags[marker]) return; // the tag was included twice
  flags[marker] = true;
  const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript : null;
  const config = readConfig(script);
  if (document.body) mount(config);
  else document.addEventListener('DOMContentLoaded', () => mount(config), { once: true });
}

/** The data-* attributes of the script tag, with safe defaults for missing or bad values. */
function readConfig(script: HTMLScriptElement | null): WidgetConfig {
  const scriptOrigin = script?.src ? new URL(script.src, location.href).origin : location.origin;
  const apiBase = parseApiBase(script?.dataset['apiBase']?.trim(), scriptOrigin);
  // A page's data-title wins over the shop file's title.
  const title = script?.dataset['title']?.trim().slice(0, 80) || WORDS.title.slice(0, 80);
  const userId = script?.dataset['userId']?.trim() || undefined;
  const userToken = script?.dataset['userToken']?.trim() || undefined;
  return { apiBase, title, userId, userToken };
}

function parseApiBase(value: string | undefined, fallback: string): string {
  if (!value) return fallback;
  try {
    const url = new URL(value, location.href);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported protocol ${url.protocol}`);
    return url.href.replace(/\/+$/, '');
  } catch (error) {
    console.error(`Support widget: data-api-base "${value}" is not a web address; using ${fallback}.`, error);
    return fallback;
  }
}

/** localStorage can be missing or throw (privacy modes): then the session lives as long as the page. */
function sessionStore(key: string) {
  let inMemory: StoredSession | null = null;
  return {
    load(): StoredSession | null {
      try {
        const raw = localStorage.getItem(key);
        if (raw === null) return inMemory;
        const value = JSON.parse(raw) as Partial<StoredSession>;
        if (typeof value.session_id === 'string' && typeof value.session_token === 'string') return value as StoredSession;
        localStorage.removeItem(key); // not ours, or an old format: start afresh
      } catch {
        // unreadable storage or broken JSON: use what this page knows
      }
      return inMemory;
    },
    save(session: StoredSession): void {
      inMemory = session;
      try {
        localStorage.setItem(key, JSON.stringify(session));
      } catch {
        // storage full or blocked: the conversation still works until the page is left
      }
    },
    clear(): void {
      inMemory = null;
      try {
        localStorage.removeItem(key);
      } catch {
        // nothing stored to clear
      }
    },
  };
}

function mount(config: WidgetConfig): void {
  // Per signed-in customer too, and never shared between a guest and a signed-in customer: on a shared
  // computer the next visitor must not continue this one's conversation.
  const storageKey = `support-widget:${config.apiBase}${storageScope(config)}`;
  const sessions = sessionStore(storageKey);
  const openStateKey = `${storageKey}:open`;

  // The widget speaks its words' language, whatever the page's; right to left for Arabic and Hebrew.
  const host = el('div', { 'data-support-widget': '', lang: WORDS_LANGUAGE, dir: RIGHT_TO_LEFT.has(WORDS_LANGUAGE) ? 'rtl' : 'ltr' });
  const root = host.attachShadow({ mode: 'open' });
  adoptStyles(root, WIDGET_CSS);

  const subtitle = el('p', { class: 'subtitle' }, DEFAULT_SUBTITLE);
  const launcher = el(
    'button',
    { type: 'button', class: 'launcher', 'aria-expanded': 'false', 'aria-controls': 'panel' },
    chatIcon(),
    LABELS.open,
  );
  const closeButton = el('button', { type: 'button', class: 'close', 'aria-label': LABELS.close }, '×');
  const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': LABELS.conversation, tabindex: '0' });
  const status = el('p', { class: 'status', role: 'status' });
  const input = el('textarea', {
    id: 'message',
    rows: '1',
    maxlength: String(MESSAGE_MAX_CHARS),
    placeholder: LABELS.placeholder,
    autocomplete: 'off',
  });
  const sendButton = el('button', { type: 'submit', class: 'send' }, LABELS.send);
  const form = el(
    'form',
    { class: 'composer' },
    el('label', { for: 'message', class: 'visually-hidden' }, LABELS.your_message),
    input,
    sendButton,
  );
  const panel = el(
    'section',
    { id: 'panel', class: 'panel', 'aria-labelledby': 'panel-title', hidden: true },
    el(
      'header',
      { class: 'panel-header' },
      el('div', {}, el('h2', { id: 'panel-title' }, config.title), subtitle),
      closeButton,
    ),
    log,
    status,
    form,
  );
  root.append(panel, launcher);
  document.body.append(host);

  let restored = false;
  let streaming = false;
  /** Whether people answer now (from the read-back or the live connection), for the escalation note. */
  let support: LiveReady['support'] | null = null;
  /** The newest message this page shows, where the live connection resumes. */
  let newestSeq = 0;
  let live: LiveConnection | null = null;
  /** Messages shown already (the read-back and the live connection may both bring one). */
  const shown = new Set<string>();

  /** Who answers: the subtitle names the person while one holds the conversation. */
  function showHandler(handler: 'bot' | 'human' | undefined, agentName: string | null | undefined): void {
    subtitle.textContent = handler === 'human' && agentName ? fill(LABELS.answering, { name: agentName }) : DEFAULT_SUBTITLE;
    panel.dataset['handler'] = handler ?? 'bot';
  }

  /** Opens the conversation's live connection (while the panel is open), resuming after the newest message shown. */
  function goLive(): void {
    const session = sessions.load();
    if (!session || panel.hidden) return;
    if (live) return;
    live = new LiveConnection({
      url: `${config.apiBase}/api/v1/chat/conversation/${encodeURIComponent(session.session_id)}/events`,
      headers: { [SESSION_TOKEN_HEADER]: session.session_token, ...customerHeader(config) },
      afterSeq: newestSeq,
      onReady: (ready) => {
        support = ready.support ?? null;
        showHandler(ready.handler, ready.agent_name);
        refreshHandoffNotes();
      },
      onMessage: (message) => {
        newestSeq = Math.max(newestSeq, message.seq);
        // The bot's answers and the customer's own messages arrive by the page's own requests.
        if (shown.has(message.id) || (!message.handoff && message.author?.type !== 'human')) return;
        shown.add(message.id);
        if (message.handoff) showHandler(message.handoff.handler, message.handoff.agent_name);
        log.append(liveBubble(message));
        scrollToEnd();
      },
      onState: (state) => {
        panel.dataset['live'] = state;
        if (state === 'stopped') live = null;
      },
    });
    live.start();
  }

  function stopLive(): void {
    live?.stop();
    live = null;
  }

  /** Rewrites the escalation notes once it is known whether people answer now. */
  function refreshHandoffNotes(): void {
    const note = handoffNoteText(support, WORDS.outside_hours, LABELS, WORDS_LANGUAGE);
    for (const p of log.querySelectorAll('.handoff')) p.replaceChildren(el('strong', {}, note.lead), note.text);
  }

  function setOpen(open: boolean, focus: boolean): void {
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    try {
      sessionStorage.setItem(openStateKey, open ? '1' : '0');
    } catch {
      // the panel just starts closed on the next page
    }
    if (open && !restored) {
      restored = true;
      void restoreConversation().then(goLive);
    } else if (open) {
      goLive();
    } else {
      stopLive();
    }
    if (focus) (open ? input : launcher).focus();
  }

  function showStatus(text: string, kind: 'info' | 'error' = 'info'): void {
    status.textContent = text;
    status.className = `status ${kind}`;
  }

  /** Shows the earlier messages of the stored session, if the server still knows it. */
  async function restoreConversation(): Promise<void> {
    const session = sessions.load();
    if (!session) return showWelcome();
    showStatus(LABELS.loading);
    try {
      const conversation = await getJson<Conversation>(
        `${config.apiBase}/api/v1/chat/conversation/${encodeURIComponent(session.session_id)}`,
        { [SESSION_TOKEN_HEADER]: session.session_token, ...customerHeader(config) },
      );
      const messages = Array.isArray(conversation.messages) ? conversation.messages : [];
      support = conversation.support ?? null;
      showHandler(conversation.handler, conversation.agent_name);
      // The customer may have sent a message while this loaded: keep those after the earlier ones.
      const sentMeanwhile = [...log.children];
      log.replaceChildren();
      for (const message of messages) {
        if (typeof message.seq === 'number') newestSeq = Math.max(newestSeq, message.seq);
        if (typeof message.id === 'string') shown.add(message.id);
        if (message.role === 'user') log.append(userBubble(String(message.content)));
        else if (message.handoff || message.author?.type === 'human') log.append(liveBubble(message));
        else if (message.role === 'assistant') {
          const answer = finishedAnswer(String(message.content), message.sources, message.escalated === true, support);
          if (typeof message.id === 'string') answer.append(ratingButtons(session, message.id, message.feedback?.rating ?? null));
          log.append(answer);
        }
      }
      if (messages.length === 0) showWelcome();
      log.append(...sentMeanwhile);
      showStatus('');
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
        // The server no longer knows this session (or its token): start a new one.
        sessions.clear();
        showStatus('');
        showWelcome();
      } else {
        showStatus(LABELS.history_failed, 'error');
      }
    }
    scrollToEnd();
  }

  /**
   * "Helpful" / "Not helpful" under an answer: toggle buttons (aria-pressed) that
   * send the rating (POST /api/v1/chat/feedback with the session token). Rating
   * again replaces the earlier rating.
   */
  function ratingButtons(session: StoredSession, messageId: string, current: Rating | null): HTMLElement {
    const group = el('div', { class: 'rating', role: 'group', 'aria-label': LABELS.rating_question });
    const buttons = new Map<Rating, HTMLButtonElement>();
    const show = (rating: Rating | null) => {
      for (const [value, button] of buttons) button.setAttribute('aria-pressed', String(value === rating));
    };
    for (const [rating, label] of [
      ['up', LABELS.helpful],
      ['down', LABELS.not_helpful],
    ] as const) {
      const button = el('button', { type: 'button', class: `rate rate-${rating}`, 'aria-pressed': 'false' }, thumbIcon(rating), label);
      button.addEventListener('click', async () => {
        if (button.getAttribute('aria-pressed') === 'true') return;
        for (const b of buttons.values()) b.disabled = true;
        try {
          const response = await fetch(`${config.apiBase}/api/v1/chat/feedback`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: session.session_token, ...customerHeader(config) },
            body: JSON.stringify({ session_id: session.session_id, message_id: messageId, rating }),
          });
          if (!response.ok) throw await apiErrorOf(response);
          show(rating);
          showStatus(LABELS.feedback_thanks);
        } catch {
          showStatus(LABELS.feedback_failed, 'error');
        } finally {
          for (const b of buttons.values()) b.disabled = false;
        }
      });
      buttons.set(rating, button);
      group.append(button);
    }
    show(current);
    return group;
  }

  function showWelcome(): void {
    if (log.childElementCount > 0) return;
    const welcome = el('div', { class: 'message assistant welcome' });
    renderAnswerText(welcome, fill(WORDS.welcome, { title: config.title }));
    log.append(welcome);
  }

  function scrollToEnd(): void {
    log.scrollTop = log.scrollHeight;
  }

  /**
   * Follows a growing answer down, but never past its question: a long answer is
   * then read from its start instead of being scrolled away while it streams.
   */
  function followAnswer(question: HTMLElement): void {
    const questionOffset = question.getBoundingClientRect().top - log.getBoundingClientRect().top - 12;
    log.scrollTop = Math.min(log.scrollTop + questionOffset, log.scrollHeight - log.clientHeight);
  }

  async function send(text: string): Promise<void> {
    streaming = true;
    sendButton.disabled = true;
    showStatus('');
    const question = userBubble(text);
    const answer = el('div', { class: 'message assistant', 'aria-busy': 'true' });
    const answerText = el('div', { class: 'text' }, typingIndicator());
    answer.append(el('span', { class: 'visually-hidden' }, `${LABELS.support}: `), answerText);
    log.append(question, answer);
    followAnswer(question);

    const session = sessions.load();
    let streamed = '';
    let renderScheduled = false;
    const renderStreamed = () => {
      renderScheduled = false;
      renderAnswerText(answerText, streamed);
      followAnswer(question);
    };

    try {
      const response = await postStream(config, text, session);
      if (!response.ok) throw await apiErrorOf(response);
      if (!response.body) throw new ApiError(response.status, 'bad_response', 'The answer could not be read.');
      let finished: ChatAnswer | null = null;
      let queued: Queued | null = null;
      for await (const event of readEvents(response.body)) {
        if (event.event === 'token') {
          const delta = parseData<{ delta?: unknown }>(event.data)?.delta;
          if (typeof delta !== 'string') continue;
          streamed += delta;
          // Draw once per frame however fast the pieces come.
          if (!renderScheduled) {
            renderScheduled = true;
            requestAnimationFrame(renderStreamed);
          }
        } else if (event.event === 'sources') {
          renderSources(answer, parseData<{ sources?: unknown }>(event.data)?.sources);
        } else if (event.event === 'queued') {
          queued = parseData<Queued>(event.data);
        } else if (event.event === 'done') {
          finished = parseData<ChatAnswer>(event.data);
        } else if (event.event === 'error') {
          const failure = parseData<{ code?: unknown; message?: unknown }>(event.data);
          throw new ApiError(500, String(failure?.code ?? 'stream_error'), String(failure?.message ?? 'Something went wrong.'));
        }
      }
      if (queued && typeof queued.message_id === 'string') {
        // A person holds the conversation: the message is theirs to answer, on the live connection.
        shown.add(queued.message_id);
        answer.remove();
        showStatus(fill(LABELS.queued, { agent: queued.agent_name || LABELS.support_team }));
        goLive();
        return;
      }
      if (!finished || typeof finished.response !== 'string' || typeof finished.session_id !== 'string') {
        throw new ApiError(0, 'stream_interrupted', 'The answer was interrupted.');
      }
      // The stored session changes only with an answer that completed (the server saved it).
      const token = finished.session_token ?? (session?.session_id === finished.session_id ? session.session_token : undefined);
      if (token) sessions.save({ session_id: finished.session_id, session_token: token });
      shown.add(finished.message_id);
      const done = finishedAnswer(finished.response, finished.sources, finished.escalated === true, support);
      const saved = sessions.load();
      if (saved && typeof finished.message_id === 'string') done.append(ratingButtons(saved, finished.message_id, null));
      answer.replaceWith(done);
      // From the first answer on, a person's replies can come at any time.
      goLive();
    } catch (error) {
      answer.remove();
      question.remove();
      input.value = input.value || text; // give the question back, so it is not lost
      if (error instanceof ApiError && error.status === 401 && session) {
        sessions.clear();
        showStatus(LABELS.session_lost, 'error');
      } else {
        showStatus(describeFailure(error), 'error');
      }
    } finally {
      streaming = false;
      sendButton.disabled = false;
      if (question.isConnected) followAnswer(question);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (streaming) return;
    if (!text) {
      showStatus(LABELS.type_first, 'error');
      input.focus();
      return;
    }
    input.value = '';
    resizeInput();
    void send(text);
  });
  // Enter sends, Shift+Enter starts a new line (IME composition keeps its own Enter).
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  const resizeInput = () => {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 140)}px`;
  };
  input.addEventListener('input', resizeInput);
  launcher.addEventListener('click', () => setOpen(panel.hidden, true));
  closeButton.addEventListener('click', () => setOpen(false, true));
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') setOpen(false, true);
  });

  let wasOpen = false;
  try {
    wasOpen = sessionStorage.getItem(openStateKey) === '1';
  } catch {
    // start closed
  }
  if (wasOpen) setOpen(true, false);
}

/** The customer token header, on every request of a signed-in customer. */
function customerHeader(config: WidgetConfig): Record<string, string> {
  return config.userToken ? { [CUSTOMER_TOKEN_HEADER]: config.userToken } : {};
}

/**
 * Whose conversations a storage key holds: the token's customer (its `sub`, read
 * but not trusted: the server verifies the token), else the user_id label, else
 * the guest's (no suffix).
 */
function storageScope(config: WidgetConfig): string {
  if (config.userToken) return `:customer:${tokenSubject(config.userToken) ?? 'signed-in'}`;
  return config.userId ? `:user:${config.userId}` : '';
}

function tokenSubject(token: string): string | null {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' && sub !== '' ? sub : null;
  } catch {
    return null;
  }
}

function postStream(config: WidgetConfig, message: string, session: StoredSession | null): Promise<Response> {
  // With a token the token says who the customer is; a user_id beside it could only disagree.
  const userId = config.userToken ? undefined : config.userId;
  const body = { message, ...(session && { session_id: session.session_id }), ...(userId && { user_id: userId }) };
  return fetch(`${config.apiBase}/api/v1/chat/stream`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(LANGUAGE_HINT && { 'accept-language': LANGUAGE_HINT }),
      ...(session && { [SESSION_TOKEN_HEADER]: session.session_token }),
      ...customerHeader(config),
    },
    body: JSON.stringify(body),
  });
}

/** An event's JSON data, or null when it is not JSON (such an event is skipped). */
function parseData<T>(data: string): T | null {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' ? (value as T) : null;
  } catch {
    return null;
  }
}

/** Limits the customer hit: `order_proof_limited` arrives as a stream's error event, whose status the widget sets to 500. */
const LIMIT_CODES = new Set(['rate_limited', 'order_proof_limited']);

/**
 * What the customer reads when a message failed, in the shop's words for their language: the
 * service's own message (English) only for a refusal of the request itself, which the widget's
 * checks (length, emptiness) make rare.
 */
function describeFailure(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'stream_interrupted') return LABELS.interrupted;
    if (error.status === 0) return LABELS.unreachable;
    if (error.status === 429 || LIMIT_CODES.has(error.code)) return LABELS.too_many;
    if (error.status >= 500 || error.code === 'bad_response') return LABELS.unavailable;
    return fill(LABELS.failed, { reason: error.message });
  }
  // fetch rejects with a TypeError when the network is down or the request was blocked
  return LABELS.unreachable;
}

function userBubble(text: string): HTMLElement {
  return el('div', { class: 'message user' }, el('span', { class: 'visually-hidden' }, `${LABELS.you}: `), el('div', { class: 'text' }, text));
}

/** A person's reply, named ("Maria from support"), or the note that a person joined or left, in the widget's language. */
function liveBubble(message: LiveMessage): HTMLElement {
  if (message.handoff) return el('p', { class: 'note', 'data-seq': String(message.seq) }, handoffNote(message.handoff));
  const name = message.author?.type === 'human' ? message.author.name : LABELS.support;
  const bubble = el('div', { class: 'message assistant human', 'data-seq': String(message.seq) });
  const text = el('div', { class: 'text' });
  renderAnswerText(text, String(message.content));
  bubble.append(el('p', { class: 'author' }, fill(LABELS.from_support, { name })), text);
  return bubble;
}

/** The note of a takeover or a release, written from who holds the conversation (the stored note is the service's English). */
function handoffNote(handoff: NonNullable<LiveMessage['handoff']>): string {
  if (handoff.handler === 'bot') return LABELS.handed_back;
  return fill(LABELS.joined, { name: handoff.agent_name || LABELS.support_team });
}

function finishedAnswer(text: string, sources: unknown, escalated: boolean, support: LiveReady['support'] | null): HTMLElement {
  const answer = el('div', { class: 'message assistant' });
  const answerText = el('div', { class: 'text' });
  renderAnswerText(answerText, text);
  answer.append(el('span', { class: 'visually-hidden' }, `${LABELS.support}: `), answerText);
  renderSources(answer, sources);
  if (escalated) {
    const note = handoffNoteText(support, WORDS.outside_hours, LABELS, WORDS_LANGUAGE);
    answer.append(el('p', { class: 'handoff' }, el('strong', {}, note.lead), note.text));
  }
  return answer;
}

/** Replaces the answer's list of sources (each shown once, by title, with its path or address and page; a link in a new tab when it has a web address). */
function renderSources(answer: HTMLElement, sources: unknown): void {
  answer.querySelector('.sources')?.remove();
  const valid = (Array.isArray(sources) ? sources : []).filter(
    (s): s is Source => typeof s?.title === 'string' && typeof s?.source === 'string',
  );
  if (valid.length === 0) return;
  const items = valid.map((s) => {
    const href = sourceHref(s);
    const page = sourcePage(s);
    return el(
      'li',
      {},
      href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, s.title) : el('span', { class: 'source-title' }, s.title),
      page !== null ? el('span', { class: 'source-page' }, ` ${fill(LABELS.page, { page })}`) : null,
      ' ',
      el('span', { class: 'source-path' }, s.source),
    );
  });
  const list = el('div', { class: 'sources' }, el('p', { class: 'sources-label' }, LABELS.sources), el('ul', {}, ...items));
  const handoff = answer.querySelector('.handoff');
  if (handoff) answer.insertBefore(list, handoff);
  else answer.append(list);
}

/** A 24×24 icon drawn inline from one path (no image request, no emoji font needed); hidden from screen readers, the button's text names it. */
function inlineIcon(pathData: string, size?: number): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  if (size !== undefined) {
    svg.setAttribute('width', String(size));
    svg.setAttribute('height', String(size));
  }
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('fill', 'currentColor');
  path.setAttribute('d', pathData);
  svg.append(path);
  return svg;
}

/** A thumb up or down. */
function thumbIcon(direction: Rating): SVGSVGElement {
  const svg = inlineIcon(
    'M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z',
  );
  if (direction === 'down') svg.setAttribute('transform', 'rotate(180)');
  return svg;
}

/** A speech bubble. */
function chatIcon(): SVGSVGElement {
  return inlineIcon(
    'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 6a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm5 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3z',
    20,
  );
}

function typingIndicator(): HTMLElement {
  return el(
    'span',
    { class: 'typing' },
    el('span', { class: 'visually-hidden' }, LABELS.typing),
    el('span', { class: 'dot', 'aria-hidden': 'true' }),
    el('span', { class: 'dot', 'aria-hidden': 'true' }),
    el('span', { class: 'dot', 'aria-hidden': 'true' }),
  );
}

/**
 * A constructed stylesheet where the browser has them: a shop's Content Security
 * Policy may forbid inline <style> elements but does not cover adopted sheets.
 */
function adoptStyles(root: ShadowRoot, css: string): void {
  if ('adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else {
    root.append(el('style', {}, css));
  }
}
