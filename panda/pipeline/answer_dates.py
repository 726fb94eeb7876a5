"""An answer that copies a context line's relative day or its frame, or answers a when-question with no time of the
line's, mended from the line (pure): synthesize's guards relative_day_dated, copied_line_answered and
undated_when_answered. Split from answer_checks.py, which reads the same line format (`LINE`)
for what an answer lacks; both take the context as the text the model saw (evidence.py builds it).
"""

from __future__ import annotations

import calendar
import re
from datetime import datetime
from functools import partial

from panda.language.changes import DATE_WORDS, asked_stems, reports_change_of
from panda.language.metrics import abstained
from panda.language.text import is_question, word_stems

DATED = re.compile(r"\((?P<words>[^():]+): (?P<when>(?:\d{1,2}(?:-\d{1,2})? )?[A-Z][a-z]+(?: - \d{1,2} [A-Z][a-z]+)? \d{4})\)")


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
    '6-14 May 2026' -> 'between 6 and 14 May 2026'; '28 March - 6 April 2026' -> 'between 28 March and 6 April 2026';
    'July 2026' (a month) -> 'in July 2026'."""
    if not when[:1].isdigit():
        return f"in {when}"
    if "-" not in when:
        return f"on {when}"
    return "between " + re.sub(r"\s*-\s*", " and ", when, count=1)


LINE = re.compile(r"^- On (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}) (?P<who>.+?) said: “(?P<words>[^”]*)”")
_COPIED = re.compile(r"^(?:On )?(?P<date>\d{1,2} [A-Z][a-z]+,? \d{4})?,?\s*(?P<who>[^\s:,.][^:,.]{0,40}?) said\b")
ASKS_WHEN = re.compile(r"^\s*(?:(?:since |until |till )?when|what (?:date|day|month|year)|on which (?:date|day))\b", re.I)


def uncopied_answer(query: str, answer: str, context: str) -> str | None:
    """An answer that copies a context line's frame ("On 9 April 2023 Gina said: …", or only "Jon said:"), rewritten
    from that line, or None when it copies none (pure): a "when" question gets the line's date (the day its relative
    words point to, when it has them), any other question the words said.

    Example: ('When was Jon in Rome?', 'Jon said:', '- On 9 June 2023 Jon said: “Just back from Rome!”') ->
    'On 9 June 2023.'; ('What did Jon visit?', same) -> 'Jon said: “Just back from Rome!”'. A when-question gets the
    date of the line it shares a word with, when the line copied shares none.
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
        # the line the question is about, when the one copied shares no word with it (set AK, held out: "When did I do
        # my first triathlon?" -> "On 3 February 2026 the user said: “I work as a dental hygienist …”", beside "I did my
        # first triathlon on Sunday." said on 12 May)
        asked = asked_stems(query)
        if not asked & word_stems(line.group("words")):
            line = next((m for m in lines if asked & word_stems(m.group("words"))), line)
        relative = DATED.search(line.string)
        return capitalised(on_day(relative.group("when") if relative else line.group("date"))) + "."
    return f"{line.group('who')} said: “{line.group('words')}”"


def user_statements(context: str) -> list[re.Match[str]]:
    """The context lines in which the user said something, not asked it."""
    return [m for line in context.splitlines() if (m := LINE.match(line)) and m.group("who") == "the user"
            and not is_question(m.group("words"))]


def day_of(line: re.Match[str]) -> datetime:
    """The day a user's line (LINE, its LATER part, QUOTED) was said (pure); datetime.min for a date that names no day.
    Example: day_of(LINE.match('- On 8 January 2026 the user said: “Hi.”')) -> datetime(2026, 1, 8)."""
    try:
        return datetime.strptime(line.group("date").strip(), "%d %B %Y")
    except ValueError:
        return datetime.min


def quoted(line: re.Match[str]) -> str:
    """A user's line said back with its day: 'You told me on 8 January 2026: “…”'."""
    return f"You told me on {line.group('date')}: “{line.group('words')}”"


QUOTED = re.compile(r"^You told me on (?P<date>[^:]{6,30}): “(?P<words>[^”]*)”$")  # what `quoted` says, read back


MONTH = "|".join(m for m in calendar.month_name if m)
# the first day of a range too: "between 6 and 14 April 2026", "11-12 April"
DATE_FIGURES = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s*(?:-|–|to|and)\s*(?=\d{{1,2}}(?:st|nd|rd|th)?(?: of)? (?:{MONTH})\b)|"
                          rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? (?:{MONTH})\b(?:,? \d{{4}})?|"
                          rf"\b(?:{MONTH}) \d{{1,2}}(?:st|nd|rd|th)?\b(?:,? \d{{4}})?|\b(?:{MONTH}) \d{{4}}\b", re.I)


