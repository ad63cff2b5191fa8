-- Two changes to what a search reads (neither re-indexes anything).
--
-- 1. Compound words. German, Dutch and the Nordic languages write a concept as one word
--    ("Spurweite", "Gesetzgebungsverfahren") that a help center may write otherwise
--    ("Spur", "Weite"; "Verfahren der Gesetzgebung"). No Snowball stemmer splits compounds, so
--    such a question word matched nothing. query_lexemes reads a query word of those languages'
--    configurations that the knowledge base does not hold as two words it does hold (the longest
--    first part that works; a linking "s" may end the first part), for the search and for
--    query_coverage alike. Only for those configurations and only for words the knowledge base
--    lacks: an English knowledge base's searches are unchanged.
--
-- 2. The best document's passage by meaning, beside its passage by words, for a responder
--    that can only quote (p_closest_passage). hybrid_search returns each chosen document's best
--    chunk, chosen by the chunk's own words (idf-weighted) plus its similarity. A word the
--    question uses loosely can pick the wrong one: "How long does a refund take?" chose
--    refunds.md's "Partial refunds" section for "as long as the item was packed safely" (one
--    document holds "long", so its idf is the highest), while the section that answers ("We
--    issue the refund within 5–7 business days") was the document's closest chunk by meaning.
--    A model reads around that; the offline responder can only quote what it is given. So with
--    p_closest_passage the best document (the first row) also brings its most similar chunk when
--    that is another chunk: at most one row more than p_match_count, right after the document's
--    first row. Every other row is as before, so the documents and their order do not change
--    (citations and R@k read documents), and confidence still reads the document's similarity.
--    Off (the default) for a model: one more passage a turn is tokens on every turn. Choosing the
--    chunk by words and similarity both scaled within the document instead was measured and lost
--    (BENCHMARKS.md).
--
--    The parameter is new, so the function is dropped and made again.
--
-- Otherwise as 20261126000800_document_languages (hybrid_search) and 20261126000850_query_coverage.

-- The lexemes of a query text, as the knowledge base's configurations make them, with a
-- compound word it lacks read as its two parts (the compound itself is left out).
create or replace function query_lexemes(p_query_text text)
returns table (lexeme text)
language plpgsql
stable
as $$
#variable_conflict use_column
declare
  -- The configurations whose languages write compounds as one word.
  v_compounding constant text[] := array['german', 'dutch', 'swedish', 'norwegian', 'danish'];
begin
  -- A knowledge base with no compounding language (most): the configurations' lexemes alone,
  -- with no look at the vocabulary.
  if not exists (
    select 1 from knowledge_chunk_languages k
    where k.chunks > 0 and k.text_config::text = any (v_compounding)
  ) then
    return query
    select distinct u.lexeme
    from (select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0) c,
         unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme);
    return;
  end if;

  -- Each lookup of the vocabulary (knowledge_terms) is a scalar subquery, an index probe per
  -- word or part: as a join, the planner hashed the whole vocabulary on every search.
  return query
  with configs as (
    select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0
  ),
  whole as (
    select distinct u.lexeme
    from configs c,
         unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme)
  ),
  -- Long words of a compounding language's configuration, each with its own lexeme.
  long_words as (
    select distinct c.text_config, lower(t.token) as word,
           (tsvector_to_array(to_tsvector(c.text_config, t.token)))[1] as lexeme
    from configs c
    cross join ts_parse('default', coalesce(p_query_text, '')) as t
    where c.text_config::text = any (v_compounding)
      and t.tokid in (1, 2)
      and char_length(t.token) >= 8
  ),
  known_words as (
    select w.*, (select true from knowledge_terms kt where kt.lexeme = w.lexeme) as known from long_words w
  ),
  -- Every cut into a first part of 3+ letters (with or without a linking "s") and a rest of 3+.
  cuts as (
    select u.text_config, u.word, u.lexeme as compound, i, left(u.word, i) as head, substr(u.word, i + 1) as tail
    from known_words u, generate_series(3, char_length(u.word) - 3) as i
    where u.lexeme is not null and u.known is null
    union all
    select u.text_config, u.word, u.lexeme, i, left(u.word, i - 1), substr(u.word, i + 1)
    from known_words u, generate_series(4, char_length(u.word) - 3) as i
    where u.lexeme is not null and u.known is null and substr(u.word, i, 1) = 's'
  ),
  parts as (
    select c.word, c.compound, c.i, c.head,
           (tsvector_to_array(to_tsvector(c.text_config, c.head)))[1] as head_lexeme,
           (tsvector_to_array(to_tsvector(c.text_config, c.tail)))[1] as tail_lexeme
    from cuts c
  ),
  checked as (
    select p.*,
           (select true from knowledge_terms kt where kt.lexeme = p.head_lexeme) as head_known,
           (select true from knowledge_terms kt where kt.lexeme = p.tail_lexeme) as tail_known
    from parts p
  ),
  splits as (
    select distinct on (c.word) c.compound, c.head_lexeme, c.tail_lexeme
    from checked c
    where c.head_known and c.tail_known
    order by c.word, c.i desc, char_length(c.head) desc
  )
  select w.lexeme from whole w where w.lexeme not in (select s.compound from splits s)
  union
  select s.head_lexeme from splits s
  union
  select s.tail_lexeme from splits s;
