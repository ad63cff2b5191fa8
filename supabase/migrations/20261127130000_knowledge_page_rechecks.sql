-- Re-checking stored pages: a sitemap's <lastmod> is a hint, and stale sitemaps keep
-- listing deleted pages with their old date. A sync may trust an unchanged lastmod
-- only while the page was checked recently (KNOWLEDGE_SYNC_RECHECK_HOURS), so it
-- needs each page's checked_at (the column exists: set when the page was stored).

-- knowledge_site_page_states: every page a site's syncs stored, for the next run,
-- now with when each was last checked (stored, or answered 304).
drop function if exists knowledge_site_page_states(text);
create function knowledge_site_page_states(p_site text)
returns table (url text, source text, etag text, last_modified text, lastmod text, linked boolean, checked_at timestamptz)
language sql
stable
as $$
  select p.url, p.source, p.etag, p.last_modified, p.lastmod, p.linked, p.checked_at
  from knowledge_site_pages p where p.site = p_site order by p.url
$$;

-- mark_knowledge_site_pages_checked: the pages of p_site at p_urls were checked now
-- and found unchanged (a 304); returns how many of them are stored. One statement
-- per run, not one per page: an unchanged site of thousands of pages answers 304s.
create or replace function mark_knowledge_site_pages_checked(p_site text, p_urls text[])
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  update knowledge_site_pages p set checked_at = now()
  where p.site = p_site and p.url = any(coalesce(p_urls, '{}'));
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;
