-- A message queued for a person remembers, with its Idempotency-Key, what redaction
-- masked in it (metadata.redacted, e.g. {"card": 1}), so a retry is told the same as
-- the first request. As in 20261125000200, with "redacted" added when present.
create or replace function complete_idempotency_key_queued(p_key text, p_message chat_messages)
returns void
language sql
as $$
  update idempotency_keys k
  set response = jsonb_build_object('queued', jsonb_build_object(
        'session_id', p_message.session_id,
        'handler', 'human',
        'agent_name', coalesce(p_message.metadata->>'queued_for', ''),
        'message_id', p_message.id)
        || case when p_message.metadata ? 'redacted' then jsonb_build_object('redacted', p_message.metadata->'redacted') else '{}'::jsonb end),
      session_created = false,
      claim_token = null,
      locked_until = null
  where k.key = p_key
$$;
