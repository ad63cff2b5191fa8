-- One row per conversation. The counters and previews are kept here so the review
-- console can list sessions without scanning chat_messages; append_turn() keeps
-- them in step with the messages inside the same transaction.
create table chat_sessions (
  id uuid primary key default gen_random_uuid(),
  session_id text not null unique,
  user_id text,
  agent_type text not null default 'support',
  title text,
  last_message text,
  message_count integer not null default 0 check (message_count >= 0),
  active boolean not null default true,
  escalated boolean not null default false,
  -- Conversation-level memory settings and the rolling summary's pointer into the
  -- durable history (used by the memory strategies; null until they are set).
  memory_strategy jsonb,
  summary text,
  summarized_through_seq integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index chat_sessions_updated_at_idx on chat_sessions (updated_at desc);
create index chat_sessions_user_id_idx on chat_sessions (user_id);

alter table chat_sessions enable row level security;
