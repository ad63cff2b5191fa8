-- A customer's spelling read as the knowledge base's own word.
--
-- Customers write "zurueckgeben", "groesse", "servise", "adress", "ebike"; the help center
-- writes "zurückgeben", "Größe", "service", "address", "E-Bike". Read as written, such a word
-- matches nothing: the search loses it, and query_coverage counts it as the rarest word of the
-- question, so one typo can push an answerable question below the coverage floor.
--
-- query_lexemes now reads a query word the knowledge base lacks (its lexeme is in
-- knowledge_terms under none of the knowledge base's configurations, and none of them reads it
-- as a stop word) as the knowledge base's own word when there is one close enough, in this order:
--
-- 1. The same word with "ae", "oe", "ue", "ss" written as "ä", "ö", "ü", "ß", or the reverse
--    (any subset of the four, each way), as every configuration stems it.
-- 2. A compound of a compounding language's configuration as two words it holds (as
--    20261126001000_passages_and_compound_words, unchanged).
-- 3. A typo: a lexeme of the knowledge base one edit away from the word's lexeme (a letter left
--    out, added, replaced, or two neighbours swapped). A hyphen more or less at any length
--    ("ebike" is read as "e-bike", "e-bike" as "ebike"); any other edit only on a lexeme of six
--    characters or more that keeps its first letter: typos rarely touch the first letter, and a
--    short word has too many neighbours (allowed from four characters and at any letter,
--    "match" was read as "march", "please" as "lease", "danke" as "Bank"). Of several, the one
--    in most documents (df).
--
-- Every step reads only words of five letters or more.
--
-- Only words of letters (plain or hyphenated) are read so, never numbers, codes or addresses,
-- and at most the first eight unknown words of a text: the work per search is bounded by the
-- question, not by the knowledge base. A question whose words the knowledge base all holds reads
-- exactly the lexemes it read before, so does one whose unknown words have no close
-- neighbour.
--
-- Finding the neighbours one edit away is a probe of two indexes: a lexeme with one letter
-- more than the query's (or one replaced, or swapped) shares one of its single-letter
-- deletions, which a GIN index over each term's deletions (spelling_deletions) finds; one with
-- a letter less is one of the query's deletions, a probe of knowledge_terms' key. No extension
-- is needed (fuzzystrmatch and pg_trgm are not on every backend), and one_edit_apart confirms
-- each candidate. The index is kept by Postgres itself as knowledge_terms changes; a lexeme
-- longer than 30 characters has no deletions, so a hostile document's long words cost the
-- index nothing.

-- The word with each one of its letters left out, for lexemes of 4 to 30 characters (none otherwise).
create or replace function spelling_deletions(p_word text)
returns text[]
language sql
immutable
strict
parallel safe
as $$
  select coalesce(array_agg(distinct left(p_word, i - 1) || substr(p_word, i + 1)), '{}')
  from generate_series(1, char_length(p_word)) as i
  where char_length(p_word) between 4 and 30
$$;

-- fastupdate off: GIN's pending list (where new entries wait, up to 4 MB, until a vacuum merges
-- them) is read in full by every search; after loading 10,000 chunks a look-up took 62 ms there.
-- Without it each new word is merged at once, part of the write that brought it.
create index knowledge_terms_spelling_idx on knowledge_terms using gin (spelling_deletions(lexeme)) with (fastupdate = off);

-- Whether a and b differ by exactly one edit: a letter left out, added or replaced, or two
-- neighbouring letters swapped (the optimal-string-alignment distance is 1).
create or replace function one_edit_apart(a text, b text)
returns boolean
language plpgsql
immutable
strict
parallel safe
as $$
declare
  v_a integer := char_length(a);
  v_b integer := char_length(b);
  i integer := 1;
begin
  if a = b or abs(v_a - v_b) > 1 then
    return false;
  end if;
  -- The first letter where they differ; what follows it decides.
  while i <= least(v_a, v_b) and substr(a, i, 1) = substr(b, i, 1) loop
    i := i + 1;
  end loop;
  if v_a > v_b then
    return substr(a, i + 1) = substr(b, i);
  elsif v_a < v_b then
    return substr(a, i) = substr(b, i + 1);
  end if;
  return substr(a, i + 1) = substr(b, i + 1)
      or (substr(a, i, 1) = substr(b, i + 1, 1) and substr(a, i + 1, 1) = substr(b, i, 1) and substr(a, i + 2) = substr(b, i + 2));
