-- Customer identity: who may see a customer's orders and profile.
--
-- A conversation's user_id is a label anyone can type. Personal data is shared
-- only with (a) a customer the shop's backend vouched for with a signed token,
-- whose id is then bound to the session here, or (b) a visitor who proved one
-- order by its number plus the e-mail address or postcode on it, remembered here
-- for that session only. The comparison happens in SQL, so the service never
-- reads an order's e-mail address or postcode to check a proof.

-- What an anonymous visitor must know to look an order up: the e-mail address it
-- was placed with and the delivery postcode. Guest orders have them too.
alter table orders add column contact_email text;
alter table orders add column destination_postcode text;

update orders o set contact_email = c.email from customer_profiles c where c.user_id = o.user_id;
update orders set contact_email = 'giulia.rossi@example.com' where order_id = 'ZX-43466';
update orders set destination_postcode = case order_id
  when 'ZX-14440' then 'T12 RX38'
  when 'ZX-59197' then 'T12 RX38'
  when 'ZX-17496' then '5003'
  when 'ZX-50802' then '8010'
  when 'ZX-31586' then 'VLT 1010'
  when 'ZX-95682' then 'VLT 1010'
  when 'ZX-19608' then 'N1 9GU'
  when 'ZX-34422' then 'N1 9GU'
  when 'ZX-20918' then '80-831'
  when 'ZX-53168' then '80-831'
  when 'ZX-45643' then '211 22'
  when 'ZX-43466' then '40121'
end;

-- A postcode as it is compared: letters upper-cased, spaces and hyphens dropped
-- ('t12 rx38' = 'T12RX38', '80-831' = '80831').
create or replace function normalize_postcode(p_postcode text)
returns text
language sql
immutable
as $$
  select nullif(upper(regexp_replace(coalesce(p_postcode, ''), '[\s-]+', '', 'g')), '')
$$;

-- Whether the visitor's e-mail address or postcode is the one on the order. An
-- order that does not exist matches nothing, so the answer is the same as for a
-- wrong detail and reveals no order number. E-mail addresses compare without case.
create or replace function order_proof_matches(p_order_id text, p_email text, p_postcode text)
returns boolean
language sql
stable
as $$
  select coalesce((
    select (nullif(trim(p_email), '') is not null and lower(trim(p_email)) = lower(o.contact_email))
        or (normalize_postcode(p_postcode) is not null and normalize_postcode(p_postcode) = normalize_postcode(o.destination_postcode))
    from orders o where o.order_id = p_order_id
  ), false)
$$;

-- The verified customer of a session: set by the first request that carried a
-- valid customer token, never changed after. No foreign key to chat_sessions: the
-- binding is made before the session's first turn is stored.
create table session_customers (
  session_id text primary key,
  customer_id text not null,
  bound_at timestamptz not null default now()
);

alter table session_customers enable row level security;

-- Binds p_session_id to p_customer_id unless it is bound already, and returns the
-- customer it is bound to (the caller refuses when that is someone else). The
-- upsert is the arbiter: of two requests binding one session at once, one wins
-- and both see the winner.
--
-- The session's user_id label becomes the verified customer: a label claimed
-- earlier in an anonymous conversation must not stay, since save_session_summary
-- files the cross-session memory under the session's user_id.
create or replace function bind_session_customer(p_session_id text, p_customer_id text)
returns text
language plpgsql
as $$
declare
  v_customer text;
begin
  insert into session_customers (session_id, customer_id) values (p_session_id, p_customer_id)
  on conflict (session_id) do nothing;
  select s.customer_id into v_customer from session_customers s where s.session_id = p_session_id;
  update chat_sessions c set user_id = v_customer where c.session_id = p_session_id and c.user_id is distinct from v_customer;
  return v_customer;
end;
$$;

-- Orders a visitor proved in a session (number plus e-mail or postcode): later
-- questions in that session about the order need no second proof. Other sessions
-- of the same visitor do.
create table session_order_proofs (
  session_id text not null,
  order_id text not null,
  proven_at timestamptz not null default now(),
  primary key (session_id, order_id)
);

alter table session_order_proofs enable row level security;

create or replace function record_order_proof(p_session_id text, p_order_id text)
returns boolean
language plpgsql
as $$
begin
  insert into session_order_proofs (session_id, order_id) values (p_session_id, p_order_id)
  on conflict (session_id, order_id) do nothing;
  return true;
end;
$$;

create or replace function order_proven_in_session(p_session_id text, p_order_id text)
returns boolean
language sql
stable
as $$
  select exists (select 1 from session_order_proofs p where p.session_id = p_session_id and p.order_id = p_order_id)
$$;
