"""What the answer is written from: the gathered items in their own words, each with the day it was said.

A 0.5B model's §2 summary of the gathered items was the context its answer copied, and it was often about
another item ("Which city do I live in now?": sources held "residence: Manchester" first, the summary spoke of
the hospital in Leeds, so did the answer). So the answer's context is built from the items themselves
(issue 43, benchmarks/answer_sets.py):
- the remembered facts and preferences first, current ones only, newest first ("residence: Manchester (told
  15 May 2026)");
- then what the user said, from earlier turns (their metadata.json) and conversation messages, dated, with a
  relative day read ("I passed my exam yesterday!" said 25 January 2026 -> "yesterday: 24 January 2026");
- what the assistant answered only when the question asks after the assistant's words ("What did you recommend?":
  conversation_signals.asked_role), since an earlier answer of a small model is no evidence of what is true;
- summaries and knowledge notes as they are.
A question about the user ("What did I tell you about my diet?": conversation_signals.asked_role) is answered
from the user's own memory only, not from web pages and knowledge notes (the 0.5B model answered it with a page
on body fat that gather had found). What the user asked is left out unless the message asks what was asked
("What did I ask you about …?"): a question is no evidence of a fact, and the 0.5B model answered with one.
Facts first, then the other items by their search score (the open session's last messages, which gather puts
first unscored, go last), at most `MAX_LINES`: with more, the 0.5B model answered from the wrong line more often.
An item scored under `MIN_SHARE` of the best is left out: "What level is my Spanish now?" had the user's podcast likes
(0.10 against 1.06) as its second and third lines. A question about the present ("now", "currently", "still") gets the
user's statements newest first: the 0.5B model answered from the first line, and the older one ("currently at A2")
outscored the newer ("I passed my B1 exam yesterday!"). For any question about now (also in the present tense: "How
many cats do I have?"), an earlier statement no longer true is left out, and so is one a later statement about the
same thing marks as changed ("so I dropped the app": `replaced`). A question that names a time ("What did I ask you
for on January 12th?") gets the items of that time first, before the facts (set C: a question asked on 30 January
answered it), and no items of other times when that time has any (set E: a question of 20 February answered "What did
I ask you about on January 15th?"). A question about what was asked reads the questions first (set F: "What did I ask
you for on June 20th?" was answered with that day's statement). A diet or an allergy (`CONSTRAINTS`) is kept whatever
its score: a dinner suggestion for a vegan scored "diet: vegan" far below the recipe pages.
Pure except `turn_said`, which reads an earlier turn's metadata.json through the vault.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from typing import Any

from panda.documents.budgets import truncate_to_words
from panda.documents.model import parse_time
from panda.language.metrics import abstained
from panda.language.text import STOP_WORDS, is_question, stem, tokenize
from panda.memory.conversation_signals import asked_role
from panda.memory.current_facts import names_in
from panda.memory.dates import Window, event_window, gap_days, question_window, relative_words
from panda.memory.search import SearchResult

ASSISTANT_SPEAKERS = ("panda", "assistant")
MAX_LINES = 6
CONSTRAINTS = frozenset({"diet", "allergy"})  # fact attributes (language/facts.py) no suggestion may ignore
MIN_SHARE = 0.25  # of the best item's score; chosen on set A (benchmarks/answer_sets.py), reported on set B
_PRESENT = re.compile(r"\b(?:now|currently|current|still|anymore|any more|these days|at the moment|nowadays|latest)\b",
                      re.I)
USER_KINDS = frozenset({"fact", "preference", "context", "message", "session_summary", "thread_summary", "memory"})
_ABOUT_NOW = re.compile(r"\b(?:do|does|am|is|are|have|has)\s+(?:I|we|my|our)\b", re.I)  # "How many cats do I have?"
_ABOUT_THEN = re.compile(r"\b(?:did|was|were|had|before|previous|previously|used to|originally|first|ago|ever|when|"
                         r"last|earlier|old)\b", re.I)
# A statement that marks a change: "so I've switched to the aquathlon instead", "I dropped the app", "Tofu died"
_CHANGED = re.compile(r"\b(?:instead|rather than|switched|swapped|changed|dropped|no longer|any ?more|stopped|quit|"
                      r"gave up|replaced|moved out|moved (?:[\w-]+ )?from|died|passed away|sold)\b", re.I)
_ASKS_WHAT_WAS_ASKED = re.compile(r"\b(ask|asked|asking|question|questions)\b", re.I)


def day_text(moment: date) -> str:
    """Example: 2026-05-15T08:00Z (or the date 2026-05-15) -> '15 May 2026'."""
    return f"{moment.day} {moment.strftime('%B %Y')}"


def relative_day(text: str, said_at: datetime) -> str:
    """The day a message's relative words point to, or ''. Example: ('I passed it yesterday!', 2026-01-25) ->
    ' (yesterday: 24 January 2026)'; ('I moved last weekend', Fri 2026-05-15) -> ' (last weekend: 6-14 May 2026)'."""
    words = relative_words(text)
    if words is None:
        return ""
    window = event_window(text, said_at)
    start, end = window.start, window.end
    if start == end:
        when = day_text(start)
    elif (start.year, start.month) == (end.year, end.month):
        when = f"{start.day}-{end.day} {end.strftime('%B %Y')}"
    else:
        when = f"{start.day} {start.strftime('%B')} - {end.day} {end.strftime('%B %Y')}"
    return f" ({words.lower()}: {when})"


@dataclass(frozen=True)
class Said:
    """An earlier turn as evidence: the user's words, when, and the answer given (with its verdict)."""

    query: str
    at: datetime
    response: str = ""
    outcome: str = ""


