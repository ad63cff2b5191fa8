-- append_turn(session, user, agent_type, messages): store one turn atomically.
--
-- messages is a jsonb array of {role, content, tool_calls?, tool_call_id?, name?,
-- token_count, confidence?, escalated?, metadata?} in conversation order. The
-- session row is created if needed, then updated; that update takes the row lock,
-- so concurrent turns on one session queue here and each gets the next block of
-- seq numbers: seq stays gapless and unique, and message_count equals the number
-- of stored messages. title is the first user message (truncated to 100 chars),
-- last_message the turn's last message (truncated to 200). The whole turn is one
-- statement, hence one transaction: it is stored entirely or not at all.
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
begin
  if v_count = 0 then
    raise exception 'append_turn: no messages' using errcode = '22023';
  end if;

  select m->>'content' into v_first_user
  from jsonb_array_elements(p_messages) with ordinality as t(m, i)
  where m->>'role' = 'user' order by i limit 1;
  v_last := p_messages->(v_count - 1)->>'content';
  select coalesce(bool_or((m->>'escalated')::boolean), false) into v_escalated
  from jsonb_array_elements(p_messages) as t(m);

  insert into chat_sessions (session_id, user_id, agent_type)
  values (p_session_id, p_user_id, coalesce(p_agent_type, 'support'))
  on conflict (session_id) do nothing;

  update chat_sessions s
  set message_count = s.message_count + v_count,
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
