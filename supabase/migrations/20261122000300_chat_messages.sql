-- The durable history: every message of every conversation, never rewritten.
-- seq is per session, gapless and unique; it is the only ordering that counts
-- (now() is the transaction's start time, so both turns of one answer share it).
-- token_count is counted once, at write time, with the chat model's tokenizer.
create table chat_messages (
  id uuid primary key default gen_random_uuid(),
  session_id text not null references chat_sessions (session_id) on delete cascade,
  seq integer not null check (seq > 0),
  role text not null check (role in ('user', 'assistant', 'system', 'tool')),
  content text not null default '',
  tool_calls jsonb,
  tool_call_id text,
  name text,
  token_count integer not null check (token_count >= 0),
  confidence double precision,
  escalated boolean,
  metadata jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  -- This unique index also serves the history window: Postgres walks a btree in
  -- either direction, so "newest first" reads only the rows it returns however
  -- long the session is. A separate (session_id, seq desc) index would duplicate
  -- it and cost every insert (measured: the planner preferred this one anyway).
  unique (session_id, seq)
);

alter table chat_messages enable row level security;