def turn_said(meta: dict[str, Any] | None) -> Said | None:
    """An earlier turn's metadata.json as evidence. Example: {'query': 'I moved.', 'timestamp': '2026-05-15T08:00:00Z',
    'response': 'Noted.', 'outcome': 'APPROVE'} -> Said('I moved.', 2026-05-15 08:00, 'Noted.', 'APPROVE')."""
    if not meta or not meta.get("query"):
        return None
    at = parse_time(meta.get("timestamp"))
    if at is None:
        return None
    return Said(str(meta["query"]), at, str(meta.get("response") or ""), str(meta.get("outcome") or ""))


def evidence_line(result: SearchResult, said: Said | None, with_answers: bool, with_questions: bool = True,
                  present: bool = False) -> str | None:
    """One gathered item as a line of the answer's context, or None when it is no evidence.

    Examples: a fact 'residence: Manchester' of 2026-05-15 -> 'residence: Manchester (told 15 May 2026)'; a turn
    that said 'I passed my B1 exam yesterday!' on 2026-01-25 -> 'On 25 January 2026 the user said: “I passed my B1
    exam yesterday!” (yesterday: 24 January 2026)' (typographic quotes: a small model copying a line into its JSON
    answer ended the string at a straight one, "Jon said:"); an assistant message when the question asks after the user ->
    None; an earlier turn that stated a value no longer true (`superseded`), for a question about the `present`
    ("What show am I watching at the moment?" beside "I've been watching Severance", since finished) -> None."""
    if result.kind in ("fact", "preference"):
        return None if result.superseded else f"{result.title} (told {day_text(result.created_at)})"
    if result.kind == "context":
        if said is None or (not with_questions and is_question(said.query)) or (present and result.superseded):
            return None
        line = f"On {day_text(said.at)} the user said: “{_words(said.query, 40)}”{relative_day(said.query, said.at)}"
        if with_answers and said.response and said.outcome == "APPROVE":
            line += f"; the answer was: “{_words(said.response, 40)}”"
        return line
    if result.kind == "message":
        speaker, _, text = result.snippet.partition(": ")
        if not text:
            speaker, text = "", result.snippet
        if speaker.lower() in ASSISTANT_SPEAKERS:
            return f'On {day_text(result.created_at)} the assistant said: “{_words(text, 40)}”' if with_answers else None
        who = "the user" if speaker.lower() in ("", "user") else speaker
        if result.superseded or (not with_questions and is_question(text)):
            return None
        return (f'On {day_text(result.created_at)} {who} said: “{_words(text, 40)}”'
                f"{relative_day(text, result.created_at)}")
    if result.kind in ("session_summary", "thread_summary"):
        return f"Conversation of {day_text(result.created_at)}: {_words(result.snippet, 50)}"
    return f"{result.title}: {_words(result.snippet, 40)}" if result.title else _words(result.snippet, 40)


