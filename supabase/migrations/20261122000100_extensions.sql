-- Extensions the schema needs. pgvector stores and searches embeddings.
-- gen_random_uuid() is built into Postgres 13+, so pgcrypto is not needed.
create extension if not exists vector;
