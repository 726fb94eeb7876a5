"""Implicit feedback (seed 000): a follow-up that rejects the previous answer marks that turn.

Detection is deterministic (pure patterns over the new query): "that's wrong", "no, that's not what
I asked", "that didn't work", "not helpful"... The save phase then sets the previous turn's
user_feedback_status to 'rejected' with rejection_detected_in = the new turn, in its metadata.json
(the vault) and in turn_index (the catalog).
"""

from __future__ import annotations

import re

REJECTION_PATTERNS = (
    r"\b(?:that|this|it|your answer|the answer)(?:'s| is| was)\s+"
    r"(?:not\s+(?:right|correct|true|it|helpful|what i)|wrong|incorrect)",
    r"\byou(?:'re| are| were)\s+(?:wrong|mistaken|incorrect)\b",
    r"^\s*(?:no|nope|wrong)\s*[,.!]",
    r"\bnot what i (?:asked|wanted|meant|said)\b",
    r"\b(?:that|it) (?:didn'?t|does ?n[o']t|did not) (?:work|help|answer)\b",
    r"\bwrong answer\b",
    r"\byou (?:didn'?t|did not) answer\b",
    r"\bthat(?:'s| is) (?:useless|unhelpful)\b",
)
_COMPILED = tuple(re.compile(p, re.I) for p in REJECTION_PATTERNS)


def rejects_previous_answer(query: str) -> bool:
    """Example: rejects_previous_answer("No, that's not what I asked.") -> True;
    rejects_previous_answer("That is right, thanks!") -> False."""
    return any(p.search(query) for p in _COMPILED)
