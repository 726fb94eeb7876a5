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
its score: a dinner suggestion for a vegan scored "diet: vegan" far below the recipe pages. A question after an earlier
value ("Where did I work before the bank?") gets the statements first and the current facts after them.
Pure except `turn_said`, which reads an earlier turn's metadata.json through the vault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from panda.documents.budgets import truncate_to_words
from panda.documents.model import parse_time
from panda.language.changes import COUNTED, asked_stems, count_change, other_part_asked, reports_change_of, subject_words
from panda.language.text import NAME_START, STOP_WORDS, asks_for_ideas, is_question, word_stems
from panda.language.vocabulary import RELATIVES
from panda.memory.conversation_signals import asked_role
from panda.memory.current_facts import CONSTRAINTS, names_in
from panda.memory.dates import (
    Window,
    coming_window,
    event_window,
    gap_days,
    named_month,
    named_weekday,
    named_weekend,
    question_window,
    relative_words,
)
from panda.memory.search import SearchResult

ASSISTANT_SPEAKERS = ("panda", "assistant")
MAX_LINES = 6
MIN_SHARE = 0.25  # of the best item's score; chosen on set A (benchmarks/answer_sets.py), reported on set B
_PRESENT = re.compile(r"\b(?:now|currently|current|still|anymore|any more|these days|at the moment|nowadays|latest)\b",
                      re.I)
USER_KINDS = frozenset({"fact", "preference", "context", "message", "session_summary", "thread_summary", "memory"})
_ABOUT_NOW = re.compile(r"\b(?:do|does|am|is|are|have|has)\s+(?:I|we|my|our)\b|"  # "How many cats do I have?", and
                        # a thing asked in the present (set AN, held out: "What day is choir practice?" -> "On Wednesday
                        # evenings.", beside "Choir practice moved to Thursday evenings.")
                        r"^\s*(?:what|which|where|who|when)(?:['’]s|(?: [\w'’-]+){0,3}? (?:is|are|do|does)\b)", re.I)
_ABOUT_THEN = re.compile(r"\b(?:did|was|were|had|before|previous|previously|used to|originally|first|ago|ever|"
                         r"last|earlier|old)\b", re.I)
# A question after an earlier value (answer_checks reads it too): "Where did we live before Brighton?", "Where were
# we originally planning to travel?"
ASKS_EARLIER = re.compile(r"\b(?:did|was|were|had)\b.*\b(?:before|previous(?:ly)?|originally|formerly|at first)\b|"
                           r"\bused to\b", re.I)
# A statement that names someone: "My teacher is called Rui.", "My physio is Hannah Okafor."
_NAMES_SOMEONE = re.compile(r"\b(?:called|named)\s+[A-Z]|\b[Mm]y (?:[a-z]+ ){0,2}[a-z]+ (?:is|was) " + NAME_START)
ASKS_WHO = re.compile(r"^\s*who\b", re.I)  # read by answer_checks too
# A change told on the line it changes, as answer_context writes it (answer_changes reads it)
LATER = re.compile(r"; later, on (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}), the user said: “(?P<words>[^”]*)”")
# "Do I still have a boat?", "Am I still on nights?": whether something holds now (answer_changes reads it too)
ASKS_STILL = re.compile(r"^\s*(?:do|does|am|is|are|have|has)\b.*\bstill\b", re.I)
_ASKS_WHAT_WAS_ASKED = re.compile(r"\b(ask|asked|asking|question|questions)\b", re.I)


def day_text(moment: date) -> str:
    """Example: 2026-05-15T08:00Z (or the date 2026-05-15) -> '15 May 2026'."""
    return f"{moment.day} {moment.strftime('%B %Y')}"


