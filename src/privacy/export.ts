import type { StoredMessage } from '../store/types';
import type { CustomerDataStore, ExportSession, Page, PageCursor } from './customer-data';

/**
 * Rows read per query while exporting. Every part (orders, memory, conversations,
 * each conversation's messages) is read and written a page at a time, so an
 * export's memory does not grow with the customer's history.
 */
export const EXPORT_PAGE_SIZES = { orders: 200, memory: 200, conversations: 100, messages: 500 } as const;

/** Where an export goes, piece by piece; `write` resolves when the piece may be followed by the next (backpressure). */
export interface ExportSink {
  write(text: string): Promise<void>;
  /** True once the receiver went away: stop reading. */
  closed(): boolean;
}

export interface ExportOptions {
  /**
   * Also list the conversations that carry the customer's id only as an unverified
   * label (bound to no customer), apart, as `labelled_unverified_conversations`: the
   * agent's export. Never for the customer's own (/me/export): whoever typed their
   * id into those, it was not proved to be them.
   */
  includeLabelled: boolean;
  /** The export's time (exported_at); now by default. */
  now?: Date;
}

/**
 * Writes everything stored about a customer as one JSON document (GDPR Art. 15
 * and 20), streamed: the customer, what the sample commerce data holds (profile,
 * orders), cross-session memory, then every conversation bound to them by a
 * customer token with all its messages (every role, with times, sources and
 * metadata), its summary, its feedback and the orders proved in it; with
 * `includeLabelled`, then the labelled, unverified conversations in the same shape.
 * Each part is read and written a page at a time (EXPORT_PAGE_SIZES). Stops early
 * when the receiver goes away.
 */
export async function writeCustomerExport(data: CustomerDataStore, customerId: string, sink: ExportSink, options: ExportOptions): Promise<void> {
  const head = {
    customer_id: customerId,
    exported_at: (options.now ?? new Date()).toISOString(),
    profile: await data.commerceProfile(customerId),
  };
  // The head's closing brace is replaced by the parts, which follow page by page.
  await sink.write(`${JSON.stringify(head).slice(0, -1)},"orders":[`);
  if (!(await writePages(sink, (after) => data.ordersPage(customerId, after, EXPORT_PAGE_SIZES.orders), (o) => JSON.stringify(o)))) return;
  await sink.write('],"memory":[');
  if (!(await writePages(sink, (after) => data.memoryPage(customerId, after, EXPORT_PAGE_SIZES.memory), (m) => JSON.stringify(m)))) return;
  await sink.write('],"conversations":[');
  if (!(await writeConversations(data, customerId, false, sink))) return;
  if (options.includeLabelled) {
    await sink.write('],"labelled_unverified_conversations":[');
    if (!(await writeConversations(data, customerId, true, sink))) return;
  }
  await sink.write(']}');
}

/**
 * Writes the items of every page as the elements of a JSON array already opened,
 * one write per page. False when the receiver went away.
 */
async function writePages<T>(sink: ExportSink, fetchPage: (after: PageCursor | null) => Promise<Page<T>>, toJson: (item: T) => string): Promise<boolean> {
  let after: PageCursor | null = null;
  let first = true;
  do {
    if (sink.closed()) return false;
    const page: Page<T> = await fetchPage(after);
    if (page.items.length > 0) {
      await sink.write(`${first ? '' : ','}${page.items.map(toJson).join(',')}`);
      first = false;
    }
    after = page.next;
  } while (after !== null);
  return !sink.closed();
}

/**
 * The verified (or the labelled, unverified) conversations, a page at a time, each
 * with its messages; the messages of a page of conversations are read together, a
 * page of messages per query. False when the receiver went away.
 */
async function writeConversations(data: CustomerDataStore, customerId: string, labelled: boolean, sink: ExportSink): Promise<boolean> {
  let after: PageCursor | null = null;
  let first = true;
  do {
    if (sink.closed()) return false;
    const page: Page<ExportSession> = await data.sessionsPage(customerId, labelled, after, EXPORT_PAGE_SIZES.conversations);
    const messages = new ConversationMessages(data, page.items.map((s) => s.sessionId));
    for (const [i, session] of page.items.entries()) {
      // The conversation's closing brace is replaced by its messages, which follow a page at a time.
      await sink.write(`${first ? '' : ','}${JSON.stringify(exportedConversation(session)).slice(0, -1)},"messages":[`);
      first = false;
      let pending: string[] = [];
      let firstMessage = true;
      for (let message = await messages.next(i + 1); message !== null; message = await messages.next(i + 1)) {
        pending.push(JSON.stringify(exportedMessage(message)));
        if (pending.length === EXPORT_PAGE_SIZES.messages) {
          if (sink.closed()) return false;
          await sink.write(`${firstMessage ? '' : ','}${pending.join(',')}`);
          firstMessage = false;
          pending = [];
        }
      }
      await sink.write(`${firstMessage || pending.length === 0 ? '' : ','}${pending.join(',')}]}`);
    }
    after = page.next;
  } while (after !== null);
  return !sink.closed();
}

/**
 * The messages of a page of conversations, handed out conversation by conversation
 * in their order, read EXPORT_PAGE_SIZES.messages at a time (sessions_messages_page).
 */
class ConversationMessages {
  private rows: Array<{ index: number; message: StoredMessage }> = [];
  private at = 0;
  private exhausted = false;

  constructor(
    private readonly data: CustomerDataStore,
    private readonly sessionIds: string[],
  ) {}

  /** The next message of the `index`-th conversation (1-based), oldest first; null once it has no more. */
  async next(index: number): Promise<StoredMessage | null> {
    if (this.at >= this.rows.length && !this.exhausted) await this.readPage();
    const row = this.rows[this.at];
    if (!row || row.index !== index) return null;
    this.at += 1;
    return row.message;
  }

  private async readPage(): Promise<void> {
    const last = this.rows.at(-1);
    this.rows = await this.data.sessionsMessagesPage(this.sessionIds, last ? { index: last.index, seq: last.message.seq } : null, EXPORT_PAGE_SIZES.messages);
    this.at = 0;
    this.exhausted = this.rows.length < EXPORT_PAGE_SIZES.messages;
  }
}

/** A conversation as the export shows it (its messages follow). */
function exportedConversation(session: ExportSession) {
  return {
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
    feedback: session.feedback,
    order_proofs: session.orderProofs,
  };
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
