"""An answer that copies a context line's relative day or its frame, mended from the line (pure): synthesize's guards
relative_day_dated and copied_line_answered. Split from answer_checks.py, which reads the same line format (`LINE`)
for what an answer lacks; both take the context as the text the model saw (evidence.py builds it).
"""

from __future__ import annotations

import re
from functools import partial

DATED = re.compile(r"\((?P<words>[^():]+): (?P<when>\d{1,2}(?:-\d{1,2})? [A-Z][a-z]+(?: - \d{1,2} [A-Z][a-z]+)? \d{4})\)")


def dated_answer(answer: str, context: str) -> str | None:
    """The answer with a relative day it copied from a dated context line replaced by that line's date, or None when
    it copied none (pure). The line's "yesterday" was the day before it was said, not the day before the answer.

    Example: ('You passed your B1 exam yesterday.', '- On 25 January 2026 the user said: “I passed my B1 exam
    yesterday!” (yesterday: 24 January 2026)') -> 'You passed your B1 exam on 24 January 2026.'; a range
    ('last weekend: 6-14 May 2026') reads 'between 6 and 14 May 2026'.
    """
    out = answer
    said = _content_words(answer)
    for line in context.splitlines():
        match = DATED.search(line)
        if match is None:
            continue
        quoted = re.search(r"“([^”]*)”", line)
        words_said = quoted.group(1) if quoted else line[: match.start()]
        if not said & (_content_words(words_said) - _content_words(match.group("words"))):
            continue  # the answer shares no word with what the line says: its "today" is its own
        words, dated = match.group("words").strip(), on_day(match.group("when"))
        out = re.sub(rf"(?i)\b{re.escape(words)}\b", partial(_in_place, dated), out)
    return out if out != answer else None


def _content_words(text: str) -> set[str]:
    """Words of four letters or more, lower-cased. Example: 'I moved last weekend.' -> {'moved', 'last', 'weekend'}."""
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}


def _in_place(dated: str, found: re.Match[str]) -> str:
    """`dated` where a relative day was found, capitalised at the start of the answer."""
    return capitalised(dated) if found.start() == 0 else dated


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def on_day(when: str) -> str:
    """A day or a span of days as an answer says it. Example: '24 January 2026' -> 'on 24 January 2026';
    '6-14 May 2026' -> 'between 6 and 14 May 2026'; '28 March - 6 April 2026' -> 'between 28 March and 6 April 2026'."""
    if "-" not in when:
        return f"on {when}"
    return "between " + re.sub(r"\s*-\s*", " and ", when, count=1)


LINE = re.compile(r"^- On (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}) (?P<who>.+?) said: “(?P<words>[^”]*)”")
_COPIED = re.compile(r"^(?:On )?(?P<date>\d{1,2} [A-Z][a-z]+,? \d{4})?,?\s*(?P<who>[^\s:,.][^:,.]{0,40}?) said\b")
ASKS_WHEN = re.compile(r"^\s*(?:when|what (?:date|day|month|year)|on which (?:date|day))\b", re.I)


def uncopied_answer(query: str, answer: str, context: str) -> str | None:
    """An answer that copies a context line's frame ("On 9 April 2023 Gina said: …", or only "Jon said:"), rewritten
    from that line, or None when it copies none (pure): a "when" question gets the line's date (the day its relative
    words point to, when it has them), any other question the words said.

    Example: ('When was Jon in Rome?', 'Jon said:', '- On 9 June 2023 Jon said: “Just back from Rome!”') ->
    'On 9 June 2023.'; ('What did Jon visit?', same) -> 'Jon said: “Just back from Rome!”'.
    """
    copied = _COPIED.match(answer.strip())
    if copied is None:
        return None
    lines = [m for line in context.splitlines() if (m := LINE.match(line))]
    date, who = (copied.group("date") or "").replace(",", ""), copied.group("who").strip().lower()
    line = next((m for m in lines if m.group("who").lower() == who and (not date or m.group("date") == date)), None)
    if line is None:
        return None
    if ASKS_WHEN.match(query):
        relative = DATED.search(line.string)
        return capitalised(on_day(relative.group("when") if relative else line.group("date"))) + "."
    return f"{line.group('who')} said: “{line.group('words')}”"
