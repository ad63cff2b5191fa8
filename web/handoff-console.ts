/**
 * The review console's human takeover: the Waiting queue (escalated
 * conversations nobody holds, newest first, with how long each has waited),
 * who holds the open conversation, Take over / Release, the reply box (Enter
 * sends, Shift+Enter starts a new line), and the open conversation's new
 * messages as they arrive (its event stream, with the agent key).
 */
import { ApiError, apiErrorOf, getJson } from './api';
import { el } from './dom';
import { LiveConnection, type LiveMessage } from './handoff-live';

/** A row of GET /api/v1/chat/sessions, as far as the queue uses it. */
export interface HandoffSummary {
  session_id: string;
  title: string | null;
  last_message: string | null;
  handler?: 'bot' | 'human';
  agent_name?: string | null;
  waiting_since?: string | null;
  /** Why the conversation was last escalated (docs/escalation.md). */
  escalation_reason?: string | null;
  /** The summary for the person who takes over: the model's (hand_off_to_person), or the service's when the judge handed over. */
  handoff_summary?: string | null;
}

/** How the console names an escalation reason; an unknown one is shown as it came. */
export function describeEscalationReason(reason: string | null | undefined): string | null {
  if (!reason) return null;
  const names: Record<string, string> = {
    not_in_help_center: 'not in the help center',
    customer_asked: 'the customer asked for a person',
    model: 'the assistant handed it over',
    tool_failed: "a shop's system failed",
    knowledge_unavailable: 'the knowledge base was unavailable',
  };
  return names[reason] ?? reason;
}

export interface HandoffConsoleParts {
  agentKey(): string | null;
  /** The key was refused: the console signs out. */
  onUnauthorized(): void;
  /** Opens a conversation in the detail pane. */
  openSession(sessionId: string): void;
  /** The transcript entries of messages that arrived live. */
  renderMessages(messages: LiveMessage[]): HTMLElement[];
  /** A person took over or released a conversation: the list shows it. */
  onHandlerChanged(): void;
}