def asks(result: SearchResult, said: Said | None) -> bool:
    """Whether a gathered turn or message is a question the user asked. Example: a turn whose query was 'Can you
    suggest a good book on beekeeping?' -> True; 'I keep bees.' -> False."""
    if result.kind == "context":
        return said is not None and is_question(said.query)
    return result.kind == "message" and is_question(result.snippet.partition(": ")[2] or result.snippet)


def constraint(result: SearchResult) -> bool:
    """A current fact that any suggestion must respect, kept whatever its score: a diet or an allergy ("Can you
    suggest a quick high-protein dinner?" scored "diet: vegan" far under the pages). Example: a fact titled
    'allergy: shellfish' -> True; 'job: nurse' -> False."""
    return result.kind == "fact" and not result.superseded and result.title.split(":", 1)[0].strip() in CONSTRAINTS


def about_the_user(query: str, personal: bool = False) -> bool:
    """Whether a question is about the user or what was said (their own memory answers it, not the web): by its
    words (conversation_signals.asked_role), or `personal`, the analysis's intent. Example: 'What did I tell you
    about my diet?' -> True; ('What does Leo love?', personal=True) -> True; 'How is body fat measured?' -> False."""
    return personal or asked_role(query) is not None


def about_now(query: str) -> bool:
    """Whether a question asks what holds now: it says so ("now", "currently", …) or asks in the present tense of
    the user ("How many cats do I have?"), with no word of the past ("did", "originally", "when", …)."""
    return bool(_PRESENT.search(query)) or (bool(_ABOUT_NOW.search(query)) and not _ABOUT_THEN.search(query))


def _statement(result: SearchResult, said: Said | None) -> str | None:
    """What the user stated in a gathered turn or message (None for a question, an answer or anything else)."""
    if result.kind == "context":
        return said.query if said is not None and not is_question(said.query) else None
    speaker, _, text = result.snippet.partition(": ")
    if result.kind == "message" and text and speaker.lower() in ("", "user") and not is_question(text):
        return text
    return None


def replaced(gathered: list[SearchResult], said: dict[str, Said | None]) -> set[str]:
    """Ids of the user's statements that a later statement about the same thing marks as changed (pure): for a
    question about now, "I've started weekly lessons with a tutor, so I dropped the app" replaces "I've been learning
    Japanese for about a year, mostly with an app", and "Sadly Tofu died last week" replaces "We have two cats, Miso
    and Tofu" (set G: the 0.5B model answered both from the older line, newest first or not). The same thing: a word
    both say (not one of time or of change). A statement with no change word (_CHANGED: instead, switched, dropped,
    no longer, died, …) replaces nothing: "I also started swimming" leaves "I play tennis". The analysis's topics
    were tried first and dropped: the 0.5B model filed "I commute to work by train" beside the cat that died.
    Facts are not statements here: what they hold is current_facts' to say."""
    statements = [(r, _subject_words(text), text) for r in gathered if (text := _statement(r, said.get(r.id))) is not None]
    gone: set[str] = set()
    for newer, words, text in statements:
        if _CHANGED.search(text):
            gone |= {r.id for r, older, _ in statements if r.created_at < newer.created_at and words & older}
    return gone


