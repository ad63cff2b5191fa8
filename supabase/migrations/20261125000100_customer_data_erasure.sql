-- Customer data lifecycle: erasure of one conversation, of a customer, and of
-- expired conversations (retention), each in one transaction and audited without
-- content. src/privacy/customer-data.ts lists every table that holds customer data
-- and how it is covered; a test fails when a table with a session or customer
-- column is added without being listed there.

-- Customer ids compare as the shop compares them (isSameCustomer): trimmed, case-insensitive.
create index if not exists chat_sessions_customer_idx on chat_sessions (lower(btrim(user_id)));
create index if not exists session_customers_customer_idx on session_customers (lower(btrim(customer_id)));
create index if not exists conversation_summaries_customer_idx on conversation_summaries (lower(btrim(user_id)));

-- An idempotency record's answer names its session: kept as a column of its own,
-- so erasing a session finds the stored answers of its retried requests.
alter table idempotency_keys add column if not exists session_id text generated always as (response->>'session_id') stored;
create index if not exists idempotency_keys_session_idx on idempotency_keys (session_id) where session_id is not null;

-- Sessions erased lately. An answer that was being generated while its conversation
-- was erased must not bring it back: append_turn would create the session anew, so
-- inserting a session (or a binding or an order proof) under an erased id fails
-- (SQLSTATE ER410). Only the id is kept, for a day (an answer takes seconds).
create table if not exists erased_sessions (
  session_id text primary key,
  erased_at timestamptz not null default now()
);
create index if not exists erased_sessions_erased_at_idx on erased_sessions (erased_at);
alter table erased_sessions enable row level security;

-- Checked at commit (a deferred constraint trigger), so an insert that waited for
-- the erasing transaction, or ran beside it, still sees the erasure once it committed.
create or replace function refuse_erased_session()
returns trigger
language plpgsql
as $$
begin
  if exists (select 1 from erased_sessions e where e.session_id = new.session_id) then
    raise exception 'conversation % was erased', new.session_id using errcode = 'ER410';
  end if;
  return null;
end;
$$;

drop trigger if exists chat_sessions_not_erased on chat_sessions;
create constraint trigger chat_sessions_not_erased
after insert on chat_sessions deferrable initially deferred
for each row execute function refuse_erased_session();

drop trigger if exists session_customers_not_erased on session_customers;
create constraint trigger session_customers_not_erased
after insert on session_customers deferrable initially deferred
for each row execute function refuse_erased_session();

drop trigger if exists session_order_proofs_not_erased on session_order_proofs;
create constraint trigger session_order_proofs_not_erased
after insert on session_order_proofs deferrable initially deferred
for each row execute function refuse_erased_session();

-- The check at commit alone would miss a write that commits while the erasure is
-- still running (each unseen by the other): a binding stored beside an erasure must
-- either finish before the erasure reads, or wait for it and then see its tombstone.
-- So writes that create rows under a session id take a transaction-level advisory
-- lock on that id, and the erasure takes the same locks, always before any row lock
-- (so the two orders cannot deadlock). Its own key space (two int keys).
create or replace function lock_session_for_erasure()
returns trigger
language plpgsql
as $$
begin
  perform pg_advisory_xact_lock(72839, hashtext(new.session_id));
  return null;
end;
$$;

drop trigger if exists chat_sessions_erasure_lock on chat_sessions;
create trigger chat_sessions_erasure_lock after insert on chat_sessions
for each row execute function lock_session_for_erasure();
drop trigger if exists session_customers_erasure_lock on session_customers;
create trigger session_customers_erasure_lock after insert on session_customers
for each row execute function lock_session_for_erasure();
drop trigger if exists session_order_proofs_erasure_lock on session_order_proofs;
create trigger session_order_proofs_erasure_lock after insert on session_order_proofs
for each row execute function lock_session_for_erasure();

-- Takes the erasure locks of these session ids, in one order.
create or replace function lock_sessions_for_erasure(p_session_ids text[])
returns void
language sql
as $$
  select pg_advisory_xact_lock(72839, hashtext(i.id)) from (select distinct unnest(p_session_ids) as id order by 1) i
$$;

-- Whether a session id was erased lately (a failed append asks, to say so).
create or replace function session_erased(p_session_id text)
returns boolean
language sql
stable
as $$
  select exists (select 1 from erased_sessions e where e.session_id = p_session_id)
