-- The knowledge base's writes and bookkeeping reads as functions, beside
-- match_documents, so that the Supabase backend (.rpc()) and the SQL backends
-- share them. Vectors travel as pgvector's text form, '[0.1,0.2,…]'.

-- The chunks stored for a source, by chunk index: what ingest compares with.
create or replace function source_chunks(p_source text)
returns table (chunk_index integer, content_hash text, embedding_model text)
language sql
stable
as $$
  select d.chunk_index, d.content_hash, d.embedding_model from documents d
  where d.source = p_source order by d.chunk_index
$$;

-- Stored vectors by content hash for one embedding model, so unchanged text is not
-- embedded again (one row per hash, whichever source holds it).
create or replace function embeddings_by_hash(p_content_hashes text[], p_embedding_model text)
returns table (content_hash text, embedding text)
language sql
stable
as $$
  select distinct on (d.content_hash) d.content_hash, d.embedding::text from documents d
  where d.content_hash = any(p_content_hashes) and d.embedding_model = p_embedding_model
$$;

-- Replaces every chunk of a source in one statement, hence atomically: p_chunks is a
-- jsonb array of {title, chunk_index, content, content_hash, metadata, embedding,
-- embedding_model}, embedding as pgvector's text form. A bad chunk (say, a vector of
-- the wrong length) fails the whole call and the old chunks stay.
create or replace function replace_source_chunks(p_source text, p_chunks jsonb)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  delete from documents where source = p_source;
  insert into documents (source, title, chunk_index, content, content_hash, metadata, embedding, embedding_model)
  select p_source, c->>'title', (c->>'chunk_index')::integer, c->>'content', c->>'content_hash',
         coalesce(c->'metadata', '{}'::jsonb), (c->>'embedding')::vector, c->>'embedding_model'
  from jsonb_array_elements(coalesce(p_chunks, '[]'::jsonb)) as t(c);
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

-- The embedding models the stored chunks were made with.
create or replace function embedding_models()
returns table (embedding_model text)
language sql
stable
as $$
  select distinct d.embedding_model from documents d order by d.embedding_model
$$;
