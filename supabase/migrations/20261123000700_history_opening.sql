-- history_opening(session, max_messages): the session's first messages, oldest
-- first. A strategy that must shed history keeps the conversation's opening turns
-- pinned ahead of its window (memory pin_opening_pct); the service reads them here,
-- bounded, on the (session_id, seq) index, and picks the turns that fit in code.
create or replace function history_opening(
  p_session_id text,
  p_max_messages integer
)
returns setof chat_messages
language sql
stable
as $$
  select m.id, m.session_id, m.seq, m.role, m.content, m.tool_calls, m.tool_call_id, m.name,
         m.token_count, m.confidence, m.escalated, m.metadata, m.created_at
  from chat_messages m
  where m.session_id = p_session_id
    and m.role <> 'system'
  order by m.seq asc
  limit greatest(p_max_messages, 0)
$$;
