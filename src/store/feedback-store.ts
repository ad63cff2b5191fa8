import { parseJsonColumn, type SqlQueryable } from './database';

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
  constructor(private readonly db: SqlQueryable) {}

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
    const [row] = await this.db.query<FeedbackRow & { answer_metadata: Record<string, unknown> | string | null }>(
      'select * from record_answer_feedback($1, $2::uuid, $3, $4)',
      [input.sessionId, input.messageId, input.rating, input.comment],
    );
    if (!row) return null;
    return { feedback: toFeedback(row), answerMetadata: parseJsonColumn(row.answer_metadata) ?? {} };
  }

  /** The session's ratings, by message id. */
  async forSession(sessionId: string): Promise<Map<string, AnswerFeedback>> {
    const rows = await this.db.query<FeedbackRow>('select * from answer_feedback where session_id = $1', [sessionId]);
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
