-- list_sessions: the review console's list, newest activity first, one page at a time.
--
-- Keyset pagination on (updated_at, session_id): a page starts after the last row
-- of the previous one, so pages neither skip nor repeat rows while new messages
-- arrive, and the cost does not grow with the page number. The cursor carries
-- updated_at as text, keeping Postgres' microseconds (a JavaScript Date has only
-- milliseconds and would skip rows). p_pattern is an ILIKE pattern, already
-- escaped by the caller; it matches the session id, the customer, the title, the
-- last message or any message of the session.
create or replace function list_sessions(
  p_pattern text,
  p_escalated boolean,
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
  created_at timestamptz,
  updated_at timestamptz,
  cursor_updated_at text
)
language sql
stable
as $$
  select s.session_id, s.user_id, s.agent_type, s.title, s.last_message, s.message_count, s.token_count,
         s.active, s.escalated, s.memory_strategy, s.summary, s.summarized_through_seq,
         s.created_at, s.updated_at, s.updated_at::text
  from chat_sessions s
  where (p_escalated is null or s.escalated = p_escalated)
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
