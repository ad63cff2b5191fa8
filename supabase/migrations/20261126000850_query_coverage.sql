-- How much of a question each document holds, for retrieval's confidence
-- (src/agent/nodes/retrieve.ts, retrievalConfidence).
--
-- A document's coverage is the share of the question's words it contains, each word
-- weighed by its idf in the knowledge base (the same idf as hybrid_search's BM25):
-- sum(idf of the words it holds) / sum(idf of all the question's words). A word no
-- document holds counts at the highest idf, so a question about something the help
-- center never mentions scores low; a word every document holds (a language's "the",
-- "der", "的") weighs almost nothing. So the same 0..1 scale holds in every language
-- the full text analyses, with no list of words per language: the knowledge base's own
-- statistics calibrate it.
--
-- The question is analysed as hybrid_search analyses it since 20261126000800_document_languages
-- (its own words, not earlier turns'), with every text-search configuration the knowledge base
-- has, cut into words by the service: both must change together.

-- Each of p_sources with its coverage of p_query_text (0..1); none when the question has
-- no word the full text keeps (only stop words): then coverage says nothing.
create or replace function query_coverage(p_query_text text, p_sources text[])
returns table (source text, coverage double precision)
language sql
stable
as $$
  with configs as (
    select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0
  ),
  terms as (
    select distinct u.lexeme
    from configs c,
         unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme)
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
  select s.source,
         coalesce((
           select sum(ti.idf) from term_idf ti
           join knowledge_postings p on p.lexeme = ti.lexeme and p.source = s.source
         ), 0) / tot.idf as coverage
  from (select distinct unnest(p_sources) as source) s
  cross join total tot
  where tot.idf > 0
$$;