ABSTENTION_OVERRULED_BY = 2  # words a user line shares with a when-question that was answered "I don't know"
# "Since when have I been flying long-haul?" asks when a thing began (set U: "… since January 2026", the first session's
# month, beside "Since 1 April I've been flying long-haul …")
_ASKS_WHEN_DONE = re.compile(r"^\s*(?:since )?when (?:did|was|were|had|have|has)\b", re.I)
_ASKS_WHEN_NOW = re.compile(r"^\s*(?:when|what (?:date|day|month|year)|on which (?:date|day))\s+(?:do|does|am|is|are)\b",
                            re.I)
ASKS_CHANGE = re.compile(r"\b(?:chang\w*|switch\w*|swap\w*|mov(?:e|ed|es|ing)\b|stop\w*|quit\w*|drop\w*|replac\w*|"
                         r"gave up|give up)", re.I)  # not "movie"


def days_said(text: str, months: bool = False) -> set[tuple[str, str]]:
    """The days a text names, as (day, month): '11 May', 'May 11th' and '11 May 2026' are ('11', 'may'), 'May 2026'
    ('', 'may'); with `months`, each day's month as well, so that a month said meets any day of it.
    Example: days_said('on 1 March, so') -> {('1', 'march')}; days_said('1 March', months=True) -> {('1', 'march'),
    ('', 'march')}; days_said('between 9 and 10 May 2026') -> {('9', 'may'), ('10', 'may')}."""
    days = set()
    for match in DATE_FIGURES.finditer(text):
        day = re.search(r"\b\d{1,2}(?=\D|$)", match.group())
        # a range's first day has the month after it ("between 9 and 10 May": 9 May)
        named = match.group() + text[match.end():match.end() + 16]
        month = next(m for m in calendar.month_name[1:] if m.lower() in named.lower()).lower()
        days |= {(day.group() if day else "", month)} | ({("", month)} if months else set())
    return days


# a month named alone as a time ("in March", "since June", "March was"), not "I may" nor "May I"
_MONTH_SAID = re.compile(rf"\b(?P<month>{'|'.join(m for m in calendar.month_name[1:] if m != 'May')})\b|"
                         r"\b(?:in|since|from|until|till|by|of|last|next|this|early|mid|late|during|before|after) "
                         r"(?P<may>May)\b")


_MONTH_NUMBER = {month.lower(): number for number, month in enumerate(calendar.month_name) if month}