def relative_day(text: str, said_at: datetime) -> str:
    """The day a message's relative words point to, or ''. Example: ('I passed it yesterday!', 2026-01-25) ->
    ' (yesterday: 24 January 2026)'; ('I moved last weekend', Fri 2026-05-15) -> ' (last weekend: 9-10 May 2026)'; ('He
    starts next month.', 2026-06-09) -> ' (next month: July 2026)'; ('I got her last month', 2026-06-09) -> ' (last month:
    May 2026)'."""
    words = relative_words(text)
    if words is None:
        if (coming := coming_window(text, said_at)) is None:
            return ""
        words, window, whole_month = coming
        if whole_month:  # "next month": the month, not its days
            return f" ({words.lower()}: {window.start.strftime('%B %Y')})"
    elif month := named_month(words, said_at):  # "last month": the month before
        return f" ({words.lower()}: {month.strftime('%B %Y')})"
    else:
        window = event_window(text, said_at)
    start, end = window.start, window.end
    if one := named_weekday(words, said_at):
        start = end = one
    elif weekend := named_weekend(words, said_at):
        start, end = weekend.start, weekend.end
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
    the user ("How many cats do I have?", "When do we move into the new house?"), with no word of the past ("did",
    "originally", …). "When" is no such word (set O: "When do we move …?" was answered with the moving day since
    changed)."""
    return bool(_PRESENT.search(query)) or (bool(_ABOUT_NOW.search(query)) and not _ABOUT_THEN.search(query))


def _names_theirs(query: str, gathered: list[SearchResult], said: dict[str, Said | None]) -> bool:
    """Whether a question names someone or something a statement of the user's introduces as theirs ("my daughter
    Emi", "a Labrador called Bosco"): a question about them, which the user's lines answer, not the web (set AI, held
    out: "What kind of dog is Bosco?", not called personal by the analysis, was answered from a page on bougainvillea).
    "Paris" in "I moved to Paris" is no one's: "What's Paris like in May?" keeps its pages."""
    told = "\n".join(text for r in gathered if (text := _statement(r, said.get(r.id))))
    if any(re.search(rf"\b(?:called |named |[Mm]y (?:[\w-]+ ){{1,2}}|[Oo]ur (?:[\w-]+ ){{1,2}}){re.escape(name)}\b", told)
           for name in names_in(query)):
        return True
    # "the farmhouse" of "We bought an old farmhouse near Annecy" (set AR, held out: "How many rooms does the
    # farmhouse have?" -> "2 rooms", beside a game wiki's page on a room); not advice ("How do I fix the roof?")
    owned = [thing for thing in _THE_THING.findall(query) if thing.lower() not in STOP_WORDS]
    return not _ASKS_HOW_TO.match(query) and not asks_for_ideas(query) and any(
        re.search(rf"\b{_OWNING}(?:a |an |the )?(?:[\w-]+ ){{0,2}}{re.escape(thing)}s?\b", told, re.I) for thing in owned)


_ASKS_HOW_TO = re.compile(r"^\s*(?:how (?:do|does|can|could|should|would|to)|why|should|can|could|is it)\b", re.I)
_THE_THING = re.compile(r"\bthe ([a-z][\w-]{2,})")  # "the farmhouse"; not "The" opening a title
# how a line introduces a thing as the user's: "my …", "our …", "we bought an …", "I've adopted a …"
_OWNING = r"(?:my|our|bought|got|have|has|own|owns|adopted|rent|rented|built|inherited|booked) "


def _statement(result: SearchResult, said: Said | None) -> str | None:
    """What the user stated in a gathered turn or message (None for a question, an answer or anything else)."""
    if result.kind == "context":
        return said.query if said is not None and not is_question(said.query) else None
    speaker, _, text = result.snippet.partition(": ")
    if result.kind == "message" and text and speaker.lower() in ("", "user") and not is_question(text):
        return text
    return None


