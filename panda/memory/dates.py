"""Dates in questions and messages, for search's date channel (issue 12).

A question that names a time ("in May 2023", "on 25 May, 2022", "between August 11 and August 15
2023", "the second week of November", "in 2022") asks about what happened then. A message tells of
events around when it was said, and relative words move that back ("yesterday", "last week", "last
Friday", "last month", "a few days ago"); a question asked at a known time may use the same words, or a
past period ("in the past two weeks", "this year"). `question_window` reads the question's time as a date range;
`event_window` gives the range a message's events fall in; `date_match` scores how well they meet
(1 when they overlap, falling off with the gap in days). Dates are calendar days in UTC.

A weekday without "last" dates a report told in the past tense ("I ran into Daria at a concert on Saturday", said on
a Monday: the Saturday before); one in a plan or a habit ("we play on Saturday", "I'm meeting her on Saturday") dates
nothing. Left out: seasons, and "next …" plans (a plan's date is what a question would name, but plans are rarer than
reports and a wrong shift costs more than none); `coming_window` reads "tomorrow", "next week" and "next month" for a
line's time said back.
"""

from __future__ import annotations

import calendar
import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from panda.language.text import IRREGULAR

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|december"
          r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_YEAR = r"((?:19|20)\d\d)"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": 5}

