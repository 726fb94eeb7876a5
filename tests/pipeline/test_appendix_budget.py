"""The Turn Summary Appendix keeps seed 002's 200-word budget whatever the user wrote (pipeline/save.py)."""

from datetime import UTC, datetime
from pathlib import Path

from panda.documents.budgets import count_words
from panda.pipeline.save import appendix_text
from panda.pipeline.state import TurnState
from panda.pipeline.turn_input import TurnInput


def test_a_long_message_is_quoted_short_and_every_field_still_fits():
    query = " ".join(f"word{i}" for i in range(600))
    state = TurnState(input=TurnInput("alice", datetime(2026, 3, 1, tzinfo=UTC), query), turn_number=3,
                      turn_path=Path("/tmp/x"))
    state.response = " ".join(["answer"] * 300)
    state.outcome, state.fail_reason = "FAIL", " ".join(["reason"] * 300)
    text = appendix_text(state, 200)
    assert count_words(text) <= 200  # the truncation mark included
    assert "- **Query:** word0 word1" in text and "word599" not in text
    assert "- **Outcome:** FAIL" in text and "- **Used:** -" in text


def test_a_short_turn_is_left_whole():
    state = TurnState(input=TurnInput("alice", datetime(2026, 3, 1, tzinfo=UTC), "Where is my passport?"),
                      turn_number=1, turn_path=Path("/tmp/x"))
    text = appendix_text(state, 200)
    assert "- **Query:** Where is my passport?" in text and "truncated" not in text.lower()