end;
$$;

drop function if exists hybrid_search(text, vector, text, integer, double precision, double precision, double precision, jsonb);
create or replace function hybrid_search(
  p_query_text text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_match_count integer,
  p_min_similarity double precision default 0,
  p_full_text_weight double precision default 1,
  p_semantic_weight double precision default 1,
  p_history jsonb default '[]'::jsonb,
  p_closest_passage boolean default false
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
  with terms as (
    -- Each lexeme once (as the knowledge base's configurations make it from the query, cut into
    -- words by the service: query_lexemes), at the highest weight a text gives it.
    select t.lexeme, max(t.weight) as weight, bool_or(t.own) as own
    from (
      select q.lexeme, 1.0::double precision as weight, true as own
      from query_lexemes(p_query_text) as q
      union all
      select q.lexeme, least((h.value->>'weight')::double precision, 1), false
      from jsonb_array_elements(coalesce(p_history, '[]'::jsonb)) as h(value)
      cross join lateral query_lexemes(h.value->>'text') as q
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
    select k.id, k.source, ch.score as document_score, ch.normalised, ch.history_part, ch.place, ch.semantic_place, ch.similarity as document_similarity,
           k.similarity,
           row_number() over (partition by k.source order by coalesce(k.words, 0) + k.similarity desc, k.id) as place_in_source,
           row_number() over (partition by k.source order by k.similarity desc, k.id) as place_by_meaning,
           dense_rank() over (order by ch.score desc, ch.source) as document_place
    from chunk_scores k
    join chosen ch on ch.source = k.source
  ),
  ordered as (
    select r.*,
           -- The best document's closest chunk by meaning, when its words chose another.
           (p_closest_passage and r.document_place = 1 and r.place_by_meaning = 1 and r.place_in_source > 1) as meaning_extra
    from ranked_chunks r
  ),
  numbered as (
    select o.*,
           -- Documents first: the best chunk of each document (the best document's closest by
           -- meaning right after its own), then the second bests, and so on.
           row_number() over (
             order by case when o.meaning_extra then 1 else o.place_in_source end, o.document_score desc, o.source, o.place_in_source
           ) as row_place,
           count(*) filter (where o.meaning_extra) over () as extras
    from ordered o
  )
  select d.id, d.source, d.title, d.chunk_index, d.content, d.metadata,
         n.similarity,
         n.place::integer,
         n.document_score::double precision,
         n.normalised::double precision,
         n.history_part::double precision,
         n.semantic_place::integer,
         n.document_similarity::double precision
  from numbered n
  join documents d on d.id = n.id
  where n.row_place <= greatest(p_match_count, 0) + case when p_match_count > 0 then n.extras else 0 end
  order by n.row_place;
end;
$$;

-- Each of p_sources with its coverage of p_query_text (0..1), as 20261126000850_query_coverage,
-- reading the question's words through query_lexemes as hybrid_search does.
create or replace function query_coverage(p_query_text text, p_sources text[])
returns table (source text, coverage double precision)
language sql
stable
as $$
  with terms as (
    select distinct q.lexeme from query_lexemes(p_query_text) as q
  ),
  term_idf as (
    select t.lexeme, ln(1 + (co.sources - coalesce(kt.df, 0) + 0.5) / (coalesce(kt.df, 0) + 0.5)) as idf
    from terms t
    cross join knowledge_corpus_stats co
    left join knowledge_terms kt on kt.lexeme = t.lexeme
    where co.id
  ),
  total as (
    select sum(idf) as idf from term_idf
  )
  -- A probe of the (lexeme, source) key per word and document: joined, the planner read every
  -- posting of each document (hundreds) to find a handful of words.
  select s.source,
         coalesce((
           select sum(ti.idf) from term_idf ti
           where exists (select 1 from knowledge_postings p where p.lexeme = ti.lexeme and p.source = s.source)
         ), 0) / tot.idf as coverage
  from (select distinct unnest(p_sources) as source) s
  cross join total tot
  where tot.idf > 0
$$;
