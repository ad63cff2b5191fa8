-- A session id that is used again after its conversation was erased opens a new
-- conversation that the old session tokens cannot open.
--
-- A session token was an HMAC of the session id alone and never expired, and
-- erased_sessions keeps an erased id for a day only: after that, anyone could
-- start a conversation under the same id, and the old token (still in the first
-- customer's browser) opened it. Now every conversation created from here on gets
-- a random token_nonce, and its tokens are signed over the id and that nonce
-- (src/http/session-token.ts); a token is accepted only while the conversation it
-- names carries the nonce it was made for. A conversation created again under an
-- erased id gets a new nonce, so the erased one's tokens are refused, on every
-- instance, without a list of revoked tokens.
--
-- Conversations that exist when this migration runs keep a null nonce, and their
-- tokens (made before, of the id alone) keep working until they are erased.
alter table chat_sessions add column if not exists token_nonce text;
alter table chat_sessions alter column token_nonce set default replace(gen_random_uuid()::text, '-', '');

-- The nonce a session's tokens are signed over: one row (token_nonce null for a
-- conversation older than this migration), or none when there is no such conversation.
create or replace function session_token_nonce(p_session_id text)
returns table (token_nonce text)
language sql
stable
as $$
  select s.token_nonce from chat_sessions s where s.session_id = p_session_id
$$;
