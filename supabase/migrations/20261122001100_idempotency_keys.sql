-- Idempotency keys for POST /api/v1/chat and /chat/stream: a retried request
-- carrying the same Idempotency-Key gets the stored answer instead of a second turn.
--
-- A key is claimed before the model is called (claim_idempotency_key), completed in
-- the same statement that stores the turn (append_turn_idempotent), or released when
-- the request fails (release_idempotency_key), so a failed request can be retried.
-- Everything lives here, never in a process, so every instance of the service sees
-- the same keys. request_hash is the caller's digest of the request body: a key
-- reused with another body is refused. Keys expire after the caller's TTL.
create table idempotency_keys (
  key text primary key,
  request_hash text not null,
  -- The in-progress request's token; null once the turn is stored.
  claim_token uuid,
  -- The claim lapses at locked_until, so a retry can take over from an instance that
  -- died mid-request; the lapsed request can then no longer complete the key.
  locked_until timestamptz,
  -- The answer as the client got it (with message_id), once the turn is stored.
  response jsonb,
  session_created boolean,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index idempotency_keys_expires_at_idx on idempotency_keys (expires_at);

alter table idempotency_keys enable row level security;

-- claim_idempotency_key(key, request_hash, ttl_seconds, lease_seconds) → (outcome, claim_token, response, session_created)
--
-- outcome is one of:
--   claimed      the caller runs the request and passes claim_token to append_turn_idempotent
--                (or release_idempotency_key when it fails);
--   completed    the turn is stored: response is the answer to give again;
--   in_progress  another request holds the key (ask again later);
--   mismatch     the key was used with another request body.
-- The insert is the arbiter: of concurrent claims on a new key exactly one inserts,
-- the others wait for its row and then read it. An expired key is treated as unused.
-- On the way, up to 100 expired keys of any request are deleted (skipping rows that
-- another transaction holds), so the table does not grow without bound.
create or replace function claim_idempotency_key(
  p_key text,
  p_request_hash text,
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
  delete from idempotency_keys
  where key in (select k.key from idempotency_keys k where k.expires_at <= now() limit 100 for update skip locked);

  -- A released key can vanish between the insert and the select: try again.
  for attempt in 1..3 loop
    insert into idempotency_keys (key, request_hash, claim_token, locked_until, expires_at)
    values (p_key, p_request_hash, v_token, v_lease, v_expires)
    on conflict (key) do nothing;
    if found then
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
      return;
    end if;

    select * into v_row from idempotency_keys k where k.key = p_key for update;
    continue when not found;

    if v_row.expires_at <= now() then
      update idempotency_keys k
      set request_hash = p_request_hash, claim_token = v_token, locked_until = v_lease, response = null,
          session_created = null, created_at = now(), expires_at = v_expires
      where k.key = p_key;
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
    elsif v_row.request_hash <> p_request_hash then
      return query select 'mismatch'::text, null::uuid, null::jsonb, null::boolean;
    elsif v_row.response is not null then
      return query select 'completed'::text, null::uuid, v_row.response, v_row.session_created;
    elsif v_row.locked_until <= now() then
      update idempotency_keys k set claim_token = v_token, locked_until = v_lease where k.key = p_key;
      return query select 'claimed'::text, v_token, null::jsonb, null::boolean;
    else
      return query select 'in_progress'::text, null::uuid, null::jsonb, null::boolean;
    end if;
    return;
  end loop;
  return query select 'in_progress'::text, null::uuid, null::jsonb, null::boolean;
end;
$$;

-- append_turn_idempotent(key, claim_token, session, user, agent_type, messages, response):
-- append_turn() and the key's completion in one statement, so a turn is stored with
-- its key or not at all. The key must still be held with this claim_token (raises
-- SQLSTATE 'IK001' otherwise, storing nothing). response is the answer the client
-- gets; its message_id is set here to the id of the turn's last message.
-- session_created records whether this turn opened the session (its first seq is 1).
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
  perform 1 from idempotency_keys k
  where k.key = p_key and k.claim_token = p_claim_token and k.response is null
  for update;
  if not found then
    raise exception 'idempotency key "%" is no longer held by this request', p_key using errcode = 'IK001';
  end if;

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

-- Gives up a claim after the request failed (nothing was stored), so a retry with
-- the same key runs the request. False when the key was not held with this token.
create or replace function release_idempotency_key(p_key text, p_claim_token uuid)
returns boolean
language plpgsql
as $$
begin
  delete from idempotency_keys k where k.key = p_key and k.claim_token = p_claim_token and k.response is null;
  return found;
end;
$$;
