import { Client } from 'pg';
import type { Logger } from '../observability/logger';
import type { HandoffStore } from '../store/handoff-store';

/**
 * Tells this process's event streams that a conversation may have new messages,
 * whichever instance stored them. Learned through the database the instances
 * share (never through a broker): Postgres LISTEN/NOTIFY, or a light poll of each
 * watched session's newest seq. A wake-up may be spurious; a stream reads what is
 * after its last seq anyway, so nothing is lost or repeated.
 */
export interface ConversationFeed {
  /** Calls `onChange` whenever the session may have new messages; returns the unsubscribe. */
  subscribe(sessionId: string, onChange: () => void): () => void;
  /** This process stored messages in the session: wake its streams at once. */
  touch(sessionId: string): void;
  close(): Promise<void>;
}

/** The subscribers of this process, per session. */
class Subscribers {
  readonly bySession = new Map<string, Set<() => void>>();

  add(sessionId: string, onChange: () => void): () => void {
    const set = this.bySession.get(sessionId) ?? new Set();
    set.add(onChange);
    this.bySession.set(sessionId, set);
    return () => {
      set.delete(onChange);
      if (set.size === 0 && this.bySession.get(sessionId) === set) this.bySession.delete(sessionId);
    };
  }

  wake(sessionId: string): void {
    for (const onChange of [...(this.bySession.get(sessionId) ?? [])]) onChange();
  }

  wakeAll(): void {
    for (const sessionId of [...this.bySession.keys()]) this.wake(sessionId);
  }
}

/**
 * Polls the newest seq of the sessions this process watches (one query for all of
 * them, every `intervalMs`, only while any is watched): for Supabase's API and PGlite.
 */
export class PollingConversationFeed implements ConversationFeed {
  private readonly subscribers = new Subscribers();
  private readonly known = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly store: Pick<HandoffStore, 'newestSeqs'>,
    private readonly intervalMs: number,
    private readonly logger?: Logger,
  ) {}

  subscribe(sessionId: string, onChange: () => void): () => void {
    const unsubscribe = this.subscribers.add(sessionId, onChange);
    this.timer ??= setInterval(() => void this.poll(), this.intervalMs);
    return () => {
      unsubscribe();
      if (!this.subscribers.bySession.has(sessionId)) this.known.delete(sessionId);
      if (this.subscribers.bySession.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  touch(sessionId: string): void {
    this.subscribers.wake(sessionId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return; // a slow database: skip a tick rather than pile queries up
    this.polling = true;
    try {
      const watched = [...this.subscribers.bySession.keys()];
      const seqs = await this.store.newestSeqs(watched);
      // A watched session that no longer exists was erased: its streams look once, and end.
      for (const sessionId of watched) {
        const seq = seqs.get(sessionId) ?? -1;
        if (this.known.get(sessionId) !== seq) {
          this.known.set(sessionId, seq);
          this.subscribers.wake(sessionId);
        }
      }
    } catch (error) {
      this.logger?.warn({ err: error }, 'Could not poll conversations for new messages; retrying');
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** Reconnection delays of the listening connection, in ms (the last one repeats). */
const RECONNECT_DELAYS_MS = [250, 1000, 2000, 5000];

/**
 * LISTEN chat_messages on a connection of its own (a pool's connections are
 * shared and may be a transaction pooler's), woken by the notifications the
 * chat_messages trigger sends on commit ("<seq> <session_id>"). When the
 * connection drops it reconnects with back-off and wakes every stream, since
 * notifications sent meanwhile are lost.
 */
export class ListeningConversationFeed implements ConversationFeed {
  private readonly subscribers = new Subscribers();
  private client: Client | null = null;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Resolves once the first LISTEN is in place (or failed), so tests and start-up can wait for it. */
  readonly ready: Promise<void>;

  constructor(
    private readonly connectionString: string,
    private readonly logger?: Logger,
  ) {
    this.ready = this.connect();
  }

  subscribe(sessionId: string, onChange: () => void): () => void {
    return this.subscribers.add(sessionId, onChange);
  }

  touch(sessionId: string): void {
    this.subscribers.wake(sessionId);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.connectionString, connectionTimeoutMillis: 10_000 });
    client.on('notification', (n) => {
      const space = n.payload?.indexOf(' ') ?? -1;
      if (n.channel === 'chat_messages' && space > 0) this.subscribers.wake(n.payload!.slice(space + 1));
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query('listen chat_messages');
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      if (this.attempt > 0) this.logger?.info('Listening for conversation messages again');
      this.attempt = 0;
      // Anything stored while we were not listening: let every stream look.
      this.subscribers.wakeAll();
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: Client, error: Error | null): void {
    if (this.closed || this.retryTimer) return;
    if (this.client && this.client !== client) return;
    this.client = null;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)]!;
    this.attempt += 1;
    this.logger?.warn({ err: error ?? undefined, retry_in_ms: delay }, 'The connection listening for conversation messages was lost; reconnecting');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
