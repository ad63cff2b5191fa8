import { parseJsonColumn, type SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

const FUNCTIONS = {
  record: sqlFunction('record_answer_feedback', { p_session_id: 'text', p_message_id: 'uuid', p_rating: 'text', p_comment: 'text' }),
  forSession: sqlFunction('session_feedback', { p_session_id: 'text' }),
};

export type Rating = 'up' | 'down';

/** A customer's rating of one answer. */
export interface AnswerFeedback {
  messageId: string;
  sessionId: string;
  rating: Rating;
  comment: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface FeedbackRow {
  message_id: string;
  session_id: string;
  rating: Rating;
  comment: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Ratings of answers (table answer_feedback), one per answer. */
export class FeedbackStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /**
   * Stores the rating (replacing an earlier one of the same answer) and returns it
   * with the answer's metadata, or null when the session has no such answer.
   */
  async record(input: {
    sessionId: string;
    messageId: string;
    rating: Rating;
    comment: string | null;
  }): Promise<{ feedback: AnswerFeedback; answerMetadata: Record<string, unknown> } | null> {
    const [row] = await this.fn.rows<FeedbackRow & { answer_metadata: Record<string, unknown> | string | null }>(FUNCTIONS.record, {
      p_session_id: input.sessionId,
      p_message_id: input.messageId,
      p_rating: input.rating,
      p_comment: input.comment,
    });
    if (!row) return null;
    return { feedback: toFeedback(row), answerMetadata: parseJsonColumn(row.answer_metadata) ?? {} };
  }

  /** The session's ratings, by message id. */
  async forSession(sessionId: string): Promise<Map<string, AnswerFeedback>> {
    const rows = await this.fn.rows<FeedbackRow>(FUNCTIONS.forSession, { p_session_id: sessionId });
    return new Map(rows.map((r) => [r.message_id, toFeedback(r)]));
  }
}

function toFeedback(r: FeedbackRow): AnswerFeedback {
  return {
    messageId: r.message_id,
    sessionId: r.session_id,
    rating: r.rating,
    comment: r.comment,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
