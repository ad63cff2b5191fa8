-- Each chunk knows its document's language, and is indexed with that language's analysis
-- (src/knowledge/language/analysis.ts decides it; docs/knowledge.md, "Languages"):
--
-- - documents.language: the document's ISO 639-1 code, detected at ingest; null for a chunk
--   stored before this migration until the service has analysed it (it does so once, at
--   start: src/knowledge/language/reindex.ts).
-- - documents.text_config: the text-search configuration its full text is made with. A
--   generated tsvector may take its configuration from a regconfig column (a text column
--   cast to regconfig is refused: not immutable). 'english' for the chunks already stored,
--   which is how they were indexed, so nothing they answer changes before they are analysed.
-- - documents.search_text: the text the full text is made from when the service cut it
--   into words (Chinese, Japanese, Thai by a dictionary, Korean into character pairs);
--   null when it is the title and content as they are.
--
-- The BM25 postings keep following documents.fts, so they follow the new lexemes: the
-- statistics triggers recount a source from its chunks whenever they change.
--
-- hybrid_search analyses the query with every configuration the knowledge base has chunks
-- in (knowledge_chunk_languages, kept by the same triggers) and unions the lexemes, so a
-- German question finds German chunks stemmed as German, and an English one English chunks.

-- unaccent folds accents for the languages without a stemmer (Polish, Czech, …).
create extension if not exists unaccent;

-- simple_unaccent: a language without a Snowball stemmer, words kept as written, lower-cased
-- and with their accents folded ("Zażółć" and "zazolc" are one word).
create text search configuration simple_unaccent (copy = simple);
alter text search configuration simple_unaccent
  alter mapping for hword, hword_part, word with unaccent, simple;

alter table documents add column language text;
alter table documents add column text_config regconfig not null default 'english';
alter table documents add column search_text text;
-- A generated column's expression cannot be changed in place on PostgreSQL 15: dropped and
-- made again (its GIN index with it), computed for every stored chunk.
alter table documents drop column fts;
alter table documents add column fts tsvector
  generated always as (to_tsvector(text_config, coalesce(search_text, title || ' ' || content))) stored;
create index documents_fts_idx on documents using gin (fts);
-- The chunks the service has still to analyse (a handful of sources, once).
create index documents_unanalysed_idx on documents (source) where language is null;

-- How many chunks each (language, configuration) has: what the query is analysed with and
-- what knowledge_languages() reports. language is '' for chunks not analysed yet.
create table knowledge_chunk_languages (
  language text not null,
  text_config regconfig not null,
  chunks bigint not null,
  primary key (language, text_config)
);
alter table knowledge_chunk_languages enable row level security;

insert into knowledge_chunk_languages (language, text_config, chunks)
select coalesce(d.language, ''), d.text_config, count(*) from documents d group by 1, 2;

-- Adds (p_sign 1) or removes (-1) chunks from the per-language counts; p_rows holds each
-- chunk's {language, text_config}.
create or replace function count_knowledge_languages(p_rows jsonb, p_sign integer)
returns void
language plpgsql
as $$
begin
  insert into knowledge_chunk_languages (language, text_config, chunks)
  select coalesce(r->>'language', ''), (r->>'text_config')::regconfig, p_sign * count(*)
  from jsonb_array_elements(coalesce(p_rows, '[]'::jsonb)) as r
  group by 1, 2
  order by 1, 2
  on conflict (language, text_config) do update set chunks = knowledge_chunk_languages.chunks + excluded.chunks;
  delete from knowledge_chunk_languages where chunks <= 0;
end;
$$;

-- The statistics triggers of 20261125000400, now also counting languages.
create or replace function documents_statistics_after_insert()
returns trigger
language plpgsql
as $$
begin
  perform refresh_knowledge_statistics(array(select distinct source from new_chunks));
  perform count_knowledge_models(array(select embedding_model from new_chunks), 1);
  perform count_knowledge_languages(
    (select jsonb_agg(jsonb_build_object('language', n.language, 'text_config', n.text_config::text)) from new_chunks n), 1);
  return null;
end;
$$;

