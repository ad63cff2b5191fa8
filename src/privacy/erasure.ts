import type { Logger } from '../observability/logger';
import type { CustomerDataStore, ErasureCounts, ErasureResult } from './customer-data';
import type { CustomerPseudonyms } from './pseudonym';
import type { TraceDeletion } from './trace-deletion';

export interface ErasureParts {
  data: CustomerDataStore;
  pseudonyms: CustomerPseudonyms;
  traces: TraceDeletion;
  /** Wakes this process's event streams of a session at once (other instances learn through the database). */
  touch(sessionId: string): void;
  logger: Logger;
}

/** What an erasure answers: its audit record's id and the rows erased per kind. */
export interface ErasureOutcome {
  erasureId: number;
  counts: ErasureCounts;
}

/**
 * Erasure of a conversation or of a customer: one transaction in the database
 * (see CUSTOMER_DATA_TABLES for what it covers), an audit record and an event in
 * the log that carry counts and the customer's pseudonym, never content or the raw
 * id, then the deletion of the erased answers' traces in Langfuse, which cannot
 * hold the erasure up (see TraceDeletion).
 */
export class ErasureService {
  constructor(private readonly parts: ErasureParts) {}

  /** The customer's pseudonym (keyed hash), as audit records and logs name them. */
  pseudonymOf(customerId: string): string {
    return this.parts.pseudonyms.of(customerId);
  }

  /** Erases one conversation; null when there is no such conversation. `customerId`: whose it is, for the audit's pseudonym. */
  async eraseConversation(sessionId: string, actor: 'agent' | 'customer', customerId: string | null): Promise<ErasureOutcome | null> {
    const pseudonym = customerId ? this.parts.pseudonyms.of(customerId) : null;
    const result = await this.parts.data.eraseConversation(sessionId, actor, pseudonym, this.parts.traces.enabled);
    if (!result) return null;
    this.parts.touch(sessionId);
    return this.finish(result, { actor, scope: 'conversation', customer: pseudonym });
  }

  /**
   * Erases everything of a customer (zeros when nothing is stored): the conversations
   * bound to them by a customer token, and with `includeLabelled` also those that
   * only carry their id as an unverified label. The erased conversations' streams
   * are woken so they end. `labelledConversations`: how many labelled, unverified
   * conversations there were (erased, or left when not asked for).
   */
  async eraseCustomer(customerId: string, options: { includeLabelled: boolean }): Promise<ErasureOutcome & { labelledConversations: number }> {
    const pseudonym = this.parts.pseudonyms.of(customerId);
    const sessions = await Promise.all([
      this.parts.data.customerSessionIds(customerId),
      options.includeLabelled ? this.parts.data.labelledSessionIds(customerId) : [],
    ]).catch(() => [] as string[][]);
    const result = await this.parts.data.eraseCustomer(customerId, pseudonym, this.parts.traces.enabled, options.includeLabelled);
    for (const sessionId of sessions.flat()) this.parts.touch(sessionId);
    const outcome = this.finish(result, { actor: 'agent', scope: 'customer', customer: pseudonym });
    return { ...outcome, labelledConversations: result.labelledConversations };
  }

  /** Logs the erasure as an event (no content, no raw id) and starts deleting its traces. */
  finish(result: ErasureResult, who: { actor: 'agent' | 'customer' | 'retention'; scope: 'conversation' | 'customer' | 'retention'; customer: string | null }): ErasureOutcome {
    this.parts.logger.info(
      { event: 'customer_data_erased', erasure_id: result.erasureId, actor: who.actor, scope: who.scope, customer: who.customer, counts: result.counts, traces: result.traceIds.length },
      `Erased ${who.scope === 'customer' ? "a customer's data" : who.scope === 'conversation' ? 'a conversation' : 'expired conversations'}`,
    );
    this.parts.traces.deleteSoon(result.erasureId, result.traceIds);
    return { erasureId: result.erasureId, counts: result.counts };
  }
}