def asks_after_the_user(query: str) -> bool:
    """A question about the user or what was said, which only their memory answers (pure). Example: 'Which city do I
    live in?' -> True; 'What did you recommend?' -> True; 'Hi there!' -> False; 'I live in Leeds.' -> False."""
    return is_question(query) and about_the_user(query)


def answer_context(query: str, gathered: list[SearchResult], said: dict[str, Said | None], words: int = 220,
                   personal: bool = False, now: datetime | None = None) -> str:
    """The answer's context: facts and preferences (newest first), then the other items by score (newest first for
    a question about the present), one line each, de-duplicated, at most MAX_LINES, cut to `words`; an item under
    MIN_SHARE of the best score is left out (unscored ones, the open session's last messages, are kept). A question
    that names a time ("on January 12th", "in March", "last week", asked at `now`) gets the items of that time
    first, before the facts, which say what holds now, and the items of other times only when that time has none.
    `said`: the earlier turns' evidence by document id; `personal`: the analysis calls the question personal."""
    with_answers = asked_role(query) == "assistant"
    with_questions = with_answers or bool(_ASKS_WHAT_WAS_ASKED.search(query))
    if about_the_user(query, personal):
        gathered = [r for r in gathered if r.kind in USER_KINDS]
    best = max((r.score for r in gathered), default=0.0)
    gathered = [r for r in gathered if r.score <= 0 or r.score >= MIN_SHARE * best or constraint(r)]
    facts = sorted((r for r in gathered if r.kind in ("fact", "preference")), key=lambda r: r.created_at, reverse=True)
    others = [r for r in gathered if r.kind not in ("fact", "preference")]
    present, current = bool(_PRESENT.search(query)), about_now(query)
    if current:
        gone = replaced(others, said)
        others = [r for r in others if r.id not in gone]
    if present:
        others.sort(key=lambda r: r.created_at, reverse=True)
    else:
        others.sort(key=lambda r: -r.score)
    if with_questions and not with_answers:  # "What did I ask you for on June 20th?": what was asked, first
        others.sort(key=lambda r: not asks(r, said.get(r.id)))
    window = question_window(query, now) if now is not None else None
    if window is not None:
        then = [r for r in others if gap_days(window, Window(r.created_at.date(), r.created_at.date())) == 0]
        ordered = then + facts + ([] if then else others)
    else:
        ordered = facts + others
    lines: list[str] = []
    for result in ordered:
        line = evidence_line(result, said.get(result.id), with_answers, with_questions, current)
        if line and line not in lines:
            lines.append(line)
        if len(lines) == MAX_LINES:
            break
    return truncate_to_words("\n".join(f"- {line}" for line in lines), words) if lines else ""


_DATED = re.compile(r"\((?P<words>[^():]+): (?P<when>\d{1,2}(?:-\d{1,2})? [A-Z][a-z]+(?: - \d{1,2} [A-Z][a-z]+)? \d{4})\)")


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
        match = _DATED.search(line)
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
    return _capitalised(dated) if found.start() == 0 else dated


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def on_day(when: str) -> str:
    """A day or a span of days as an answer says it. Example: '24 January 2026' -> 'on 24 January 2026';
    '6-14 May 2026' -> 'between 6 and 14 May 2026'; '28 March - 6 April 2026' -> 'between 28 March and 6 April 2026'."""
    if "-" not in when:
        return f"on {when}"
    return "between " + re.sub(r"\s*-\s*", " and ", when, count=1)


