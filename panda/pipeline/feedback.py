"""Implicit feedback (seed 000): a follow-up that rejects or accepts the previous answer marks that turn.

Detection is deterministic (pure patterns over the new query). Rejected: "that's wrong", "no, that's
not what I asked", "that didn't work", "not helpful", a bare "No." Accepted: "thanks, that worked",
"perfect", "that's right". A "no" that opens a statement about the user ("No, I have two cats.") is
new information, not a verdict on the answer, so it marks nothing; rejection wins over thanks ("thanks,
but that's wrong"). The save phase sets the previous turn's user_feedback_status ('rejected' or
'accepted') with feedback_detected_in = the new turn, in its metadata.json (the vault) and in
turn_index (the catalog).
"""

from __future__ import annotations

import re

REJECTION_PATTERNS = (
    r"\b(?:that|this|it|your answer|the answer)(?:'s| is| was)\s+"
    r"(?:not\s+(?:right|correct|true|it|helpful|what i)|wrong|incorrect)",
    r"\byou(?:'re| are| were)\s+(?:wrong|mistaken|incorrect)\b",
    r"^\s*(?:no|nope|wrong)\s*[.!]*\s*$",  # a bare "No." (a "No, I ..." statement is not a verdict)
    r"^\s*(?:no|nope)\s*[,.!]+\s*(?:that|this|it|you|wrong|not|the answer)\b",
    r"\bnot what i (?:asked|wanted|meant|said)\b",
    r"\b(?:that|it) (?:didn'?t|does ?n[o']t|did not) (?:work|help|answer)\b",
    r"\bwrong answer\b",
    r"\byou (?:didn'?t|did not) answer\b",
    r"\bthat(?:'s| is) (?:useless|unhelpful)\b",
)
ACCEPTANCE_PATTERNS = (
    r"\b(?:thanks|thank you|thx)\b",
    r"\b(?:that|this|it)(?:'s| is| was)\s+(?:right|correct|perfect|helpful|great|exactly it|what i (?:needed|wanted))\b",
    r"\b(?:that|it) (?:worked|helped|works)\b",
    r"^\s*(?:perfect|exactly|great|awesome|correct)\b",
)
_COMPILED = tuple(re.compile(p, re.I) for p in REJECTION_PATTERNS)
_ACCEPTS = tuple(re.compile(p, re.I) for p in ACCEPTANCE_PATTERNS)


def rejects_previous_answer(query: str) -> bool:
    """Example: rejects_previous_answer("No, that's not what I asked.") -> True;
    rejects_previous_answer("That is right, thanks!") -> False."""
    return any(p.search(query) for p in _COMPILED)


def feedback_signal(query: str) -> str | None:
    """'rejected', 'accepted' or None for a follow-up query.

    Example: feedback_signal("Thanks, that worked!") -> 'accepted'; feedback_signal("No, I have two cats.") -> None;
    feedback_signal("Thanks, but that's wrong") -> 'rejected'."""
    if rejects_previous_answer(query):
        return "rejected"
    return "accepted" if any(p.search(query) for p in _ACCEPTS) else None
