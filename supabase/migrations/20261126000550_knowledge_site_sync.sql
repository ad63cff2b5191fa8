-- Knowledge from sites: what a crawl remembers of each page between runs, and a
-- record of every sync run. Neither holds customer data (no session or customer
-- column): pages are the shop's own public or intranet help center.

-- knowledge_site_pages: one row per URL a site's sync fetched and stored (or found
-- unchanged), keyed by the site as the operator named it (the sitemap or start page
-- URL). source is the knowledge source the page's chunks are stored under (its
-- canonical URL): several URLs may name one source. etag, last_modified and
-- lastmod are what the next run sends back (If-None-Match, If-Modified-Since) or
-- compares (the sitemap's <lastmod>), so an unchanged page is not fetched again.
-- linked: a PDF or Word file found as a link on a page, not listed by the sitemap
-- itself (so a sitemap that stops listing pages does not make it look gone).
create table knowledge_site_pages (
  site text not null,
  url text not null,
  source text not null,
  etag text,
  last_modified text,
  lastmod text,
  linked boolean not null default false,
  checked_at timestamptz not null default now(),
  primary key (site, url)
);

create index knowledge_site_pages_source on knowledge_site_pages (site, source);

alter table knowledge_site_pages enable row level security;

-- knowledge_sync_runs: one row per sync of a site, written when it starts
-- (status 'running') and completed when it ends. counts is the report's tallies
-- ({fetched, added, updated, unchanged, skipped, failed, removed, embedded, ...}),
-- errors a bounded list of {url, reason, message}; message says in a sentence why
-- a run failed or held its removals back.
create table knowledge_sync_runs (
  id bigint generated always as identity primary key,
  site text not null,
  trigger text not null,
  status text not null check (status in ('running', 'succeeded', 'held', 'failed')),
  started_at timestamptz not null default clock_timestamp(),
  finished_at timestamptz,
  counts jsonb not null default '{}'::jsonb,
  errors jsonb not null default '[]'::jsonb,
  message text
);

-- Recent runs first, of every site or of one.
create index knowledge_sync_runs_recent on knowledge_sync_runs (id desc);
create index knowledge_sync_runs_site_recent on knowledge_sync_runs (site, id desc);

alter table knowledge_sync_runs enable row level security;

-- start_knowledge_sync: records a run that starts now; returns its id.
create or replace function start_knowledge_sync(p_site text, p_trigger text)
returns bigint
language sql
as $$
  insert into knowledge_sync_runs (site, trigger, status) values (p_site, p_trigger, 'running') returning id
$$;

-- finish_knowledge_sync: completes a run with its outcome. A run already finished
-- is left as it was (false), so a late second call cannot rewrite history.
create or replace function finish_knowledge_sync(p_id bigint, p_status text, p_counts jsonb, p_errors jsonb, p_message text)
returns boolean
language plpgsql
as $$
begin
  update knowledge_sync_runs r
  set status = p_status, finished_at = clock_timestamp(), counts = coalesce(p_counts, '{}'::jsonb),
      errors = coalesce(p_errors, '[]'::jsonb), message = p_message
  where r.id = p_id and r.status = 'running';
  return found;
end;
$$;

-- knowledge_sync_runs_recent: the newest runs first (of p_site, or of every site
-- when null), one keyset page at a time: p_before_id is the last id of the
-- previous page.
create or replace function knowledge_sync_runs_recent(p_site text, p_before_id bigint, p_limit integer)
returns table (
  id bigint,
  site text,
  trigger text,
  status text,
  started_at timestamptz,
  finished_at timestamptz,
  counts jsonb,
  errors jsonb,
  message text
)
language sql
stable
as $$
  select r.id, r.site, r.trigger, r.status, r.started_at, r.finished_at, r.counts, r.errors, r.message
  from knowledge_sync_runs r
  where (p_site is null or r.site = p_site)
    and (p_before_id is null or r.id < p_before_id)
  order by r.id desc
  limit greatest(p_limit, 0)
$$;

-- knowledge_site_page_states: every page a site's syncs stored, for the next run.
create or replace function knowledge_site_page_states(p_site text)
returns table (url text, source text, etag text, last_modified text, lastmod text, linked boolean)
language sql
stable
as $$
  select p.url, p.source, p.etag, p.last_modified, p.lastmod, p.linked
  from knowledge_site_pages p where p.site = p_site order by p.url
$$;

-- put_knowledge_site_page: remembers one page after it was stored (or found unchanged).
create or replace function put_knowledge_site_page(
  p_site text, p_url text, p_source text, p_etag text, p_last_modified text, p_lastmod text, p_linked boolean
)
returns void
language sql
as $$
  insert into knowledge_site_pages (site, url, source, etag, last_modified, lastmod, linked)
  values (p_site, p_url, p_source, p_etag, p_last_modified, p_lastmod, p_linked)
  on conflict (site, url) do update
  set source = excluded.source, etag = excluded.etag, last_modified = excluded.last_modified,
      lastmod = excluded.lastmod, linked = excluded.linked, checked_at = now()
$$;

-- forget_knowledge_site_source: forgets every URL of a site stored under p_source
-- (after the source was removed); returns how many.
create or replace function forget_knowledge_site_source(p_site text, p_source text)
returns integer
language plpgsql
as $$
declare
  v_count integer;
begin
  delete from knowledge_site_pages p where p.site = p_site and p.source = p_source;
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;
