"""What a conversation's structure says about a search hit: who spoke, what came next, and when.

Three adjustments of the hybrid relevance, applied by memory/search.py before seed 001's score (issue 12;
each chosen 2-fold on LoCoMo halves by benchmarks/locomo_folds.py, never on the half reported):

- **Speaker.** A question that names exactly one of the people speaking in the candidate messages
  ("What is Gina's favourite style of dance?") is about that person, and that person's own messages
  tell it: their messages get × (1 + speaker_weight). In LoCoMo 96 % of evidence turns are by the
  person the question names. A question naming two speakers changes nothing; one naming none, in a chat between
  a user and an assistant, is about the side its pronouns name (asked_role: "my" the user, "you mentioned"
  the assistant). The weight
  depends on the embedder (scoring.chosen): 1 with the base model, 0.25 with a tuned one, which has
  learnt to read the "Name: ..." of the indexed text itself.
- **Neighbours.** A message that the next turns of its session also match is the start of the
  exchange those turns continue ("I painted a sunrise" is followed by "Wow, what inspired it?"): it
  gets neighbour_weight × the mean score of the next two messages among the candidates.
- **Date.** A question that names a time (memory/dates.py) lifts what happened then: × (1 +
  date_weight × date_match(question window, the message's event window)).

They adjust relevance, not the final score: the final score goes with relevance cubed (scoring.combine),
which would shrink a × 2 to × 1.26. Pure: rows are the candidate rows search ranks (kind, keywords,
session_id, turn_number, created_at, search_text); scores are relevance by id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from panda.language.text import words
from panda.memory import dates

NEXT_TURNS = (1, 2)


@dataclass(frozen=True)
class SignalWeights:
    speaker: float = 1.0
    neighbour: float = 0.4
    date: float = 1.0
    date_scale_days: float = 7.0


def author_of(row: dict[str, Any]) -> str | None:
    """A message's author: the first keyword of a message document (conversations/ingest.py message_document)."""
    if row.get("kind") != "message":
        return None
    keywords = row.get("keywords") or []
    return str(keywords[0]) if keywords else None


def own_text(row: dict[str, Any]) -> str:
    """The message itself from its search text (title line, then "Author: content", then context)."""
    lines = (row.get("search_text") or "").split("\n")
    return lines[1] if len(lines) > 1 else lines[0]


def named_speaker(query: str, authors: Iterable[str]) -> str | None:
    """The one author the query is about, or None: the one author it names (all words of the name, any case),
    else, in a chat between the user and an assistant (authors "user" and "assistant", conversations/messages.py),
    the side its pronouns point to (asked_role).

    Example: named_speaker("What did Melanie paint?", ["Caroline", "Melanie"]) -> "Melanie";
    named_speaker("Did Caroline and Melanie meet?", ["Caroline", "Melanie"]) -> None;
    named_speaker("What degree did I graduate with?", ["user", "assistant"]) -> "user".
    """
    authors = set(authors)
    query_words = set(words(query))
    named = {a for a in authors if a not in ROLES and (name := words(a)) and all(w in query_words for w in name)}
    if named:
        return next(iter(named)) if len(named) == 1 else None
    role = asked_role(query)
    return role if role in authors else None


ROLES = ("user", "assistant")
# What the user said: "I told you", "I mentioned", "as I said" — the user's own words, whatever else the query says.
_USER_SAID = re.compile(r"\bI(?:'ve| have| had)?\s+(?:\w+ly\s+)?(?:told|said|mentioned|shared|wrote|asked|explained|described)\b",
                        re.I)
# What the assistant said: "you mentioned", "did you recommend", "we talked about", "our previous chat", "remind me".
_PAST = ("mentioned|said|told|suggested|recommended|gave|provided|listed|made|explained|described|shared|wrote|"
         "named|proposed|offered|showed|shown|came up with|pointed out|included")
_PRESENT = ("mention|say|tell|suggest|recommend|give|provide|list|make|explain|describe|share|write|name|propose|"
            "offer|show|come up with|point out|include")
