-- Whose data it is follows verified identity only.
--
-- A conversation's user_id is a label any request body may set, so it cannot
-- decide whose data a conversation is: a customer's conversations are those bound
-- to them by a customer token (session_customers). Conversations that only carry
-- the label (bound to nobody) are listed apart, as "labelled, unverified": the
-- agent's export shows them separately, /me/export never, and erasing a customer
-- leaves them unless the agent asks for them too.
--
-- The export reads every part a page at a time (keyset pages), so its memory does
-- not grow with the customer's history.

-- The export walks a customer's conversations in keyset pages along these indexes,
-- so a page costs what it returns, not what the customer has.
create index if not exists session_customers_customer_order_idx on session_customers (lower(btrim(customer_id)), bound_at, session_id);
create index if not exists chat_sessions_label_order_idx on chat_sessions (lower(btrim(user_id)), created_at, session_id);

-- The verified sessions of a customer: bound to them by a customer token, in the
-- order they were bound (a signed-in customer's conversation is bound before its
-- first turn is stored), with bindings whose turn was never stored.
create or replace function customer_session_ids(p_customer_id text)
returns table (session_id text)
language sql
stable
as $$
  select b.session_id from session_customers b
  where lower(btrim(b.customer_id)) = lower(btrim(p_customer_id))
  order by b.bound_at, b.session_id
$$;

-- Conversations labelled with the customer's id but bound to no customer: whoever
-- typed the id, it was not proved. (One bound to another customer is theirs.)
create or replace function customer_labelled_session_ids(p_customer_id text)
returns table (session_id text)
language sql
stable
as $$
  select s.session_id from chat_sessions s
  where lower(btrim(s.user_id)) = lower(btrim(p_customer_id))
    and not exists (select 1 from session_customers b where b.session_id = s.session_id)
  order by s.created_at, s.session_id
$$;

-- Erases a customer's verified conversations (and, with p_include_labelled, the
-- labelled, unverified ones) with everything that hangs on them, and the memory
-- filed under the customer, in one transaction, and records it. Erasing a customer
-- with nothing stored records zeros. labelled_conversations: how many labelled,
-- unverified conversations there were (erased with p_include_labelled, else left).
drop function if exists erase_customer(text, text, text, boolean);
create or replace function erase_customer(
  p_customer_id text, p_actor text, p_customer_pseudonym text, p_langfuse boolean, p_include_labelled boolean
)
returns table (erasure_id bigint, counts jsonb, trace_ids text[], labelled_conversations integer)
language plpgsql
as $$
declare
  v_labelled text[] := array(select l.session_id from customer_labelled_session_ids(p_customer_id) l);
  v_ids text[] := array(select c.session_id from customer_session_ids(p_customer_id) c);
  v_core record;
begin
  if p_include_labelled then
    v_ids := v_ids || v_labelled;
  end if;
  select * into v_core from erase_sessions_core(v_ids, p_customer_id);
  return query select record_erasure(p_actor, 'customer', p_customer_pseudonym, v_core.counts, v_core.trace_ids, p_langfuse),
    v_core.counts, v_core.trace_ids, cardinality(v_labelled);
end;
$$;

