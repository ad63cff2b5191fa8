-- session_usage(session): what a conversation's answers cost, for the review console
-- and the history endpoint.
--
-- Sums the usage each answer stored in its metadata (append_turn writes
-- metadata.usage: prompt_tokens, cached_tokens, completion_tokens, summed over the
-- turn's model calls) over the session's assistant messages that carry one. cost is
-- the sum of metadata.cost (the estimate made with MODEL_PRICES when the answer was
-- written), null when no answer carries one; priced_answers says how many did, so a
-- total over partly priced answers can be shown as such. Answers written before
-- cached_tokens existed count 0 cached tokens.
--
-- Cost: one pass over the session's messages (the (session_id, seq) index).
create or replace function session_usage(p_session_id text)
returns table (
  answers integer,
  prompt_tokens bigint,
  cached_tokens bigint,
  completion_tokens bigint,
  cost double precision,
  priced_answers integer
)
language sql
stable
as $$
  select
    count(*)::integer,
    coalesce(sum((m.metadata->'usage'->>'prompt_tokens')::bigint), 0),
    coalesce(sum(coalesce((m.metadata->'usage'->>'cached_tokens')::bigint, 0)), 0),
    coalesce(sum((m.metadata->'usage'->>'completion_tokens')::bigint), 0),
    sum((m.metadata->>'cost')::double precision),
    count(m.metadata->'cost')::integer
  from chat_messages m
  where m.session_id = p_session_id
    and m.role = 'assistant'
    and jsonb_typeof(m.metadata->'usage') = 'object'
$$;
