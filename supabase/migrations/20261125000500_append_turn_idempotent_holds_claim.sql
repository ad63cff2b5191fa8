-- append_turn_idempotent() checks its claim with hold_idempotency_claim()
-- (20261125000200), like the functions written after it, instead of its own copy of
-- the same check: one place says what holding a key means. Same behaviour: the key's
-- row is locked for the transaction, and SQLSTATE 'IK001' when it is no longer held.
create or replace function append_turn_idempotent(
  p_key text,
  p_claim_token uuid,
  p_session_id text,
  p_user_id text,
  p_agent_type text,
  p_messages jsonb,
  p_response jsonb
)
returns setof chat_messages
language plpgsql
as $$
declare
  v_rows chat_messages[];
begin
  perform hold_idempotency_claim(p_key, p_claim_token);

  select array_agg(t order by t.seq) into v_rows
  from append_turn(p_session_id, p_user_id, p_agent_type, p_messages) t;

  update idempotency_keys k
  set response = p_response || jsonb_build_object('message_id', (v_rows[array_length(v_rows, 1)]).id),
      session_created = (v_rows[1]).seq = 1,
      claim_token = null,
      locked_until = null
  where k.key = p_key;

  return query select * from unnest(v_rows);
end;
$$;
