-- The reads that were plain SQL in the service, as functions, so that every
-- backend runs the same statements: the pg and PGlite backends call them with
-- select, the Supabase backend with .rpc() (PostgREST exposes functions, and
-- tables only through RLS, which lets nothing through here).

-- One session row, or none.
create or replace function get_session(p_session_id text)
returns setof chat_sessions
language sql
stable
as $$
  select * from chat_sessions where session_id = p_session_id
$$;

-- The newest p_limit messages of a session (every role), oldest first: what the
-- history endpoint and the customer's read-back show. Walks the (session_id, seq)
-- index backwards, so the cost is the page's, not the session's.
create or replace function recent_messages(p_session_id text, p_limit integer)
returns setof chat_messages
language sql
stable
as $$
  select * from (
    select * from chat_messages where session_id = p_session_id order by seq desc limit greatest(p_limit, 0)
  ) newest
  order by seq asc
$$;

-- The agent's tools: one order, one customer. Dates as text: drivers turn a date
-- column into a JavaScript Date at local midnight, which shifts the day in some
-- time zones.
create or replace function find_order(p_order_id text)
returns table (
  order_id text, user_id text, status text, carrier text, ship_date text, destination_city text,
  items jsonb, tracking_events jsonb, created_at timestamptz
)
language sql
stable
as $$
  select o.order_id, o.user_id, o.status, o.carrier, o.ship_date::text, o.destination_city,
         o.items, o.tracking_events, o.created_at
  from orders o where o.order_id = p_order_id
$$;

create or replace function find_customer(p_user_id text)
returns table (
  user_id text, name text, email text, phone text, city text, loyalty_tier text, member_since text,
  purchase_history jsonb, created_at timestamptz
)
language sql
stable
as $$
  select c.user_id, c.name, c.email, c.phone, c.city, c.loyalty_tier, c.member_since::text,
         c.purchase_history, c.created_at
  from customer_profiles c where c.user_id = p_user_id
$$;

-- /health: true when the database answers and the schema is there.
create or replace function storage_ping()
returns boolean
language sql
stable
as $$
  select to_regclass('chat_sessions') is not null
$$;
