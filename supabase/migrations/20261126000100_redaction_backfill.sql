-- Redaction backfill: what customers typed before redaction learnt to find card numbers in
-- more forms (no-break spaces, line breaks, full-width digits, …; docs/redaction.md) is
-- searched again, and masked, by the service's own redactor. The detection is written once,
-- in TypeScript (src/privacy/redaction.ts): the service pages through the stored texts with
-- redaction_backfill_batch, redacts them, and writes back only what changed with
-- redaction_backfill_store (src/privacy/redaction-backfill.ts). Doing the detection in SQL
-- as well (NFKC, format characters, separators, Luhn, the rules for spans) would be a second
-- copy of it that could drift from the first.
--
-- A pass is named by the detection's version and the detectors it ran with ('v2:card'), so
-- a later change to either runs a new pass. Its row is the watermark: the stage (table) it
-- is at and the key of the last row done there. Every batch is one call to read and one to
-- write, so a pass stopped anywhere (a restart, a deploy) continues from its last batch.
--
-- Stages, in order, and what is searched:
--   chat_messages           content, tool_calls, metadata (messages and queued messages)
--   chat_sessions           title, last_message, summary
--   conversation_summaries  summary (cross-session memory)
--   answer_feedback         comment
--   idempotency_keys        response (the answer or queued reply given again on a retry)
create table if not exists redaction_backfill (
  pass text primary key,
  stage text not null,
  -- The key of the last row done in this stage (text, whatever the key's type); null: none yet.
  after_key text,
  rows_read bigint not null default 0,
  texts_changed bigint not null default 0,
  started_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  finished_at timestamptz
);

alter table redaction_backfill enable row level security;

-- The stage after p_stage ('done' after the last).
create or replace function redaction_backfill_next_stage(p_stage text)
returns text
language sql
immutable
as $$
  select coalesce(
    (array['chat_messages', 'chat_sessions', 'conversation_summaries', 'answer_feedback', 'idempotency_keys', 'done'])[
      array_position(array['chat_messages', 'chat_sessions', 'conversation_summaries', 'answer_feedback', 'idempotency_keys'], p_stage) + 1],
    'done')
$$;

-- The next batch of a pass: at most p_limit rows of its stage after its watermark, in key
-- order, each as its key and its texts (a jsonb object by column name). A stage with no
-- rows left is passed over (the watermark moves to the next stage). No rows: the pass is
-- done (finished_at is set). The pass's row is made on first use.
--
-- chat_sessions' rows also carry what append_turn would make title and last_message of
-- from the messages as stored now (left(…, 100) of the first customer message, left(…, 200)
-- of the last message): a preview cut from a raw card number may hold only part of it,
-- which no detector recognises, so once the message it was cut from is masked (the
-- preview no longer matches it) the service cuts it again from the masked message.
create or replace function redaction_backfill_batch(p_pass text, p_limit integer)
returns table (stage text, from_key text, row_key text, texts jsonb)
language plpgsql
as $$
declare
  v_stage text;
  v_after text;
  v_found boolean;
begin
  if p_limit is null or p_limit < 1 then
    raise exception 'redaction_backfill_batch: p_limit must be at least 1' using errcode = '22023';
  end if;
  insert into redaction_backfill as b (pass, stage) values (p_pass, 'chat_messages') on conflict (pass) do nothing;
  loop
    select b.stage, b.after_key into v_stage, v_after from redaction_backfill b where b.pass = p_pass;
    if v_stage = 'done' then
      return;
    end if;
    v_found := false;
    if v_stage = 'chat_messages' then
      return query
        select v_stage, v_after, m.id::text,
               jsonb_build_object('role', m.role, 'content', m.content, 'tool_calls', m.tool_calls, 'metadata', m.metadata)
        from chat_messages m
        where v_after is null or m.id > v_after::uuid
        order by m.id
        limit p_limit;
      v_found := found;
    elsif v_stage = 'chat_sessions' then
      return query
        select v_stage, v_after, s.session_id,
               jsonb_build_object(
                 'title', s.title,
                 'last_message', s.last_message,
                 'summary', s.summary,
                 'title_from_messages',
                 (select left(m.content, 100) from chat_messages m where m.session_id = s.session_id and m.role = 'user' order by m.seq limit 1),
                 'last_message_from_messages',
                 (select left(m.content, 200) from chat_messages m where m.session_id = s.session_id order by m.seq desc limit 1))
        from chat_sessions s
        where v_after is null or s.session_id > v_after
        order by s.session_id
        limit p_limit;
      v_found := found;
    elsif v_stage = 'conversation_summaries' then
      return query
        select v_stage, v_after, c.session_id, jsonb_build_object('summary', c.summary)
        from conversation_summaries c
        where v_after is null or c.session_id > v_after
        order by c.session_id
        limit p_limit;
      v_found := found;
    elsif v_stage = 'answer_feedback' then
      return query
        select v_stage, v_after, f.message_id::text, jsonb_build_object('comment', f.comment)
        from answer_feedback f
        where v_after is null or f.message_id > v_after::uuid
        order by f.message_id
        limit p_limit;
      v_found := found;
    elsif v_stage = 'idempotency_keys' then
      return query
        select v_stage, v_after, k.key, jsonb_build_object('response', k.response)
        from idempotency_keys k
        where v_after is null or k.key > v_after
        order by k.key
        limit p_limit;
      v_found := found;
    end if;
    if v_found then
      return;
    end if;
    -- Nothing left in this stage: on to the next (unless another instance already moved on).
    update redaction_backfill b
    set stage = redaction_backfill_next_stage(v_stage),
        after_key = null,
        updated_at = now(),
        finished_at = case when redaction_backfill_next_stage(v_stage) = 'done' then now() end
    where b.pass = p_pass and b.stage = v_stage and b.after_key is not distinct from v_after;
  end loop;
end;
$$;

-- Writes one batch's changes and moves the watermark past it, in one transaction;
-- returns the texts (columns) written and the conflicts.
-- p_changes: [{"key", "column", "old", "new"}], old being the value the batch read. A row
-- is written only while it still holds old (or already holds new: another instance was
-- first), so a text changed in between (a new turn's last_message) is never overwritten
-- with a stale one; such a row is a conflict, and then the watermark stays where it was
-- (p_from_key) so that the batch is read again. The watermark moves only from p_from_key:
-- two instances running one pass never move it back.
create or replace function redaction_backfill_store(
  p_pass text,
  p_stage text,
  p_from_key text,
  p_to_key text,
  p_rows_read integer,
  p_changes jsonb
)
returns table (changed integer, conflicts integer)
language plpgsql
as $$
declare
  v_change jsonb;
  v_key text;
  v_target text;
  v_rows integer;
  v_changed integer := 0;
  v_conflicts integer := 0;
begin
  for v_change in select * from jsonb_array_elements(coalesce(p_changes, '[]'::jsonb)) loop
    v_key := v_change->>'key';
    v_target := p_stage || '.' || (v_change->>'column');
    case v_target
      when 'chat_messages.content' then
        update chat_messages set content = v_change->>'new'
        where id = v_key::uuid and content in (v_change->>'old', v_change->>'new');
      when 'chat_messages.tool_calls' then
        update chat_messages set tool_calls = v_change->'new'
        where id = v_key::uuid and tool_calls in (v_change->'old', v_change->'new');
      when 'chat_messages.metadata' then
        update chat_messages set metadata = v_change->'new'
        where id = v_key::uuid and metadata in (v_change->'old', v_change->'new');
      when 'chat_sessions.title' then
        update chat_sessions set title = v_change->>'new'
        where session_id = v_key and title in (v_change->>'old', v_change->>'new');
      when 'chat_sessions.last_message' then
        update chat_sessions set last_message = v_change->>'new'
        where session_id = v_key and last_message in (v_change->>'old', v_change->>'new');
      when 'chat_sessions.summary' then
        update chat_sessions set summary = v_change->>'new'
        where session_id = v_key and summary in (v_change->>'old', v_change->>'new');
      when 'conversation_summaries.summary' then
        update conversation_summaries set summary = v_change->>'new'
        where session_id = v_key and summary in (v_change->>'old', v_change->>'new');
      when 'answer_feedback.comment' then
        update answer_feedback set comment = v_change->>'new'
        where message_id = v_key::uuid and comment in (v_change->>'old', v_change->>'new');
      when 'idempotency_keys.response' then
        update idempotency_keys set response = v_change->'new'
        where key = v_key and response in (v_change->'old', v_change->'new');
      else
        raise exception 'redaction_backfill_store: the backfill writes no column %', v_target using errcode = '22023';
    end case;
    get diagnostics v_rows = row_count;
    if v_rows = 1 then
      v_changed := v_changed + 1;
    else
      v_conflicts := v_conflicts + 1;
    end if;
  end loop;
  if v_conflicts = 0 then
    update redaction_backfill b
    set after_key = p_to_key,
        rows_read = b.rows_read + p_rows_read,
        texts_changed = b.texts_changed + v_changed,
        updated_at = now()
    where b.pass = p_pass and b.stage = p_stage and b.after_key is not distinct from p_from_key;
  end if;
  return query select v_changed, v_conflicts;
end;
$$;

-- A pass's progress, for logs and tests: null when it never started.
create or replace function redaction_backfill_progress(p_pass text)
returns table (pass text, stage text, after_key text, rows_read bigint, texts_changed bigint, started_at timestamptz, finished_at timestamptz)
language sql
stable
as $$
  select b.pass, b.stage, b.after_key, b.rows_read, b.texts_changed, b.started_at, b.finished_at
  from redaction_backfill b
  where b.pass = p_pass
$$;
