-- Knowledge chunks. embedding_model records which model made each vector, so a
-- query embedded by another model is refused instead of compared (the numbers
-- of two models live in different spaces).
create table documents (
  id uuid primary key default gen_random_uuid(),
  source text not null,
  title text not null,
  chunk_index integer not null check (chunk_index >= 0),
  content text not null,
  -- sha256 of the text that was embedded (title and chunk): ingest skips unchanged chunks by it.
  content_hash text not null,
  metadata jsonb not null default '{}'::jsonb,
  embedding vector(1536) not null,
  embedding_model text not null,
  -- Full-text column for hybrid search.
  fts tsvector generated always as (to_tsvector('english', title || ' ' || content)) stored,
  created_at timestamptz not null default now(),
  unique (source, chunk_index)
);

-- match_documents() orders by cosine distance (<=>), so the index uses the
-- cosine operator class; another class would leave the index unused.
create index documents_embedding_hnsw_idx on documents using hnsw (embedding vector_cosine_ops);
create index documents_fts_idx on documents using gin (fts);
create index documents_embedding_model_idx on documents (embedding_model);

alter table documents enable row level security;
