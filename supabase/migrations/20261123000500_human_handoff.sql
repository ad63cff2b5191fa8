-- Human takeover: a conversation is handled by the bot or by a named person.
--
-- chat_sessions.handler is 'bot' or 'human'; agent_name is the person holding it
-- (null while the bot does). waiting_since is when an escalated conversation
-- started waiting for a person: set by an escalated bot turn, cleared by a bot
-- turn that was not escalated, by a takeover and by a release, so "waiting" means
-- escalated, held by nobody, and the customer's last message not answered by
-- anyone but the bot's offer of a human.
--
-- Every change goes through append_turn (the session row lock, seq, message_count,
-- token_count and previews stay in one place): a person's reply is an assistant
-- message whose metadata.author is {"type": "human", "name": …}; a takeover or a
-- release is a system message (metadata.handoff = {"handler", "agent_name"}), so
-- it has a seq like any message and a customer's event stream can resume across
-- it. System messages are outside the model's window (history_window and
-- session_messages_after skip them).
alter table chat_sessions
  add column handler text not null default 'bot' check (handler in ('bot', 'human')),
  add column agent_name text,
  add column waiting_since timestamptz,
  add constraint chat_sessions_agent_name_held check ((handler = 'human') = (agent_name is not null));

-- The queue of the review console: escalated conversations nobody holds.
create index chat_sessions_waiting_idx on chat_sessions (updated_at desc) where waiting_since is not null and handler = 'bot';

-- Sessions that were escalated before this migration wait if their last message is the escalated answer.
update chat_sessions s
set waiting_since = s.updated_at
where s.escalated
  and (select m.escalated from chat_messages m where m.session_id = s.session_id order by m.seq desc limit 1);

-- Keeps waiting_since in step with the bot's turns: an escalated answer starts the
-- wait (or continues it), an answer that was not escalated ends it. Only while the
-- bot holds the conversation; a person's replies are stored by append_human_reply.
create or replace function track_waiting_for_human()
returns trigger
language plpgsql
as $$
declare
  v_turn record;
begin
  for v_turn in
    select n.session_id, bool_or(coalesce(n.escalated, false)) as escalated
    from inserted n
    where n.role = 'assistant' and not (n.metadata ? 'author')
    group by n.session_id
  loop
    update chat_sessions s
    set waiting_since = case when v_turn.escalated then coalesce(s.waiting_since, now()) end
    where s.session_id = v_turn.session_id and s.handler = 'bot';
  end loop;
  return null;
end;
$$;

-- Tells every instance listening on channel chat_messages (LISTEN chat_messages)
-- which sessions got new messages, and their newest seq ("<seq> <session_id>"). A
-- notification is delivered when the transaction commits, so a listener that
-- reads after it sees the rows. Backends that cannot listen poll session_newest_seqs.
create or replace function notify_new_messages()
returns trigger
language plpgsql
as $$
declare
  v_session record;
begin
  for v_session in select n.session_id, max(n.seq) as seq from inserted n group by n.session_id loop
    perform pg_notify('chat_messages', v_session.seq || ' ' || v_session.session_id);
  end loop;
  return null;
end;
$$;

create trigger chat_messages_waiting
after insert on chat_messages
referencing new table as inserted
for each statement execute function track_waiting_for_human();

create trigger chat_messages_notify
after insert on chat_messages
referencing new table as inserted
for each statement execute function notify_new_messages();

-- take_over_session(session, agent_name, force, note): a person takes the
-- conversation from the bot (or, with p_force, from another person).
--
-- The session row is locked first, so two people taking over at once queue here:
-- the first wins, the second finds it held and gets outcome 'held' (unless forced).
-- Taking over what one already holds changes nothing ('unchanged'). On a change,
-- p_note (a system message, jsonb as append_turn takes it) is stored through
-- append_turn in the same transaction. Returns one row: outcome ('taken',
-- 'unchanged', 'held', 'not_found'), the holder before, and the note's seq.
create or replace function take_over_session(p_session_id text, p_agent_name text, p_force boolean, p_note jsonb)
returns table (outcome text, previous_agent_name text, note_seq integer)
language plpgsql
as $$
declare
  v_session chat_sessions;
  v_seq integer;
begin
  select * into v_session from chat_sessions where session_id = p_session_id for update;
  if not found then
    return query select 'not_found'::text, null::text, null::integer;
    return;
  end if;
  if v_session.handler = 'human' and v_session.agent_name = p_agent_name then
    return query select 'unchanged'::text, v_session.agent_name, null::integer;
    return;
  end if;
  if v_session.handler = 'human' and not coalesce(p_force, false) then
    return query select 'held'::text, v_session.agent_name, null::integer;
    return;
  end if;
  update chat_sessions set handler = 'human', agent_name = p_agent_name, waiting_since = null where session_id = p_session_id;
  select t.seq into v_seq from append_turn(p_session_id, null, null, jsonb_build_array(p_note)) t;
  return query select 'taken'::text, v_session.agent_name, v_seq;