$$;

-- Every erasure: who (agent, customer, retention), when, what (counts per kind),
-- whose (a keyed hash of the customer id, never the id), and what became of the
-- traces in Langfuse. No message content, no session id.
create table if not exists erasure_audit (
  id bigint generated always as identity primary key,
  erased_at timestamptz not null default now(),
  actor text not null check (actor in ('agent', 'customer', 'retention')),
  scope text not null check (scope in ('customer', 'conversation', 'retention')),
  customer_pseudonym text,
  counts jsonb not null,
  -- not_configured (no Langfuse), none (no traces), pending, deleted, failed (retried).
  trace_deletion text not null check (trace_deletion in ('not_configured', 'none', 'pending', 'deleted', 'failed')),
  trace_count integer not null default 0,
  -- The traces still to delete (random ids), emptied once Langfuse confirmed.
  pending_trace_ids text[] not null default '{}',
  trace_attempts integer not null default 0,
  trace_error text,
  trace_updated_at timestamptz
);
create index if not exists erasure_audit_retry_idx on erasure_audit (id) where trace_deletion in ('pending', 'failed');
alter table erasure_audit enable row level security;

-- The core, for the wrappers below only: erases the given sessions and everything
-- that hangs on them, and (p_customer_id) what is filed under the customer without
-- a session. Locks the sessions first, so a turn being stored finishes before the
-- erasure reads (and then erases) its messages. Returns the counts per kind and
-- the Langfuse trace ids the answers recorded. Callers take the erasure locks first
-- (lock_sessions_for_erasure), before any row lock.
create or replace function erase_sessions_core(p_session_ids text[], p_customer_id text)
returns table (counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_ids text[] := coalesce(p_session_ids, '{}');
  v_customer text := lower(btrim(p_customer_id));
  v_conversations integer;
  v_summaries integer;
  v_messages integer;
  v_feedback integer;
  v_memory integer;
  v_bindings integer;
  v_proofs integer;
  v_idempotency integer;
  v_rate_limits integer;
  v_traces text[];
  v_id text;
begin
  perform lock_sessions_for_erasure(v_ids);
  perform 1 from chat_sessions s where s.session_id = any (v_ids) order by s.session_id for update;

  select count(*), count(s.summary) into v_conversations, v_summaries from chat_sessions s where s.session_id = any (v_ids);
  select coalesce(array_agg(distinct m.metadata->>'trace_id'), '{}') into v_traces
  from chat_messages m where m.session_id = any (v_ids) and m.metadata ? 'trace_id';

  delete from answer_feedback f where f.session_id = any (v_ids);
  get diagnostics v_feedback = row_count;
  delete from conversation_summaries c
  where c.session_id = any (v_ids) or (v_customer is not null and lower(btrim(c.user_id)) = v_customer);
  get diagnostics v_memory = row_count;
  delete from chat_messages m where m.session_id = any (v_ids);
  get diagnostics v_messages = row_count;
  delete from chat_sessions s where s.session_id = any (v_ids);
  delete from session_customers b where b.session_id = any (v_ids);
  get diagnostics v_bindings = row_count;
  delete from session_order_proofs p where p.session_id = any (v_ids);
  get diagnostics v_proofs = row_count;
  delete from idempotency_keys k where k.session_id = any (v_ids);
  get diagnostics v_idempotency = row_count;
  -- The limiters' counters keyed on these sessions (src/http/protection.ts, src/identity/order-proofs.ts).
  delete from rate_limit_counters r
  where r.key in (select p.prefix || i.id from unnest(v_ids) as i(id), unnest(array['chat-session:', 'order-proof-session:']) as p(prefix));
  get diagnostics v_rate_limits = row_count;

  insert into erased_sessions (session_id) select distinct i.id from unnest(v_ids) as i(id)
  on conflict (session_id) do update set erased_at = now();
  delete from erased_sessions e
  where e.session_id in (select o.session_id from erased_sessions o where o.erased_at < now() - interval '1 day' limit 100 for update skip locked);
  -- Open event streams (any instance) look, find the conversation gone and say `erased`.
  foreach v_id in array v_ids loop
    perform pg_notify('chat_messages', '0 ' || v_id);
  end loop;

  return query select jsonb_build_object(
    'conversations', v_conversations,
    'messages', v_messages,
    'summaries', v_summaries,
    'memory', v_memory,
    'feedback', v_feedback,
    'idempotency_records', v_idempotency,
    'order_proofs', v_proofs,
    'bindings', v_bindings,
    'rate_limit_counters', v_rate_limits
  ), v_traces;
end;
$$;

-- The audit row of an erasure; the trace deletion is pending when Langfuse is
-- configured and the erased answers had traces.
create or replace function record_erasure(
  p_actor text, p_scope text, p_customer_pseudonym text, p_counts jsonb, p_trace_ids text[], p_langfuse boolean
)
returns bigint
language sql
as $$
  insert into erasure_audit (actor, scope, customer_pseudonym, counts, trace_deletion, trace_count, pending_trace_ids)
  values (
    p_actor, p_scope, p_customer_pseudonym, p_counts,
    case when not p_langfuse then 'not_configured' when cardinality(p_trace_ids) = 0 then 'none' else 'pending' end,
    cardinality(p_trace_ids),
    case when p_langfuse then p_trace_ids else '{}' end
  )
  returning id
$$;

-- Erases one conversation and records it, in one transaction. existed = false (and
-- nothing recorded) when there is no such conversation.
create or replace function erase_conversation(p_session_id text, p_actor text, p_customer_pseudonym text, p_langfuse boolean)
returns table (existed boolean, erasure_id bigint, counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_core record;
begin
  perform lock_sessions_for_erasure(array[p_session_id]);
  perform 1 from chat_sessions s where s.session_id = p_session_id for update;
  if not found then
    return query select false, null::bigint, null::jsonb, null::text[];
    return;
  end if;
  select * into v_core from erase_sessions_core(array[p_session_id], null);
  return query select true,
    record_erasure(p_actor, 'conversation', p_customer_pseudonym, v_core.counts, v_core.trace_ids, p_langfuse),
    v_core.counts, v_core.trace_ids;
end;
$$;

-- The sessions of a customer: those filed under their id (the verified customer,
-- or the label) and those bound to them, oldest first.
create or replace function customer_session_ids(p_customer_id text)
returns table (session_id text)
language sql
stable
as $$
  select u.session_id from (
    select s.session_id, s.created_at from chat_sessions s where lower(btrim(s.user_id)) = lower(btrim(p_customer_id))
    union
    select b.session_id, coalesce(s.created_at, b.bound_at) from session_customers b
    left join chat_sessions s on s.session_id = b.session_id
    where lower(btrim(b.customer_id)) = lower(btrim(p_customer_id))
  ) u
  order by u.created_at, u.session_id
$$;

-- Erases everything of a customer and records it, in one transaction. Erasing a
-- customer with nothing stored records zeros.
create or replace function erase_customer(p_customer_id text, p_actor text, p_customer_pseudonym text, p_langfuse boolean)
returns table (erasure_id bigint, counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_core record;
begin
  select * into v_core from erase_sessions_core(array(select c.session_id from customer_session_ids(p_customer_id) c), p_customer_id);
  return query select record_erasure(p_actor, 'customer', p_customer_pseudonym, v_core.counts, v_core.trace_ids, p_langfuse),
    v_core.counts, v_core.trace_ids;
end;
$$;

-- Retention: one batch of conversations whose last message is older than
-- p_older_than_seconds, erased and recorded in one short transaction, so a large
-- sweep never holds chat up. One instance sweeps at a time: each batch takes a
-- transaction-level advisory lock (works behind a transaction pooler too) and
-- answers 'busy' when another instance holds it. Conversations being written
-- right now are skipped (skip locked); the next sweep gets them. 'done' when
-- nothing is left. p_dry_run counts everything expired and erases nothing.
create or replace function erase_expired_conversations(p_older_than_seconds double precision, p_batch_size integer, p_dry_run boolean, p_langfuse boolean)
returns table (outcome text, erasure_id bigint, counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_cutoff timestamptz := now() - make_interval(secs => p_older_than_seconds);
  v_ids text[];
  v_core record;
begin
  if not pg_try_advisory_xact_lock(7172839202) then
    return query select 'busy'::text, null::bigint, null::jsonb, null::text[];
    return;
  end if;
  if p_dry_run then
    return query select 'counted'::text, null::bigint, jsonb_build_object(
      'conversations', (select count(*) from chat_sessions s where s.updated_at < v_cutoff),
      'messages', (select count(*) from chat_messages m join chat_sessions s on s.session_id = m.session_id where s.updated_at < v_cutoff)
    ), null::text[];
    return;
  end if;
  -- Candidates first, then their erasure locks, then their rows (skipping any being written now).
  v_ids := array(select s.session_id from chat_sessions s where s.updated_at < v_cutoff order by s.updated_at limit greatest(p_batch_size, 1));
  perform lock_sessions_for_erasure(v_ids);
  v_ids := array(
    select s.session_id from chat_sessions s where s.session_id = any (v_ids) and s.updated_at < v_cutoff
    for update skip locked
  );
  if cardinality(v_ids) = 0 then
    return query select 'done'::text, null::bigint, null::jsonb, null::text[];
    return;
  end if;
  select * into v_core from erase_sessions_core(v_ids, null);
  return query select 'erased'::text,
    record_erasure('retention', 'retention', null, v_core.counts, v_core.trace_ids, p_langfuse),
    v_core.counts, v_core.trace_ids;
end;
$$;

-- The audit list, newest first, one keyset page at a time (p_before_id: where the last page ended).
create or replace function erasure_audit_page(p_before_id bigint, p_limit integer)
returns table (
  id bigint, erased_at timestamptz, actor text, scope text, customer_pseudonym text, counts jsonb,
  trace_deletion text, trace_count integer, trace_attempts integer, trace_error text, trace_updated_at timestamptz
)
language sql
stable
as $$
  select a.id, a.erased_at, a.actor, a.scope, a.customer_pseudonym, a.counts,
         a.trace_deletion, a.trace_count, a.trace_attempts, a.trace_error, a.trace_updated_at
  from erasure_audit a
  where p_before_id is null or a.id < p_before_id
  order by a.id desc
  limit greatest(p_limit, 0)
$$;

-- Erasures whose traces Langfuse has not confirmed deleted yet, oldest first.
create or replace function pending_trace_deletions(p_limit integer)
returns table (id bigint, pending_trace_ids text[], trace_attempts integer)
language sql
stable
as $$
  select a.id, a.pending_trace_ids, a.trace_attempts from erasure_audit a
  where a.trace_deletion in ('pending', 'failed')
  order by a.id
  limit greatest(p_limit, 0)
$$;

-- What one attempt at deleting an erasure's traces came to: deleted (the ids are
-- forgotten) or failed (kept, retried later, the error recorded).
create or replace function record_trace_deletion(p_erasure_id bigint, p_deleted boolean, p_error text)
returns boolean
language plpgsql
as $$
begin
  update erasure_audit a
  set trace_deletion = case when p_deleted then 'deleted' else 'failed' end,
      pending_trace_ids = case when p_deleted then '{}' else a.pending_trace_ids end,
      trace_attempts = a.trace_attempts + 1,
      trace_error = case when p_deleted then null else left(p_error, 500) end,
      trace_updated_at = now()
  where a.id = p_erasure_id and a.trace_deletion in ('pending', 'failed');
  return found;
end;
$$;

-- Export: what the service holds about a customer, read conversation by conversation.
create or replace function customer_memory(p_customer_id text)
returns setof conversation_summaries
language sql
stable
as $$
  select * from conversation_summaries c
  where lower(btrim(c.user_id)) = lower(btrim(p_customer_id))
     or c.session_id in (select i.session_id from customer_session_ids(p_customer_id) i)
  order by c.updated_at
$$;

create or replace function session_order_proof_list(p_session_id text)
returns table (order_id text, proven_at timestamptz)
language sql
stable
as $$
  select p.order_id, p.proven_at from session_order_proofs p where p.session_id = p_session_id order by p.proven_at
$$;

-- The sample commerce data's orders of a customer (the shop's records), newest first.
create or replace function customer_orders(p_customer_id text)
returns table (
  order_id text, status text, carrier text, ship_date text, destination_city text, destination_postcode text,
  contact_email text, items jsonb, tracking_events jsonb, created_at timestamptz
)
language sql
stable
as $$
  select o.order_id, o.status, o.carrier, o.ship_date::text, o.destination_city, o.destination_postcode,
         o.contact_email, o.items, o.tracking_events, o.created_at
  from orders o where lower(btrim(o.user_id)) = lower(btrim(p_customer_id))
  order by o.created_at desc
$$;