end;
$$;

-- The word (lower-cased) with any subset of "ae", "oe", "ue", "ss" written as "ä", "ö", "ü",
-- "ß", and with any subset of "ä", "ö", "ü", "ß" written as "ae", "oe", "ue", "ss"; the word
-- itself left out. Each subset replaces every occurrence of its pairs: at most 30 spellings.
create or replace function umlaut_spellings(p_word text)
returns setof text
language sql
immutable
strict
parallel safe
rows 30
as $$
  with recursive pairs(n, long_form, letter) as (
    values (1, 'ae', 'ä'), (2, 'oe', 'ö'), (3, 'ue', 'ü'), (4, 'ss', 'ß')
  ),
  spellings(n, with_letters, with_long_forms) as (
    select 0, translate(lower(p_word), 'ÄÖÜ', 'äöü'), translate(lower(p_word), 'ÄÖÜ', 'äöü')
    union all
    select p.n, x.with_letters, x.with_long_forms
    from spellings s
    join pairs p on p.n = s.n + 1
    cross join lateral (values
      (s.with_letters, s.with_long_forms),
      (replace(s.with_letters, p.long_form, p.letter), replace(s.with_long_forms, p.letter, p.long_form))
    ) as x(with_letters, with_long_forms)
  )
  select distinct v.spelling
  from spellings s, unnest(array[s.with_letters, s.with_long_forms]) as v(spelling)
  where s.n = 4 and v.spelling <> translate(lower(p_word), 'ÄÖÜ', 'äöü')
$$;

-- The lexemes of a query text, as the knowledge base's configurations make them, with a word
-- the knowledge base lacks read as its own word (above) or, a compound, as its two parts.
create or replace function query_lexemes(p_query_text text)
returns table (lexeme text)
language plpgsql
stable
-- No JIT: on the server its compile time (over a second here) went to a statement that runs
-- in a millisecond or two, priced high only by its set-returning functions' row estimates.
set jit = off
-- One plan per connection for each statement (as hybrid_search): planned anew on every call, the
-- corrections' statement cost 2.1 ms on the server, 0.6 ms with its generic plan, which reads the
-- same indexes.
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  -- The configurations whose languages write compounds as one word.
  v_compounding constant text[] := array['german', 'dutch', 'swedish', 'norwegian', 'danish'];
  -- Unknown words looked up per text, at most (the first ones).
  v_lookups constant integer := 8;
  v_unknown text[];
