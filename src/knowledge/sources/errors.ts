/** Why a document was not stored. */
export type SkipReason = 'no_text_layer' | 'empty' | 'unsupported_type' | 'too_large' | 'unreadable';

/**
 * A document that is not stored, and why: the caller reports it (a folder ingest lists it as
 * skipped, the knowledge API answers 4xx) and stores nothing of it.
 */
export class DocumentSkipped extends Error {
  constructor(
    readonly reason: SkipReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // In the constructor, not as a field: new.target is undefined in field initializers.
    this.name = new.target.name;
  }
}

/** A file that cannot be read as what it claims to be: an encrypted PDF, a corrupt PDF or DOCX. */
export class DocumentUnreadableError extends DocumentSkipped {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unreadable', message, options);
  }
}
