"""Whether a turn's message tells something about the user (a fact or a preference), and whether it only tells:
read by execute (a question that reveals nothing saves nothing) and synthesize (a statement is acknowledged, not
answered). Pure; left out: extracting and saving what it tells (language/facts.py, the save phase).
"""

from __future__ import annotations

from panda.language.facts import extract_statements
from panda.language.text import is_question
from panda.pipeline.state import TurnState


def reveals_something(state: TurnState) -> bool:
    """The message tells something about the user (a fact or preference), asking or not."""
    a = state.analysis
    return bool(extract_statements(state.query) or (a and (a.revealed_facts or a.revealed_preferences)))


def is_statement(state: TurnState) -> bool:
    """A message that tells something about the user and asks nothing: 'I live in Boston and love hiking.'
    ('Suggest a day hike near where I live.' asks; 'What is my budget?' asks)."""
    return not is_question(state.query) and reveals_something(state)