begin
  -- The words of letters (plain: token types 1, 2; hyphenated: 16, 17) of five letters or more
  -- that the knowledge base lacks: under every configuration its lexeme (a hyphenated word's
  -- whole, its longest) is not in knowledge_terms, and none reads it as a stop word. Each lookup
  -- of the vocabulary is a probe of its key (as a join, the planner hashed the whole vocabulary).
  v_unknown := array(
    select w.word
    from (
      select lower(t.token) as word, min(t.place) as place
      from ts_parse('default', coalesce(p_query_text, '')) with ordinality as t(tokid, token, place)
      where t.tokid in (1, 2, 16, 17) and char_length(t.token) >= 5
      group by lower(t.token)
    ) w
    where exists (select 1 from knowledge_chunk_languages k where k.chunks > 0)
      and not exists (
        select 1
        from knowledge_chunk_languages k
        left join lateral (
          select u.lexeme from unnest(tsvector_to_array(to_tsvector(k.text_config, w.word))) as u(lexeme)
          order by char_length(u.lexeme) desc, u.lexeme limit 1
        ) l on true
        where k.chunks > 0
          and (l.lexeme is null or (select true from knowledge_terms kt where kt.lexeme = l.lexeme))
      )
    order by w.place
    limit v_lookups
  );

  -- Every word known (most questions): the configurations' lexemes, as before.
  if cardinality(v_unknown) = 0 then
    return query
    select distinct u.lexeme
    from (select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0) c,
         unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme);
    return;
  end if;

  return query
  with configs as (
    select distinct k.text_config from knowledge_chunk_languages k where k.chunks > 0
  ),
  whole as (
    select distinct u.lexeme
    from configs c,
         unnest(tsvector_to_array(to_tsvector(c.text_config, coalesce(p_query_text, '')))) as u(lexeme)
  ),
  unknown as (
    select w.word, position('-' in w.word) = 0 as plain from unnest(v_unknown) as w(word)
  ),
  -- Each unknown word's lexeme in each configuration.
  word_lexemes as (
    select w.word, c.text_config, l.lexeme
    from unknown w
    cross join configs c
    cross join lateral (
      select u.lexeme from unnest(tsvector_to_array(to_tsvector(c.text_config, w.word))) as u(lexeme)
      order by char_length(u.lexeme) desc, u.lexeme limit 1
    ) l
  ),
  -- 1. The same word with its umlauts written another way: the spelling the knowledge base
  --    holds in most documents.
  respelled as (
    select distinct on (u.word) u.word, kt.lexeme as replacement
    from unknown u
    cross join lateral umlaut_spellings(u.word) as s(spelling)
    cross join configs c
    cross join lateral unnest(tsvector_to_array(to_tsvector(c.text_config, s.spelling))) as l(lexeme)
    cross join lateral (select kt.lexeme, kt.df from knowledge_terms kt where kt.lexeme = l.lexeme) kt
    -- Only a word that has one of them (most have none) is spelled again.
    where u.word ~ '(ae|oe|ue|ss|ä|ö|ü|ß|Ä|Ö|Ü)'
    order by u.word, kt.df desc, kt.lexeme
  ),
  -- 2. A compound: every cut into a first part of 3+ letters (with or without a linking "s")
  --    and a rest of 3+, in a compounding language's configuration.
  compounds as (
    select wl.text_config, wl.word
    from word_lexemes wl
    join unknown u on u.word = wl.word
    where wl.text_config::text = any (v_compounding)
      and u.plain
      and char_length(wl.word) >= 8
      and u.word not in (select r.word from respelled r)
  ),
  cuts as (
    select u.text_config, u.word, i, left(u.word, i) as head, substr(u.word, i + 1) as tail
    from compounds u, generate_series(3, char_length(u.word) - 3) as i
    union all
    select u.text_config, u.word, i, left(u.word, i - 1), substr(u.word, i + 1)
    from compounds u, generate_series(4, char_length(u.word) - 3) as i
    where substr(u.word, i, 1) = 's'
  ),
  parts as (
    select c.word, c.i, c.head,
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
    select distinct on (c.word) c.word, c.head_lexeme, c.tail_lexeme
    from checked c
    where c.head_known and c.tail_known
    order by c.word, c.i desc, char_length(c.head) desc
  ),
  -- 3. A typo: the knowledge base's lexeme one edit away in most documents.
  mistyped as (
    select distinct on (wl.word) wl.word, kt.lexeme as replacement
    from word_lexemes wl
    join unknown u on u.word = wl.word
    cross join lateral (
      select kt.lexeme, kt.df from knowledge_terms kt where kt.lexeme = any (spelling_deletions(wl.lexeme))
      union
      select kt.lexeme, kt.df from knowledge_terms kt
      where spelling_deletions(kt.lexeme) && (spelling_deletions(wl.lexeme) || wl.lexeme)
    ) kt
    where char_length(wl.lexeme) between 4 and 30
      and u.word not in (select r.word from respelled r)
      and u.word not in (select s.word from splits s)
      and one_edit_apart(wl.lexeme, kt.lexeme)
      -- A hyphen more or less at any length; another edit only on a lexeme of six or more
      -- characters that keeps its first letter.
      and (replace(wl.lexeme, '-', '') = replace(kt.lexeme, '-', '')
           or (char_length(wl.lexeme) >= 6 and left(wl.lexeme, 1) = left(kt.lexeme, 1)))
    order by wl.word, kt.df desc, kt.lexeme
  ),
  corrected as (
    select r.word, r.replacement from respelled r
    union all
    select s.word, s.head_lexeme from splits s
    union all
    select s.word, s.tail_lexeme from splits s
    union all
    select m.word, m.replacement from mistyped m
  ),
  -- A corrected word's own lexemes (in every configuration; a hyphenated word's parts too)
  -- that the knowledge base lacks leave the query.
  dropped as (
    select l.lexeme
    from (select distinct c.word from corrected c) w
    cross join configs c
    cross join lateral unnest(tsvector_to_array(to_tsvector(c.text_config, w.word))) as l(lexeme)
    where (select true from knowledge_terms kt where kt.lexeme = l.lexeme) is null
  )
  select w.lexeme from whole w where w.lexeme not in (select d.lexeme from dropped d)
  union
  select c.replacement from corrected c;
end;
$$;