_LINE = re.compile(r"^- On (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}) (?P<who>.+?) said: “(?P<words>[^”]*)”")
_COPIED = re.compile(r"^(?:On )?(?P<date>\d{1,2} [A-Z][a-z]+,? \d{4})?,?\s*(?P<who>[^\s:,.][^:,.]{0,40}?) said\b")
_ASKS_WHEN = re.compile(r"^\s*(?:when|what (?:date|day|month|year)|on which (?:date|day))\b", re.I)


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
    lines = [m for line in context.splitlines() if (m := _LINE.match(line))]
    date, who = (copied.group("date") or "").replace(",", ""), copied.group("who").strip().lower()
    line = next((m for m in lines if m.group("who").lower() == who and (not date or m.group("date") == date)), None)
    if line is None:
        return None
    if _ASKS_WHEN.match(query):
        relative = _DATED.search(line.string)
        return _capitalised(on_day(relative.group("when") if relative else line.group("date"))) + "."
    return f"{line.group('who')} said: “{line.group('words')}”"


def _words(text: str, limit: int) -> str:
    parts = text.split()
    return " ".join(parts[:limit]) + (" …" if len(parts) > limit else "")


# What a question about the user asks for, and what its answer must then hold (`unanswered`).
_ASKS_NAME = re.compile(r"\b(?:name|named|called)\b|^\s*(?:which|what) (?:[\w-]+ )?(?:station|school|hospital|clinic|"
                        r"company|firm|employer|city|town|village|country|street|university|college|gym|club|team|"
                        r"restaurant|hotel|airport|bank|shop|store|church)\b", re.I)  # a place or a body has a name
_ASKS_WHO = re.compile(r"^\s*who\b", re.I)
# "how much/many/old", "what time …", "what finishing time …" (not "what time of day": "in the evenings" answers it)
_ASKS_AMOUNT = re.compile(r"^\s*(?:how (?:much|many|old)\b|(?:what|which)(?:'s| is| are)?(?: [\w-]+){0,3}? time\b(?! of\b))",
                          re.I)
# The thing a possessive question asks the name of: "my cat's vet" -> 'vet' ("my dog's name" asks the dog's own).
_OWNED = re.compile(r"\b(?:(?:my|our|your|the) (?:[\w-]+ )?[\w-]+|(?!(?:What|Who|Where|When|How|That|It|There|Here)'s)"
                    r"[A-Z][a-z]+)['’]s ([a-z][\w-]*)")
_PERSON = re.compile(r"\b(?:mother|father|mum|mom|dad|parents?|sister|brother|siblings?|wife|husband|partner|spouse|"
                     r"girlfriend|boyfriend|fianc[eé]e?|friends?|sons?|daughters?|kids?|children|boss|colleagues?|"
                     r"co-?workers?|teacher|coach|neighbou?rs?|cousins?|aunt|uncle|grand(?:ma|pa|mother|father|parents)|"
                     r"family|roommates?|flatmates?)\b", re.I)
# What "how much/many" counts: "how many hives" -> 'hives'; "how much do I earn" counts nothing named.
_COUNTED = re.compile(r"^\s*how (?:much|many) (?!(?:do|does|did|is|are|was|were|will|would|have|has|had|can|could|"
                      r"should|i|you|we|they|he|she|it)\b)([a-z][\w-]*)", re.I)
