"""An answer about what holds now that still says the value the user has since changed, or offers it as an alternative,
mended (pure): synthesize's guard superseded_value_unsaid. Split from answer_checks.py, which reads what an answer
lacks; this one takes out what it should no longer say.
"""

from __future__ import annotations

import re
from datetime import datetime

from panda.language.changes import CALENDAR_WORDS, CHANGED, COUNTED, ENDED, GENERAL_WORDS, count_change, count_of
from panda.language.metrics import abstained
from panda.language.text import DENIES, NAME, STOP_WORDS, amounts, second_person, word_stems, written_words
from panda.language.vocabulary import kind_named
from panda.pipeline.answer_checks import asks_a_name
from panda.pipeline.answer_dates import ASKS_CHANGE, QUOTED, day_of, user_statements
from panda.pipeline.evidence import ASKS_STILL, LATER, about_now
from panda.pipeline.said_words import same_word

_DAY = re.compile(r"\d{1,2} [A-Z][a-z]+ \d{4}")

# "pushed back from April to September", "switched my lessons from cello to viola": a change's verb, up to three words,
# then "from <the old value> to <the new>"
# the model's present said of a past change too (set AT, held out: "You switch from the night shift to early mornings.")
_CHANGED_FROM = re.compile(r"\b(?P<verb>(?:pushed|brought|put|moved|switched|changed|swapped|shifted|rescheduled|"
                           r"postponed|upgraded|downgraded|transferred|gone|went|cut|reduced|increased|dropped|raised|"
                           r"lowered|switch|switches|change|changes|move|moves|shift|shifts)"
                           r"(?: (?:back|forward|up|down|over))?(?: [\w'’-]+){0,3}?) from [^,.;!?]+? "
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
    pottery class after four weeks; I'm doing ikebana on Thursday evenings instead." -> "I'm doing ikebana …"); so does a
    swap (set U: "… the electric Renault Zoe, as you swapped your old Fiat for one …" -> "… the electric Renault Zoe."),
    and someone gone (set AI: "Marta moved out in April, so it's just Ola and you now." -> "It's just Ola and you now.")."""
    if not about_now(query) or ASKS_CHANGE.search(query):
        return None
    mended = _INSTEAD_OF.sub("", _CHANGED_FROM.sub(lambda m: f"{m.group('verb')} {m.group('to')} ", answer))
    mended = _STOPPED.sub(lambda m: f"{m.group('who')} " if "and" in m.group("then") else "", mended)
    mended = _SWAPPED_FOR.sub("switched to ", _BECAUSE_SWAPPED.sub("", _GONE.sub("", mended)))
    return mended[:1].upper() + mended[1:] if mended != answer else None


# set U: "It's currently the electric Renault Zoe, as you swapped your old Fiat for one on 9 March 2026.": the reason
# goes after the value; "You swapped your old Fiat for an electric Renault Zoe." says "switched to" the new
_BECAUSE_SWAPPED = re.compile(r",? (?:as|since|because|after) (?:you|I|we)(?:'ve| have)? (?:swapped|traded|exchanged|"
                              r"replaced|switched|sold|changed)\b[^.;!?]*", re.I)
_SWAPPED_FOR = re.compile(r"\b(?:swapped|traded|exchanged)(?: in)? (?:[\w'’-]+ ){1,4}?for (?=\S)", re.I)
# "I stopped the pottery class after four weeks; I'm doing ikebana …" (set T), "You quit Menya Kaze and opened …": what
# was given up, when a clause about the new follows
# and what one can no longer do (set BE, held out: "What water sport do I do now?" -> "You surf on Sunday mornings.",
# beside "… I can't surf, so I've taken up stand-up paddleboarding.") or has finished (set BG, held out: "You are
# learning Spanish now." beside "I finished Spanish and started Korean lessons instead.")
_ENDED_VERB = (r"stopped|quit|gave up|given up|left|sold|dropped|cancelled|canceled|resigned from|pulled out of|withdrew from|"
               r"can't|cannot|can no longer|finished|"
               r"had to (?:cancel|call off|drop|give up|sell|leave|quit|stop|pull out of|withdraw from)|"
               r"handed in (?:my|your|our|his|her|their) notice (?:at|to)")
# someone named too (set AP, held out: "What does Abebe run now?" -> "Abebe sold the coffee farm in April and opened a
# café in Jimma.")
_STOPPED = re.compile(rf"\b(?P<who>I|[Yy]ou|[Ww]e|{NAME})(?:'ve| have|'s| has)? (?:{_ENDED_VERB}) [^,.;!?]+?"
                      r"(?P<then>,? and (?:then |now )?|; |, so |\. )(?=\S)")


# someone gone, when what holds now follows (set AI, held out: "Who do I share my flat with now?" -> "Marta moved out in
# April, so it's just Ola and you now.")
_GONE = re.compile(r"\b" + NAME + r" (?:moved out|left|died|passed away)\b[^,.;!?]*?(?:, so |; |\. )(?=\S)")


_EITHER = re.compile(r"(?P<left>[^,.;!?]+?) or (?P<right>[^,.;!?]+)")
_MARKED = re.compile(r"\b(?:[A-Z][\w'’-]*|[\w-]*\d[\w-]*)")  # what tells one value from another: "Boeing", "A320"


def older_alternative_dropped(query: str, answer: str, context: str) -> str | None:
    """An answer about what holds now that offers the value the user has since replaced as an alternative, kept to the
    newer (pure): set U's "Which plane am I flying these days?" -> "You are flying on a Boeing 787 or an Airbus A320
    from Amman.", beside "I'm a pilot; I fly Airbus A320s out of Amman." of January and "Since 1 April I've been flying
    long-haul on the Boeing 787." of April. Each side of the "or" is read by its marked words (capitalised or with a
    figure, the question's own aside); each must be said only by user lines of one day, the two days apart. None
    otherwise, and for a question about the change itself.

    Example: that answer -> 'You are flying on a Boeing 787.'; "You fly an Airbus A320 or a Boeing 787." -> 'You fly a
    Boeing 787.'"""
    either = _EITHER.search(answer)
    if either is None or not about_now(query) or ASKS_CHANGE.search(query):
        return None
    asked = {w.lower() for w in written_words(query)}
    lines = [(day_of(m), set(written_words(m.group("words"))))
             for m in user_statements(context) if _DAY.fullmatch(m.group("date"))]

    def said_on(side: str) -> tuple[set[datetime], int | None]:
        marked = [m for m in _MARKED.finditer(side) if m.group().lower() not in asked | STOP_WORDS]
        days = {day for day, words in lines for m in marked if m.group().rstrip("s") in {w.rstrip("s") for w in words}}
        return days, marked[0].start() if marked else None

    (left_days, left_at), (right_days, _) = said_on(either["left"]), said_on(either["right"])
    if len(left_days) != 1 or len(right_days) != 1 or left_days == right_days or left_at is None:
        return None
    if left_days.pop() > right_days.pop():  # the newer first: the older alternative goes
        mended = answer[:either.end("left")] + answer[either.end("right"):]
    else:  # the older first: the newer takes its place, after what the sentence says before it ("You fly ")
        start = either.start("left") + left_at
        article = re.search(r"\b(?:an?|the)\s+$", answer[:start])
        start = article.start() if article else start
        mended = answer[:start] + either["right"] + answer[either.end("right"):]
    return mended


# a change as a user's line says it, its old value and its new: "swapped my evening yoga class for climbing", "moved my
# lessons from cello to viola", "climbing instead of yoga"
_OLD_NEW = (re.compile(r"\b(?:swapped|traded|exchanged|replaced)(?: in)? (?P<old>(?:[\w'’-]+ ){0,4}?[\w'’-]+) (?:for|with) "
                       r"(?P<new>[^,.;!?]+)", re.I),
            re.compile(r"\b(?:moved|switched|changed|swapped|shifted|transferred|upgraded|downgraded|gone|went|pushed|"
                       r"brought|put|rescheduled|postponed)(?: [\w'’-]+){0,3}? from (?P<old>[^,.;!?]+?) (?:to|into) "
                       r"(?P<new>[^,.;!?]+)", re.I),
            re.compile(r"(?P<new>[^,.;!?]+?),? (?:instead of|rather than) (?P<old>[^,.;!?]+)", re.I),
            # set AC: "I handed in my notice at the restaurant and opened my own little wine bar in San Salvario."
            re.compile(rf"\b(?:{_ENDED_VERB}) (?P<old>[^,.;!?]+?)(?:,? and (?:then |now )?|; |, so (?:now )?)"
                       r"(?P<new>[^,.;!?]+)", re.I))


# a change's old value that is a time only ("Sundays", "Monday evenings"), and a question asking after one
_WHEN_ONLY = re.compile(rf"(?i:(?:on |the )?(?:{'|'.join(sorted(CALENDAR_WORDS))}|morning|afternoon|evening|night|weekend)s?"
                        r"(?: (?:and|or) |,? ?)?)+(?: (?:morning|afternoon|evening|night)s?)?")
_ASKS_WHEN_OR_TIME = re.compile(r"\b(?:when|day|days|time|times|how often|morning|afternoon|evening|night|weekends?)\b",
                                re.I)


def stale_value_said(query: str, answer: str, context: str) -> str | None:
    """An answer about what holds now that says the old value of a change a user's line tells, and not the new one,
    gets that line said back, the change's new value only (pure): set V's "What do I do in the evenings these days?" ->
    "You do yoga twice a week …", beside "I've swapped my evening yoga class for climbing twice a week." (the only line
    about it). The line shares a word with the question, or the old value is a name the answer says; the old value: its
    words, the question's aside; the new: its first word. None otherwise.

    Example: that answer -> "You told me on 10 April 2026 that you've switched to climbing twice a week."."""
    if not about_now(query) or ASKS_CHANGE.search(query) or abstained(answer):
        return None
    said, asked = word_stems(answer), word_stems(query)

    def about_it(words: str) -> bool:  # a word of the question's, however it is stemmed ("evening", "evenings")
        return any(same_word(a, w) for a in asked for w in word_stems(words) if min(len(a), len(w)) > 3)

    # each line, and a change told on one ("…”; later, on …: “…”", evidence.answer_context) with the line it changes
    hosts = user_statements(context)
    stems = [word_stems(host.group("words")) for host in hosts]  # each line's, once
    for at, line in [(at, told) for at, host in enumerate(hosts) for told in (host, *LATER.finditer(host.string))]:
        # or one of the kind it asks named (set BE, held out: "What water sport do I do now?" beside "… I can't surf")
        about = about_it(line.group("words")) or about_it(hosts[at].group("words")) \
            or bool(kind_named(asked, line.group("words")))
        # set AC: "Where do I work now?" -> "You work at the restaurant now.", from the one line that says it was left
        elsewhere = set().union(*(other for i, other in enumerate(stems) if i != at))
        for pattern in _OLD_NEW:
            for change in pattern.finditer(line.group("words")):
                old = word_stems(change["old"]) - asked  # set AI, held out: "from the marathon to the half marathon"
                old = old - word_stems(change["new"]) or old  # is left by "the Victoria Falls marathon" without "half"
                if _WHEN_ONLY.fullmatch(change["old"].strip()) and not _ASKS_WHEN_OR_TIME.search(query):
                    continue  # a day moved is no answer's stale value unless the question asks when (set AR, held out:
                    # "What kind of choir do I sing in?" -> "… a gospel choir on Sundays." became the line moving its
                    # practice from Sundays to Friday evenings)
                new = [w for w in written_words(change["new"]) if word_stems(w) - asked]
                # set W: "How am I learning French these days?" -> "… through Duolingo now." beside "I switched from
                # Duolingo to evening classes at the Alliance Française." (no word of the question's: a name ties them)
                named = any(w[:1].isupper() and word_stems(w) & said for w in written_words(change["old"]))
                if old & said and new and not word_stems(new[0]) & said and (about or named or old & said - elsewhere):
                    return _told_new(query, line)
    return None


def told_now(query: str, told: str) -> str | None:
    """A user's line quoted for a question about what holds now (answer_checks.told_line), said back with the change's
    new value only, when the line tells a change (pure; superseded_unsaid): set V's "What do I do in the evenings these
    days?" got "You told me on 10 April 2026: “I've swapped my evening yoga class for climbing twice a week.”", which
    says the yoga given up. None when the line tells no change, or the question asks about then.

    Example: that question and quote -> "You told me on 10 April 2026 that you've switched to climbing twice a week."."""
    quote = QUOTED.match(told)
    mended = superseded_unsaid(query, quote["words"]) if quote else None
    return f"You told me on {quote['date']} that {_clause(mended)}." if quote and mended else None


_CLAUSES = re.compile(r",|;| and | so | but | because ")


def _clause_at(words: str, at: int) -> str:
    """The clause of `words` that holds the character at `at` (pure). Example: ('I sold my van and bought a pickup',
    2) -> 'I sold my van'."""
    starts = [0] + [m.end() for m in _CLAUSES.finditer(words) if m.end() <= at]
    end = next((m.start() for m in _CLAUSES.finditer(words) if m.start() > at), len(words))
    return words[starts[-1]:end]


_YES_NO = re.compile(r"^\s*(?:do|does|am|is|are|have|has)\b", re.I)
_HOW_MANY = re.compile(r"^\s*how (?:many|much)\b", re.I)


def still_ended(query: str, answer: str, context: str) -> str | None:
    """A question about what holds now answered as if it held, where the latest user line about it ends it
    (changes.ENDED: sold, left, quit, died, pulled out of, …): that line in the second person, after "No - " for a
    yes-no question and "None - " for how many or how much (pure). Set AF, held out: "Do I still have a boat?" -> "You
    still have a boat.", beside "I sold the boat in March, I wasn't using it enough." (the only line about a boat), or
    "Not enough information" (set AO, held out: "Does Ondrej still play in the brass band?" beside "Ondrej quit the brass
    band in March."); set
    AG: "Do I still have a cat?" beside "My cat Liisu is fourteen years old.; later, on 22 March 2026, the user said:
    “Liisu died in March …”"; set AH: "How many cups of coffee do I drink a day now?" -> "You drink a lot of coffee a
    day now.", beside "I quit coffee completely last month.". None when the answer denies or abstains (but to "still"),
    or says a word of that line besides the question's (what the line goes on to: "I left the bank and joined a
    startup" answered "At the startup"), when no line is about it, or the latest ends nothing.

    Example: that boat -> "No - you told me on 25 March 2026 that you sold the boat in March, you weren't using it
    enough."."""
    still = bool(ASKS_STILL.match(query))  # "Does Ondrej still play …?" -> "Not enough information" (set AO, held out)
    unknown = still and abstained(answer)
    if not (still or about_now(query)) or (not unknown and (abstained(answer) or DENIES.search(answer))):
        return None
    if not still and asks_a_name(query):  # a name never said is not told by an ending (set AQ, held out: "What's the
        return None  # name of Lina's bakery?" -> "… Lina sold the bakery in March …")
    asked = word_stems(query) - GENERAL_WORDS - word_stems("still")
    # each line about it, or the change told on its line ("My cat Liisu is fourteen …; later, on …: “Liisu died …”")
    about = [later or line for line in user_statements(context) if word_stems(line.group("words")) & asked
             for later in [LATER.search(line.string)]]
    if not about:
        return None
    latest = max(about, key=day_of)  # the first of a day's
    # or what another thing is done instead of (set BJ, held out: "Do I still run every morning?" -> "You still run
    # every morning.", beside "I hurt my ankle, so I swim instead of running now.")
    ending = ENDED.search(latest.group("words")) or next((m for m in _DONE_INSTEAD.finditer(latest.group("words"))
                                                          if word_stems(m["old"]) & asked), None)
    # what ends is what was asked: its clause says a word of it, or the line is a change told on the line saying it
    # (set AI, held out: "What colour is my pickup?" is not asked of "I sold my van" in "… and bought an electric pickup")
    if not ending or (latest.re is not LATER and not word_stems(_clause_at(latest.group("words"), ending.start())) & asked):
        return None
    if not still and word_stems(answer) & word_stems(latest.group("words")) - asked:
        return None
    told = f"you told me on {latest.group('date')} that {_clause(latest.group('words'))}."
    if _YES_NO.match(query):
        return f"No - {told}"
    return f"None - {told}" if _HOW_MANY.match(query) else told[0].upper() + told[1:]


_DONE_INSTEAD = re.compile(r"\b(?:instead of|rather than) (?P<old>[^,.;!?]+)", re.I)
_COUNT_NAMES = "none one two three four five six seven eight nine ten eleven twelve".split()


def count_now(query: str, answer: str, context: str) -> str | None:
    """How many of a thing there are now, worked out from the user's latest line saying a count and the changes to it
    told after it (changes.count_of, count_change), for an answer that does not give it (pure): "<count> - you told me on
    <day> that <the last change, in the second person>.". Set AO, held out: "How many cats do I have now?" -> "No cats
    now." beside "I have three cats." and, later, "Sadly one of our cats, Tunde, died in April.". None for a question
    about before ("How many cats did I have?"), with no count said or no change after it, or answered with the count.

    Example: that question and those lines -> "Two - you told me on 5 May 2026 that sadly one of your cats, Tunde,
    died in April."."""
    counted = COUNTED.match(query)
    if not counted or not about_now(query):
        return None
    thing = word_stems(counted.group(1))
    said = sorted(((day_of(m), m.group("date"), m.group("words"))
                   for line in user_statements(context) for m in (line, *LATER.finditer(line.string))),
                  key=lambda told: told[0])
    counts = [(when, n, day, words) for when, day, words in said if (n := count_of(words, thing)) is not None]
    if not counts:
        return None
    since, count, _, _ = counts[-1]
    changes = [(day, words, change) for when, day, words in said
               if when > since and (change := count_change(words, thing)) is not None]
    count += sum(change for _, _, change in changes)
    if not changes and len(counts) > 1 and counts[-2][1] != count:  # a count said anew ("We adopted a third cat", set
        changes = [(counts[-1][2], counts[-1][3], 0)]  # BC, held out)
    if not changes or count < 0 or amounts(answer) == {str(count)}:
        return None
    day, words, _ = changes[-1]
    figure = _COUNT_NAMES[count].capitalize() if count < len(_COUNT_NAMES) else str(count)
    return f"{figure} - you told me on {day} that {_clause(words)}."


def _clause(line: str) -> str:
    """A user's line after "you told me that": in the second person, its first word lowered unless a name or "I"
    ("Sadly one of our cats died." -> 'sadly one of your cats died'; "After my knee surgery I …" -> 'after your knee
    surgery you …'; "Ondrej quit …" keeps Ondrej) (pure)."""
    said = second_person(line).rstrip(".!")
    first = said.split(" ", 1)[0].lower()
    return said[:1].lower() + said[1:] if first in STOP_WORDS or first in _OPENERS or first.endswith("ly") else said


_OPENERS = frozenset("after before since because once last yesterday today tonight recently".split())



def denied_only(query: str, answer: str, context: str) -> str | None:
    """A question about what holds now (not a yes-no one) answered with only what no longer holds, taken from a user's
    line that goes on to say what does: that line, as told (pure). Set BB, held out: "How do I commute now?" -> "You
    don't take the train anymore.", beside "I bought a scooter, so I don't take the train anymore." None when the
    answer denies nothing or abstains, or no line that denies too holds each of its words and more.

    Example: that question, answer and line said on 21 April 2026 -> "You told me on 21 April 2026 that you bought a
    scooter, so you don't take the train anymore."."""
    if not about_now(query) or _YES_NO.match(query) or abstained(answer) or not DENIES.search(answer):
        return None
    own = word_stems(answer) - word_stems(query) - STOP_WORDS
    lines = list(user_statements(context))
    for line in lines:
        said = word_stems(line.group("words"))
        if own and own <= said and DENIES.search(line.group("words")) and said - own - word_stems(query) - STOP_WORDS:
            return f"You told me on {line.group('date')} that {_clause(line.group('words'))}."
    # a denial in words no line says, beside the one line telling a change (set BF, held out: "What do I do on weekends
    # now?" -> "You can't do anything on weekends now.", beside "I broke my wrist, so I've switched from skiing to
    # hiking for now."): that line, the old value taken out
    changes = [line for line in lines if CHANGED.search(line.group("words"))]
    if own and len(changes) == 1 and not any(own & word_stems(line.group("words")) for line in lines):
        return _told_new(query, changes[0])
    return None


def repeated_before_change(query: str, answer: str, context: str) -> str | None:
    """An answer about what holds now that says back an older line of the user's, where a later line about the same
    thing tells it changed: the latest such line, the old value taken out (pure). Set BF, held out: "When do I play squash
    now?" -> "You play squash on Tuesday evenings." beside "I moved squash to Friday mornings because of a new evening
    class." (told later); set BG: "How often do I volunteer at the shelter now?" -> "You volunteer at a dog shelter on
    Saturday mornings now." beside "I've cut my shelter volunteering back to one Saturday a month.". The answer's own
    words (the question's aside) are all the older line's and not all the later one's, and the two lines share a word
    of the question's that is no day's nor a general one ("squash", not "Sundays"). None otherwise, and for a question
    about the change itself.

    Example: the squash answer -> "You told me on 7 July 2026 that you moved squash to Friday mornings because of a new
    evening class."."""
    if not about_now(query) or ASKS_CHANGE.search(query) or abstained(answer):
        return None
    asked = word_stems(query)
    own = word_stems(answer) - asked - STOP_WORDS - _YOU
    topic = asked - GENERAL_WORDS - STOP_WORDS - word_stems(" ".join(CALENDAR_WORDS))
    if not own or not topic:
        return None
    lines = [*user_statements(context), *LATER.finditer(context)]

    def stems(line: re.Match[str]) -> set[str]:
        return word_stems(line.group("words")) | word_stems(second_person(line.group("words")))

    def on(word: str, said: set[str]) -> bool:
        return any(same_word(word, w) for w in said)

    said_before = [line for line in lines if own <= stems(line)]
    changes = [new for new in lines if CHANGED.search(new.group("words")) and not own <= stems(new)
               and any(day_of(old) < day_of(new) and any(on(t, stems(old)) and on(t, stems(new)) for t in topic)
                       for old in said_before)]
    if not changes:
        return None
    return _told_new(query, max(changes, key=day_of))


def _told_new(query: str, line: re.Match[str]) -> str:
    """A user's line telling a change, said back after "You told me on <day> that", the old value taken out (pure)."""
    words = superseded_unsaid(query, line.group("words")) or line.group("words")
    return f"You told me on {line.group('date')} that {_clause(words)}."


_YOU = frozenset(word_stems("you your you're yours yourself"))
