-- Full-text statistics kept at write time, so a search reads only the postings of its
-- own words instead of every chunk of the knowledge base.
--
-- BM25 over whole documents (a source's chunks taken together) needs, per query word,
-- the documents that hold it and how often (knowledge_postings), each document's
-- length (knowledge_postings.doc_length, the sum of its chunks' lexeme counts, kept on
-- every posting so scoring needs no join) and the corpus's size and average length
-- (knowledge_corpus_stats, one row), and each word's document frequency (knowledge_terms).
--
-- A word in many documents has many postings but a low idf: a search reads only a
-- word's postings of highest impact (its BM25 term weight, tf saturated and length
-- normalised with the average length at write time), by the (lexeme, impact) index, so a
-- common word costs a bounded read, not the knowledge base.
--
-- Triggers on documents keep them exact: after any statement that inserts, deletes or
-- updates chunks, each source it touched is recounted from its current chunks (time
-- proportional to that article, not to the knowledge base). A statement that changes
-- chunks first takes the corpus row's lock (held to the end of its transaction), so
-- knowledge writes run one transaction at a time and never deadlock on each other's
-- chunks or postings (ingest is rare and each write short); inside the trigger every
-- statement reads what is committed (READ COMMITTED), so the last writer of a source
-- recounts what its chunks really are, whatever ran beside it.

create table knowledge_postings (
  lexeme text not null,
  source text not null,
  -- Occurrences of the lexeme in the source's chunks (title included, as documents.fts).
  tf integer not null check (tf > 0),
  doc_length double precision not null,
  impact double precision not null,
  primary key (lexeme, source)
);
create index knowledge_postings_source_idx on knowledge_postings (source);
create index knowledge_postings_impact_idx on knowledge_postings (lexeme, impact desc) include (source, tf, doc_length);

create table knowledge_terms (
  lexeme text primary key,
  df integer not null
);

create table knowledge_source_stats (
  source text primary key,
  doc_length double precision not null,
  chunks integer not null
);

create table knowledge_corpus_stats (
  id boolean primary key default true check (id),
  sources bigint not null default 0,
  total_length double precision not null default 0
);
insert into knowledge_corpus_stats default values;

-- The embedding models the chunks were made with, and how many chunks each: a search
-- checks its query's model here instead of scanning documents.
create table knowledge_embedding_models (
  embedding_model text primary key,
  chunks bigint not null
);

alter table knowledge_postings enable row level security;
alter table knowledge_terms enable row level security;
alter table knowledge_source_stats enable row level security;
alter table knowledge_corpus_stats enable row level security;
alter table knowledge_embedding_models enable row level security;

-- Recounts the statistics of these sources from their current chunks.
create or replace function refresh_knowledge_statistics(p_sources text[])
returns void
language plpgsql
as $$
declare
  v_source text;
  v_old_length double precision;
  v_old_chunks integer;
  v_length double precision;
  v_chunks integer;
  v_average double precision;
begin
  insert into knowledge_corpus_stats default values on conflict (id) do nothing;
  perform 1 from knowledge_corpus_stats where id for update;
  for v_source in select distinct s from unnest(p_sources) as s where s is not null order by 1 loop
    select doc_length, chunks into v_old_length, v_old_chunks from knowledge_source_stats where source = v_source;
    select coalesce(sum(length(d.fts)), 0), count(*) into v_length, v_chunks from documents d where d.source = v_source;

    -- The source's old words leave the document frequencies, its new ones join them.
    update knowledge_terms t set df = t.df - 1 from knowledge_postings p where p.source = v_source and t.lexeme = p.lexeme;
    delete from knowledge_terms t using knowledge_postings p where p.source = v_source and t.lexeme = p.lexeme and t.df <= 0;
    delete from knowledge_postings where source = v_source;
    if v_chunks = 0 then
      delete from knowledge_source_stats where source = v_source;
    else
      select (c.total_length - coalesce(v_old_length, 0) + v_length)
             / greatest(c.sources - (case when v_old_chunks is not null then 1 else 0 end) + 1, 1)
      into v_average from knowledge_corpus_stats c where c.id;
      insert into knowledge_postings (lexeme, source, tf, doc_length, impact)
      select w.lexeme, v_source, w.tf, v_length, w.tf / (w.tf + 1.2 * (0.25 + 0.75 * v_length / greatest(v_average, 1)))
      from (
        select u.lexeme, sum(coalesce(array_length(u.positions, 1), 1))::integer as tf
        from documents d, unnest(d.fts) as u
        where d.source = v_source
        group by u.lexeme
      ) w;
      insert into knowledge_terms (lexeme, df)
      select p.lexeme, 1 from knowledge_postings p where p.source = v_source order by p.lexeme
      on conflict (lexeme) do update set df = knowledge_terms.df + 1;
      insert into knowledge_source_stats (source, doc_length, chunks) values (v_source, v_length, v_chunks)
      on conflict (source) do update set doc_length = excluded.doc_length, chunks = excluded.chunks;
    end if;

    update knowledge_corpus_stats
    set sources = sources + (case when v_chunks > 0 then 1 else 0 end) - (case when v_old_chunks is not null then 1 else 0 end),
        total_length = total_length + v_length - coalesce(v_old_length, 0)
    where id;
  end loop;
end;
$$;

-- Adds (p_sign 1) or removes (-1) chunks from the per-model counts.
create or replace function count_knowledge_models(p_models text[], p_sign integer)
returns void
language plpgsql
as $$
begin
  insert into knowledge_embedding_models (embedding_model, chunks)
  select m, p_sign * count(*) from unnest(p_models) as m group by m order by m
  on conflict (embedding_model) do update set chunks = knowledge_embedding_models.chunks + excluded.chunks;
  delete from knowledge_embedding_models where chunks = 0;
end;
$$;

create or replace function documents_statistics_after_insert()
returns trigger
language plpgsql
as $$
begin
  perform refresh_knowledge_statistics(array(select distinct source from new_chunks));
  perform count_knowledge_models(array(select embedding_model from new_chunks), 1);
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
  return null;
end;
$$;

-- Before a statement changes any chunk, its transaction takes the statistics' lock: a
-- writer that first took row locks on chunks and only then waited for the statistics
-- could deadlock with one that holds the statistics and waits for those chunks.
create or replace function documents_statistics_lock()
returns trigger
language plpgsql
as $$
begin
  insert into knowledge_corpus_stats default values on conflict (id) do nothing;
  perform 1 from knowledge_corpus_stats where id for update;
  return null;
end;
$$;

create trigger documents_statistics_lock before insert or update or delete on documents
  for each statement execute function documents_statistics_lock();
create trigger documents_statistics_insert after insert on documents
  referencing new table as new_chunks for each statement execute function documents_statistics_after_insert();
create trigger documents_statistics_delete after delete on documents
  referencing old table as old_chunks for each statement execute function documents_statistics_after_delete();
create trigger documents_statistics_update after update on documents
  referencing old table as old_chunks new table as new_chunks for each statement execute function documents_statistics_after_update();

-- The chunks already stored.
select refresh_knowledge_statistics(array(select distinct source from documents));
select count_knowledge_models(array(select embedding_model from documents), 1);