const NAME_STORAGE = 'support-review:agent-name';
const QUEUE_REFRESH_MS = 10_000;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function createHandoffConsole(parts: HandoffConsoleParts) {
  const waitingList = byId<HTMLUListElement>('waiting-list');
  const waitingStatus = byId<HTMLElement>('waiting-status');
  const bar = byId<HTMLElement>('handoff');
  const holder = byId<HTMLElement>('holder');
  const nameInput = byId<HTMLInputElement>('agent-name');
  const takeOverButton = byId<HTMLButtonElement>('take-over');
  const releaseButton = byId<HTMLButtonElement>('release');
  const replyForm = byId<HTMLFormElement>('reply-form');
  const replyInput = byId<HTMLTextAreaElement>('reply');
  const handoffStatus = byId<HTMLElement>('handoff-status');
  const transcript = byId<HTMLOListElement>('transcript');

  let sessionId: string | null = null;
  let handler: 'bot' | 'human' = 'bot';
  let agentName: string | null = null;
  let live: LiveConnection | null = null;
  let queueTimer: ReturnType<typeof setInterval> | undefined;
  const shown = new Set<string>();

  try {
    nameInput.value = sessionStorage.getItem(NAME_STORAGE) ?? '';
  } catch {
    // no stored name: the agent types it
  }

  const headers = () => ({ authorization: `Bearer ${parts.agentKey() ?? ''}` });

  async function post<T>(path: string, body: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(path, { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch {
      throw new ApiError(0, 'network_error', 'The server could not be reached. Check the connection and try again.');
    }
    if (response.status === 401) parts.onUnauthorized();
    if (!response.ok) throw await apiErrorOf(response);
    return (await response.json()) as T;
  }

  /** Who holds the conversation, and what this agent can do about it. */
  function showHolder(): void {
    const mine = handler === 'human' && agentName !== null && agentName === nameInput.value.trim();
    holder.textContent = handler === 'human' ? `Held by ${agentName}${mine ? ' (you)' : ''}` : 'Answered by the bot';
    bar.dataset['handler'] = handler;
    takeOverButton.hidden = mine;
    takeOverButton.textContent = handler === 'human' ? `Take over from ${agentName}` : 'Take over';
    releaseButton.hidden = handler !== 'human';
    replyForm.hidden = !mine;
  }

  function say(text: string, kind: 'info' | 'error' = 'info'): void {
    handoffStatus.textContent = text;
    handoffStatus.className = `status ${kind}`;
  }

  takeOverButton.addEventListener('click', async () => {
    const name = nameInput.value.trim();
    if (!sessionId) return;
    if (!name) {
      say('Enter your name first: the customer sees it with your replies.', 'error');
      nameInput.focus();
      return;
    }
    try {
      sessionStorage.setItem(NAME_STORAGE, name);
    } catch {
      // asked again next time
    }
    takeOverButton.disabled = true;
    try {
      // Taking it from another person is a second, deliberate click (the button says from whom).
      const taken = await post<{ agent_name: string }>(`/api/v1/conversations/${encodeURIComponent(sessionId)}/takeover`, {
        agent_name: name,
        ...(handler === 'human' && { force: true }),
      });
      handler = 'human';
      agentName = taken.agent_name;
      showHolder();
      say('You hold this conversation: the bot does not answer it until you release it.');
      replyInput.focus();
      parts.onHandlerChanged();
      void refreshQueue();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conversation_held') {
        say(`${error.message}`, 'error');
        reloadHolder();
      } else say(`Could not take over: ${messageOf(error)}`, 'error');
    } finally {
      takeOverButton.disabled = false;
    }
  });

  releaseButton.addEventListener('click', async () => {
    if (!sessionId) return;
    releaseButton.disabled = true;
    try {
      await post(`/api/v1/conversations/${encodeURIComponent(sessionId)}/release`, {});
      handler = 'bot';
      agentName = null;
      showHolder();
      say('Released: the bot answers the customer again.');
      takeOverButton.focus();
      parts.onHandlerChanged();
    } catch (error) {
      say(`Could not release: ${messageOf(error)}`, 'error');
    } finally {
      releaseButton.disabled = false;
    }
  });

  replyForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const content = replyInput.value.trim();
    if (!sessionId || !content) return;
    replyInput.value = '';
    try {
      const stored = await post<LiveMessage>(`/api/v1/conversations/${encodeURIComponent(sessionId)}/replies`, {
        content,
        agent_name: nameInput.value.trim(),
      });
      append(stored);
      say('');
    } catch (error) {
      replyInput.value = replyInput.value || content; // not lost
      say(`Your reply was not sent: ${messageOf(error)}`, 'error');
      if (error instanceof ApiError && error.status === 409) reloadHolder();
    }
  });
  // Enter sends, Shift+Enter starts a new line (IME composition keeps its own Enter).
  replyInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      replyForm.requestSubmit();
    }
  });
  nameInput.addEventListener('input', showHolder);

  function append(message: LiveMessage): void {
    if (shown.has(message.id)) return;
    shown.add(message.id);
    transcript.append(...parts.renderMessages([message]));
    transcript.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }

  /** Someone else changed hands meanwhile: ask the list who holds it now. */
  async function reloadHolder(): Promise<void> {
    if (!sessionId) return;
    const current = sessionId;
    try {
      const page = await getJson<{ sessions: HandoffSummary[] }>(`/api/v1/chat/sessions?${new URLSearchParams({ q: current, limit: '20' })}`, headers());
      const found = page.sessions.find((s) => s.session_id === current);
      if (found && current === sessionId) {
        handler = found.handler ?? 'bot';
        agentName = found.agent_name ?? null;
        showHolder();
      }
    } catch {
      // the holder line stays as it was
    }
  }

  // --- the Waiting queue ----------------------------------------------------------

  async function refreshQueue(): Promise<void> {
    if (!parts.agentKey()) return;
    try {
      const page = await getJson<{ sessions: HandoffSummary[] }>('/api/v1/chat/sessions?waiting=true&limit=50', headers());
      const waiting = (Array.isArray(page.sessions) ? page.sessions : [])
        .filter((s) => typeof s?.session_id === 'string')
        .sort((a, b) => Date.parse(b.waiting_since ?? '') - Date.parse(a.waiting_since ?? ''));
      waitingList.replaceChildren(...waiting.map(waitingItem));
      waitingStatus.textContent = waiting.length === 0 ? 'Nobody is waiting for a person.' : `${waiting.length} waiting for a person.`;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) parts.onUnauthorized();
      else waitingStatus.textContent = `The queue could not be loaded: ${messageOf(error)}`;
    }
  }

  function waitingItem(s: HandoffSummary): HTMLLIElement {
    const button = el(
      'button',
      { type: 'button', class: 'session waiting', 'data-session-id': s.session_id },
      el('span', { class: 'session-top' }, el('span', { class: 'session-title' }, s.title || s.session_id), el('span', { class: 'badge escalated' }, waitedFor(s.waiting_since))),
      el('span', { class: 'session-last' }, s.last_message ?? ''),
      s.escalation_reason ? el('span', { class: 'session-reason' }, `Why: ${describeEscalationReason(s.escalation_reason)}`) : null,
      s.handoff_summary ? el('span', { class: 'handoff-summary customer-text', dir: 'auto' }, s.handoff_summary) : null,
    );
    button.addEventListener('click', () => parts.openSession(s.session_id));
    return el('li', {}, button);
  }

  return {
    /** A conversation was opened: show who holds it and follow its new messages. */
    open(id: string, summary: HandoffSummary | undefined, messages: LiveMessage[]): void {
      live?.stop();
      sessionId = id;
      handler = summary?.handler ?? 'bot';
      agentName = summary?.agent_name ?? null;
      shown.clear();
      for (const m of messages) shown.add(m.id);
      bar.hidden = false;
      say('');
      showHolder();
      live = new LiveConnection({
        url: `/api/v1/chat/conversation/${encodeURIComponent(id)}/events`,
        headers: headers(),
        afterSeq: messages.reduce((max, m) => Math.max(max, m.seq), 0),
        onReady: (ready) => {
          handler = ready.handler;
          agentName = ready.agent_name;
          showHolder();
        },
        onMessage: (message) => {
          if (message.handoff) {
            handler = message.handoff.handler;
            agentName = message.handoff.agent_name;
            showHolder();
          }
          append(message);
        },
        onState: (state) => (bar.dataset['live'] = state),
      });
      live.start();
    },
    close(): void {
      live?.stop();
      live = null;
      sessionId = null;
      bar.hidden = true;
    },
    /** Reads the waiting queue again now (after a conversation was erased, say). */
    refresh(): void {
      void refreshQueue();
    },
    start(): void {
      void refreshQueue();
      queueTimer ??= setInterval(() => void refreshQueue(), QUEUE_REFRESH_MS);
    },
    stop(): void {
      clearInterval(queueTimer);
      queueTimer = undefined;
      waitingList.replaceChildren();
      this.close();
    },
  };
}

/** "waiting 5 min", from when the conversation started waiting. */
function waitedFor(since: string | null | undefined): string {
  const ms = Date.now() - Date.parse(since ?? '');
  if (!Number.isFinite(ms)) return 'waiting';
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'waiting < 1 min';
  if (minutes < 60) return `waiting ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `waiting ${hours} h` : `waiting ${Math.floor(hours / 24)} days`;
}

function messageOf(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong. Please try again.';
}