def changes(gathered: list[SearchResult], said: dict[str, Said | None]) -> list[tuple[SearchResult, SearchResult]]:
    """(newer, older) pairs where a statement of the user's marks as changed what an earlier statement or a current
    fact or preference says (pure; reports_change_of, a fact read by its value). Example: "Someone stole the Ribble from
    my garage, so I've bought a Canyon instead" of March and "I ride a blue Ribble road bike" of February make one
    pair; so do "We've left Porto and moved into a house with a garden in Braga" and the fact "residence: Porto"
    (set Q: the fact extraction missed the move, and "Which city do we live in now?" was answered from the fact)."""
    statements = [(r, text) for r in gathered if (text := _statement(r, said.get(r.id))) is not None]
    # a tie of kin stands whatever its person does (set AD, held out: "Matias found a place in Santiago and moved out"
    # took "brother: Matias" from "Where does my brother live now?", and the answer was "Not sure")
    earlier = statements + [(r, value) for r in gathered if (value := _fact_value(r)) is not None
                            and r.title.partition(":")[0].strip() not in _KIN]
    return [(newer, r) for newer, text in statements for r, older in earlier
            if r.created_at < newer.created_at and reports_change_of(text, older)]


def _fact_value(result: SearchResult) -> str | None:
    """A current fact's or preference's value, what a later statement may change (pure). Example: 'residence: Porto'
    -> 'Porto'; a superseded fact -> None (current_facts has already replaced it)."""
    if result.kind not in ("fact", "preference") or result.superseded:
        return None
    return result.title.partition(":")[2].strip() or result.title


def replaced(pairs: list[tuple[SearchResult, SearchResult]], said: dict[str, Said | None], query: str = "") -> set[str]:
    """Ids of the user's statements that a later statement about the same thing marks as changed (pure; `pairs`: what
    `changes` found among the gathered items): for a question about now, "I've started weekly lessons with a tutor, so I
    dropped the app" replaces "I've been learning Japanese for about a year, mostly with an app", and "Sadly Tofu died
    last week" replaces "We have two cats, Miso and Tofu" (set G: the 0.5B model answered both from the older line,
    newest first or not). The same thing: a word both say (not one of time or of change). A statement with no change
    word (changes.CHANGED: instead, switched, dropped, no longer, died, …) replaces nothing: "I also started swimming" leaves
    "I play tennis". The analysis's topics were tried first and dropped: the 0.5B model filed "I commute to work by
    train" beside the cat that died. A current fact is the older side of a pair by its value, as a statement is:
    current_facts supersedes what its patterns read, and a change they miss ("We've left Porto and moved into a house
    with a garden in Braga") would leave "residence: Porto" standing. A change
    that updates one part of a statement leaves it for a `query` about another part (changes.other_part_asked; answer_context
    then tells the change on the older statement's line)."""
    asked = asked_stems(query)
    # "Do I still have a cat?": the older line says what the change is of, told with it (set AG, held out: "Liisu died in
    # March" replaced "My cat Liisu is fourteen years old.", and the answer was "You still have a cat.")
    still = bool(ASKS_STILL.match(query))
    # "How many cats do I have now?": a change to the count leaves the count it changes, told with it (set AO, held out:
    # "Sadly one of our cats, Tunde, died in April." replaced "I have three cats.", and the answer was "No cats now.")
    counted = {stem for match in [COUNTED.match(query)] if match for stem in word_stems(match.group(1))}
    return {older.id for newer, older in pairs
            if not (still and asked & subject_words(_text(older, said)) and not asked & subject_words(_text(newer, said)))
            and not (counted and count_change(_text(newer, said), counted) is not None)
            and not other_part_asked(query, _text(newer, said), _text(older, said))}


def _text(result: SearchResult, said: dict[str, Said | None]) -> str:
    return _statement(result, said.get(result.id)) or _fact_value(result) or ""


def asks_after_the_user(query: str) -> bool:
    """A question about the user or what was said, which only their memory answers (pure). Example: 'Which city do I
    live in?' -> True; 'What did you recommend?' -> True; 'Hi there!' -> False; 'I live in Leeds.' -> False."""
    return is_question(query) and about_the_user(query)


