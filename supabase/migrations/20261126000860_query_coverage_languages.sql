-- query_coverage, second version: the question is analysed as hybrid_search analyses it since
-- 20261126000800_document_languages, with every text-search configuration the knowledge base
-- has (a German question stemmed as German, a Chinese one cut into words by the service), so
-- coverage counts the same words the search found. The first version analysed it as English
-- only: a Chinese question was one word that no document held, and every Chinese question
-- escalated.
--
-- Coverage itself is unchanged: sum(idf of the question's words a document holds) /
-- sum(idf of all its words), a word no document holds counting at the highest idf.
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
