-- The knowledge sync (KNOWLEDGE_SYNC_URLS): every instance schedules it, one
-- instance at a time runs it. A run crawls for seconds to minutes, longer than a
-- transaction should stay open, and a transaction pooler gives no session to hold
-- a session-level lock on; so the lock is a lease: one row naming the instance
-- that holds it and until when. Taking, renewing and giving it back are each one
-- short transaction under a transaction-level advisory lock (the retention
-- sweep's pattern, with its own key), so two instances never both take it, and
-- one that finds it taken is told 'busy' at once instead of waiting. An instance
-- that dies loses the lease when it runs out, and the next one takes over.
-- Only the service role reads it: row-level security is on with no policy.
create table knowledge_sync_lease (
  singleton boolean primary key default true check (singleton),
  holder text not null,
  taken_at timestamptz not null,
  expires_at timestamptz not null
);

alter table knowledge_sync_lease enable row level security;

-- 'taken' when p_holder now holds the lease for p_lease_seconds (it was free,
-- had run out, or was already p_holder's), 'busy' when another holder's lease
-- still runs or another instance is taking it this very moment. clock_timestamp,
-- not now(): the lease is measured from when it is taken, not from a transaction's start.
create or replace function take_knowledge_sync_lease(p_holder text, p_lease_seconds double precision)
returns text
language plpgsql
as $$
declare
  v_taken integer;
begin
  if not pg_try_advisory_xact_lock(7172839203) then
    return 'busy';
  end if;
  insert into knowledge_sync_lease as l (singleton, holder, taken_at, expires_at)
  values (true, p_holder, clock_timestamp(), clock_timestamp() + make_interval(secs => p_lease_seconds))
  on conflict (singleton) do update
    set holder = excluded.holder, taken_at = excluded.taken_at, expires_at = excluded.expires_at
    where l.expires_at <= clock_timestamp() or l.holder = excluded.holder;
  get diagnostics v_taken = row_count;
  return case when v_taken = 1 then 'taken' else 'busy' end;
end;
$$;

-- Extends p_holder's lease to p_lease_seconds from now; false when it is no longer
-- p_holder's (it ran out and another instance took it: stop syncing).
create or replace function renew_knowledge_sync_lease(p_holder text, p_lease_seconds double precision)
returns boolean
language plpgsql
as $$
declare
  v_renewed integer;
begin
  perform pg_advisory_xact_lock(7172839203);
  update knowledge_sync_lease set expires_at = clock_timestamp() + make_interval(secs => p_lease_seconds)
  where holder = p_holder;
  get diagnostics v_renewed = row_count;
  return v_renewed = 1;
end;
$$;

-- Gives the lease back (only p_holder's own), so the next run need not wait for it to run out.
create or replace function release_knowledge_sync_lease(p_holder text)
returns boolean
language plpgsql
as $$
declare
  v_released integer;
begin
  perform pg_advisory_xact_lock(7172839203);
  delete from knowledge_sync_lease where holder = p_holder;
  get diagnostics v_released = row_count;
  return v_released = 1;
end;
$$;
