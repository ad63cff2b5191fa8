-- unanswered_asks: each question the help center could not answer, one row per asking, for
-- grouping into knowledge gaps (src/knowledge/gaps.ts groups them by what they ask, in any
-- language; SQL cannot tell that "Do you sell gift cards?" and "Gutscheine?" ask one thing).
--
-- A question counts when its answer was escalated because nothing in the help center answered
-- it (escalation_reason not_in_help_center, or model: the model handed over), or when the answer
-- stayed below p_min_confidence without being escalated (reason null). A customer who asked for
-- a person (customer_asked) or a tool that failed (tool_failed) is not a gap in the knowledge.
-- Answers stored before escalation reasons existed (escalated, reason null) count as well.
-- Newest first, at most p_limit: the grouping's work is bounded by it.
create or replace function unanswered_asks(p_min_confidence double precision, p_since text, p_limit integer)
returns table (question text, session_id text, asked_at timestamptz, confidence double precision,
               escalated boolean, escalation_reason text, language text)
language sql
stable
as $$
  select q.content, a.session_id, a.created_at, a.confidence, coalesce(a.escalated, false),
         a.escalation_reason, s.language
  from chat_messages a
  join chat_sessions s on s.session_id = a.session_id
  cross join lateral (
    select u.content from chat_messages u
    where u.session_id = a.session_id and u.seq < a.seq and u.role = 'user'
    order by u.seq desc limit 1
  ) q
  where a.role = 'assistant' and a.created_at >= p_since::timestamptz
    and a.confidence is not null
    and (
      (a.escalated and coalesce(a.escalation_reason, 'not_in_help_center') in ('not_in_help_center', 'model'))
      or (not coalesce(a.escalated, false) and a.confidence < p_min_confidence)
    )
  order by a.created_at desc, a.seq desc
  limit greatest(p_limit, 0)
$$;