-- One page of a customer's conversations for the export: the verified ones in the
-- order they were bound, or (p_labelled) the labelled, unverified ones oldest first.
-- Each row is the session (as get_session has it, without its internal id), its
-- feedback and the orders proved in it; page_key with session_id is where the next
-- page starts (a timestamp as text keeps its microseconds, which a JavaScript Date
-- would lose). The page's ids are chosen first, along the indexes above, and the
-- details built for those rows only.
create or replace function customer_sessions_page(
  p_customer_id text, p_labelled boolean, p_after_key text, p_after_session_id text, p_limit integer
)
returns table (page_key text, session jsonb, feedback jsonb, order_proofs jsonb)
language sql
stable
as $$
  with page as (
    (
      select b.session_id, b.bound_at as sort_at from session_customers b
      where not p_labelled
        and lower(btrim(b.customer_id)) = lower(btrim(p_customer_id))
        and (p_after_key is null or (b.bound_at, b.session_id) > (p_after_key::timestamptz, p_after_session_id))
        -- A binding whose first turn was never stored has no conversation to export.
        and exists (select 1 from chat_sessions s where s.session_id = b.session_id)
      order by b.bound_at, b.session_id
      limit greatest(p_limit, 1)
    )
    union all
    (
      select s.session_id, s.created_at from chat_sessions s
      where p_labelled
        and lower(btrim(s.user_id)) = lower(btrim(p_customer_id))
        and not exists (select 1 from session_customers b where b.session_id = s.session_id)
        and (p_after_key is null or (s.created_at, s.session_id) > (p_after_key::timestamptz, p_after_session_id))
      order by s.created_at, s.session_id
      limit greatest(p_limit, 1)
    )
  )
  select p.sort_at::text,
    to_jsonb(s) - 'id',
    coalesce((
      select jsonb_agg(jsonb_build_object(
        'message_id', f.message_id, 'rating', f.rating, 'comment', f.comment, 'created_at', f.created_at, 'updated_at', f.updated_at
      ) order by f.created_at, f.message_id)
      from answer_feedback f where f.session_id = s.session_id
    ), '[]'::jsonb),
    coalesce((
      select jsonb_agg(jsonb_build_object('order_id', o.order_id, 'proven_at', o.proven_at) order by o.proven_at, o.order_id)
      from session_order_proofs o where o.session_id = s.session_id
    ), '[]'::jsonb)
  from page p
  join chat_sessions s on s.session_id = p.session_id
  order by p.sort_at, p.session_id
$$;

-- One page of the customer's cross-session memory (customer_memory), oldest first.
create or replace function customer_memory_page(p_customer_id text, p_after_key text, p_after_session_id text, p_limit integer)
returns table (page_key text, session_id text, summary text, summarized_through_seq integer, created_at timestamptz, updated_at timestamptz)
language sql
stable
as $$
  select c.created_at::text, c.session_id, c.summary, c.summarized_through_seq, c.created_at, c.updated_at
  from customer_memory(p_customer_id) c
  where p_after_key is null or (c.created_at, c.session_id) > (p_after_key::timestamptz, p_after_session_id)
  order by c.created_at, c.session_id
  limit greatest(p_limit, 1)
$$;

-- One page of the sample commerce data's orders of a customer (customer_orders), newest first.
create or replace function customer_orders_page(p_customer_id text, p_after_key text, p_after_order_id text, p_limit integer)
returns table (
  page_key text, order_id text, status text, carrier text, ship_date text, destination_city text, destination_postcode text,
  contact_email text, items jsonb, tracking_events jsonb, created_at timestamptz
)
language sql
stable
as $$
  select o.created_at::text, o.order_id, o.status, o.carrier, o.ship_date, o.destination_city, o.destination_postcode,
         o.contact_email, o.items, o.tracking_events, o.created_at
  from customer_orders(p_customer_id) o
  where p_after_key is null or (o.created_at, o.order_id) < (p_after_key::timestamptz, p_after_order_id)
  order by o.created_at desc, o.order_id desc
  limit greatest(p_limit, 1)
$$;

-- One page of the messages of several conversations (a page of customer_sessions_page),
-- conversation by conversation in the order given, each oldest first: at most
-- p_limit, after message p_after_seq of the p_after_index-th conversation (1-based;
-- null: from the start). One query for many short conversations instead of one each;
-- a long one is read p_limit at a time.
create or replace function sessions_messages_page(p_session_ids text[], p_after_index integer, p_after_seq integer, p_limit integer)
returns table (session_index integer, message jsonb)
language sql
stable
as $$
  select i.ord::integer, to_jsonb(m)
  from unnest(p_session_ids) with ordinality as i(session_id, ord)
  cross join lateral (
    select * from chat_messages c
    where c.session_id = i.session_id
      and (i.ord > coalesce(p_after_index, 0) or c.seq > coalesce(p_after_seq, 0))
    order by c.seq
    limit greatest(p_limit, 1)
  ) m
  where i.ord >= coalesce(p_after_index, 0)
  order by i.ord, m.seq
  limit greatest(p_limit, 1)
$$;
