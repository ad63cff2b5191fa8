import { OrderProofLimitError } from '../errors';
import type { IdentityStore } from '../store/identity-store';
import type { RateLimitCounters } from '../store/rate-limit-store';

export interface OrderProofSettings {
  /** Wrong proofs one session, or one client address, may make per window (ORDER_PROOF_MAX_FAILURES). */
  maxFailures: number;
  windowMs: number;
}

/** Who is trying: the conversation and the client address it came from (null when unknown, e.g. a direct call). */
export interface ProofAttempt {
  sessionId: string;
  clientAddress: string | null;
  orderId: string;
  email?: string;
  postcode?: string;
}

export type ProofOutcome = 'proven' | 'mismatch';

/**
 * Anonymous order lookups: the order number plus the e-mail address or postcode
 * on the order. Wrong proofs are counted in the database (the rate-limit
 * counters, keys of their own), per session and per client address, so every
 * instance enforces one limit; a right one is remembered for its session only.
 *
 * Each attempt counts first and is taken back when it was right: counting after
 * the check would let simultaneous guesses all pass the limit.
 */
export class OrderProofs {
  constructor(
    private readonly store: IdentityStore,
    private readonly counters: RateLimitCounters,
    private readonly settings: OrderProofSettings,
  ) {}

  /** Whether this session already proved this order. */
  isProven(sessionId: string, orderId: string): Promise<boolean> {
    return this.store.orderProvenInSession(sessionId, orderId);
  }

  /**
   * Checks a proof; OrderProofLimitError (429) when this session or client has
   * used up its wrong proofs for the window, before anything is compared.
   */
  async check(attempt: ProofAttempt): Promise<ProofOutcome> {
    const matches = await this.counted(attempt, () => this.store.orderProofMatches(attempt.orderId, { email: attempt.email, postcode: attempt.postcode }), (matched) => !matched);
    if (!matches) return 'mismatch';
    await this.store.recordOrderProof(attempt.sessionId, attempt.orderId);
    return 'proven';
  }

  /**
   * A proof that someone else compares (a shop's API, given a guest's order number
   * and e-mail address): `prove` runs only while this session and client have wrong
   * proofs left, and its result counts as one when `wasWrong` says so. A failure
   * (it threw) counts as none: nothing was compared. OrderProofLimitError as check().
   */
  async counted<T>(who: Pick<ProofAttempt, 'sessionId' | 'clientAddress'>, prove: () => Promise<T>, wasWrong: (result: T) => boolean): Promise<T> {
    const keys = [`order-proof-session:${who.sessionId}`, ...(who.clientAddress ? [`order-proof-client:${who.clientAddress}`] : [])];
    const undo = () => Promise.all(keys.map((key) => this.counters.undo(key, this.settings.windowMs)));
    const hits = await Promise.all(keys.map((key) => this.counters.hit(key, this.settings.windowMs)));
    const over = hits.filter((h) => h.hits > this.settings.maxFailures);
    if (over.length > 0) {
      // The refused attempt is not a wrong proof: it was never compared.
      await undo();
      const resetAt = Math.max(...over.map((h) => h.resetAt.getTime()));
      throw new OrderProofLimitError(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)));
    }
    let result: T;
    try {
      result = await prove();
    } catch (error) {
      await undo();
      throw error;
    }
    if (!wasWrong(result)) await undo();
    return result;
  }
}
