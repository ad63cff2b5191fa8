import { Router, type Request, type Response } from 'express';
import type { ConversationFeed } from '../../chat/conversation-feed';
import { handoffOf, type HandoffService } from '../../chat/handoff';
import { AppError, ClientStreamLimitError, InstanceStreamLimitError, NotFoundError, UnauthorizedError } from '../../errors';
import type { Logger } from '../../observability/logger';
import type { HandoffStore } from '../../store/handoff-store';
import type { ChatStore, StoredMessage } from '../../store/types';
import { agentKeyCheck, requireAgentKey } from '../auth';
import { eventsAfterSeqSchema, replySchema, sessionIdSchema, takeoverSchema } from '../schemas';
import { SESSION_TOKEN_HEADER, type SessionTokens } from '../session-token';
import { parseInput } from '../validate';
import { isCustomerVisible, toHistoryItem, toMessageItem } from './chat';

export interface HandoffRoutesParts {
  handoff: HandoffService;
  handoffStore: HandoffStore;
  feed: ConversationFeed;
  store: ChatStore;
  agentApiKey: string;
  sessionTokens: SessionTokens;
  /** A person's reply may be as long as a customer's message (MESSAGE_MAX_CHARS); longer is 413. */
  messageMaxChars: number;
  /** How often an event stream sends a comment line, so proxies keep it open. */
  streamHeartbeatMs: number;
  /** The open event streams, ended on shutdown. */
  streams: EventStreams;
  logger: Logger;
}

/** Messages an event stream reads at once; a longer backlog is read in several rounds. */
const EVENTS_PAGE = 100;

/** Caps on the open event streams of one instance (EVENT_STREAMS_PER_CLIENT, EVENT_STREAMS_PER_INSTANCE). */
export interface EventStreamLimits {
  /** Streams one client address may hold; agent-key streams do not count against it. */
  perClient: number;
  /** Streams this instance holds at most, whoever opens them. */
  perInstance: number;
}

/** A held stream slot: give it back exactly once (more calls do nothing). */
export type ReleaseSlot = () => void;

/**
 * The open event streams of this process, and their caps. A stream takes a slot
 * before it reads anything (`reserve`), so a client over its cap costs no query,
 * and gives it back when it ends or fails to start. One client holding more than
 * its share is refused 429; a full instance is refused 503 with Retry-After (a
 * load balancer or the widget's retry finds another instance), so it never holds
 * more sockets, timers and subscriptions than it was sized for.
 *
 * On shutdown each stream is ended with an `end` event, so customers reconnect
 * (to another instance) instead of hanging on a server that is closing:
 * `server.close()` would otherwise wait for them forever.
 */
export class EventStreams {
  private readonly open = new Set<() => void>();
  private readonly perClient = new Map<string, number>();
  private slots = 0;
  private closing = false;

  constructor(readonly limits: EventStreamLimits = { perClient: Number.MAX_SAFE_INTEGER, perInstance: Number.MAX_SAFE_INTEGER }) {}

  /**
   * Takes a slot for a stream of `client` (null: exempt from the per-client cap, as
   * agent-key streams are). Throws 503 while shutting down or when the instance is
   * full, 429 when the client holds its cap.
   */
  reserve(client: string | null): ReleaseSlot {
    if (this.closing) throw new AppError(503, 'shutting_down', 'This instance is shutting down: reconnect.');
    if (this.slots >= this.limits.perInstance) throw new InstanceStreamLimitError();
    const held = client === null ? 0 : (this.perClient.get(client) ?? 0);
    if (client !== null && held >= this.limits.perClient) throw new ClientStreamLimitError(this.limits.perClient);
    this.slots += 1;
    if (client !== null) this.perClient.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.slots -= 1;
      if (client === null) return;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
  }

  add(end: () => void): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /** Slots held now (open streams plus those still starting). */
  get held(): number {
    return this.slots;
  }

  /** Slots `client` holds now. */
  heldBy(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** Ends every stream and refuses new ones (503). */
  endAll(): void {
    this.closing = true;
    for (const end of [...this.open]) end();
  }
}

/**
 * Human takeover, for human agents (agent key): take a conversation over, reply in
 * it, release it. And the conversation's event stream, for the customer's widget
 * (session token) and the review console (agent key).
 */
export function handoffRoutes(parts: HandoffRoutesParts): Router {
  const router = Router();
  const agentOnly = requireAgentKey(parts.agentApiKey);
  const isAgent = agentKeyCheck(parts.agentApiKey);

  router.post('/conversations/:session_id/takeover', agentOnly, async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const body = parseInput(takeoverSchema, jsonBody(req));
    res.json(await parts.handoff.takeOver(sessionId, body.agent_name, body.force === true));
  });

