/**
 * A customer with a large history, written through the migrations' own functions
 * (bind_session_customer, append_turn, save_session_summary, record_answer_feedback),
 * a batch of conversations per statement: for the export's benchmark
 * (scripts/bench-export.ts) and its tests.
 */
import type { SqlQueryable } from '../../src/store/database';

export interface BulkCustomer {
  customerId: string;
  /** Session ids are this prefix and a number (1…conversations). */
  prefix: string;
  /** Conversations bound to the customer by a customer token. */
  conversations: number;
  messagesPerConversation: number;
  /** Characters of each message's text. */
  messageChars: number;
  /** A cross-session summary on every n-th conversation (0: none). */
  summaryEvery: number;
  /** A rating of the first answer of every n-th conversation (0: none). */
  feedbackEvery: number;
  /** Orders in the sample commerce data (with a profile); order ids ZX-60001… (at most 9,999). */
  orders: number;
  /** Conversations per statement: all of one batch share their created_at (one transaction). */
  batchSize?: number;
}

/** What was written, to compare an export with. */
export interface BulkCustomerCounts {
  conversations: number;
  messages: number;
  summaries: number;
  feedback: number;
  orders: number;
}

/** Writes the customer's history; `progress` hears after each batch. */
export async function seedBulkCustomer(db: SqlQueryable, spec: BulkCustomer, progress: (done: number) => void = () => {}): Promise<BulkCustomerCounts> {
  const batch = spec.batchSize ?? 250;
  for (let from = 1; from <= spec.conversations; from += batch) {
    const to = Math.min(spec.conversations, from + batch - 1);
    await db.query(
      `select bind_session_customer($1 || g, $2), (
         select count(*) from append_turn($1 || g, $2, 'support', (
           select jsonb_agg(jsonb_build_object(
             'role', case when i % 2 = 1 then 'user' else 'assistant' end,
             'content', left('Message ' || i || ' of conversation ' || g || ': ' || repeat('where is my order and when will it arrive? ', 1 + $6 / 40), $6),
             'token_count', greatest(1, $6 / 4)
           ) order by i) from generate_series(1, $5::int) i
         ))
       )
       from generate_series($3::int, $4::int) g`,
      [spec.prefix, spec.customerId, from, to, spec.messagesPerConversation, spec.messageChars],
    );
    progress(to);
  }
  let summaries = 0;
  if (spec.summaryEvery > 0) {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from generate_series(1, $2::int / $3) k
       where save_session_summary($1 || (k * $3), 'The customer asked where order ' || (k * $3) || ' is.', 2, true)`,
      [spec.prefix, spec.conversations, spec.summaryEvery],
    );
    summaries = row!.n;
  }
  let feedback = 0;
  if (spec.feedbackEvery > 0) {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from generate_series(1, $2::int / $3) k
       join chat_messages m on m.session_id = $1 || (k * $3) and m.seq = 2
       cross join lateral record_answer_feedback(m.session_id, m.id, 'up', 'Helpful') f`,
      [spec.prefix, spec.conversations, spec.feedbackEvery],
    );
    feedback = row!.n;
  }
  if (spec.orders > 0) {
    await db.query(
      `insert into customer_profiles (user_id, name, email, loyalty_tier, member_since) values ($1, 'Bulk Customer', $1, 'Gold', '2020-01-01')
       on conflict (user_id) do nothing`,
      [spec.customerId],
    );
    await db.query(
      `insert into orders (order_id, user_id, status, destination_city, items, created_at)
       select 'ZX-' || (60000 + g), $1, 'delivered', 'Kassel',
              jsonb_build_array(jsonb_build_object('sku', 'SKU-' || g, 'name', 'Kettle', 'qty', 1, 'unit_price', 49.9)),
              now() - (g % 7) * interval '1 day'
       from generate_series(1, $2::int) g`,
      [spec.customerId, spec.orders],
    );
  }
  return {
    conversations: spec.conversations,
    messages: spec.conversations * spec.messagesPerConversation,
    summaries,
    feedback,
    orders: spec.orders,
  };
}