create or replace function documents_statistics_after_delete()
returns trigger
language plpgsql
as $$
begin
  perform refresh_knowledge_statistics(array(select distinct source from old_chunks));
  perform count_knowledge_models(array(select embedding_model from old_chunks), -1);
  perform count_knowledge_languages(
    (select jsonb_agg(jsonb_build_object('language', o.language, 'text_config', o.text_config::text)) from old_chunks o), -1);
  return null;
end;
$$;

create or replace function documents_statistics_after_update()
returns trigger
language plpgsql
as $$
begin
  perform refresh_knowledge_statistics(array(select source from old_chunks union select source from new_chunks));
  perform count_knowledge_models(array(select embedding_model from old_chunks), -1);
  perform count_knowledge_models(array(select embedding_model from new_chunks), 1);
  perform count_knowledge_languages(
    (select jsonb_agg(jsonb_build_object('language', o.language, 'text_config', o.text_config::text)) from old_chunks o), -1);
  perform count_knowledge_languages(
    (select jsonb_agg(jsonb_build_object('language', n.language, 'text_config', n.text_config::text)) from new_chunks n), 1);
  return null;
end;
$$;

-- replace_source_chunks (20261122001300) with each chunk's language, configuration and cut
-- text. A chunk written without them is indexed as before (english, uncut).
create or replace function replace_source_chunks(p_source text, p_chunks jsonb)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  delete from documents where source = p_source;
  insert into documents (source, title, chunk_index, content, content_hash, metadata, embedding, embedding_model,
                         language, text_config, search_text)
  select p_source, c->>'title', (c->>'chunk_index')::integer, c->>'content', c->>'content_hash',
         coalesce(c->'metadata', '{}'::jsonb), (c->>'embedding')::vector, c->>'embedding_model',
         c->>'language', coalesce((c->>'text_config')::regconfig, 'english'::regconfig), c->>'search_text'
  from jsonb_array_elements(coalesce(p_chunks, '[]'::jsonb)) as t(c);
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

-- source_chunks (20261122001300) with each chunk's language: ingest rewrites a source whose
-- text is unchanged but whose language is not the one it would detect now.
drop function source_chunks(text);
create function source_chunks(p_source text)
returns table (chunk_index integer, content_hash text, embedding_model text, language text)
language sql
stable
as $$
  select d.chunk_index, d.content_hash, d.embedding_model, d.language from documents d
  where d.source = p_source order by d.chunk_index
$$;

-- The knowledge base's languages, the one with most chunks first.
create or replace function knowledge_languages()
returns table (language text, chunks bigint)
language sql
stable
as $$
  select k.language, sum(k.chunks)::bigint
  from knowledge_chunk_languages k
  where k.language <> '' and k.chunks > 0
  group by k.language
  order by 2 desc, 1
$$;

-- The sources with chunks whose language is not known (stored before this migration), by
-- name after p_after_source (null: from the first), up to p_limit.
create or replace function unanalysed_knowledge_sources(p_after_source text, p_limit integer)
returns table (source text)
language sql
stable
as $$
  select distinct d.source from documents d
  where d.language is null and (p_after_source is null or d.source > p_after_source)
  order by 1
  limit greatest(p_limit, 0)
$$;

-- Rewrites an unanalysed source's chunks with their language (the one-time analysis of
-- chunks stored before this migration), under put_knowledge_source's lock. Only when the
-- source still holds exactly the chunks that were read (p_content_hashes, in order) and none
-- is analysed: a sync or an edit that wrote the source meanwhile wins. Returns the chunks
-- written, or -1 when it left the source alone.
create or replace function analyse_knowledge_source(p_source text, p_content_hashes text[], p_chunks jsonb)
returns integer
language plpgsql
as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('documents:' || p_source, 0));
  if exists (select 1 from documents d where d.source = p_source and d.language is not null)
     or coalesce((select array_agg(d.content_hash order by d.chunk_index) from documents d where d.source = p_source), '{}')
        is distinct from coalesce(p_content_hashes, '{}') then
    return -1;
  end if;
  return replace_source_chunks(p_source, p_chunks);
end;
$$;

