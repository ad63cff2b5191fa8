-- Conversation memory: what the strategies keep between requests, and the
-- functions every backend calls for it (plain SQL, so supabase-js can .rpc() them).
--
-- chat_sessions.token_count: tokens of the whole durable history, kept by
-- append_turn, so a strategy can report what it saved without reading every message.
alter table chat_sessions add column token_count bigint not null default 0 check (token_count >= 0);

update chat_sessions s
set token_count = coalesce((select sum(m.token_count) from chat_messages m where m.session_id = s.session_id), 0);

-- Cross-session memory: the latest summary of each session that has a customer,
-- injected into that customer's later sessions when memory_injection is on.
create table conversation_summaries (
  id uuid primary key default gen_random_uuid(),
  user_id text not null,
  session_id text not null unique references chat_sessions (session_id) on delete cascade,
  summary text not null,
  summarized_through_seq integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index conversation_summaries_user_idx on conversation_summaries (user_id, updated_at desc);

alter table conversation_summaries enable row level security;

-- append_turn, as in 20261122000600, now also adding the turn's tokens to the session.
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
      updated_at = now()
  where s.session_id = p_session_id
  returning s.message_count - v_count + 1 into v_first_seq;

  return query
  insert into chat_messages (session_id, seq, role, content, tool_calls, tool_call_id, name,
                             token_count, confidence, escalated, metadata)
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
         coalesce(t.m->'metadata', '{}'::jsonb)
  from jsonb_array_elements(p_messages) with ordinality as t(m, i)
  order by t.i
  returning *;
end;
$$;

-- The durable messages after a seq (0: all), oldest first: what trim, compact and
-- summarize work on (summarize starts after the part its summary covers).
create or replace function session_messages_after(p_session_id text, p_after_seq integer)
returns setof chat_messages
language sql
stable
as $$
  select * from chat_messages
  where session_id = p_session_id and seq > coalesce(p_after_seq, 0) and role <> 'system'
  order by seq
$$;

-- Stores a rolling summary only if it reaches further than the stored one, so two
-- instances summarizing the same session at once cannot move it backwards. With
-- p_share_with_user, the summary also becomes the customer's cross-session memory.
create or replace function save_session_summary(
  p_session_id text,
  p_summary text,
  p_through_seq integer,
  p_share_with_user boolean
)
returns boolean
language plpgsql
as $$
declare
  v_user_id text;
begin
  update chat_sessions
  set summary = p_summary, summarized_through_seq = p_through_seq
  where session_id = p_session_id and coalesce(summarized_through_seq, 0) < p_through_seq
  returning user_id into v_user_id;
  if not found then
    return false;
  end if;
  if p_share_with_user and v_user_id is not null then
    insert into conversation_summaries (user_id, session_id, summary, summarized_through_seq)
    values (v_user_id, p_session_id, p_summary, p_through_seq)
    on conflict (session_id) do update
      set summary = excluded.summary,
          summarized_through_seq = excluded.summarized_through_seq,
          updated_at = now();
  end if;
  return true;
end;
$$;

-- The conversation-level memory setting (null clears it); false when no such session.
create or replace function set_session_memory(p_session_id text, p_setting jsonb)
returns boolean
language plpgsql
as $$
begin
  update chat_sessions set memory_strategy = p_setting where session_id = p_session_id;
  return found;
end;
$$;

-- The customer's most recent summary from another session: cross-session memory.
create or replace function latest_user_summary(p_user_id text, p_exclude_session_id text)
returns table (session_id text, summary text, updated_at timestamptz)
language sql
stable
as $$
  select c.session_id, c.summary, c.updated_at
  from conversation_summaries c
  where c.user_id = p_user_id and c.session_id is distinct from p_exclude_session_id
  order by c.updated_at desc
  limit 1
$$;