def answer_context(query: str, gathered: list[SearchResult], said: dict[str, Said | None], words: int = 220,
                   personal: bool = False, now: datetime | None = None) -> str:
    """The answer's context: facts and preferences (newest first), then the other items by score (newest first for
    a question about the present), one line each, de-duplicated, at most MAX_LINES, cut to `words`; an item under
    MIN_SHARE of the best score is left out (unscored ones, the open session's last messages, are kept; for a question
    asking who, so are the user's statements naming someone). A question
    that names a time ("on January 12th", "in March", "last week", asked at `now`) gets the items of that time
    first, before the facts, which say what holds now, and the items of other times only when that time has none.
    For a question about now, a later statement that changes a kept one comes with it whatever its score; it replaces
    it (`replaced`), or, when the question asks after another part of it, is told on its line ("…; later, on 18 May
    2026, the user said: …").
    `said`: the earlier turns' evidence by document id; `personal`: the analysis calls the question personal."""
    with_answers = asked_role(query) == "assistant"
    with_questions = with_answers or bool(_ASKS_WHAT_WAS_ASKED.search(query))
    if about_the_user(query, personal) or _names_theirs(query, gathered, said):
        gathered = [r for r in gathered if r.kind in USER_KINDS]
    best = max((r.score for r in gathered), default=0.0)
    asks_who = bool(ASKS_WHO.match(query))  # set L: "Who teaches me Portuguese?" scored "My teacher is called Rui."
    present, current = bool(_PRESENT.search(query)), about_now(query)
    earlier = bool(ASKS_EARLIER.search(query)) and not current
    pairs = changes(gathered, said) if current or earlier else []
    kept = [r for r in gathered if r.score <= 0 or r.score >= MIN_SHARE * best or constraint(r)
            or (asks_who and names_someone(r, said.get(r.id)))]
    # A change to a kept statement comes with it, whatever its own score (set P: "Someone stole the Ribble …, so I've
    # bought a Canyon Endurace instead" scored under MIN_SHARE for "Which bike do I ride now?", and the line left was
    # "I ride a blue Ribble road bike")
    kept_ids = {r.id for r in kept}
    if current:
        kept += list({newer.id: newer for newer, older in pairs if older.id in kept_ids and newer.id not in kept_ids}.values())
    else:  # what a kept change changed comes with it for a question about before (set AP, held out: "What was my job
        # before I went freelance?" kept "I left my job in March and now work as a freelance web developer." and not
        # "I'm a software tester in Accra.")
        kept += list({older.id: older for newer, older in pairs if newer.id in kept_ids and older.id not in kept_ids}.values())
    facts = sorted((r for r in kept if r.kind in ("fact", "preference")), key=lambda r: r.created_at, reverse=True)
    others = [r for r in kept if r.kind not in ("fact", "preference")]
    later: dict[str, SearchResult] = {}  # an older statement kept for another part of it -> its latest change
    if current:
        among = {r.id for r in others + facts}  # the pairs `changes` finds among them: found above, not again
        gone = replaced([(n, o) for n, o in pairs if n.id in among and o.id in among], said, query)
        others = [r for r in others if r.id not in gone]
        facts = [r for r in facts if r.id not in gone]
        # told on the older line when that line is kept (set AE, held out: a change told on a line left out was lost)
        for newer, older in sorted(pairs, key=lambda pair: pair[0].created_at):
            if older.id in among and older.id not in gone \
                    and evidence_line(older, said.get(older.id), with_answers, with_questions, current):
                later[older.id] = newer
    told_with = {newer.id for newer in later.values()}  # told on the older statement's line, not on its own
    if asks_for_ideas(query) and not with_questions:  # not "Which podcast did you recommend?"
        facts, others = _for_ideas(query, facts, others, said)
    if present:
        others.sort(key=lambda r: r.created_at, reverse=True)
    else:
        others.sort(key=lambda r: -r.score)
    if with_questions and not with_answers:  # "What did I ask you for on June 20th?": what was asked, first
        others.sort(key=lambda r: not asks(r, said.get(r.id)))
    window = question_window(query, now) if now is not None else None
    if window is not None:
        # that time's items that make a line: the session's own questions of that month make none (set AY, held out:
        # "Who is visiting in August?", asked in August, lost "My cousin Efua is visiting from Accra in August." of May)
        then = [r for r in others if gap_days(window, Window(r.created_at.date(), r.created_at.date())) == 0
                and evidence_line(r, said.get(r.id), with_answers, with_questions, current)]
        ordered = then + facts + ([] if then else others)
    elif ASKS_EARLIER.search(query) and not current:  # set Q: "Where did I work before the bank?" had "employer: Banco
        ordered = others + facts  # Atlântico" as its first line and was answered with it; what holds now comes last
    else:
        ordered = facts + others
    lines: list[str] = []
    for result in ordered:
        if result.id in told_with:
            continue
        line = evidence_line(result, said.get(result.id), with_answers, with_questions, current)
        if line and (change := later.get(result.id)) is not None:  # set P: both lines apart, the older was answered
            line += f"; later, on {day_text(change.created_at)}, the user said: “{_words(_text(change, said), 40)}”"  # LATER
        if line and line not in lines:
            lines.append(line)
        if len(lines) == MAX_LINES:
            break
    return truncate_to_words("\n".join(f"- {line}" for line in lines), words) if lines else ""


