"""An answer about what holds now that still says the value the user has since changed, mended (pure): synthesize's
guard superseded_value_unsaid. Split from answer_checks.py, which reads what an answer lacks; this one takes out what
it should no longer say.
"""

from __future__ import annotations

import re

from panda.pipeline.answer_dates import ASKS_CHANGE
from panda.pipeline.evidence import about_now

# "pushed back from April to September", "switched my lessons from cello to viola": a change's verb, up to three words,
# then "from <the old value> to <the new>"
_CHANGED_FROM = re.compile(r"\b(?P<verb>(?:pushed|brought|put|moved|switched|changed|swapped|shifted|rescheduled|"
                           r"postponed|upgraded|downgraded|transferred|gone|went|cut|reduced|increased|dropped|raised|"
                           r"lowered)(?: (?:back|forward|up|down|over))?(?: [\w'’-]+){0,3}?) from [^,.;!?]+? "
                           r"(?P<to>to|into) ", re.I)
_INSTEAD_OF = re.compile(r",? (?:instead of|rather than) [^,.;!?]+", re.I)  # "You play the viola now instead of the cello"


def superseded_unsaid(query: str, answer: str) -> str | None:
    """An answer to a question about what holds now, with the value the user has since changed taken out of it (pure):
    "from <old> to <new>" after a verb of change keeps "to <new>", and "instead of <old>" goes. The 1.5B model
    answered set L's "When is my trip to Lisbon now?" with the user's own line, "The Lisbon trip has been pushed back
    from April to September.": right, but it says the old month as well, and the issue's knowledge updates ask that the
    stale value not appear. A question about the change itself ("What did I switch from?", "When did I change …?")
    keeps it; None when nothing changes.

    Example: ("When is my trip to Lisbon now?", "The Lisbon trip has been pushed back from April to September.") ->
    'The Lisbon trip has been pushed back to September.'; ("What did I switch from?", "You switched from cello to
    viola.") -> None; what was given up goes when the new follows (set T: "What class am I taking now?" -> "I stopped the
    pottery class after four weeks; I'm doing ikebana on Thursday evenings instead." -> "I'm doing ikebana …")."""
    if not about_now(query) or ASKS_CHANGE.search(query):
        return None
    mended = _INSTEAD_OF.sub("", _CHANGED_FROM.sub(lambda m: f"{m.group('verb')} {m.group('to')} ", answer))
    mended = _STOPPED.sub(lambda m: f"{m.group('who')} " if "and" in m.group("then") else "", mended)
    return mended[:1].upper() + mended[1:] if mended != answer else None


# "I stopped the pottery class after four weeks; I'm doing ikebana …" (set T), "You quit Menya Kaze and opened …": what
# was given up, when a clause about the new follows
_STOPPED = re.compile(r"\b(?P<who>I|[Yy]ou|[Ww]e)(?:'ve| have)? (?:stopped|quit|gave up|given up|left|sold|dropped|"
                      r"cancelled|canceled) [^,.;!?]+?(?P<then>,? and (?:then |now )?|; |, so |\. )(?=\S)")
