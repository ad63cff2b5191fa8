-- Erasure and retention reach the rows of a session whose conversation was never
-- stored.
--
-- Some rows are written before a turn's answer is stored: the customer binding
-- (with the raw customer id) at the start of the turn, an order proof during a
-- tool call, the Idempotency-Key's claim. When the turn then fails or the client
-- hangs up, no chat_sessions row exists: retention, which picked sessions by their
-- conversation's age, never found them, and erasing the session by id answered
-- 404. Now:
--   * retention also sweeps, by their own age, the sessions that have such rows and
--     no conversation (unstored_sessions_older_than);
--   * erasing a session by id erases whatever it has, conversation or not, and
--     answers "no such session" only when it has nothing at all.
-- src/privacy/customer-data.ts marks these tables (agedBy: the column retention
-- ages them by); the coverage test fails on a table that can hold rows without a
-- conversation and is not marked.

create index if not exists session_customers_bound_at_idx on session_customers (bound_at);
create index if not exists session_order_proofs_proven_at_idx on session_order_proofs (proven_at);
-- idempotency_keys (created_at) is indexed in 20261126000200.

-- Sessions with rows older than p_older_than in a table that is written before the
-- conversation is stored, and no conversation: at most p_limit, each at most once
-- per table (the caller removes repeats). A plain union all, so the scan stops as
-- soon as it has enough.
create or replace function unstored_sessions_older_than(p_older_than timestamptz, p_limit integer)
returns table (session_id text)
language sql
stable
as $$
  select u.session_id from (
    select b.session_id from session_customers b where b.bound_at < p_older_than
    union all
    select p.session_id from session_order_proofs p where p.proven_at < p_older_than
    union all
    select k.session_id from idempotency_keys k where k.created_at < p_older_than
  ) u
  where not exists (select 1 from chat_sessions s where s.session_id = u.session_id)
  limit greatest(p_limit, 0)
$$;

-- Erases one session and records it, in one transaction: its conversation if it was
-- stored, and every row that hangs on its id in any case (a binding, order proofs,
-- an idempotency record, counters). existed = false (and nothing recorded, nothing
-- changed) when the id has nothing at all.
create or replace function erase_conversation(p_session_id text, p_actor text, p_customer_pseudonym text, p_langfuse boolean)
returns table (existed boolean, erasure_id bigint, counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_core record;
begin
  perform lock_sessions_for_erasure(array[p_session_id]);
  begin
    select * into v_core from erase_sessions_core(array[p_session_id], null);
    -- erase_sessions_core counts every table it erases, so all zeros means nothing
    -- was there; its tombstone and notification are then undone with this block.
    if not exists (select 1 from jsonb_each_text(v_core.counts) c where c.value::bigint > 0) then
      raise exception 'nothing stored under this session id' using errcode = 'ER404';
    end if;
  exception when sqlstate 'ER404' then
    return query select false, null::bigint, null::jsonb, null::text[];
    return;
  end;
  return query select true,
    record_erasure(p_actor, 'conversation', p_customer_pseudonym, v_core.counts, v_core.trace_ids, p_langfuse),
    v_core.counts, v_core.trace_ids;
end;
$$;

-- Retention: as in 20261125000100_customer_data_erasure, and when fewer expired
-- conversations than a batch are left, the batch is filled with sessions that
-- were never stored and whose rows are older than the period. Those are checked
-- again under their erasure locks: one whose conversation was stored meanwhile is
-- left (its conversation is young). The dry run counts them as
-- `unstored_sessions`.
create or replace function erase_expired_conversations(p_older_than_seconds double precision, p_batch_size integer, p_dry_run boolean, p_langfuse boolean)
returns table (outcome text, erasure_id bigint, counts jsonb, trace_ids text[])
language plpgsql
as $$
declare
  v_cutoff timestamptz := now() - make_interval(secs => p_older_than_seconds);
  v_batch integer := greatest(p_batch_size, 1);
  v_ids text[];
  v_unstored text[];
  v_core record;
begin
  if not pg_try_advisory_xact_lock(7172839202) then
    return query select 'busy'::text, null::bigint, null::jsonb, null::text[];
    return;
  end if;
  if p_dry_run then
    return query select 'counted'::text, null::bigint, jsonb_build_object(
      'conversations', (select count(*) from chat_sessions s where s.updated_at < v_cutoff),
      'messages', (select count(*) from chat_messages m join chat_sessions s on s.session_id = m.session_id where s.updated_at < v_cutoff),
      'unstored_sessions', (select count(distinct u.session_id) from unstored_sessions_older_than(v_cutoff, 2147483647) u)
    ), null::text[];
    return;
  end if;
  -- Candidates first, then their erasure locks, then their rows (skipping any being written now).
  v_ids := array(select s.session_id from chat_sessions s where s.updated_at < v_cutoff order by s.updated_at limit v_batch);
  if cardinality(v_ids) < v_batch then
    v_unstored := array(select distinct u.session_id from unstored_sessions_older_than(v_cutoff, v_batch - cardinality(v_ids)) u);
  else
    v_unstored := '{}';
  end if;
  perform lock_sessions_for_erasure(v_ids || v_unstored);
  v_ids := array(
    select s.session_id from chat_sessions s where s.session_id = any (v_ids) and s.updated_at < v_cutoff
    for update skip locked
  ) || array(
    select i.id from unnest(v_unstored) as i(id) where not exists (select 1 from chat_sessions s where s.session_id = i.id)
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
