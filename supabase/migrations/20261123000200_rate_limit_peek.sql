-- rate_limit_peek(key, window): the hits p_key has in the current window, without
-- counting one. A limit on failures (wrong agent keys) must be checked before the
-- attempt is judged: otherwise a client over the limit could go on guessing, told
-- 429 for a wrong key and 200 for the right one. Read-only; 0 when the key has no
-- row in this window (rows of ended windows are swept by rate_limit_hit).
create or replace function rate_limit_peek(p_key text, p_window_ms integer)
returns integer
language sql
stable
as $$
  select coalesce((
    select c.hits
    from rate_limit_counters c, rate_limit_window(p_window_ms) w
    where c.key = p_key and c.window_start = w.window_start
  ), 0)
$$;
