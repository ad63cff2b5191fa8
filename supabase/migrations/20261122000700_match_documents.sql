-- match_documents(embedding, model, count, min_similarity): nearest knowledge chunks.
--
-- similarity = 1 - cosine distance (<=>), in [-1, 1]; 1 means the same direction.
-- Ordering by the distance itself lets the HNSW index (vector_cosine_ops) serve
-- the query. Vectors from different embedding models are not comparable, so if
-- any stored chunk was embedded by another model the function raises SQLSTATE
-- 'EM001' naming both models, rather than returning nonsense neighbours.
create or replace function match_documents(
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_match_count integer,
  p_min_similarity double precision default 0
)
returns table (
  id uuid,
  source text,
  title text,
  chunk_index integer,
  content text,
  metadata jsonb,
  similarity double precision
)
language plpgsql
stable
as $$
declare
  v_other_model text;
begin
  select d.embedding_model into v_other_model
  from documents d where d.embedding_model <> p_embedding_model limit 1;
  if v_other_model is not null then
    raise exception 'knowledge base was embedded with "%", but the query was embedded with "%"; re-ingest the knowledge base with the current embedding model',
      v_other_model, p_embedding_model
      using errcode = 'EM001';
  end if;

  -- Take the nearest p_match_count by index order first, then drop the ones
  -- below the similarity floor (a WHERE on the distance would bypass the index).
  return query
  select n.* from (
    select d.id, d.source, d.title, d.chunk_index, d.content, d.metadata,
           (1 - (d.embedding <=> p_query_embedding))::double precision as similarity
    from documents d
    order by d.embedding <=> p_query_embedding
    limit greatest(p_match_count, 0)
  ) n
  where n.similarity >= p_min_similarity
  order by n.similarity desc;
end;
$$;