_ASSISTANT_SAID = re.compile(
    rf"\byou(?:'ve| have| had)?\s+(?:\w+ly\s+)?(?:{_PAST})\b|\bdid you\s+(?:\w+ly\s+)?(?:{_PRESENT})\b"
    r"|\bwe\s+(?:talked|discussed|spoke|chatted)\b"
    r"|\bour\s+(?:previous|last|earlier|past)\s+(?:chat|conversation|discussion|session|talk|game)\b"
    r"|\bremind me\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|myself)\b", re.I)


def asked_role(query: str) -> str | None:
    """Which side of a user-assistant chat a question asks after, or None: "user" for the user's own words
    ("I told you", or any first person: "What degree did I graduate with?"), "assistant" for what the assistant
    said ("Can you remind me which state you mentioned?"), the user's own words first. The asker is the user,
    so "I" and "my" are the user, and facts about the user live in the user's messages.

    Example: asked_role("Where did I complete my degree?") -> "user";
    asked_role("Remind me of the cartoon you mentioned") -> "assistant"; asked_role("What sealant did you
    recommend?") -> "assistant"; asked_role("As I told you, what should I cook?") -> "user";
    asked_role("Can you recommend a film for me?") -> "user" (a request, not a past statement);
    asked_role("What is the capital of Peru?") -> None.
    """
    if _USER_SAID.search(query):
        return "user"
    if _ASSISTANT_SAID.search(query):
        return "assistant"
    return "user" if _FIRST_PERSON.search(query) else None


def adjust(scores: dict[str, float], rows: list[dict[str, Any]], query: str, now: datetime,
           weights: SignalWeights, matches: dict[str, float] | None = None) -> dict[str, float]:
    """The scores after the speaker, neighbour and date adjustments (ids not in `scores` are ignored;
    `matches`: date_matches of these rows, when the caller has them already).

    Example (speaker 1.0, neighbour 0.4, no date in the query): Melanie's m1 0.5, Caroline's m2 (next
    in the session) 0.6, query "What did Melanie paint?" -> m1 0.5*2 + 0.4*(0.6/2) = 1.12, m2 0.6.
    """
    out = dict(scores)
    by_id = {row["id"]: row for row in rows if row["id"] in scores}
    speaker = named_speaker(query, {a for row in by_id.values() if (a := author_of(row))})
    if speaker is not None and weights.speaker:
        for doc_id, row in by_id.items():
            if author_of(row) == speaker:
                out[doc_id] *= 1 + weights.speaker
    if weights.neighbour:
        at: dict[tuple[Any, int], str] = {(row.get("session_id"), int(row["turn_number"])): doc_id
                                          for doc_id, row in by_id.items()
                                          if row.get("kind") == "message" and row.get("turn_number") is not None}
        base = dict(out)
        for (session, position), doc_id in at.items():
            following = [base[at[(session, position + d)]] for d in NEXT_TURNS if (session, position + d) in at]
            out[doc_id] += weights.neighbour * sum(following) / len(NEXT_TURNS)
    if weights.date:
        if matches is None:
            matches = date_matches(list(by_id.values()), query, now, weights.date_scale_days)
        for doc_id, match in matches.items():
            if doc_id in out:
                out[doc_id] *= 1 + weights.date * match
    return out


def date_matches(rows: list[dict[str, Any]], query: str, now: datetime, scale_days: float) -> dict[str, float]:
    """How well each row's events meet the time the query names (dates.date_match; a message's own text, else its
    title, read against when it was said). Empty when the query names no time."""
    asked = dates.question_window(query, now)
    if asked is None:
        return {}
    out = {}
    for row in rows:
        said = row.get("created_at")
        if said is None:
            continue
        said = said if said.tzinfo else said.replace(tzinfo=UTC)
        event = dates.event_window(own_text(row) if row.get("kind") == "message" else row.get("title") or "", said)
        out[row["id"]] = dates.date_match(asked, event, scale_days)
    return out
