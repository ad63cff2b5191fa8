-- A bot answer dropped because a person took the conversation over while it was
-- being made still had a Langfuse trace (the model was called). Only the customer's
-- message is stored then, and the trace id went with the dropped answer, so
-- erasing the conversation never deleted that trace. append_answer_turn is as in
-- 20261125000200_turn_stored_once, except that the kept message carries the
-- dropped answer's trace id (metadata.trace_id), where erasure collects it.

create or replace function append_answer_turn(
  p_session_id text,
  p_user_id text,
  p_agent_type text,
  p_messages jsonb,
  p_key text,
  p_claim_token uuid,
  p_response jsonb
)
returns setof chat_messages
language plpgsql
as $$
declare
  v_handler text;
  v_row chat_messages;
  v_trace_id text;
  v_kept jsonb;
begin
  if p_key is not null then
    perform hold_idempotency_claim(p_key, p_claim_token);
  end if;

  select s.handler into v_handler from chat_sessions s where s.session_id = p_session_id for update;
  if v_handler = 'human' then
    -- The dropped answer's Langfuse trace id goes with the message that is kept.
    v_trace_id := p_messages->(jsonb_array_length(p_messages) - 1)->'metadata'->>'trace_id';
    v_kept := p_messages->0;
    if v_trace_id is not null then
      v_kept := v_kept || jsonb_build_object('metadata', coalesce(v_kept->'metadata', '{}'::jsonb) || jsonb_build_object('trace_id', v_trace_id));
    end if;
    select * into v_row from queue_customer_message(p_session_id, v_kept);
    if p_key is not null then
      perform complete_idempotency_key_queued(p_key, v_row);
    end if;
    return next v_row;
    return;
  end if;

  if p_key is null then
    return query select * from append_turn(p_session_id, p_user_id, p_agent_type, p_messages);
  else
    return query select * from append_turn_idempotent(p_key, p_claim_token, p_session_id, p_user_id, p_agent_type, p_messages, p_response);
  end if;
end;
$$;