def names_someone(result: SearchResult, said: Said | None) -> bool:
    """Whether a gathered item is the user's statement naming someone, kept for any question asking who whatever its
    score: "Who teaches me Portuguese?" shares no word with "My teacher is called Rui." (pure)."""
    text = _statement(result, said)
    return text is not None and bool(_NAMES_SOMEONE.search(text))


def _words(text: str, limit: int) -> str:
    parts = text.split()
    return " ".join(parts[:limit]) + (" …" if len(parts) > limit else "")


_KIN = frozenset(RELATIVES) - {"boss", "flatmate", "roommate"}  # ties no change of a person's ends (`changes`)


# What a user's line says of their tastes, which any suggestion should fit
_TASTE = re.compile(r"\b(?:love|loves|like|likes|enjoy|enjoys|prefer|prefers|favou?rite|hate|hates|can['’]?t stand|"
                    r"(?:don['’]?t|do not|never) (?:eat|drink|like)|avoid|avoiding|allergic|allergy|intolerant|vegan|"
                    r"vegetarian|diet|coeliac|celiac|keep clear|off the menu)\b", re.I)
_ASKING_FOR = frozenset(word_stems("suggest suggestion recommend recommendation idea ideas tip tips advice good"))


def _for_ideas(query: str, facts: list[SearchResult], others: list[SearchResult],
               said: dict[str, Said | None]) -> tuple[list[SearchResult], list[SearchResult]]:
    """The lines kept for a request for ideas (pure): the user's diets, allergies, preferences and residence, what
    they say of their tastes, what of theirs shares a word with the request, and the pages and notes found for it.
    Set AC, held out: "Can you recommend a warm drink for the evening?" beside "avoids: caffeine" was answered
    "Ingeborg got into medical school in Oslo." (a line about the user's daughter), and a dessert for a lactose-
    intolerant sommelier with "a milk and cream bar in San Salvario"."""
    wanted = subject_words(query) - _ASKING_FOR

    def about(text: str) -> bool:
        return bool(wanted & subject_words(text))

    kept_facts = [r for r in facts if constraint(r) or r.kind == "preference" or about(r.title)
                  or r.title.partition(":")[0].strip() == "residence"]  # where they are: "a day hike near …"
    kept = [r for r in others if r.kind not in USER_KINDS  # a page or note found for the request itself
            or about(text := _statement(r, said.get(r.id)) or r.snippet) or _TASTE.search(text)]
    return kept_facts, kept
