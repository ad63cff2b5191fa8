import type { SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

// Migration 20261123000100_customer_identity.
const FN = {
  bind: sqlFunction('bind_session_customer', { p_session_id: 'text', p_customer_id: 'text' }),
  proofMatches: sqlFunction('order_proof_matches', { p_order_id: 'text', p_email: 'text', p_postcode: 'text' }),
  recordProof: sqlFunction('record_order_proof', { p_session_id: 'text', p_order_id: 'text' }),
  proven: sqlFunction('order_proven_in_session', { p_session_id: 'text', p_order_id: 'text' }),
  // Migration 20261126000204_session_token_nonce.
  tokenNonce: sqlFunction('session_token_nonce', { p_session_id: 'text' }),
} as const;

/** Who a session belongs to, and which orders its visitor proved: kept in the database, so every instance agrees. */
export class IdentityStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** Binds the session to this verified customer unless it is bound already; returns the customer it is bound to. */
  bindSessionCustomer(sessionId: string, customerId: string): Promise<string> {
    return this.fn.value<string>(FN.bind, { p_session_id: sessionId, p_customer_id: customerId });
  }

  /** Whether the e-mail address or the postcode is the one on the order (false for an order that does not exist). */
  orderProofMatches(orderId: string, proof: { email?: string; postcode?: string }): Promise<boolean> {
    return this.fn.value<boolean>(FN.proofMatches, { p_order_id: orderId, p_email: proof.email ?? null, p_postcode: proof.postcode ?? null });
  }

  async recordOrderProof(sessionId: string, orderId: string): Promise<void> {
    await this.fn.value<boolean>(FN.recordProof, { p_session_id: sessionId, p_order_id: orderId });
  }

  orderProvenInSession(sessionId: string, orderId: string): Promise<boolean> {
    return this.fn.value<boolean>(FN.proven, { p_session_id: sessionId, p_order_id: orderId });
  }

  /**
   * The nonce the session's tokens are signed over (see SessionTokens): null for a
   * conversation made before nonces existed, undefined when there is no such conversation.
   */
  async sessionTokenNonce(sessionId: string): Promise<string | null | undefined> {
    const [row] = await this.fn.rows<{ token_nonce: string | null }>(FN.tokenNonce, { p_session_id: sessionId });
    return row === undefined ? undefined : row.token_nonce;
  }
}
