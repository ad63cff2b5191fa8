-- An idempotency record belongs to the session its request runs in, and says so in
-- a column of its own, set by the functions that write the row, never read from
-- the shape of the stored answer.
--
-- Until now session_id was generated from response->>'session_id'. A message
-- queued for a person is stored as {"queued": {"session_id": ...}}, so its record
-- had no session: erasing the conversation neither erased nor counted it, a retry
-- with the same Idempotency-Key still got the stored 202, and retention missed it.
-- A claim in progress had no session either.
--
-- Now the session is known from the claim on (the caller picks the id of a new
-- session before it claims), the column is a plain one that every row has, and
-- completing a key (a stored answer, a queued message) sets it to the session the
-- turn was stored in.

-- The generated values stay as plain values; queued messages' records get theirs.
alter table idempotency_keys alter column session_id drop expression;
update idempotency_keys k set session_id = k.response->'queued'->>'session_id'
where k.session_id is null and k.response ? 'queued';
-- What is left are claims in progress when this migration runs (a request that
-- claimed its key within the last few minutes and has not stored its turn): no
-- session is known for them. They are given up: the request can no longer store
-- its turn (IK001, nothing stored) and a retry runs again.
delete from idempotency_keys k where k.session_id is null;
alter table idempotency_keys alter column session_id set not null;

drop index if exists idempotency_keys_session_idx;
create index idempotency_keys_session_idx on idempotency_keys (session_id);
-- Retention sweeps the records of sessions that were never stored by their own age.
create index if not exists idempotency_keys_created_at_idx on idempotency_keys (created_at);

-- claim_idempotency_key(key, request_hash, session_id, ttl_seconds, lease_seconds):
-- as in 20261122001100, with the session the request runs in. A claim that takes
-- over a lapsed or expired key takes it for its own session.
drop function if exists claim_idempotency_key(text, text, integer, integer);
create or replace function claim_idempotency_key(
  p_key text,
  p_request_hash text,
  p_session_id text,
  p_ttl_seconds integer,
  p_lease_seconds integer
)
returns table (outcome text, claim_token uuid, response jsonb, session_created boolean)
language plpgsql
as $$
declare
  v_row idempotency_keys;
  v_token uuid := gen_random_uuid();
  v_lease timestamptz := now() + make_interval(secs => p_lease_seconds);
  v_expires timestamptz := now() + make_interval(secs => p_ttl_seconds);
begin
  if p_session_id is null then
    raise exception 'claim_idempotency_key: the session id is required' using errcode = '22004';
  end if;

  delete from idempotency_keys
  where key in (select k.key from idempotency_keys k where k.expires_at <= now() limit 100 for update skip locked);

  -- A released key can vanish between the insert and the select: try again.
  for attempt in 1..3 loop
    insert into idempotency_keys (key, request_hash, session_id, claim_token, locked_until, expires_at)
    values (p_key, p_request_hash, p_session_id, v_token, v_lease, v_expires)
    on conflict (key) do nothing;
    if found then
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
      return;
    end if;

    select * into v_row from idempotency_keys k where k.key = p_key for update;
    continue when not found;

    if v_row.expires_at <= now() then
      update idempotency_keys k
      set request_hash = p_request_hash, session_id = p_session_id, claim_token = v_token, locked_until = v_lease, response = null,
          session_created = null, created_at = now(), expires_at = v_expires
      where k.key = p_key;
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
    elsif v_row.request_hash <> p_request_hash then
      return query select 'mismatch'::text, null::uuid, null::jsonb, null::boolean;
    elsif v_row.response is not null then
      return query select 'completed'::text, null::uuid, v_row.response, v_row.session_created;
    elsif v_row.locked_until <= now() then
      update idempotency_keys k set claim_token = v_token, locked_until = v_lease, session_id = p_session_id where k.key = p_key;
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
    else
      return query select 'in_progress'::text, null::uuid, null::jsonb, null::boolean;
    end if;
    return;
  end loop;
  return query select 'in_progress'::text, null::uuid, null::jsonb, null::boolean;
end;
$$;

-- append_turn_idempotent: as in 20261125000500; completing the key also records
-- the session the turn was stored in.
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
      session_id = p_session_id,
      session_created = (v_rows[1]).seq = 1,
      claim_token = null,
      locked_until = null
  where k.key = p_key;

  return query select * from unnest(v_rows);
end;
$$;

-- complete_idempotency_key_queued: as in 20261125000201; the record belongs to the
-- session the message was queued in.
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
      session_id = p_message.session_id,
      session_created = false,
      claim_token = null,
      locked_until = null
  where k.key = p_key
$$;
