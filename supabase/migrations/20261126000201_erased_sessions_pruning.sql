-- erased_sessions is pruned by age as fast as it grows.
--
-- Each erasure adds its sessions' tombstones (a retention batch, hundreds) and
-- removed at most 100 expired ones, so under retention the table grew without
-- bound. erase_sessions_core is as in 20261125000100_customer_data_erasure, except
-- that it removes at least twice as many expired tombstones as it adds.

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
  -- Tombstones older than a day go: at least twice as many as this erasure added
  -- (100 at the least), so however fast erasures come, the table holds about a
  -- day's erased ids, and a backlog drains.
  delete from erased_sessions e
  where e.session_id in (
    select o.session_id from erased_sessions o where o.erased_at < now() - interval '1 day'
    limit greatest(100, 2 * cardinality(v_ids)) for update skip locked
  );
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