  router.post('/conversations/:session_id/replies', agentOnly, async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const body = parseInput(replySchema, jsonBody(req));
    if (body.content.length > parts.messageMaxChars) {
      throw new AppError(413, 'payload_too_large', `content must be at most ${parts.messageMaxChars} characters`);
    }
    const stored = await parts.handoff.reply(sessionId, body.content, body.agent_name ?? null);
    res.status(201).json({ session_id: sessionId, ...toMessageItem(stored) });
  });

  router.post('/conversations/:session_id/release', agentOnly, async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    res.json(await parts.handoff.release(sessionId));
  });

  router.get('/chat/conversation/:session_id/events', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const agent = isAgent(req);
    if (!agent && !(await parts.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER)))) {
      throw new UnauthorizedError('Send the session token this conversation was given in the X-Session-Token header.');
    }
    // Last-Event-ID (an EventSource reconnecting) wins over after_seq; neither: from now on.
    const resumeFrom = req.get('last-event-id') ?? (typeof req.query['after_seq'] === 'string' ? req.query['after_seq'] : undefined);
    const requestedSeq = resumeFrom === undefined ? undefined : parseInput(eventsAfterSeqSchema, resumeFrom);
    // The client's address (TRUST_PROXY decides which); the console's agent-key streams are exempt.
    const release = parts.streams.reserve(agent ? null : (req.ip ?? 'unknown'));
    let session;
    try {
      session = await parts.store.getSession(sessionId);
      if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    } catch (error) {
      release();
      throw error;
    }
    streamConversation(req, res, {
      ...parts,
      release,
      sessionId,
      afterSeq: requestedSeq ?? session.messageCount,
      ready: { session_id: sessionId, handler: session.handler, agent_name: session.agentName, support: parts.handoff.availability() },
      // The console sees every message as the history shows it; the customer what the read-back shows.
      visible: agent ? () => true : isCustomerVisible,
      toItem: agent ? toHistoryItem : toMessageItem,
    });
  });

  return router;
}

/**
 * The stream of one conversation: `ready` first (who answers now), then every new
 * message after `afterSeq` as `message` (a person joining or leaving as
 * `handler`), each with `id: <seq>` so a reconnect resumes with Last-Event-ID;
 * `erased` (then the end) once the conversation is erased.
 * Reads are serialized and coalesced: a wake-up while reading makes one more read.
 */
function streamConversation(
  req: Request,
  res: Response,
  options: HandoffRoutesParts & {
    /** The stream's slot, given back when the stream ends. */
    release: ReleaseSlot;
    sessionId: string;
    afterSeq: number;
    ready: Record<string, unknown>;
    visible: (m: StoredMessage) => boolean;
    toItem: (m: StoredMessage) => object;
  },
): void {
  const { sessionId, handoffStore, feed, logger } = options;
  let lastSeq = options.afterSeq;
  let reading = false;
  let readAgain = false;
  let ended = false;

  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
  });
  // `retry`: how long an EventSource waits before reconnecting.
  res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ ...options.ready, after_seq: lastSeq })}\n\n`);

  const readNew = async (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    try {
      do {
        readAgain = false;
        const messages = await handoffStore.eventsAfter(sessionId, lastSeq, EVENTS_PAGE);
        if (ended) return;
        for (const m of messages) {
          lastSeq = m.seq;
          if (!options.visible(m)) continue;
          const event = handoffOf(m) ? 'handler' : 'message';
          res.write(`id: ${m.seq}\nevent: ${event}\ndata: ${JSON.stringify(options.toItem(m))}\n\n`);
        }
        if (messages.length === EVENTS_PAGE) readAgain = true;
        // Woken with nothing new: the conversation may have been erased (its customer, an agent, retention).
        if (messages.length === 0 && (await options.store.getSession(sessionId)) === null && !ended) {
          res.write(`event: erased\ndata: ${JSON.stringify({ session_id: sessionId })}\n\n`);
          finish();
          res.end();
          return;
        }
      } while (readAgain && !ended);
    } catch (error) {
      // The next wake-up (or the customer's reconnect) reads again from lastSeq.
      logger.warn({ err: error, session_id: sessionId }, 'Could not read new messages for an event stream');
    } finally {
      reading = false;
    }
  };

  const heartbeat = setInterval(() => res.write(': ping\n\n'), options.streamHeartbeatMs);
  const unsubscribe = feed.subscribe(sessionId, () => void readNew());
  const finish = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    unsubscribe();
    forget();
    options.release();
  };
  const forget = options.streams.add(() => {
    // Shutdown: say so, then end; the widget reconnects (elsewhere) with Last-Event-ID.
    res.write(`event: end\ndata: ${JSON.stringify({ reason: 'shutdown' })}\n\n`);
    finish();
    res.end();
  });
  res.on('close', finish);
  req.on('error', finish);
  // The client may have gone while the session was read: no 'close' is coming then.
  if (res.destroyed || res.closed) finish();
  // Whatever was stored between the client's last read and the subscription.
  void readNew();
}

/** The JSON body; a takeover or reply sent as anything but JSON is 415. */
function jsonBody(req: Request): unknown {
  if (!req.is('application/json')) {
    throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
  }
  return req.body;
}