_NUMBER_WORDS = {word: n for n, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                                  "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                                  "twenty".split())}
_NUMBER_WORDS.update({"no": 0, "none": 0, "once": 1, "twice": 2, "dozen": 12, "thirty": 30, "forty": 40, "fifty": 50,
                      "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000})


def amounts(text: str) -> set[str]:
    """The numbers a text gives, in figures. Example: amounts('Three hives, £1,200 and 2 am') -> {'3', '1200', '2'}."""
    found = {m.replace(",", "") for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}
    return found | {str(_NUMBER_WORDS[w]) for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS}


_DAY = re.compile(r"\b\d{1,2}(?:-\d{1,2})? [A-Z][a-z]+ \d{4}\b")  # "20 June 2026", as the lines date what was said


def _lines_about(context: str, stems: set[str]) -> str:
    """The context lines that share a word stem with `stems`."""
    return "\n".join(line for line in context.splitlines() if stems & set(tokenize(line)))


_CALENDAR_WORDS = frozenset(day.lower() for day in (*calendar.month_name, *calendar.day_name) if day)  # 19 words
_NOT_A_NAME = frozenset({"i", "you", "your", "you're", "yours", "he", "she", "it", "we", "they", "the", "a", "an", "my",
                         "our", "their", "his", "her", "this", "that", "there", "from", "on", "in", "no", "yes",
                         "sorry", "noted", "based"} | _CALENDAR_WORDS)  # nor a date's
_WORD = re.compile(r"[\w'’-]+")


def asks_a_name(query: str) -> bool:
    """Whether a question asks who, or for something's name. Example: "What's my partner's name?" -> True; "Who is my
    flatmate?" -> True; "What does my partner do?" -> False."""
    return bool(_ASKS_WHO.match(query) or _ASKS_NAME.search(query))


def unanswered(query: str, answer: str, context: str) -> bool:
    """Whether an answer to a question about the user lacks the kind of thing the question asks for (pure): a name
    ("What's my sister's name?", "What is it called?") needs a capitalised word that is not the question's and that
    a context line holds; "who" needs such a name or a person ("my sister") a line names; "how much/many" needs an
    amount. The small model answers such questions from a line that does not hold the answer (set D: "Who is my
    guitar teacher?" -> "You're learning to play the guitar"); any other question, or an answer that already
    abstains, is left alone.

    Example: ("Who is my guitar teacher?", "You're learning to play the guitar.", "- On 3 March … “I'm learning
    to play the guitar.”") -> True; ("Who is Clover living with?", "Clover lives with your sister.", "… “Clover went
    to live with my sister.”") -> False; ("How much do I earn?", "You earn nothing special.", "…") -> True;
    ("Which ambulance station am I based at?", "You work night shifts as a paramedic.", "…") -> True;
    ("What is my cat's vet called?", "Your cat Pepper's vet is Pepper.", "… “My cat Pepper turned fourteen.”") -> True
    (the name is the cat's: a line about a vet must hold it); ("What finishing time am I aiming for?", "The Berlin
    marathon.", "…") -> True.
    """
    if abstained(answer) or not is_question(query):  # "I adopted a hamster named Biscuit" asks nothing
        return False
    if _ASKS_AMOUNT.match(query):
        counted = _COUNTED.match(query)  # "how many hives": a line must speak of hives
        if counted:
            context = _lines_about(context, set(tokenize(counted.group(1))))
            if not context:
                return True
        given = amounts(answer)  # a small count may be inferred ("it's just Pip now": one rabbit); a larger amount is
        return not given or bool({a for a in given if float(a) >= 10} - amounts(_DAY.sub(" ", context)))  # said
    asks_who = bool(_ASKS_WHO.match(query))
    if not (asks_who or _ASKS_NAME.search(query)):
        return False
    asked = {w.lower() for w in _WORD.findall(query)}
    owned = _OWNED.search(query)
    if owned and owned.group(1) != "name":  # the name must come from a line about that thing, not its owner's
        context = _lines_about(context, set(tokenize(owned.group(1))))
    if asks_who:  # "Who conducts my orchestra?" is not answered by a name from the line about the user's brother
        context = _lines_about(context, set(tokenize(query)))
    lines = set(_WORD.findall(context))
    tokens = _WORD.findall(answer)
    names = [t for i, t in enumerate(tokens) if t[:1].isupper() and t.lower() not in asked
             and t.lower() not in _NOT_A_NAME and t.lower().removesuffix("s") not in _NOT_A_NAME  # nor "Tuesdays"
             and not (i == 0 and t.lower() in STOP_WORDS)]
    if any(name in lines for name in names):
        return False
    if asks_who:
        said = {m.lower() for m in _PERSON.findall(context)}
        return not any(m.lower() in said for m in _PERSON.findall(answer))
    return True


def told_about(query: str, context: str) -> bool:
    """Whether a question names someone or something the user's own lines speak of (pure): "How many guests are
    coming to Mei's wedding?" asks about the user's sister, whom a line names, though it says neither "I" nor "my".
    Example: ("Where does Mei live?", '- On 8 August 2026 the user said: “My sister Mei …”') -> True;
    ("Where does Obama live?", same) -> False."""
    said = set(_WORD.findall(" ".join(m.group("words") for line in context.splitlines() if (m := _LINE.match(line))
                                      and m.group("who") == "the user")))
    return any(name in said for name in names_in(query))


_DATE_WORDS = re.compile(r"\d|\b(?:yesterday|today|tonight|ago|last|this|next|week|weekend|month|year|morning|"
                         r"evening|night|spring|summer|autumn|fall|winter|" + "|".join(sorted(_CALENDAR_WORDS))
                         + r")\b", re.I)


# The past of common irregular verbs, so "When did I get my puppy?" meets "I just got a puppy".
_IRREGULAR = {"got": "get", "gotten": "get", "bought": "buy", "went": "go", "gone": "go", "met": "meet", "took": "take",
              "taken": "take", "made": "make", "began": "begin", "begun": "begin", "ran": "run", "left": "leave",
              "sold": "sell", "told": "tell", "saw": "see", "seen": "see", "came": "come", "gave": "give",
              "given": "give", "found": "find", "won": "win", "lost": "lose", "paid": "pay", "wrote": "write",
              "written": "write", "drove": "drive", "driven": "drive", "flew": "fly", "broke": "break",
              "broken": "break"}


def _word_stems(text: str) -> set[str]:
    """tokenize's stems, an irregular past as its present's. Example: _word_stems('I just got a puppy') -> {'get',
    'puppy'}."""
    return {stem(_IRREGULAR[t]) if t in _IRREGULAR else t for t in tokenize(text)}


# Words that say how or how often, not what: "I play tennis every week" and "I stopped playing the piano every week"
# are about different things.
_GENERAL_WORDS = frozenset(_word_stems("every each often always usually sometimes daily weekly monthly also just still "
                                       "really go going get getting have having make making take taking use using "
                                       "play playing do doing try trying keep keeping start started"))


def _subject_words(text: str) -> set[str]:
    """A statement's word stems, without words of time ("week", "May"), of change or of how often: what it is about."""
    return _word_stems(_CHANGED.sub(" ", _DATE_WORDS.sub(" ", text))) - _GENERAL_WORDS


ABSTENTION_OVERRULED_BY = 2  # words a user line shares with a when-question that was answered "I don't know"
_ASKS_WHEN_DONE = re.compile(r"^\s*when (?:did|was|were|had|have|has)\b", re.I)


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
    our baby due?") an answer repeating a line's time stands.

    Example: ('When did I start training?', 'You dropped to the half marathon.', '- On 5 May 2026 the user said:
    “I've started training.”\n- On 2 June 2026 the user said: “I pulled a hamstring.”') -> 'You told me on 5 May
    2026: “I've started training.”'"""
    if not _ASKS_WHEN.match(query):
        return None
    asked = _word_stems(query)
    best, shared, said = None, 0, []
    for line in context.splitlines():
        match = _LINE.match(line)
        if match is None or match.group("who") != "the user" or is_question(match.group("words")):
            continue
        said.append(match.group("words"))
        overlap = len(asked & _word_stems(match.group("words")))
        if overlap > shared:
            best, shared = match, overlap
    if best is None or (abstained(answer) and shared < ABSTENTION_OVERRULED_BY):
        return None
    times = {w.lower() for w in _DATE_WORDS.findall(answer)}
    repeated = {w.lower() for w in _DATE_WORDS.findall(" ".join(said))} if _ASKS_WHEN_DONE.match(query) else set()
    if times - repeated:
        return None  # a time of the answer's own
    relative = _DATED.search(best.string)
    if relative:
        return f"{_capitalised(on_day(relative.group('when')))} (you said: “{best.group('words')}”)."
    return f"You told me on {best.group('date')}: “{best.group('words')}”"
