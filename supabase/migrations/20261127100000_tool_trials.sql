-- Tool trials (issue 42, finding 5): a try of one of the shop's tools, from the console's
-- Tools page or `npm run shop -- try`, reads a customer's data with the agent key (or by
-- whoever runs the service). Each one is recorded: which tool, as which customer, the
-- arguments as they went out (and which of them were bound from the customer), how it
-- ended, when, and from where. GET /api/v1/audit/tool-trials lists them.
--
-- A customer's erasure keeps the record that their data was read, not the data: the
-- customer id becomes its pseudonym (the keyed hash the erasure audit and traces use)
-- and the arguments are dropped. The retention sweep deletes trials older than the
-- retention period, as it erases conversations.
create table if not exists tool_trials (
  id bigint generated always as identity primary key,
  tried_at timestamptz not null default clock_timestamp(),
  source text not null check (source in ('console', 'cli')),
  tool text not null,
  -- The verified customer the tool ran as; null for an anonymous trial, and once erased.
  customer_id text,
  -- Set by the customer's erasure (customer_id is then null).
  customer_pseudonym text,
  -- The arguments as sent (bound ones filled from the customer); null once erased.
  arguments jsonb,
  -- The names of the arguments whose value was bound from the customer (no values).
  bound text[] not null default '{}',
  outcome text not null check (outcome in ('ok', 'error', 'refused')),
  -- Why it was not ok: a stable code (tool_writes, invalid_arguments, http_404, timeout, …).
  error_code text,
  check ((outcome = 'ok') = (error_code is null))
);
create index if not exists tool_trials_customer_idx on tool_trials (lower(btrim(customer_id))) where customer_id is not null;
create index if not exists tool_trials_tried_at_idx on tool_trials (tried_at);
alter table tool_trials enable row level security;

-- Records one trial; returns its id.
create or replace function record_tool_trial(
  p_source text, p_tool text, p_customer_id text, p_arguments jsonb, p_bound text[], p_outcome text, p_error_code text
)
returns bigint
language sql
as $$
  insert into tool_trials (source, tool, customer_id, arguments, bound, outcome, error_code)
  values (p_source, p_tool, nullif(btrim(p_customer_id), ''), p_arguments, coalesce(p_bound, '{}'), p_outcome, p_error_code)
  returning id
$$;

-- The trials, newest first, one keyset page at a time (p_before_id: where the last page
-- ended), as erasure_audit_page pages the erasure audit.
create or replace function tool_trial_page(p_before_id bigint, p_limit integer)
returns table (
  id bigint, tried_at timestamptz, source text, tool text, customer_id text, customer_pseudonym text,
  arguments jsonb, bound text[], outcome text, error_code text
)
language sql
stable
as $$
  select t.id, t.tried_at, t.source, t.tool, t.customer_id, t.customer_pseudonym, t.arguments, t.bound, t.outcome, t.error_code
  from tool_trials t
  where p_before_id is null or t.id < p_before_id
  order by t.id desc
  limit greatest(p_limit, 0)
$$;

-- Retention: deletes (or with p_dry_run counts) the trials older than the period; returns how many.
create or replace function expire_tool_trials(p_older_than_seconds double precision, p_dry_run boolean)
returns integer
language plpgsql
as $$
declare
  v_before timestamptz := clock_timestamp() - make_interval(secs => p_older_than_seconds);
  v_count integer;
begin
  if p_older_than_seconds is null or p_older_than_seconds <= 0 then
    raise exception 'expire_tool_trials: p_older_than_seconds must be positive' using errcode = '22023';
  end if;
  if p_dry_run then
    select count(*) into v_count from tool_trials t where t.tried_at < v_before;
  else
    delete from tool_trials t where t.tried_at < v_before;
    get diagnostics v_count = row_count;
  end if;
  return v_count;
end;
$$;

-- A customer's erasure now also pseudonymises the trials that ran as them, in the same
-- transaction: the function of 20261126000300 keeps its work under a new name, and
-- erase_customer (same arguments, same answer) calls it after the trials are done.
-- Ids are compared as everywhere else: trimmed, case-insensitive.
alter function erase_customer(text, text, text, boolean, boolean) rename to erase_customer_conversations;

create or replace function erase_customer(
  p_customer_id text, p_actor text, p_customer_pseudonym text, p_langfuse boolean, p_include_labelled boolean
)
returns table (erasure_id bigint, counts jsonb, trace_ids text[], labelled_conversations integer)
language plpgsql
as $$
begin
  update tool_trials t
  set customer_id = null, customer_pseudonym = p_customer_pseudonym, arguments = null
  where t.customer_id is not null and lower(btrim(t.customer_id)) = lower(btrim(p_customer_id));
  return query select * from erase_customer_conversations(p_customer_id, p_actor, p_customer_pseudonym, p_langfuse, p_include_labelled);
end;
$$;
