import { IdempotencyKeyLostError } from '../errors';
import { sqlStateOf, type SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';
import { toStoredMessage, type MessageRow } from './sql-store';
import type { IdempotencyClaimToken, NewMessage, StoredMessage } from './types';

/** The functions of migration 20261123000500_human_handoff; every backend calls these. */
const FN = {
  takeOver: sqlFunction('take_over_session', { p_session_id: 'text', p_agent_name: 'text', p_force: 'boolean', p_note: 'jsonb' }),
  release: sqlFunction('release_session', { p_session_id: 'text', p_note: 'jsonb' }),
  humanReply: sqlFunction('append_human_reply', { p_session_id: 'text', p_agent_name: 'text', p_message: 'jsonb' }),
  queueCustomerMessage: sqlFunction('queue_customer_message', { p_session_id: 'text', p_message: 'jsonb' }),
  // Migration 20261125000200_turn_stored_once.
  queueCustomerMessageIdempotent: sqlFunction('queue_customer_message_idempotent', {
    p_key: 'text',
    p_claim_token: 'uuid',
    p_session_id: 'text',
    p_message: 'jsonb',
  }),
  eventsAfter: sqlFunction('session_events_after', { p_session_id: 'text', p_after_seq: 'integer', p_limit: 'integer' }),
  newestSeqs: sqlFunction('session_newest_seqs', { p_session_ids: 'text[]' }),
} as const;

/** SQLSTATEs append_human_reply raises. */
const NO_SESSION = 'HO404';
const HELD_BY_BOT = 'HO409';
const HELD_BY_OTHER = 'HO410';
/** SQLSTATE the idempotent functions raise when the request no longer holds its key. */
const IDEMPOTENCY_KEY_LOST = 'IK001';

/** What a takeover or a release found: `changed` when it stored its note, with that note's seq. */
export type HandlerChange =
  | { outcome: 'changed'; previousAgentName: string | null; noteSeq: number }
  | { outcome: 'unchanged' }
  /** Another person holds the conversation (takeover without force). */
  | { outcome: 'held'; agentName: string }
  | { outcome: 'not_found' };

/** Why a person's reply was refused (the reply was not stored). */
export type ReplyRefusal = 'not_found' | 'held_by_bot' | 'held_by_other';

export class ReplyRefusedError extends Error {
  constructor(readonly reason: ReplyRefusal) {
    super(`reply refused: ${reason}`);
    this.name = new.target.name;
  }
}

/** A message as the handoff functions take it (append_turn's jsonb shape). */
function messageJson(m: NewMessage) {
  return { role: m.role, content: m.content, token_count: m.tokenCount, metadata: m.metadata ?? {} };
}

/**
 * Who answers a conversation (the bot or a named person) and the messages of a
 * handoff, all through the migrations' functions: the session row is locked and
 * every message is stored by append_turn, so seq, message_count and the session's
 * previews stay exactly as for a bot turn.
 */
export class HandoffStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** A person takes the conversation (from another person only with `force`); `note` is stored when it changes hands. */
  async takeOver(sessionId: string, agentName: string, force: boolean, note: NewMessage): Promise<HandlerChange> {
    const [row] = await this.fn.rows<{ outcome: string; previous_agent_name: string | null; note_seq: number | null }>(FN.takeOver, {
      p_session_id: sessionId,
      p_agent_name: agentName,
      p_force: force,
      p_note: messageJson(note),
    });
    return toChange(row);
  }

  /** The bot answers again; `note` is stored when a person held it. */
  async release(sessionId: string, note: NewMessage): Promise<HandlerChange> {
    const [row] = await this.fn.rows<{ outcome: string; previous_agent_name: string | null; note_seq: number | null }>(FN.release, {
      p_session_id: sessionId,
      p_note: messageJson(note),
    });
    return toChange(row);
  }

  /**
   * Stores a person's reply as an assistant message authored by the holder. With
   * `agentName`, only if that person holds it. Throws ReplyRefusedError otherwise.
   */
  async appendHumanReply(sessionId: string, agentName: string | null, reply: NewMessage): Promise<StoredMessage> {
    try {
      const [row] = await this.fn.rows<MessageRow>(FN.humanReply, { p_session_id: sessionId, p_agent_name: agentName, p_message: messageJson(reply) });
      return toStoredMessage(row!);
    } catch (error) {
      const reason = REFUSALS[sqlStateOf(error) ?? ''];
      if (reason) throw new ReplyRefusedError(reason);
      throw error;
    }
  }

  /**
   * Stores the customer's message if a person holds the conversation (returns it);
   * null when the bot should answer. With the request's Idempotency-Key claim, the
   * key is completed in the same statement (a retry gets the same message back,
   * nothing stored twice); throws IdempotencyKeyLostError when the claim is gone.
   */
  async queueCustomerMessage(sessionId: string, message: NewMessage, claim?: IdempotencyClaimToken): Promise<StoredMessage | null> {
    try {
      const [row] = claim
        ? await this.fn.rows<MessageRow>(FN.queueCustomerMessageIdempotent, {
            p_key: claim.key,
            p_claim_token: claim.claimToken,
            p_session_id: sessionId,
            p_message: messageJson(message),
          })
        : await this.fn.rows<MessageRow>(FN.queueCustomerMessage, { p_session_id: sessionId, p_message: messageJson(message) });
      return row ? toStoredMessage(row) : null;
    } catch (error) {
      if (sqlStateOf(error) === IDEMPOTENCY_KEY_LOST) throw new IdempotencyKeyLostError();
      throw error;
    }
  }

  /** Every message after `afterSeq` (system notes included), oldest first, at most `limit`. */
  async eventsAfter(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = await this.fn.rows<MessageRow>(FN.eventsAfter, { p_session_id: sessionId, p_after_seq: afterSeq, p_limit: limit });
    return rows.map(toStoredMessage);
  }

  /** The newest seq of each session that exists. */
  async newestSeqs(sessionIds: string[]): Promise<Map<string, number>> {
    if (sessionIds.length === 0) return new Map();
    const rows = await this.fn.rows<{ session_id: string; newest_seq: number }>(FN.newestSeqs, { p_session_ids: sessionIds });
    return new Map(rows.map((r) => [r.session_id, Number(r.newest_seq)]));
  }
}

const REFUSALS: Record<string, ReplyRefusal> = { [NO_SESSION]: 'not_found', [HELD_BY_BOT]: 'held_by_bot', [HELD_BY_OTHER]: 'held_by_other' };

function toChange(row: { outcome: string; previous_agent_name: string | null; note_seq: number | null } | undefined): HandlerChange {
  switch (row?.outcome) {
    case 'taken':
    case 'released':
      return { outcome: 'changed', previousAgentName: row.previous_agent_name, noteSeq: Number(row.note_seq) };
    case 'unchanged':
      return { outcome: 'unchanged' };
    case 'held':
      return { outcome: 'held', agentName: row.previous_agent_name ?? '' };
    default:
      return { outcome: 'not_found' };
  }
}