end;
$$;

-- release_session(session, note): the bot answers the conversation again. The
-- customer's unanswered messages stay in the history the bot's next answer sees.
-- Outcome 'released' (p_note stored), 'unchanged' (the bot already held it) or 'not_found'.
create or replace function release_session(p_session_id text, p_note jsonb)
returns table (outcome text, previous_agent_name text, note_seq integer)
language plpgsql
as $$
declare
  v_session chat_sessions;
  v_seq integer;
begin
  select * into v_session from chat_sessions where session_id = p_session_id for update;
  if not found then
    return query select 'not_found'::text, null::text, null::integer;
    return;
  end if;
  if v_session.handler = 'bot' then
    return query select 'unchanged'::text, null::text, null::integer;
    return;
  end if;
  update chat_sessions set handler = 'bot', agent_name = null, waiting_since = null where session_id = p_session_id;
  select t.seq into v_seq from append_turn(p_session_id, null, null, jsonb_build_array(p_note)) t;
  return query select 'released'::text, v_session.agent_name, v_seq;
end;
$$;

-- append_human_reply(session, agent_name, message): stores a person's reply, only
-- while a person holds the conversation, and, when p_agent_name is given, only
-- while that person does. The reply is stored through append_turn, under the row
-- lock, with metadata.author naming the holder, and returned. Refusals are raised
-- with their own SQLSTATE, which every backend passes on: HO404 no such session,
-- HO409 the bot holds it, HO410 another person holds it.
create or replace function append_human_reply(p_session_id text, p_agent_name text, p_message jsonb)
returns setof chat_messages
language plpgsql
as $$
declare
  v_session chat_sessions;
begin
  select * into v_session from chat_sessions s where s.session_id = p_session_id for update;
  if not found then
    raise exception 'no session %', p_session_id using errcode = 'HO404';
  end if;
  if v_session.handler <> 'human' then
    raise exception 'session % is answered by the bot', p_session_id using errcode = 'HO409';
  end if;
  if p_agent_name is not null and p_agent_name <> v_session.agent_name then
    raise exception 'session % is held by %', p_session_id, v_session.agent_name using errcode = 'HO410';
  end if;
  return query select * from append_turn(p_session_id, null, null, jsonb_build_array(
    p_message || jsonb_build_object('metadata', coalesce(p_message->'metadata', '{}'::jsonb)
      || jsonb_build_object('author', jsonb_build_object('type', 'human', 'name', v_session.agent_name)))));
end;
$$;

-- queue_customer_message(session, message): while a person holds the
-- conversation, stores the customer's message (through append_turn, under the
-- row lock, metadata.queued_for naming the holder) and returns it; while the bot
-- holds it, or for an unknown session, stores nothing and returns no row, and the
-- bot answers.
create or replace function queue_customer_message(p_session_id text, p_message jsonb)
returns setof chat_messages
language plpgsql
as $$
declare
  v_session chat_sessions;
begin
  select * into v_session from chat_sessions s where s.session_id = p_session_id for update;
  if not found or v_session.handler <> 'human' then
    return;
  end if;
  return query select * from append_turn(p_session_id, null, null, jsonb_build_array(
    p_message || jsonb_build_object('metadata', coalesce(p_message->'metadata', '{}'::jsonb)
      || jsonb_build_object('queued_for', v_session.agent_name))));
end;
$$;

-- Every message after a seq (0: all), system notes included, oldest first, at most
-- p_limit: what a customer's event stream sends next.
create or replace function session_events_after(p_session_id text, p_after_seq integer, p_limit integer)
returns setof chat_messages
language sql
stable
as $$
  select * from chat_messages
  where session_id = p_session_id and seq > coalesce(p_after_seq, 0)
  order by seq
  limit greatest(p_limit, 0)
$$;

-- The newest seq (= message_count) of each of these sessions: the light poll of
-- the backends that cannot LISTEN (Supabase's API, a single PGlite process).
create or replace function session_newest_seqs(p_session_ids text[])
returns table (session_id text, newest_seq integer)
language sql
stable
as $$
  select s.session_id, s.message_count from chat_sessions s where s.session_id = any(p_session_ids)
$$;

-- list_sessions, as in 20261122001000, with the handler (p_handler: 'bot' or
-- 'human', null for both) and the waiting queue (p_waiting: escalated, held by
-- nobody, the customer's last message unanswered). The old signature is dropped so
-- that a call cannot reach it.
drop function if exists list_sessions(text, boolean, text, text, integer);
create or replace function list_sessions(
  p_pattern text,
  p_escalated boolean,
  p_handler text,
  p_waiting boolean,
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
         s.active, s.escalated, s.memory_strategy, s.summary, s.summarized_through_seq,
         s.handler, s.agent_name, s.waiting_since,
         s.created_at, s.updated_at, s.updated_at::text
  from chat_sessions s
  where (p_escalated is null or s.escalated = p_escalated)
    and (p_handler is null or s.handler = p_handler)
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
