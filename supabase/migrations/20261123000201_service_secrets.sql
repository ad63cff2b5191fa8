-- Secrets the service makes for itself (the key that signs customers' session
-- tokens when SESSION_TOKEN_SECRET is not set), kept where every instance finds
-- them: instances behind a load balancer must accept each other's tokens.
-- Only the service role reads them: row-level security is on with no policy.
create table service_secrets (
  name text primary key,
  value text not null check (length(value) >= 32),
  created_at timestamptz not null default now()
);

alter table service_secrets enable row level security;

-- keep_service_secret(name, candidate): the secret stored under p_name; the first
-- caller's p_candidate (random bytes made by the service) becomes it. Concurrent
-- first calls race on the primary key and all get the one value that won.
create or replace function keep_service_secret(p_name text, p_candidate text)
returns text
language plpgsql
as $$
declare
  v_value text;
begin
  insert into service_secrets (name, value) values (p_name, p_candidate)
  on conflict (name) do nothing;
  select s.value into v_value from service_secrets s where s.name = p_name;
  return v_value;
end;
$$;
