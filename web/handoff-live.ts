/**
 * A conversation's live connection: GET /api/v1/chat/conversation/:id/events,
 * read with fetch (EventSource cannot send the X-Session-Token or Authorization
 * header), reconnecting with back-off and resuming after the last message it
 * saw, so nothing is missed or shown twice across reconnects, instance
 * shutdowns included. Shared by the widget and the review console.
 */
import { SseParser, type SseEvent } from './sse';
import { DEFAULT_LABELS, DEFAULT_WIDGET_WORDS, fill, type WidgetLabels } from '../src/shop/widget-labels';
import { describeHours, type WeeklyHours } from '../src/chat/support-hours';

/** A message as the event stream (and the read-back) sends it. */
export interface LiveMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  author?: { type: 'customer' | 'bot' | 'system' } | { type: 'human'; name: string };
  handoff?: { handler: 'bot' | 'human'; agent_name: string | null };
  timestamp?: string;
}

/** Who answers, and whether people answer now (SUPPORT_HOURS), as the `ready` event says. */
export interface LiveReady {
  handler: 'bot' | 'human';
  agent_name: string | null;
  /** `schedule`: the hours as data, written for the reader with describeHours (absent from an older service). */
  support?: { open: boolean | null; hours: string | null; schedule?: WeeklyHours | null };
}

export interface LiveOptions {
  /** The events URL of the conversation (without after_seq). */
  url: string;
  headers: Record<string, string>;
  /** Resume after this seq (the newest message the page shows). */
  afterSeq: number;
  onReady?(ready: LiveReady): void;
  onMessage(message: LiveMessage, kind: 'message' | 'handler'): void;
  /** 'live' when connected, 'reconnecting' after a drop, 'stopped' when the server refused (401/404) or the conversation was erased. */
  onState?(state: 'live' | 'reconnecting' | 'stopped'): void;
}

/** Back-off between reconnects, in ms: doubling up to 30 s, with jitter so clients do not return in step. */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

export class LiveConnection {
  private lastSeq: number;
  private abort: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private running = false;

  constructor(private readonly options: LiveOptions) {
    this.lastSeq = options.afterSeq;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.abort = null;
  }

  /** A message the page showed by other means (its own send): later events resume after it. */
  saw(seq: number): void {
    this.lastSeq = Math.max(this.lastSeq, seq);
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const abort = new AbortController();
    this.abort = abort;
    let cleanEnd = false;
    try {
      const response = await fetch(`${this.options.url}?after_seq=${this.lastSeq}`, {
        headers: { accept: 'text/event-stream', ...this.options.headers },
        signal: abort.signal,
      });
      if (response.status === 401 || response.status === 404) {
        this.running = false;
        this.options.onState?.('stopped');
        return;
      }
      if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
      for await (const event of readEvents(response.body)) {
        if (event.event === 'ready') {
          this.failures = 0;
          this.options.onState?.('live');
          const ready = parse<LiveReady>(event);
          if (ready) this.options.onReady?.(ready);
        } else if (event.event === 'message' || event.event === 'handler') {
          const message = parse<LiveMessage>(event);
          if (!message || typeof message.seq !== 'number' || message.seq <= this.lastSeq) continue;
          this.lastSeq = message.seq;
          this.options.onMessage(message, event.event);
        } else if (event.event === 'end') {
          cleanEnd = true; // the instance is shutting down: come back at once, another one answers
        } else if (event.event === 'erased') {
          // The conversation was erased: nothing will come again, so no reconnecting.
          this.running = false;
          this.options.onState?.('stopped');
          return;
        }
      }
    } catch {
      if (!this.running || abort.signal.aborted) return;
    }
    if (!this.running) return;
    this.options.onState?.('reconnecting');
    const delay = cleanEnd ? 200 : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.failures) * (0.75 + Math.random() * 0.5);
    this.failures += 1;
    this.timer = setTimeout(() => void this.connect(), delay);
  }
}

function parse<T>(event: SseEvent): T | null {
  try {
    const value: unknown = JSON.parse(event.data);
    return value !== null && typeof value === 'object' ? (value as T) : null;
  } catch {
    return null;
  }
}

/** The events of a text/event-stream body, as they arrive. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    reader.releaseLock();
  }
}

/**
 * What the customer is told when an answer is escalated: a person is promised only when one can follow up.
 * Outside support hours, the shop's note with the hours written for a reader of `language`, its first sentence in bold (`lead`).
 */
export function handoffNoteText(
  support: LiveReady['support'] | null,
  outsideHours: string = DEFAULT_WIDGET_WORDS.outside_hours,
  labels: Pick<WidgetLabels, 'person_lead' | 'person_text' | 'support_hours'> = DEFAULT_LABELS,
  language = 'en',
): { lead: string; text: string } {
  if (support?.open === false) {
    const note = fill(outsideHours, { hours: describeHours(support.schedule, language) ?? labels.support_hours });
    // Sentence ends of every script the built-in words use (。！？ for Chinese and Japanese).
    const firstSentence = /^.*?(?:[.!?](?:\s+|$)|[。！？])/.exec(note)?.[0] ?? '';
    return { lead: firstSentence, text: note.slice(firstSentence.length) };
  }
  return { lead: `${labels.person_lead} `, text: labels.person_text };
}
