-- answer_feedback: the customer's rating of an answer (thumbs up or down, an
-- optional comment). One rating per answer: rating again replaces the earlier one
-- (the primary key is the message), and updated_at says when it last changed.
create table answer_feedback (
  message_id uuid primary key references chat_messages (id) on delete cascade,
  session_id text not null references chat_sessions (session_id) on delete cascade,
  rating text not null check (rating in ('up', 'down')),
  comment text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The review console reads a session's ratings with its history.
create index answer_feedback_session on answer_feedback (session_id);

alter table answer_feedback enable row level security;

-- Records a rating for an answer of the session: an assistant message with no
-- tool calls (a tool round is not an answer). Returns the stored row and the
-- answer's metadata (where its trace id is), or no row when the session has no
-- such answer. One statement, so a concurrent second rating simply replaces it.
create or replace function record_answer_feedback(
  p_session_id text,
  p_message_id uuid,
  p_rating text,
  p_comment text
)
returns table (
  message_id uuid,
  session_id text,
  rating text,
  comment text,
  created_at timestamptz,
  updated_at timestamptz,
  answer_metadata jsonb
)
language sql
as $$
  with answer as (
    select m.id, m.session_id, m.metadata
    from chat_messages m
    where m.id = p_message_id
      and m.session_id = p_session_id
      and m.role = 'assistant'
      and case when jsonb_typeof(m.tool_calls) = 'array' then jsonb_array_length(m.tool_calls) = 0 else true end
  ), stored as (
    insert into answer_feedback as f (message_id, session_id, rating, comment)
    select a.id, a.session_id, p_rating, p_comment from answer a
    on conflict (message_id) do update
      set rating = excluded.rating, comment = excluded.comment, updated_at = now()
    returning f.message_id, f.session_id, f.rating, f.comment, f.created_at, f.updated_at
  )
  select s.message_id, s.session_id, s.rating, s.comment, s.created_at, s.updated_at, a.metadata
  from stored s join answer a on a.id = s.message_id;
$$;

-- A session's ratings, for the history views (one function, so every backend can call it).
create or replace function session_feedback(p_session_id text)
returns setof answer_feedback
language sql
stable
as $$
  select * from answer_feedback where session_id = p_session_id
$$;
