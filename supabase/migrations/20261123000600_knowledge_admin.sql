-- The knowledge API and the console's knowledge page: list, read, replace and delete
-- sources while the service answers, and what customers asked of the knowledge base.
-- Every function is one statement (or one plpgsql call), so each is atomic on its own.
-- Like the documents table they read, they need pgvector's vector type to be installed.

-- knowledge_sources: one row per source, ordered by source name, one keyset page at a time.
--
-- content_hash is sha256 over the source's chunk hashes in chunk order: it changes
-- exactly when what is embedded changes (text, chunking or title). updated_at is
-- when the chunks were last written (replace_source_chunks rewrites all of them).
-- p_pattern is an ILIKE pattern, already escaped by the caller, on title or source;
-- p_source, when given, picks that one source.
create or replace function knowledge_sources(p_source text, p_pattern text, p_after_source text, p_limit integer)
returns table (
  source text,
  title text,
  chunk_count integer,
  content_hash text,
  embedding_model text,
  char_count integer,
  updated_at timestamptz
)
language sql
stable
as $$
  select d.source,
         (array_agg(d.title order by d.chunk_index))[1],
         count(*)::integer,
         encode(sha256(convert_to(string_agg(d.content_hash, ',' order by d.chunk_index), 'UTF8')), 'hex'),
         string_agg(distinct d.embedding_model, ','),
         sum(length(d.content))::integer,
         max(d.created_at)
  from documents d
  where (p_source is null or d.source = p_source)
    and (p_after_source is null or d.source > p_after_source)
    and (p_pattern is null or d.title ilike p_pattern or d.source ilike p_pattern)
  group by d.source
  order by d.source
  limit greatest(p_limit, 0)
$$;

-- knowledge_source_chunks: every chunk of one source, for reading it in the console.
create or replace function knowledge_source_chunks(p_source text)
returns table (
  chunk_index integer,
  title text,
  content text,
  content_hash text,
  embedding_model text,
  metadata jsonb,
  created_at timestamptz
)
language sql
stable
as $$
  select d.chunk_index, d.title, d.content, d.content_hash, d.embedding_model, d.metadata, d.created_at
  from documents d where d.source = p_source order by d.chunk_index
$$;

-- put_knowledge_source: replace_source_chunks under a per-source transaction lock.
--
-- Two writers of one source at once would otherwise both delete the old rows and
-- then collide on unique (source, chunk_index). The lock is taken first, so the
-- second writer's delete already sees the first one's rows. Readers never wait:
-- match_documents sees the old chunks or the new ones, never a mix.
create or replace function put_knowledge_source(p_source text, p_chunks jsonb)
returns integer
language plpgsql
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('documents:' || p_source, 0));
  return replace_source_chunks(p_source, p_chunks);
end;
$$;

-- delete_knowledge_source: removes every chunk of a source in one statement (under
-- the same lock as put_knowledge_source); returns how many there were.
create or replace function delete_knowledge_source(p_source text)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  perform pg_advisory_xact_lock(hashtextextended('documents:' || p_source, 0));
  delete from documents where source = p_source;
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

-- most_cited_sources: the sources answers cited since p_since, most cited first.
--
-- Every stored answer keeps its sources in metadata->'sources' ([{title, source,
-- score}], each source once per answer), so "cited" counts answers, not passages.
-- in_knowledge_base says whether the source still exists.
create or replace function most_cited_sources(p_since text, p_limit integer)
returns table (source text, title text, answers bigint, last_cited_at timestamptz, in_knowledge_base boolean)
language sql
stable
as $$
  select c.source,
         (array_agg(c.title order by c.cited_at desc))[1],
         count(*),
         max(c.cited_at),
         exists (select 1 from documents d where d.source = c.source)
  from (
    select s->>'source' as source, s->>'title' as title, m.created_at as cited_at
    from chat_messages m
    cross join lateral jsonb_array_elements(
      case when jsonb_typeof(m.metadata->'sources') = 'array' then m.metadata->'sources' else '[]'::jsonb end
    ) as s
    where m.role = 'assistant' and m.created_at >= p_since::timestamptz
  ) c
  where c.source is not null
  group by c.source
  order by count(*) desc, max(c.cited_at) desc
  limit greatest(p_limit, 0)
$$;

-- unanswered_questions: what customers asked that the knowledge base did not answer
-- since p_since (a timestamp as text, like list_sessions' cursor): the customer's message of every answer that was escalated or whose
-- confidence (the best passage's similarity) was below p_min_confidence. The same
-- question (case and surrounding spaces aside) is one row with how often it came.
create or replace function unanswered_questions(p_min_confidence double precision, p_since text, p_limit integer)
returns table (question text, times bigint, best_confidence double precision, escalated bigint, last_asked_at timestamptz, session_id text)
language sql
stable
as $$
  select (array_agg(q.content order by a.created_at desc))[1],
         count(*),
         max(coalesce(a.confidence, 0)),
         count(*) filter (where a.escalated),
         max(a.created_at),
         (array_agg(a.session_id order by a.created_at desc))[1]
  from chat_messages a
  cross join lateral (
    select u.content from chat_messages u
    where u.session_id = a.session_id and u.seq < a.seq and u.role = 'user'
    order by u.seq desc limit 1
  ) q
  where a.role = 'assistant' and a.created_at >= p_since::timestamptz
    and a.confidence is not null
    and (a.escalated or a.confidence < p_min_confidence)
  group by lower(btrim(q.content))
  order by count(*) desc, max(a.created_at) desc
  limit greatest(p_limit, 0)
$$;
