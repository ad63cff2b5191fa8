-- A source's chunks written in slices (issue 42, finding 2).
--
-- On PGlite the database runs on the service's own thread: replacing a long document's chunks
-- in one statement (each row's vector into the HNSW index, its text into the full-text index,
-- the statistics recounted) stopped every request for seconds; on a server, building that one
-- call's JSON of every vector did, for about a second. The service now writes such a source
-- in one transaction of several short statements, yielding between them: the first
-- replaces the source with the first slice (put_knowledge_source or replace_source_chunks, as
-- before), add_source_chunks appends each further slice. Readers see the old chunks or the new
-- ones, never a mix: PGlite runs one transaction at a time, and on a server the transaction is
-- committed whole.
--
-- The full-text statistics (20261125000400) are recounted from all of a source's chunks after
-- every statement that writes it: after each slice, that recount made a slice cost as much as
-- the source so far (measured on PGlite under load: one chunk took 300 ms once 130 were
-- written). A sliced write defers them (defer_knowledge_statistics, for its transaction only)
-- and recounts the source once at the end (refresh_knowledge_statistics).

-- add_source_chunks: inserts chunks of a source without removing any; the insert of
-- replace_source_chunks (20261126000800), which now calls it. Returns the chunks inserted.
create or replace function add_source_chunks(p_source text, p_chunks jsonb)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
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

-- replace_source_chunks: every chunk of the source replaced by p_chunks (the insert is add_source_chunks).
create or replace function replace_source_chunks(p_source text, p_chunks jsonb)
returns integer
language plpgsql
as $$
begin
  delete from documents where source = p_source;
  return add_source_chunks(p_source, p_chunks);
end;
$$;

-- defer_knowledge_statistics: until the end of the current transaction, the statistics
-- triggers leave the full-text statistics to the writer, which must call
-- refresh_knowledge_statistics for the sources it wrote before it commits. The embedding
-- models' and languages' counts are kept as always (they add and subtract, whatever the size).
create or replace function defer_knowledge_statistics()
returns void
language sql
as $$
  select set_config('knowledge.defer_statistics', 'on', true)
$$;

create or replace function knowledge_statistics_deferred()
returns boolean
language sql
stable
as $$
  select coalesce(current_setting('knowledge.defer_statistics', true), '') = 'on'
$$;

-- The insert and delete triggers of 20261126000800, honouring the deferral.
create or replace function documents_statistics_after_insert()
returns trigger
language plpgsql
as $$
begin
  if not knowledge_statistics_deferred() then
    perform refresh_knowledge_statistics(array(select distinct source from new_chunks));
  end if;
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
  if not knowledge_statistics_deferred() then
    perform refresh_knowledge_statistics(array(select distinct source from old_chunks));
  end if;
  perform count_knowledge_models(array(select embedding_model from old_chunks), -1);
  perform count_knowledge_languages(
    (select jsonb_agg(jsonb_build_object('language', o.language, 'text_config', o.text_config::text)) from old_chunks o), -1);
  return null;
end;
$$;
