"""Whether a turn's message tells something about the user (a fact or a preference), and whether it only tells:
read by execute (a question that reveals nothing saves nothing) and synthesize (a statement is acknowledged, not
answered; on the small profiles, by rule: `acknowledgement`). Pure; left out: extracting and saving what it tells
(language/facts.py, the save phase).
"""

from __future__ import annotations

import re

from panda.language.facts import extract_statements
from panda.language.text import asks_something, first_person, is_question, second_person
from panda.pipeline.state import TurnState


def reveals_something(state: TurnState) -> bool:
    """The message tells something about the user (a fact or preference), asking or not."""
    a = state.analysis
    return bool(extract_statements(state.query) or (a and (a.revealed_facts or a.revealed_preferences)))


def is_statement(state: TurnState) -> bool:
    """A message that tells something about the user and asks nothing: 'I live in Boston and love hiking.'
    ('Suggest a day hike near where I live.' asks; 'What is my budget?' asks)."""
    return not is_question(state.query) and reveals_something(state)


ACKNOWLEDGED_MAX_WORDS = 40  # a longer message may ask something between its lines: the model reads it


def acknowledgement(query: str) -> str | None:
    """The reply to a message in which the user says something of themselves and asks nothing: what they said,
    said back ("Noted - you're allergic to shellfish."), or None when it asks anything (language/text.asks_something),
    does not speak of the speaker, speaks to the assistant ("you"), or is over ACKNOWLEDGED_MAX_WORDS words.

    Guard `statement_acknowledged` (small profiles): on set G the 0.5B model answered such messages with "You
    haven't told me your training for your first triathlon" and "Sven is a nurse at a secondary school in Bristol"
    (for "This term they've asked me to teach physics"), and its validator FAILed right acknowledgements with
    "issues: none": 8 of the 13 FAILed turns were statements.
    Example: "My partner Sven is a nurse." -> "Noted - your partner Sven is a nurse."; "Suggest a dinner." -> None."""
    text = " ".join(query.split())
    if (not text or asks_something(text) or not first_person(text) or re.search(r"\byou(?:r|rs|rself|'re|'ve)?\b", text, re.I)
            or len(text.split()) > ACKNOWLEDGED_MAX_WORDS):
        return None
    said = second_person(text)
    return f"Noted - {said}" + ("" if said[-1] in ".!" else ".")
