-- The customer's language, kept on the conversation once it is told with confidence
-- (a detected message long enough to tell, or the request's `language`): a short
-- follow-up ("ok", "danke") then keeps it instead of flipping it. Null: not told yet.
alter table chat_sessions add column if not exists language text
  check (language is null or language ~ '^[a-z]{2}$');

-- Keeps the conversation's language (an ISO 639-1 code, or null to forget it);
-- false when there is no such session. get_session() returns the column with the row.
create or replace function set_session_language(p_session_id text, p_language text)
returns boolean
language plpgsql
as $$
begin
  update chat_sessions set language = p_language where session_id = p_session_id;
  return found;
end;
$$;
