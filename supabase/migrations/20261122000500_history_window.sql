-- history_window(session, max_messages, max_tokens): the messages the model sees.
--
-- Walk the session newest-first (the unique (session_id, seq) index, backwards), at
-- most max_messages rows, keeping a running sum of the stored token_count. Keep
-- every message whose running sum fits max_tokens; the sum never shrinks, so this
-- stops at the first message that would overflow. Then drop leading messages up
-- to the first user turn: the window never starts on an assistant reply or tool
-- result whose user turn was cut, and since the window is a contiguous suffix,
-- a tool call is never separated from its result. Returned oldest-first.
--
-- Cost: O(max_messages) index reads, independent of the session's length.
create or replace function history_window(
  p_session_id text,
  p_max_messages integer,
  p_max_tokens integer
)
returns setof chat_messages
language sql
stable
as $$
  with newest as (
    select m.*
    from chat_messages m
    where m.session_id = p_session_id
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
  select f.id, f.session_id, f.seq, f.role, f.content, f.tool_calls, f.tool_call_id, f.name,
         f.token_count, f.confidence, f.escalated, f.metadata, f.created_at
  from fitting f, first_user u
  where f.seq >= u.seq
  order by f.seq asc
$$;