-- hybrid_search, fourth version: the third's (20261125000402) ranking, the query analysed
-- with each of the knowledge base's configurations instead of 'english' alone.
create or replace function hybrid_search(
  p_query_text text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_match_count integer,
  p_min_similarity double precision default 0,
  p_full_text_weight double precision default 1,
  p_semantic_weight double precision default 1,
  p_history jsonb default '[]'::jsonb
)
returns table (
  id uuid,
  source text,
  title text,
  chunk_index integer,
  content text,
  metadata jsonb,
  -- This chunk's cosine similarity to the query vector.
  similarity double precision,
  -- The document's place by BM25 (1 = best); null when none of the query's words is in it.
  full_text_rank integer,
  -- The document's fused score.
  score double precision,
  -- Its BM25 divided by the best document's (0..1), and the part of it earlier turns' words gave.
  full_text_score double precision,
  history_score double precision,
  -- The document's place by its best chunk's similarity among the candidates, and that similarity.
  semantic_rank integer,
  document_similarity double precision
)
language plpgsql
stable
-- The chunks' vectors are stored out of line (TOAST: 6 kB each), so the planner prices a
-- sequential scan of documents as cheap and sorts every vector by distance instead of
-- asking the HNSW index: measured here, 70 ms at 10,000 chunks and growing with them.
-- Every other read here is by an index too. No JIT: its compile time (hundreds of ms)
-- is spent on costs inflated by the disabled scan, never repaid by a query this size.
set enable_seqscan = off
set jit = off
-- One plan per connection, not one per call: PL/pgSQL otherwise plans this statement
-- anew for every call (its custom plans look cheaper than the generic one), which cost
-- 1.1 ms of a 2.8 ms search on the 41-chunk help center. The plan depends on the
-- tables' statistics, not on the parameters' values, and is made again when ANALYZE
-- changes them; measured here, the generic plan reads the same indexes (the HNSW index
-- among them) and returns the same rows at 1,000 and 100,000 chunks.
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_other_model text;
  -- Full-text candidates: a document below this many by BM25 rarely wins on vectors.
  v_full_text_candidates integer := greatest(p_match_count * 10, 50);
