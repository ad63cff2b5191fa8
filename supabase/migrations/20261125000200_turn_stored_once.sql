-- A customer's turn is stored exactly once, whoever answers it.
--
-- Two holes closed here:
-- 1. A message to a conversation a person holds was stored (queue_customer_message)
--    before its Idempotency-Key was claimed, so a retry stored it again. Now the key
--    is claimed first and queue_customer_message_idempotent stores the message and
--    completes the key in one statement; the key's response is {"queued": {...}}
--    (what the client got: 202 with session_id, handler, agent_name, message_id), so
--    a retry gets that again and stores nothing.
-- 2. A bot answer still being made when a person took the conversation over was
--    stored after the person's messages. append_answer_turn stores a bot turn only
--    while the bot holds the conversation, deciding under the session row lock that
--    take_over_session also takes: if a person holds it by then, only the customer's
--    message is kept, queued for that person as queue_customer_message would, the
--    bot's answer and tool rounds are dropped, and the key (if any) is completed as
--    a queued message.
--
-- Lock order everywhere: the idempotency key's row, then the session's row.

-- The key must still be held with this claim token (raises SQLSTATE 'IK001' otherwise),
-- as append_turn_idempotent checks it. Locks the key's row for the transaction.
create or replace function hold_idempotency_claim(p_key text, p_claim_token uuid)
returns void
language plpgsql
as $$
begin
  perform 1 from idempotency_keys k
  where k.key = p_key and k.claim_token = p_claim_token and k.response is null
  for update;
  if not found then
    raise exception 'idempotency key "%" is no longer held by this request', p_key using errcode = 'IK001';
  end if;
end;
$$;

-- Completes a claimed key with the queued message the client was told about.
create or replace function complete_idempotency_key_queued(p_key text, p_message chat_messages)
returns void
language sql
as $$
  update idempotency_keys k
  set response = jsonb_build_object('queued', jsonb_build_object(
        'session_id', p_message.session_id,
        'handler', 'human',
        'agent_name', coalesce(p_message.metadata->>'queued_for', ''),
        'message_id', p_message.id)),
      session_created = false,
      claim_token = null,
      locked_until = null
  where k.key = p_key
$$;

-- queue_customer_message_idempotent(key, claim_token, session, message): as
-- queue_customer_message, and when the message is stored (a person holds the
-- conversation) the key is completed in the same transaction. When the bot holds
-- it, nothing is stored and the key stays claimed: the bot answers under it.
create or replace function queue_customer_message_idempotent(p_key text, p_claim_token uuid, p_session_id text, p_message jsonb)
returns setof chat_messages
language plpgsql
as $$
declare
  v_row chat_messages;
begin
  perform hold_idempotency_claim(p_key, p_claim_token);
  select * into v_row from queue_customer_message(p_session_id, p_message);
  if v_row.id is null then
    return;
  end if;
  perform complete_idempotency_key_queued(p_key, v_row);
  return next v_row;
end;
$$;

-- append_answer_turn(session, user, agent_type, messages, key, claim_token, response):
-- stores a bot turn (the customer's message first, then tool rounds and the answer)
-- as append_turn does, completing the Idempotency-Key when p_key is given (as
-- append_turn_idempotent), but only while the bot holds the conversation. When a
-- person took it over while the answer was being made, only the customer's message
-- (p_messages->0) is stored, queued for that person (metadata.queued_for), and
-- returned alone; the caller tells them apart by that row's role.
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
begin
  if p_key is not null then
    perform hold_idempotency_claim(p_key, p_claim_token);
  end if;

  select s.handler into v_handler from chat_sessions s where s.session_id = p_session_id for update;
  if v_handler = 'human' then
    select * into v_row from queue_customer_message(p_session_id, p_messages->0);
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
