-- history_window_after(session, after_seq, max_messages, max_tokens): history_window
-- over the messages after p_after_seq only. The summarize strategy loads the
-- messages after its summary's watermark, and every other strategy the whole
-- history; both are bounded by this window (the operator's ceiling on one model
-- call, MODEL_INPUT_MAX_TOKENS), so a turn never reads every message of a long
-- session. Same walk as history_window: newest first on the (session_id, seq)
-- index, a running sum of token_count, never starting on an orphan; oldest-first.
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
    select m.*
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
  select f.id, f.session_id, f.seq, f.role, f.content, f.tool_calls, f.tool_call_id, f.name,
         f.token_count, f.confidence, f.escalated, f.metadata, f.created_at
  from fitting f, first_user u
  where f.seq >= u.seq
  order by f.seq asc
$$;