begin
  select m.embedding_model into v_other_model
  from knowledge_embedding_models m
  where m.embedding_model <> p_embedding_model and m.chunks > 0
  limit 1;
  if v_other_model is not null then
    raise exception 'knowledge base was embedded with "%", but the query was embedded with "%"; re-ingest the knowledge base with the current embedding model',
      v_other_model, p_embedding_model
      using errcode = 'EM001';
  end if;

  return query
  with configs as (
    -- The knowledge base's text-search configurations: the query is analysed with each.
    select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0
  ),
  terms as (
    -- Each lexeme once (as each configuration makes it from the query, cut into words by the
    -- service), at the highest weight a text gives it.
    select t.lexeme, max(t.weight) as weight, bool_or(t.own) as own
    from (
      select u.lexeme, 1.0::double precision as weight, true as own
      from configs c,
           unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme)
      union all
      select u.lexeme, least((h.value->>'weight')::double precision, 1), false
      from jsonb_array_elements(coalesce(p_history, '[]'::jsonb)) as h(value)
      cross join configs c
      cross join lateral unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(h.value->>'text', '')))) as u(lexeme)
      where (h.value->>'weight')::double precision > 0
    ) t
    group by t.lexeme
  ),
  corpus as (
    select c.sources::double precision as n, c.total_length / greatest(c.sources, 1) as avg_length
    from knowledge_corpus_stats c where c.id
  ),
  -- Each query word found in the knowledge base, with its weight and idf: what the
  -- documents' BM25 and the chunks' order below both use. Materialised: a row per word,
  -- joined by hash to the chosen chunks' lexemes (inlined, the planner looked each chunk
  -- lexeme up in knowledge_terms instead: 7 ms at 1,000 chunks).
  term_idf as materialized (
    select t.lexeme, t.weight, t.own, ln(1 + (co.n - kt.df + 0.5) / (kt.df + 0.5)) as idf
    from terms t
    join knowledge_terms kt on kt.lexeme = t.lexeme
    cross join corpus co
  ),
  postings as (
    select p.source, t.lexeme, p.tf, p.doc_length, t.weight, t.own, t.idf
    from term_idf t
    cross join lateral (
      select p.source, p.tf, p.doc_length from knowledge_postings p
      where p.lexeme = t.lexeme
      order by p.impact desc
      limit 1000
    ) p
  ),
  -- BM25 (k1 = 1.2, b = 0.75) of each document holding a query word, each word at its weight.
  weighted as (
    select po.source, po.weight, po.own,
           po.idf * po.tf * 2.2 / (po.tf + 1.2 * (0.25 + 0.75 * po.doc_length / greatest(co.avg_length, 1))) as bm25
    from postings po cross join corpus co
  ),
  bm25 as (
    select w.source, sum(w.weight * w.bm25) as total, sum(case when w.own then 0 else w.weight * w.bm25 end) as from_history
    from weighted w group by w.source
  ),
  -- The candidates first (a bounded top-N sort), then only they are normalised and numbered:
  -- the best document is among them.
  leaders as (
    select b.source, b.total, b.from_history
    from bm25 b
    order by b.total desc, b.source
    limit v_full_text_candidates
  ),
  full_text as (
    select l.source,
           l.total / nullif(max(l.total) over (), 0) as normalised,
           l.from_history / nullif(max(l.total) over (), 0) as history_part,
           row_number() over (order by l.total desc, l.source) as place
    from leaders l
  ),
  -- The HNSW index (vector_cosine_ops) serves this: ordered by <=> with a limit. It returns
  -- at most hnsw.ef_search rows (40 by default), which is what is asked for.
  nearest as (
    select d.source from documents d order by d.embedding <=> p_query_embedding limit 40
  ),
  candidates as (
    select f.source from full_text f union select n.source from nearest n
  ),
  chunk_similarity as (
    select d.id, d.source, (1 - (d.embedding <=> p_query_embedding))::double precision as similarity
    from documents d
    where d.source in (select c.source from candidates c)
  ),
  by_meaning as (
    select cs.source, max(cs.similarity) as similarity from chunk_similarity cs group by cs.source
  ),
  fused as (
    select m.source, f.normalised, f.history_part, f.place, m.similarity,
           row_number() over (order by m.similarity desc, m.source) as semantic_place,
           coalesce(p_full_text_weight * f.normalised, 0)
             + p_semantic_weight * (case when m.similarity >= p_min_similarity then m.similarity else 0 end) as score
    from by_meaning m left join full_text f on f.source = m.source
    -- A document counts when a query word is in it or its meaning is close enough.
    where f.source is not null or m.similarity >= p_min_similarity
  ),
  chosen as (
    select fu.* from fused fu order by fu.score desc, fu.source limit greatest(p_match_count, 0)
  ),
  -- Within a chosen document, its chunks by their own words (idf-weighted) and similarity.
  chunk_words as (
    select d.id, sum(ti.weight * ti.idf * coalesce(array_length(u.positions, 1), 1) / (coalesce(array_length(u.positions, 1), 1) + 1.2)) as words
    from documents d
    join chosen ch on ch.source = d.source
    cross join unnest(d.fts) as u
    join term_idf ti on ti.lexeme = u.lexeme
    group by d.id
  ),
  chunk_scores as (
    select cs.id, cs.source, cs.similarity,
           coalesce(cw.words, 0) / nullif(max(coalesce(cw.words, 0)) over (partition by cs.source), 0) as words
    from chunk_similarity cs
    join chosen ch on ch.source = cs.source
    left join chunk_words cw on cw.id = cs.id
  ),
  ranked_chunks as (
    select k.id, ch.score as document_score, ch.normalised, ch.history_part, ch.place, ch.semantic_place, ch.similarity as document_similarity,
           k.similarity,
           row_number() over (partition by k.source order by coalesce(k.words, 0) + k.similarity desc, k.id) as place_in_source
    from chunk_scores k
    join chosen ch on ch.source = k.source
  )
  select d.id, d.source, d.title, d.chunk_index, d.content, d.metadata,
         r.similarity,
         r.place::integer,
         r.document_score::double precision,
         r.normalised::double precision,
         r.history_part::double precision,
         r.semantic_place::integer,
         r.document_similarity::double precision
  from ranked_chunks r
  join documents d on d.id = r.id
  -- Documents first: the best chunk of each document, then the second bests, and so on.
  order by r.place_in_source, r.document_score desc, d.source, d.chunk_index
  limit greatest(p_match_count, 0);
end;
$$;