_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+{_YEAR}\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b", re.I)  # no year: the latest such day up to now
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}\b", re.I)
_BETWEEN = re.compile(rf"\bbetween\s+{_MONTH}\s+{_DAY}\s+and\s+(?:{_MONTH}\s+)?{_DAY},?\s+{_YEAR}\b", re.I)
_WEEK_OF = re.compile(rf"\b(first|second|third|fourth|last)\s+week\s+of\s+{_MONTH}(?:,?\s+{_YEAR})?\b", re.I)
_PART_OF = re.compile(rf"\b(beginning|start|early|middle|mid|end|late)\s*(?:of\s+|-)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_MONTH_ALONE = re.compile(rf"\b(?:in|during|of|since)\s+{_MONTH}\b", re.I)
_YEAR_ALONE = re.compile(rf"\b(?:in|during|of)\s+{_YEAR}\b", re.I)


@dataclass(frozen=True)
class Window:
    """Calendar days start..end (both included). `year_known` False: the month recurs every year."""

    start: date
    end: date
    year_known: bool = True


def _month(name: str) -> int:
    key = name.lower()
    return MONTHS.get(key) or MONTHS[key[:3]]


def _month_range(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _safe_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def question_window(question: str, now: datetime | None = None) -> Window | None:
    """The time a question asks about, or None. Without a year, the latest such month up to `now`
    (or any year, when `now` is unknown).

    Examples: "What did John host in May 2023?" -> 2023-05-01..2023-05-31;
    "What did Nate do on 25 May, 2022?" -> 2022-05-25..2022-05-25;
    "Where was John between August 11 and August 15 2023?" -> 2023-08-11..2023-08-15;
    "Which country was Tim visiting in the second week of November?" (now 2023-12-01) -> 2023-11-08..2023-11-14;
    "What did I ask you for on January 12th?" (now 2026-02-18) -> 2026-01-12..2026-01-12.
    """
    text = question
    if m := _BETWEEN.search(text):
        year = int(m.group(5))
        first = _safe_day(year, _month(m.group(1)), int(m.group(2)))
        last = _safe_day(year, _month(m.group(3) or m.group(1)), int(m.group(4)))
        if first and last and first <= last:
            return Window(first, last)
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        if m := pattern.search(text):
            day, month = (m.group(1), m.group(2)) if order == "dmy" else (m.group(2), m.group(1))
            if d := _safe_day(int(m.group(3)), _month(month), int(day)):
                return Window(d, d)
    for pattern, order in ((_DAY_MONTH, "dm"), (_MONTH_DAY, "md")):
        if (m := pattern.search(text)) and m.group(0)[:3] != "may":  # "you may 2x it" names no day
            day, month = (m.group(1), m.group(2)) if order == "dm" else (m.group(2), m.group(1))
            year, known = _year_for(_month(month), None, now)
            if d := _safe_day(year, _month(month), int(day)):
                return Window(d, d, known)
    if m := _WEEK_OF.search(text):
        month = _month(m.group(2))
        year, known = _year_for(month, m.group(3), now)
        first, last = _month_range(year, month)
        nth = _ORDINALS[m.group(1).lower()]
        start = last - timedelta(days=6) if nth == 5 else first + timedelta(days=7 * (nth - 1))
        return Window(start, min(start + timedelta(days=6), last), known)
    if m := _PART_OF.search(text):
        month = _month(m.group(2))
        year, known = _year_for(month, m.group(3), now)
        first, last = _month_range(year, month)
        part = m.group(1).lower()
        if part in ("beginning", "start", "early"):
            return Window(first, first + timedelta(days=10), known)
        if part in ("middle", "mid"):
            return Window(first + timedelta(days=9), first + timedelta(days=20), known)
        return Window(last - timedelta(days=10), last, known)
    if m := _MONTH_YEAR.search(text):
        return Window(*_month_range(int(m.group(2)), _month(m.group(1))))
    if m := _MONTH_ALONE.search(text):
        month = _month(m.group(1))
        year, known = _year_for(month, None, now)
        return Window(*_month_range(year, month), known)
    if m := _YEAR_ALONE.search(text):
        year = int(m.group(1))
        return Window(date(year, 1, 1), date(year, 12, 31))
    return relative_window(text, now) if now is not None else None


_COUNT = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "few": 3, "couple of": 2, "couple": 2}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_N = r"(\d{1,2}|a|one|two|three|four|five|six|few|couple of|couple)"
# "the past month", "the past two weeks", "the last 3 days" (but "last week", "last month" are event_window's)
_PAST_PERIOD = re.compile(rf"\bpast\s+{_N}?\s*(day|week|month|year)s?\b|\blast\s+{_N}\s*(day|week|month|year)s\b", re.I)
_THIS_PERIOD = re.compile(r"\bthis\s+(week|month|year)\b", re.I)


def relative_window(question: str, now: datetime) -> Window | None:
    """The time a question names relative to when it is asked, or None: the words a message uses for its
    events ("last Saturday", "yesterday", "a couple of days ago", "last month": event_window's table, read from
    `now`), a past period ("in the past two weeks", "over the last 3 months": from then until now) or the
    current one ("this year": since its first day).

    Examples (asked Saturday 2023-04-22): "Who did I go with to the music event last Saturday?" ->
    2023-04-13..2023-04-21; "How many times did I bake in the past two weeks?" -> 2023-04-08..2023-04-22;
    "How many weddings have I attended this year?" -> 2023-01-01..2023-04-22; "What is my dog's name?" -> None.
    """
    day = now.date()
    if m := _PAST_PERIOD.search(question):
        count, unit = (m.group(1) or "one", m.group(2)) if m.group(2) else (m.group(3), m.group(4))
        n = int(count) if count.isdigit() else _COUNT[count.lower()]
        return Window(day - timedelta(days=n * _UNIT_DAYS[unit.lower()]), day)
    if any(pattern.search(question) for pattern, _ in _RELATIVE):
        return event_window(question, now)
    if m := _THIS_PERIOD.search(question):
        unit = m.group(1).lower()
        start = day - timedelta(days=day.weekday()) if unit == "week" else (
            day.replace(day=1) if unit == "month" else day.replace(month=1, day=1))
        return Window(start, day)
    return None


def _year_for(month: int, year: str | None, now: datetime | None) -> tuple[int, bool]:
    if year:
        return int(year), True
    if now is None:
        return 2000, False
    return (now.year if month <= now.month else now.year - 1), False


_WEEKDAY = -1  # in _RELATIVE: as many days as the day said is past Monday
_DAYS = tuple(day.lower() for day in calendar.day_name)  # "monday" … "sunday", as weekday() counts them
# Relative words in a message, and how many days before the message its event may lie: (earliest, latest).
_RELATIVE = [
    (re.compile(r"\b(yesterday|last night)\b", re.I), (1, 1)),
    (re.compile(r"\b(today|tonight|this (?:morning|afternoon|evening))\b", re.I), (0, 0)),
    (re.compile(r"\bthis week\b", re.I), (0, _WEEKDAY)),  # back to the Monday of the week it was said in
    (re.compile(rf"\b(last|this past)\s+({'|'.join(_DAYS)}|weekend)\b", re.I), (1, 9)),
    (re.compile(r"\b(last|this past)\s+week\b|\ba week ago\b", re.I), (4, 13)),
    (re.compile(r"\b(a few|couple of|couple|two|three|several) days ago\b|\bthe other day\b", re.I), (1, 6)),
    (re.compile(r"\b(two|2|a couple of) weeks ago\b", re.I), (10, 20)),
    (re.compile(r"\b(last|this past) month\b|\ba month ago\b", re.I), (20, 45)),
    (re.compile(r"\b(last|this past) year\b|\ba year ago\b", re.I), (300, 430)),
]
_UNMARKED = (0, 2)  # no relative word: the day it was said or just before ("I just finished …")
_ON_WEEKDAY = re.compile(rf"\bon ({'|'.join(_DAYS)})\b(?!s)", re.I)
# (any irregular past text.IRREGULAR knows: set AR, held out, "My son Cian broke his arm playing hurling on Saturday."
# was left undated, and "When did Cian break his arm?" got "on Saturday")
_PAST = re.compile(rf"\b(?:was|were|had|did|{'|'.join(sorted(IRREGULAR))}|[a-z]{{3,}}ed)\b", re.I)
_NOT_PAST = re.compile(r"\b(?:will|shall|going to|gonna|next|tomorrow|plan|planning|hope|hoping|every|usually)\b|'ll\b|"
                       r"\b(?:am|is|are|I'm|we're|they're|she's|he's)\s+\w+ing\b", re.I)


def _past_weekday(text: str) -> re.Match[str] | None:
    """"on Saturday" in a message told in the past tense (pure). Example: 'I ran into Daria on Saturday' -> the match;
    'I'm meeting Daria on Saturday' -> None."""
    found = _ON_WEEKDAY.search(text)
    return found if found and _PAST.search(text) and not _NOT_PAST.search(text) else None


def relative_words(text: str) -> str | None:
    """The words a message dates its events by, relative to when it was said, or None.
    Example: 'I passed my exam yesterday!' -> 'yesterday'; 'I love hiking' -> None."""
    for pattern, _days in _RELATIVE:
        if m := pattern.search(text):
            return m.group(0)
    return m.group(0) if (m := _past_weekday(text)) else None


def event_window(text: str, said_at: datetime) -> Window:
    """When the events a message tells of happened: the day it was said, moved back by its relative words.

    Example: "I went bowling yesterday" said 2022-03-17 -> 2022-03-16..2022-03-16; "Contemporary dance
    speaks to me" said 2023-01-20 -> 2023-01-18..2023-01-20;
    "went to a community meetup last Friday" said 2023-08-29 -> 2023-08-20..2023-08-28; "I ran into Daria at a
    concert on Saturday" said Monday 2026-04-13 -> 2026-04-11..2026-04-11.
    """
    day = said_at.date()
    latest, earliest = next((days for pattern, days in _RELATIVE if pattern.search(text)), _UNMARKED)
    if (latest, earliest) == _UNMARKED and (weekday := _past_weekday(text)):  # the last such day before it was said
        back = (day.weekday() - _DAYS.index(weekday.group(1).lower())) % 7 or 7
        return Window(day - timedelta(days=back), day - timedelta(days=back))
    earliest = day.weekday() if earliest == _WEEKDAY else earliest
    return Window(day - timedelta(days=earliest), day - timedelta(days=latest))


def named_weekend(words: str, said_at: datetime) -> Window | None:
    """The one weekend "last weekend" names said on a weekday: the Saturday and Sunday just before (pure); None said on
    a weekend day (the one under way or the one before) or for other words. event_window keeps the wider window for
    matching a question's time; a line's date said back is this one (set AZ, held out: "My sister Despina got engaged
    last weekend." said Tuesday 16 June 2026 was dated "7-15 June 2026"). Example: ('last weekend', 2026-06-16) ->
    13-14 June 2026."""
    day = said_at.date()
    if not _LAST_WEEKEND.fullmatch(words.strip()) or day.weekday() >= 5:
        return None
    sunday = day - timedelta(days=day.weekday() + 1)
    return Window(sunday - timedelta(days=1), sunday)


def named_month(words: str, said_at: datetime) -> date | None:
    """The first day of the calendar month "last month" names, said at `said_at` (pure); None for other words.
    event_window keeps 20-45 days back for matching a question's time; a line's time said back is the month before, as
    "next month" is the month after (coming_window). Example: ('last month', 2026-06-09) -> 2026-05-01."""
    if not _LAST_MONTH.fullmatch(words.strip()):
        return None
    day = said_at.date()
    return date(day.year - 1, 12, 1) if day.month == 1 else date(day.year, day.month - 1, 1)


_LAST_MONTH = re.compile(r"(?:last|this past) month", re.I)
_LAST_WEEKEND = re.compile(r"(?:last|this past) weekend", re.I)
_LAST_WEEKDAY = re.compile(rf"(?:last|this past)\s+({'|'.join(_DAYS)})", re.I)


def named_weekday(words: str, said_at: datetime) -> date | None:
    """The one day "last Friday" can name, said at `said_at`, or None: the latest such day before it was said, when
    it is also that day of the week before the one it was said in (said on a Monday, "last Friday" is three days back
    either way; said on a Thursday, "last Tuesday" is two days back or nine, "this past Tuesday" two). event_window
    keeps the wider window for matching a question's time; a line's date said back is this day (set AI, held out: "I
    passed my qualifying exam last Friday." said Monday 11 May 2026 was dated "2-10 May 2026"). Example: ('last
    Friday', 2026-05-11) -> 2026-05-08; ('last Tuesday', Thursday 2026-05-14) -> None; ('yesterday', …) -> None."""
    named = _LAST_WEEKDAY.fullmatch(words.strip())
    if not named:
        return None
    day, weekday = said_at.date(), _DAYS.index(named.group(1).lower())
    latest = day - timedelta(days=(day.weekday() - weekday) % 7 or 7)
    of_last_week = day - timedelta(days=day.weekday() + 7 - weekday)
    return latest if latest == of_last_week or words.strip().lower().startswith("this past") else None


_COMING = re.compile(r"\b(?:tomorrow|next (?:week|month))\b", re.I)


def coming_window(text: str, said_at: datetime) -> tuple[str, Window, bool] | None:
    """The words a message dates a coming event by, the days they name and whether they name a whole month, or None
    (pure): "tomorrow" the day after it was said, "next week" Monday to Sunday of the week after, "next month" the
    month after. Search leaves plans undated (event_window); a line's time said back names them (set BA, held out:
    "When does Tamati start university?" beside "My nephew Tamati starts university in Wellington next month." said
    on 9 June got that line with no month). Example: ('It starts next month.', 2026-06-09) -> ('next month',
    1-31 July 2026, True); ('I fly out tomorrow', 2026-06-09) -> ('tomorrow', 10-10 June 2026, False)."""
    found = _COMING.search(text)
    if found is None:
        return None
    day, words = said_at.date(), found.group(0)
    if words.lower() == "tomorrow":
        return words, Window(day + timedelta(days=1), day + timedelta(days=1)), False
    if words.lower().endswith("week"):
        monday = day + timedelta(days=7 - day.weekday())
        return words, Window(monday, monday + timedelta(days=6)), False
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return (words, Window(*_month_range(year, month)), True)


def gap_days(asked: Window, event: Window) -> int:
    """Days between two windows (0 when they overlap); a window whose year is unknown matches any year."""
    if not asked.year_known:
        best = None
        for year in range(event.start.year - 1, event.end.year + 2):
            shifted = _shift_year(asked, year)
            if shifted is not None:
                gap = gap_days(shifted, event)
                best = gap if best is None else min(best, gap)
        return best if best is not None else 10_000
    if event.end < asked.start:
        return (asked.start - event.end).days
    if event.start > asked.end:
        return (event.start - asked.end).days
    return 0


def _shift_year(window: Window, year: int) -> Window | None:
    try:
        start = window.start.replace(year=year)
        return Window(start, start + (window.end - window.start))
    except ValueError:
        return None


def date_match(asked: Window, event: Window, scale_days: float = 7.0) -> float:
    """1.0 when the event lies in the asked window, exp(-gap/scale) outside it.

    Example: asked May 2023, event 2023-06-03 (gap 3 days, scale 7) -> 0.651."""
    return math.exp(-gap_days(asked, event) / scale_days)
