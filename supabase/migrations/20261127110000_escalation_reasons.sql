-- Every escalation says why (docs/escalation.md): the reason is stored on the
-- escalated answer, and the conversation keeps the reason of its latest escalated
-- answer, so the sessions list can filter on it and the console shows it. When the
-- model handed the conversation over (hand_off_to_person), its summary of what the
-- customer needs is kept on the conversation for the person who takes over.
--
-- Values are the service's reasons (not_in_help_center, customer_asked, model,
-- tool_failed, …); the service validates them, so a new reason needs no migration.
alter table chat_messages add column if not exists escalation_reason text;
alter table chat_sessions add column if not exists escalation_reason text;
alter table chat_sessions add column if not exists handoff_summary text;

-- append_turn, as in 20261122000900_conversation_memory, now also storing each
-- message's escalation_reason, and keeping on the session the reason of the turn's
-- last escalated answer (and its metadata.handoff_summary, when it has one). A turn
-- without an escalated answer leaves both as they were: they describe the latest
-- escalation, not the latest answer.
create or replace function append_turn(
  p_session_id text,
  p_user_id text,
  p_agent_type text,
  p_messages jsonb
)
returns setof chat_messages
language plpgsql
as $$
declare
  v_count integer := jsonb_array_length(p_messages);
  v_first_seq integer;
  v_first_user text;
  v_last text;
  v_escalated boolean;
  v_tokens bigint;
  v_reason text;
  v_summary text;
begin
  if v_count = 0 then
    raise exception 'append_turn: no messages' using errcode = '22023';
  end if;

  select m->>'content' into v_first_user
  from jsonb_array_elements(p_messages) with ordinality as t(m, i)
  where m->>'role' = 'user' order by i limit 1;
  v_last := p_messages->(v_count - 1)->>'content';
  select coalesce(bool_or((m->>'escalated')::boolean), false), coalesce(sum((m->>'token_count')::bigint), 0)
  into v_escalated, v_tokens
  from jsonb_array_elements(p_messages) as t(m);
  select m->>'escalation_reason', m->'metadata'->>'handoff_summary'
  into v_reason, v_summary
  from jsonb_array_elements(p_messages) with ordinality as t(m, i)
  where coalesce((m->>'escalated')::boolean, false) and m->>'escalation_reason' is not null
  order by i desc limit 1;

  insert into chat_sessions (session_id, user_id, agent_type)
  values (p_session_id, p_user_id, coalesce(p_agent_type, 'support'))
  on conflict (session_id) do nothing;

  update chat_sessions s
  set message_count = s.message_count + v_count,
      token_count = s.token_count + v_tokens,
      user_id = coalesce(s.user_id, p_user_id),
      title = coalesce(s.title, left(v_first_user, 100)),
      last_message = left(v_last, 200),
      escalated = s.escalated or v_escalated,
      escalation_reason = coalesce(v_reason, s.escalation_reason),
      handoff_summary = case when v_reason is null then s.handoff_summary else coalesce(v_summary, s.handoff_summary) end,
      updated_at = now()
  where s.session_id = p_session_id
  returning s.message_count - v_count + 1 into v_first_seq;

  return query
  insert into chat_messages (session_id, seq, role, content, tool_calls, tool_call_id, name,
                             token_count, confidence, escalated, escalation_reason, metadata)
  select p_session_id,
         v_first_seq + (t.i - 1)::integer,
         t.m->>'role',
         coalesce(t.m->>'content', ''),
         t.m->'tool_calls',
         t.m->>'tool_call_id',
         t.m->>'name',
         (t.m->>'token_count')::integer,
         (t.m->>'confidence')::double precision,
         (t.m->>'escalated')::boolean,
         t.m->>'escalation_reason',
         coalesce(t.m->'metadata', '{}'::jsonb)
  from jsonb_array_elements(p_messages) with ordinality as t(m, i)
  order by t.i
  returning *;
end;
$$;