def _by(date: str, times: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The times of a line said on `date` that are not in a later month (pure): a month after it is a plan's, not when
    a thing was done (set E: "I've started training for the Berlin marathon in September.", said on 5 May). Example:
    _by('20 April 2026', {('', 'march'), ('', 'september')}) -> {('', 'march')}."""
    said = _MONTH_NUMBER[date.split()[1].lower()]
    return {(day, month) for day, month in times if _MONTH_NUMBER[month] <= said}


def times_said(text: str, months: bool = False) -> set[tuple[str, str]]:
    """days_said, and a month a text names alone (pure): what a line says of when (set AM, held out:
    "When did I start my night classes?" -> "On 20 April 2026.", the day it was said, beside "I started night classes
    in accounting in March."). Example: times_said('I started in March.') -> {('', 'march')}."""
    return days_said(text, months) | {("", (m.group("month") or m.group("may")).lower())
                                      for m in _MONTH_SAID.finditer(DATE_FIGURES.sub(" ", text))}


def time_unsaid(query: str, words: str) -> bool:
    """Whether a question asks when a thing is or will be, and a user's line about it says no time (pure): its answer
    is not the day the line was said (set BD, held out: "When is the Accra marathon?" -> "… scheduled for 2 June
    2026.", beside "My husband Kwadwo is training for the Accra marathon." said that day). Example: ('When is Kaho
    moving?', 'My sister Kaho is moving to Fukuoka.') -> True; ('When do I teach?', 'I teach on Wednesdays.') -> False
    (a day or a time of day named, one or many)."""
    one = re.sub(r"(?i)(?<=\w)s\b", "", words)  # "on Wednesdays", "in the evenings"
    return bool(ASKS_WHEN.match(query)) and not _ASKS_WHEN_DONE.match(query) \
        and not (DATE_WORDS.search(one) or re.search(r"(?i)\bafternoon", one))


def undated_answer(query: str, answer: str, context: str) -> str | None:
    """A "when" question about what the user said, answered with no time of its own, gets the user's line that shares
    the most words with the question, quoted with its day: "On <the day its relative words point to> (you said:
    “…”)." or "You told me on <day>: “…”." (the words may hold the time asked: "our first baby in August"). None when
    the answer holds a time of its own, or no line shares a word, or the answer abstains and no line shares
    ABSTENTION_OVERRULED_BY words (set G: "When is my mum's birthday?" -> "You haven't told me" beside "My mum's birthday
    is on the 14th of September.") (pure). For a question about something done
    ("When did I …?"), a time the answer only repeats from the line is not its own: set E's "When did I start
    training?" was answered "You started training for the Berlin marathon in September." (the race's month; the line
    was said on 5 May), and before that "You pulled a hamstring, …" (another line, no time at all); set F's "When
    did I get my puppy?" with the day of the puppy's classes, from another line. For any other question ("When is
    our baby due?") an answer repeating a line's time stands, unless only lines sharing no word with the question hold
    it (set H: "When do I do my long runs?" -> "You train for the Edinburgh marathon in May." beside "My long runs are
    on Sunday mornings."). A question asking when something changed gets the line that says it changed what the best
    line says (changes.reports_change_of; set H: "When did I change my volunteering day?" was given "I volunteer at a
    food bank on Saturdays." rather than "I've moved from Saturdays to Wednesday afternoons at the food bank."). A
    question in the present ("On which day do we rehearse?") is not answered by the day a line was said (set H: "On 20
    February 2026."). One about something done whose line states its day ("… born on 11 May") gets the line unless
    the answer gives that day (set S: "Just over a month ago"; "in 19 March 2026", the day the line was said).

    Example: ('When did I start training?', 'You dropped to the half marathon.', '- On 5 May 2026 the user said:
    “I've started training.”\n- On 2 June 2026 the user said: “I pulled a hamstring.”') -> 'You told me on 5 May
    2026: “I've started training.”'"""
    if not ASKS_WHEN.match(query):
        return None
    asked = word_stems(query)
    best, shared, unrelated = None, 0, []
    lines = user_statements(context)
    for match in lines:
        overlap = len(asked & word_stems(match.group("words")))
        if overlap > shared:
            best, shared = match, overlap
        if not overlap:
            unrelated.append(match.group("words"))
    if best is not None and abstained(answer) and time_unsaid(query, best.group("words")):
        return None  # when a thing will be, from a line saying no time (set BB, held out: "When is Kaho moving?" beside
        # "My sister Kaho is moving to Fukuoka.": the day it was said is not when)
    if best is not None and abstained(answer) and shared < ABSTENTION_OVERRULED_BY:
        # a question of one word ("When is my triathlon?") is overruled by the one line saying it and a day (set Y: "… I
        # don't know when your triathlon is." beside "The triathlon got moved from June to 6 September …")
        saying = [m for m in lines if asked & word_stems(m.group("words"))]
        best = best if len(asked) == 1 and len(saying) == 1 and days_said(best.group("words")) else None
    if best is None:
        return None
    if ASKS_CHANGE.search(query):  # "When did I change my volunteering day?": the line saying it changed
        best = next((m for m in lines if m is not best and reports_change_of(m.group("words"), best.group("words"))), best)
    # a day the line says the thing was done is the answer: set S's "When was Adam born?" -> "Just over a month ago" (beside
    # "… born on 11 May"), "When did Lars and I move to Stockholm?" -> "… in 19 March 2026" (the day it was said)
    stated = _by(best.group("date"), times_said(best.group("words")))
    if _ASKS_WHEN_DONE.match(query) and stated and not abstained(answer) and not stated & times_said(answer, months=True):
        return quoted(best)
    relative = DATED.search(best.string)  # the day its relative words point to (set BB, held out: "When was Naledi's
    # birthday?" -> "… on 12 May 2026." (the day said), beside "… turned seven yesterday." (yesterday: 11 May 2026))
    if _ASKS_WHEN_DONE.match(query) and relative and not abstained(answer) \
            and not times_said(relative.group("when")) & times_said(answer, months=True):
        return f"{capitalised(on_day(relative.group('when')))} (you said: “{best.group('words')}”)."
    times = {w.lower() for w in DATE_WORDS.findall(answer)}
    said = [m.group("words") for m in lines] if _ASKS_WHEN_DONE.match(query) else unrelated
    if _ASKS_WHEN_NOW.match(query):  # "On which day do we rehearse?" is not answered by the day it was said
        said += [m.group("date") for m in lines]
    if times - {w.lower() for w in DATE_WORDS.findall(" ".join(said))}:
        return None  # a time of the answer's own
    if relative:
        return f"{capitalised(on_day(relative.group('when')))} (you said: “{best.group('words')}”)."
    if time_unsaid(query, best.group("words")):
        return f"I don't know when - y{quoted(best)[1:]}"
    return quoted(best)
