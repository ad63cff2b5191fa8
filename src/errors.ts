/**
 * Errors that reach a client. Each carries a stable `code` and an HTTP status;
 * the central error handler turns them into `{"error": {"code", "message"}}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // In the constructor, not as a field: new.target is undefined in field initializers.
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super(400, 'invalid_request', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid agent API key is required: Authorization: Bearer <AGENT_API_KEY>.') {
    super(401, 'unauthorized', message);
  }
}

/** Continuing someone's conversation needs that session's token (or the agent key). */
export class SessionAccessError extends AppError {
  constructor() {
    super(
      403,
      'session_token_required',
      'This conversation can only be continued with its session token (X-Session-Token, returned when it started).',
    );
  }
}

/** The database cannot be reached; the client may retry after a while. */
export class DatabaseUnavailableError extends AppError {
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super(503, 'database_unavailable', 'The service cannot reach its database right now. Please try again shortly.', options);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

/** The language model failed or answered with an error. */
export class ModelUnavailableError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(502, 'model_unavailable', message, options);
  }
}

/** The language model did not answer within OPENAI_TIMEOUT_MS. */
export class ModelTimeoutError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(504, 'model_timeout', message, options);
  }
}

/** The embedding model failed, so the knowledge base could not be searched. */
export class EmbeddingUnavailableError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(502, 'embedding_unavailable', message, options);
  }
}

/** The stored knowledge was embedded by another model than the one configured now. */
export class EmbeddingModelMismatchError extends AppError {
  constructor(message: string) {
    super(500, 'embedding_model_mismatch', message);
  }
}

/** Another request with the same Idempotency-Key has not finished yet. */
export class IdempotencyInProgressError extends AppError {
  constructor(message = 'A request with this Idempotency-Key is still being answered. Retry later to get its answer.') {
    super(409, 'idempotency_in_progress', message);
  }
}

/** The Idempotency-Key was used before with another request body. */
export class IdempotencyKeyReusedError extends AppError {
  constructor(message = 'This Idempotency-Key was used with a different request. Use a new key for a new request.') {
    super(422, 'idempotency_key_reused', message);
  }
}

/**
 * This request's claim on its Idempotency-Key lapsed and a retry took it over:
 * its turn was not stored (the retry's will be).
 */
export class IdempotencyKeyLostError extends IdempotencyInProgressError {
  constructor() {
    super('A retry with this Idempotency-Key took over while this request was still running; its answer was not stored.');
  }
}

/** The conversation was erased (by its customer, an agent or retention) while this request was being answered: nothing was stored. */
export class ConversationErasedError extends AppError {
  constructor() {
    super(410, 'conversation_erased', 'This conversation was erased: nothing more is stored in it. Start a new conversation.');
  }
}

/** X-Customer-Token was sent but is not a valid token: forged, malformed, expired or not for this service. */
export class CustomerTokenError extends AppError {
  constructor(code: 'customer_token_invalid' | 'customer_token_expired', message: string, options?: { cause?: unknown }) {
    super(401, code, message, options);
  }
}

/** The verified customer is not the one the request or the session names. */
export class CustomerMismatchError extends AppError {
  constructor(message: string) {
    super(403, 'customer_mismatch', message);
  }
}

/** Too many order lookups whose details did not match, from this session or this client (ORDER_PROOF_MAX_FAILURES). */
export class OrderProofLimitError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      429,
      'order_proof_limited',
      `Too many order lookups with details that did not match. Please wait ${retryAfterSeconds} s, or sign in to your account to see your orders.`,
    );
  }
}

/** A signed-in customer asked for their own export more than CUSTOMER_EXPORTS_PER_HOUR times this hour. */
export class ExportLimitError extends AppError {
  constructor(
    perHour: number,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'export_rate_limited', `You can export your data ${perHour} times an hour. Please try again in ${retryAfterSeconds} s.`);
  }
}

/** This client already holds EVENT_STREAMS_PER_CLIENT open event streams on this instance. */
export class ClientStreamLimitError extends AppError {
  readonly retryAfterSeconds = 5;
  constructor(limit: number) {
    super(
      429,
      'too_many_streams',
      `This client already has ${limit} open event streams (EVENT_STREAMS_PER_CLIENT): close one before opening another.`,
    );
  }
}

/** This instance already holds EVENT_STREAMS_PER_INSTANCE open event streams; another instance (or a later retry) can take it. */
export class InstanceStreamLimitError extends AppError {
  readonly retryAfterSeconds = 5;
  constructor() {
    super(503, 'streams_full', 'This instance holds as many event streams as it may: reconnect shortly.');
  }
}