-- list_sessions, as in 20261123000500_human_handoff, also returning the
-- conversation's escalation reason and hand-off summary, and filtering on the
-- reason (p_escalation_reason; null: any).
drop function if exists list_sessions(text, boolean, text, boolean, text, text, integer);
create or replace function list_sessions(
  p_pattern text,
  p_escalated boolean,
  p_handler text,
  p_waiting boolean,
  p_escalation_reason text,
  p_after_updated_at text,
  p_after_session_id text,
  p_limit integer
)
returns table (
  session_id text,
  user_id text,
  agent_type text,
  title text,
  last_message text,
  message_count integer,
  token_count bigint,
  active boolean,
  escalated boolean,
  escalation_reason text,
  handoff_summary text,
  memory_strategy jsonb,
  summary text,
  summarized_through_seq integer,
  handler text,
  agent_name text,
  waiting_since timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  cursor_updated_at text
)
language sql
stable
as $$
  select s.session_id, s.user_id, s.agent_type, s.title, s.last_message, s.message_count, s.token_count,
         s.active, s.escalated, s.escalation_reason, s.handoff_summary, s.memory_strategy, s.summary,
         s.summarized_through_seq, s.handler, s.agent_name, s.waiting_since,
         s.created_at, s.updated_at, s.updated_at::text
  from chat_sessions s
  where (p_escalated is null or s.escalated = p_escalated)
    and (p_handler is null or s.handler = p_handler)
    and (p_escalation_reason is null or s.escalation_reason = p_escalation_reason)
    and (p_waiting is null
         or (p_waiting and s.waiting_since is not null and s.handler = 'bot')
         or (not p_waiting and not (s.waiting_since is not null and s.handler = 'bot')))
    and (p_after_updated_at is null
         or (s.updated_at, s.session_id) < (p_after_updated_at::timestamptz, p_after_session_id))
    and (p_pattern is null
         or s.session_id ilike p_pattern
         or s.user_id ilike p_pattern
         or s.title ilike p_pattern
         or s.last_message ilike p_pattern
         or exists (select 1 from chat_messages m where m.session_id = s.session_id and m.content ilike p_pattern))
  order by s.updated_at desc, s.session_id desc
  limit greatest(p_limit, 0)
$$;

-- The history readers, as in 20261122000500_history_window,
-- 20261123000202_history_window_after and 20261123000700_history_opening: they
-- listed chat_messages' columns one by one, which no longer matches the row type
-- with escalation_reason. They now carry each row whole ((f.m).*), so a later
-- column cannot break them again. The window logic is unchanged: newest-first, a
-- running token sum, cut at the first overflow, never opening on a reply; the window
-- over the whole session is the window after no seq, so it is written once.
create or replace function history_window(
  p_session_id text,
  p_max_messages integer,
  p_max_tokens integer
)
returns setof chat_messages
language sql
stable
as $$
  -- The window over the whole session: history_window_after from the start.
  select * from history_window_after(p_session_id, null, p_max_messages, p_max_tokens)
$$;

create or replace function history_window_after(
  p_session_id text,
  p_after_seq integer,
  p_max_messages integer,
  p_max_tokens integer
)
returns setof chat_messages
language sql
stable
as $$
  with newest as (
    select m, m.seq, m.role, m.token_count
    from chat_messages m
    where m.session_id = p_session_id
      and m.seq > coalesce(p_after_seq, 0)
      and m.role <> 'system'
    order by m.seq desc
    limit greatest(p_max_messages, 0)
  ),
  running as (
    select n.*, sum(n.token_count) over (order by n.seq desc rows unbounded preceding) as running_tokens
    from newest n
  ),
  fitting as (
    select * from running where running_tokens <= p_max_tokens
  ),
  first_user as (
    select min(seq) as seq from fitting where role = 'user'
  )
  select (f.m).*
  from fitting f, first_user u
  where f.seq >= u.seq
  order by f.seq asc
$$;

create or replace function history_opening(
  p_session_id text,
  p_max_messages integer
)
returns setof chat_messages
language sql
stable
as $$
  select m.*
  from chat_messages m
  where m.session_id = p_session_id
    and m.role <> 'system'
  order by m.seq asc
  limit greatest(p_max_messages, 0)
$$;
