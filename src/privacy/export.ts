import type { StoredMessage } from '../store/types';
import type { CustomerDataStore } from './customer-data';

/** Messages read per query while exporting: a long conversation is streamed in pages, never held whole. */
const MESSAGES_PAGE = 500;

/** Where an export goes, piece by piece; `write` resolves when the piece may be followed by the next (backpressure). */
export interface ExportSink {
  write(text: string): Promise<void>;
  /** True once the receiver went away: stop reading. */
  closed(): boolean;
}

/**
 * Writes everything stored about a customer as one JSON document (GDPR Art. 15
 * and 20), streamed: the customer, what the sample commerce data holds (profile,
 * orders), cross-session memory, then every conversation with all its messages
 * (every role, with times, sources and metadata), its summary, its feedback and
 * the orders proved in it. Conversations and messages are read and written a page
 * at a time, so an export's memory does not grow with the customer's history.
 */
export async function writeCustomerExport(data: CustomerDataStore, customerId: string, sink: ExportSink, now = new Date()): Promise<void> {
  const [commerce, memory, sessionIds] = await Promise.all([
    data.commerceData(customerId),
    data.customerMemory(customerId),
    data.customerSessionIds(customerId),
  ]);
  const head = {
    customer_id: customerId,
    exported_at: now.toISOString(),
    profile: commerce.profile,
    orders: commerce.orders,
    memory,
  };
  // The head's closing brace is replaced by the conversations array, which follows piece by piece.
  await sink.write(`${JSON.stringify(head).slice(0, -1)},"conversations":[`);
  let first = true;
  for (const sessionId of sessionIds) {
    if (sink.closed()) return;
    const session = await data.exportSession(sessionId);
    if (!session) continue; // bound to the customer but no turn was ever stored
    const [feedback, orderProofs] = await Promise.all([data.sessionFeedback(sessionId), data.sessionOrderProofs(sessionId)]);
    const conversation = {
      session_id: session.sessionId,
      user_id: session.userId,
      agent_type: session.agentType,
      title: session.title,
      created_at: session.createdAt.toISOString(),
      updated_at: session.updatedAt.toISOString(),
      escalated: session.escalated,
      handler: session.handler,
      agent_name: session.agentName,
      memory_strategy: session.memoryStrategy,
      summary: session.summary,
      summarized_through_seq: session.summarizedThroughSeq,
      feedback,
      order_proofs: orderProofs,
    };
    await sink.write(`${first ? '' : ','}${JSON.stringify(conversation).slice(0, -1)},"messages":[`);
    first = false;
    let afterSeq = 0;
    let firstMessage = true;
    for (;;) {
      if (sink.closed()) return;
      const page = await data.messagesAfter(sessionId, afterSeq, MESSAGES_PAGE);
      if (page.length > 0) {
        await sink.write(`${firstMessage ? '' : ','}${page.map((m) => JSON.stringify(exportedMessage(m))).join(',')}`);
        firstMessage = false;
        afterSeq = page.at(-1)!.seq;
      }
      if (page.length < MESSAGES_PAGE) break;
    }
    await sink.write(']}');
  }
  await sink.write(']}');
}

/** A message as the export shows it: everything stored. */
function exportedMessage(m: StoredMessage) {
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
    created_at: m.createdAt.toISOString(),
    ...(m.toolCalls?.length && { tool_calls: m.toolCalls }),
    ...(m.toolCallId !== null && { tool_call_id: m.toolCallId }),
    ...(m.name !== null && { name: m.name }),
    ...(m.confidence !== null && { confidence: m.confidence }),
    ...(m.escalated !== null && { escalated: m.escalated }),
    sources: Array.isArray(m.metadata['sources']) ? m.metadata['sources'] : [],
    metadata: m.metadata,
  };
}
