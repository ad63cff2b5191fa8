-- hybrid_search(text, embedding, model, count, …): knowledge chunks found by meaning
-- (vectors) and by words (full text over documents.fts), fused by reciprocal rank.
--
-- Each side ranks candidates on its own scale; reciprocal rank fusion ignores the
-- scales and adds, for every chunk, weight / (k + rank) of each side that found it
-- (a side that did not find it adds 0):
--
--   score = p_full_text_weight / (p_rrf_k + full_text_rank)
--         + p_semantic_weight  / (p_rrf_k + semantic_rank)
--
-- Semantic side: the nearest chunks by cosine distance (<=>, so the HNSW index with
-- vector_cosine_ops serves it), p_match_count × 4 of them, at least 20, those at or
-- above p_min_similarity.
--
-- Full-text side: the question's words as an OR query (any word may match; a plain
-- to_tsquery would demand all of them, and a customer's question rarely repeats an
-- article's sentence), scored by BM25 over whole DOCUMENTS (a source's chunks taken
-- together), not chunks: a word's weight is its inverse document frequency, its
-- count saturates (k1 = 1.2) and long documents are normalised (b = 0.75). Within
-- a document its chunks are ordered by their own idf-weighted matches. Measured
-- here: BM25 over whole documents found the right one more often than over chunks,
-- and Postgres's ts_rank (no idf: common words weigh as much as rare ones) far less.
--
-- The result ranks documents too: each document's best chunk comes before any
-- document's second best, so `p_match_count` chunks cite as many documents as
-- there are (one article's near-duplicate sections do not crowd others out).
--
-- similarity (1 - cosine distance, in [-1, 1]) is reported for every chunk returned,
-- whichever side found it, so callers keep judging confidence on the embedder's scale;
-- full_text_rank is the chunk's place on the full-text side (null: not found there).
-- Vectors of another embedding model than the query's are refused with SQLSTATE
-- 'EM001', as match_documents does.
create or replace function hybrid_search(
  p_query_text text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_match_count integer,
  p_min_similarity double precision default 0,
  p_full_text_weight double precision default 1,
  p_semantic_weight double precision default 1,
  p_rrf_k integer default 60
)
returns table (
  id uuid,
  source text,
  title text,
  chunk_index integer,
  content text,
  metadata jsonb,
  similarity double precision,
  full_text_rank integer,
  score double precision
)
language plpgsql
stable
as $$
declare
  v_other_model text;
  v_lexemes text[];
  v_query tsquery;
begin
  select d.embedding_model into v_other_model
  from documents d where d.embedding_model <> p_embedding_model limit 1;
  if v_other_model is not null then
    raise exception 'knowledge base was embedded with "%", but the query was embedded with "%"; re-ingest the knowledge base with the current embedding model',
      v_other_model, p_embedding_model
      using errcode = 'EM001';
  end if;

  -- The question's lexemes (English stemming, stopwords dropped), OR-ed; the 'simple'
  -- configuration reads them as they are, without stemming them twice. Null when the
  -- question has no word worth searching for ("?", "and then?").
  v_lexemes := tsvector_to_array(to_tsvector('english', coalesce(p_query_text, '')));
  select to_tsquery('simple', string_agg(quote_literal(l), ' | ')) into v_query from unnest(v_lexemes) as l;

  return query
  with semantic as (
    select n.id, row_number() over (order by n.distance) as semantic_rank
    from (
      select d.id, d.embedding <=> p_query_embedding as distance
      from documents d
      order by d.embedding <=> p_query_embedding
      limit greatest(p_match_count * 4, 20)
    ) n
    where 1 - n.distance >= p_min_similarity
  ),
  -- Each matching chunk's occurrences of each query lexeme (a tsvector keeps positions).
  hits as (
    select d.id, d.source, u.lexeme, coalesce(array_length(u.positions, 1), 1) as tf
    from documents d, unnest(d.fts) as u
    where v_query is not null and d.fts @@ v_query
      and u.lexeme = any (v_lexemes)
  ),
  -- Documents (sources) and their length in lexemes, for BM25's length normalisation.
  corpus as (
    select d.source, sum(length(d.fts))::double precision as len from documents d group by d.source
  ),
  corpus_stats as (
    select count(*)::double precision as n, avg(c.len) as avg_len from corpus c
  ),
  -- Inverse document frequency: a word found in few documents says more than a common one.
  idf as (
    select h.lexeme, ln(1 + (cs.n - count(distinct h.source) + 0.5) / (count(distinct h.source) + 0.5)) as idf
    from hits h cross join corpus_stats cs
    group by h.lexeme, cs.n
  ),
  -- BM25 (k1 = 1.2, b = 0.75) of each whole document.
  source_scores as (
    select t.source, sum(i.idf * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * c.len / cs.avg_len))) as bm25
    from (select h.source, h.lexeme, sum(h.tf) as tf from hits h group by h.source, h.lexeme) t
    join idf i on i.lexeme = t.lexeme
    join corpus c on c.source = t.source
    cross join corpus_stats cs
    group by t.source
  ),
  -- Within a document, its chunks in order of their own idf-weighted matches.
  chunk_scores as (
    select h.id, h.source, sum(i.idf * h.tf / (h.tf + 1.2)) as weight
    from hits h join idf i on i.lexeme = h.lexeme
    group by h.id, h.source
  ),
  full_text as (
    select c.id, row_number() over (order by s.bm25 desc, c.weight desc, c.id) as full_text_rank
    from chunk_scores c join source_scores s on s.source = c.source
  ),
  fused as (
    select coalesce(s.id, f.id) as id,
           f.full_text_rank,
           coalesce(p_full_text_weight / (p_rrf_k + f.full_text_rank), 0)
             + coalesce(p_semantic_weight / (p_rrf_k + s.semantic_rank), 0) as score
    from semantic s
    full outer join full_text f on f.id = s.id
  )
  select r.id, r.source, r.title, r.chunk_index, r.content, r.metadata, r.similarity, r.full_text_rank, r.score
  from (
    select d.id, d.source, d.title, d.chunk_index, d.content, d.metadata,
           (1 - (d.embedding <=> p_query_embedding))::double precision as similarity,
           fu.full_text_rank::integer as full_text_rank,
           fu.score::double precision as score,
           row_number() over (partition by d.source order by fu.score desc) as place_in_source
    from fused fu
    join documents d on d.id = fu.id
  ) r
  -- Documents first: the best chunk of each document, then the second bests, and so on.
  order by r.place_in_source, r.score desc, r.similarity desc
  limit greatest(p_match_count, 0);
end;
$$;
