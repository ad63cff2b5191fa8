-- Rate-limit counters for the chat endpoints (per client address, per session),
-- kept here instead of in each process, so every instance of the service counts
-- against the same limit: behind N instances a client gets the limit once, not N
-- times.
--
-- Fixed windows: a key's hits are counted per window of p_window_ms milliseconds,
-- aligned to the epoch, and the windows are computed from the database's clock, so
-- all instances agree where a window starts and ends whatever their own clocks say.
-- Every call is one statement, so it works through a transaction-mode pooler
-- (Supabase's) and through PostgREST's .rpc().
create table rate_limit_counters (
  -- The limiter's prefix and its key, e.g. 'chat-session:<session id>'.
  key text not null,
  window_start timestamptz not null,
  hits integer not null check (hits >= 0),
  -- window_start + the window's length: when these hits stop counting.
  reset_at timestamptz not null,
  primary key (key, window_start)
);

-- For the sweep of expired windows.
create index rate_limit_counters_reset_at_idx on rate_limit_counters (reset_at);

alter table rate_limit_counters enable row level security;

-- The window of p_window_ms that now() falls in, as [start, reset_at). Integer
-- arithmetic on milliseconds, so every caller gets exactly the same bounds.
create or replace function rate_limit_window(p_window_ms integer)
returns table (window_start timestamptz, reset_at timestamptz)
language sql
stable
as $$
  select timestamptz 'epoch' + w.start_ms * interval '1 millisecond',
         timestamptz 'epoch' + (w.start_ms + p_window_ms) * interval '1 millisecond'
  from (
    select n.now_ms - n.now_ms % p_window_ms as start_ms
    from (select floor(extract(epoch from now()) * 1000)::bigint as now_ms) n
  ) w
$$;

-- Counts one hit of p_key in the current window and returns the window's hits so
-- far (this one included) and when the window ends. The upsert is the arbiter: of
-- concurrent hits on one key, each gets its own count, 1, 2, 3… with none repeated.
--
-- Keeping the table small: every call also deletes up to 100 rows of windows that
-- have ended, of any key (skipping rows another call holds). When none has ended
-- this is one probe of the reset_at index, cheaper than a separate job; and since a
-- call adds at most one row but removes up to 100 old ones, the table holds little
-- more than the windows still running. A key that is never seen again leaves no row
-- behind for longer than it takes the next calls to reach it.
create or replace function rate_limit_hit(p_key text, p_window_ms integer)
returns table (hits integer, reset_at timestamptz)
language plpgsql
as $$
declare
  v_window record;
begin
  if p_window_ms is null or p_window_ms < 1 then
    raise exception 'rate_limit_hit: window must be at least 1 ms, got %', p_window_ms using errcode = '22023';
  end if;
  select * into v_window from rate_limit_window(p_window_ms);

  delete from rate_limit_counters c
  where (c.key, c.window_start) in (
    select o.key, o.window_start from rate_limit_counters o
    where o.reset_at <= now()
    limit 100
    for update skip locked
  );

  return query
  insert into rate_limit_counters as c (key, window_start, hits, reset_at)
  values (p_key, v_window.window_start, 1, v_window.reset_at)
  on conflict (key, window_start) do update set hits = c.hits + 1
  returning c.hits, c.reset_at;
end;
$$;

-- Takes back one hit of p_key in the current window (a request that should not
-- have counted, e.g. the limiter's skipFailedRequests). Never below zero. False when
-- the key has no hit in this window: a hit of a window that has ended is gone anyway.
create or replace function rate_limit_undo(p_key text, p_window_ms integer)
returns boolean
language plpgsql
as $$
begin
  update rate_limit_counters c set hits = c.hits - 1
  from rate_limit_window(p_window_ms) w
  where c.key = p_key and c.window_start = w.window_start and c.hits > 0;
  return found;
end;
$$;

-- Forgets every hit of p_key: its next hit counts from 1. False when it had none.
create or replace function rate_limit_reset(p_key text)
returns boolean
language plpgsql
as $$
begin
  delete from rate_limit_counters c where c.key = p_key;
  return found;
end;
$$;
