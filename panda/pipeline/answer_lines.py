"""An answer that says one of the user's lines again (pure), read by validate's guards: the line alone, and nothing of
the answer's own (stated_line_approved), or a line the question shares no word with, when another does
(unrelated_line_revised). Split from answer_checks.py, which reads what an answer lacks, and shares its reading of the
question's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from panda.language.changes import ASKS_WHERE, CHANGED, ENDED, FROM_TO, reports_change_of, subject_words
from panda.language.metrics import abstained
from panda.language.text import DENIES, NAME, STOP_WORDS, asked_part, is_question, second_person, word_stems, written_words
from panda.language.vocabulary import member_stems, members_of
from panda.pipeline.answer_dates import DATED, day_of, quoted, user_statements
from panda.pipeline.answer_names import NOT_A_NAME
from panda.pipeline.evidence import ASKS_EARLIER
from panda.pipeline.said_words import ASKS_WHY, asked_words, reason_unsaid, said_stems, said_word, same_word, says_which

_TOLD_FRAME = re.compile(r"^You told me on [^:]{6,30}:\s*")  # quoted's frame: the line itself follows
# how answer_dates.on_day says a span of days (set AN, held out: "Which town do I work in?" -> "We sold Yaw to a
# neighbour last month.", dated "… between 9 March and 3 April 2026.", was not read as that line said again)
_SPAN_SAID = frozenset(word_stems("between"))


def stated_line(query: str, answer: str, context: str) -> str | None:
    """The user's line an answer says again, and nothing else (pure): every word of the answer that is not the
    question's is in one statement of the user's that shares a word with the question, with no denial. The 0.5B
    validator sent back the 1.5B model's "They are afraid of thunderstorms." for "What is Pepper afraid of?" beside
    "Pepper is scared of thunderstorms." (set L), and the model's next answer was "I don't know"; it FAILed the user's
    own line quoted with its day. None for an answer with a word of its own, or a line sharing nothing with the
    question ("Our next concert is on 14 June." for "Which instrument do I play now?").

    Example: ("What is Pepper afraid of?", "They are afraid of thunderstorms.", '- On 10 March 2026 the user said:
    “Pepper is scared of thunderstorms.”') -> 'Pepper is scared of thunderstorms.'; the line said back in the second
    person is the line (set AF: "You hurt your back lifting timber, so you're off work for three weeks." was FAILed)."""
    if not is_question(query) or abstained(answer) or DENIES.search(answer):
        return None
    asked = asked_words(query)
    own = {w for w in word_stems(_TOLD_FRAME.sub("", answer)) if not any(same_word(w, a) for a in asked)}
    if not own:
        return None
    for match in user_statements(context):
        said = word_stems(match.group("words")) | word_stems(second_person(match.group("words")))  # "I'm" said "you're"
        about = said | said_stems(match.group("words"), query)  # set AG: "I'm a social worker …" says a job
        if any(same_word(a, w) for a in asked for w in about) and all(said_word(w, said) for w in own):
            return match.group("words")
    return None


# "What breed is Koukla?", "What position does Cian play?", "Which motorbike do I want?": one of a kind, asked by the
# kind's word (not a time, a day or a name, which answer_checks and answer_dates read)
_ASKS_ONE_OF = re.compile(r"^\s*(?:what|which) (?:kind of |type of |sort of |make of |model of )?(?:(?P<qual>[a-z]+) )?"
                          r"(?P<kind>[a-z]+) "
                          r"(?:is|are|was|were|do|does|did|am|has|have|will|would)\b", re.I)
_NOT_A_KIND = frozenset(word_stems("time day date month year week hour age size number name else"))


def kind_unsaid(query: str, answer: str, context: str) -> bool:
    """Whether a question asking which one of a kind a user's thing is was answered with a line of theirs said again
    that does not say it (pure): set AR, held out, "What breed is Koukla?" -> "You adopted another dog, a puppy called
    Koukla, in April.", "What position does Cian play?" -> "Cian plays hurling on Saturday." and "What motorbike do I
    want?" -> "You have now saved 20,000 rand for the motorbike." were approved, and none was ever said. No line of
    the user's may name a member of the kind (vocabulary.KINDS_SAID: a breed, a position) nor say its word with a word
    of its own before it ("a Honda motorbike", "our church choir") or a name after it ("a dog called Rex"), and the
    answer names no one; a kind with no known members that no line says is the model's to answer.

    Example: ("What breed is Koukla?", "You adopted a puppy called Koukla.", '- On 4 May 2026 the user said: “We adopted
    a puppy called Koukla.”') -> True; the line "We adopted a beagle puppy called Koukla." -> False."""
    asked = _ASKS_ONE_OF.match(asked_part(query))
    kind = word_stems(asked["kind"]) if asked else set()
    if not kind or kind & (_NOT_A_KIND | STOP_WORDS) or abstained(answer) or stated_line(query, answer, context) is None:
        return False
    members = members_of(kind)
    lines = [m.group("words") for m in user_statements(context)]
    said = [line for line in lines if any(same_word(k, w) for k in kind for w in word_stems(line))]
    if not members and not said:
        return False
    in_query = {w.lower() for w in written_words(query)}
    if any(t[:1].isupper() and t.lower() not in in_query | NOT_A_NAME for t in written_words(answer)[1:]):
        return False  # "I drive a Tesla": a name says which
    # "What evening class am I taking?" (set BF, held out)
    qualified = frozenset(word_stems((asked["qual"] if asked else "") or ""))
    return not any(member_stems(line) & members or says_which(line, kind, qualified) for line in lines)


_FIRST_PERSON = re.compile(r"(?<![\w'’])(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]yself)(?![\w'’])")


def in_second_person(query: str, answer: str, context: str) -> str | None:
    """An answer that says a user's line back in the user's own voice, turned to theirs (pure): set AC's "What am I
    learning to bake?" -> "I'm learning to bake Persian pastries from my grandmother's recipes.", and "Which race am I
    training for?" -> "You hurt your knee, so I've dropped down to the half marathon instead." Every word of the answer
    that is not the question's is in one of the user's statements, so its "I" is the user. None otherwise ("I don't
    know", "I think you mean the bakery").

    Example: ("What am I learning?", "I'm learning accordion.", '- On 14 March 2026 the user said: “I've been taking
    accordion lessons.”') -> "You're learning accordion."."""
    if not is_question(query) or abstained(answer) or not _FIRST_PERSON.search(answer):
        return None
    asked = asked_words(query)
    own = {w for w in word_stems(answer) if not any(same_word(w, a) for a in asked)}
    if any(all(said_word(w, word_stems(m.group("words"))) for w in own) for m in user_statements(context)):
        turned = second_person(answer)
        return turned[:1].upper() + turned[1:]
    return None


# the words an answer said back turns round ("I teach piano" -> "You teach piano")
_PERSON_SWAP = frozenset(word_stems("you your yours you're yourself we us our i my me mine"))


def unrelated_line(query: str, answer: str, context: str) -> str | None:
    """The user's line a question is about, when the answer says again another of their lines that shares no word with
    the question (pure): set Q's "Where are we going in July?" beside "We cancelled Hokkaido and booked a week in
    Okinawa instead, from 20 to 27 July." and "I teach piano from home in Osaka, mostly to children." was answered with
    the second, word for word. The line returned is the one sharing most words with the question (days and months
    count: "July" is what the question asks after); None when the answer says anything of its own, or repeats a line
    the question shares a word with, or no line shares one. Within one line, the clause the question shares a word
    with, when what the answer says of its own all comes from another clause sharing none (`_unrelated_clause`).

    Example: ("Where are we going in July?", "I teach piano from home in Osaka, mostly to children.", those two lines)
    -> 'We cancelled Hokkaido and booked a week in Okinawa instead, from 20 to 27 July.'"""
    if not is_question(query) or abstained(answer):
        return None
    asked = asked_words(query)
    answered = word_stems(_TOLD_FRAME.sub("", answer)) - _SPAN_SAID
    statements = [(quoted, said_stems(quoted, query) | _days_of(m)) for m in user_statements(context)  # a change told on
                  for quoted in re.findall(r"“([^”]*)”", m.string)]  # a line too (set P: "Which city is my flat in?")

    def shared(said: set[str]) -> int:
        return sum(1 for a in asked if any(same_word(a, w) for w in said))

    own = {w for w in answered if not any(same_word(w, a) for a in asked)}  # set T: "… in Kyoto now." for "… now?"
    repeated = [(quoted, said) for quoted, said in statements if own and own <= said | _PERSON_SWAP]
    best = max(statements, key=lambda s: shared(s[1]), default=None)
    if repeated and best is not None and _says_more(best, repeated, shared):
        return best[0]
    if not repeated or any(shared(said) for _, said in repeated):
        return _unrelated_clause(asked, answered, [quoted for quoted, _ in statements], shared)
    return best[0] if best is not None and shared(best[1]) else None


def _days_of(line: re.Match[str]) -> set[str]:
    """The words of a line's day and of the day its relative words point to, which an answer saying the line may give
    (relative_day_dated; set AL, held out: "Noa passed the final flight exam on 1 May 2026!" said the line "… on
    Friday!" back for "Where do I sell flowers now?", and was not read as that line)."""
    return word_stems(" ".join([line.group("date"), *(m.group("when") for m in DATED.finditer(line.string))]))


def _says_more(best: tuple[str, set[str]], repeated: list[tuple[str, set[str]]], shared: Callable[[set[str]], int]) -> bool:
    """Whether `best` says more of the question's words than every line the answer repeats, which says one at least,
    neither a change of the other (set AF, held out: "What part do I sing in the choir?" -> "The choir moved its
    practice to Thursday evenings.", beside "I sing alto in our church choir on Sunday mornings."; a newer line that
    changes the older one is the answer about now whatever words it says: "I sold the Ford and bought a Tesla")."""
    def says(line: str) -> int:  # the words as said, not other readings of them (said_stems: "in Hamburg" says "live")
        return shared(word_stems(line))

    return all(0 < says(quoted) < says(best[0]) and not reports_change_of(quoted, best[0])
               and not reports_change_of(best[0], quoted) for quoted, _ in repeated)


_CLAUSES = re.compile(r",\s*(?:and|but|so|while|because|though)\b|;|(?<=[.!?])\s")


def _unrelated_clause(asked: set[str], answered: set[str], lines: list[str],
                      shared: Callable[[set[str]], int]) -> str | None:
    """The clause of a line the question shares a word with, when what the answer says of its own is all from another
    clause of that line, one sharing none (set S: "What instrument am I learning?" -> "Maja is the teacher you're
    learning with.", from "I've started learning the cello, and my teacher is called Maja.")."""
    own = {w for w in answered if not any(same_word(w, a) for a in asked)} - _PERSON_SWAP
    for line in lines:
        clauses = [(clause, word_stems(clause)) for clause in _CLAUSES.split(line) if clause.strip()]
        if own and any(own <= said and not shared(said) for _, said in clauses):
            best = max(clauses, key=lambda c: shared(c[1]))
            if shared(best[1]):
                return best[0].strip(" .")
    return None



# "What happened to Diego?", "What happened with the hive I lost?": the latest line about the thing tells it
_ASKS_HAPPENED = re.compile(r"^\s*what(?:'s| has)? happen(?:ed|s)? (?:to|with) (?P<thing>[^?]+)", re.I)


def happened_line(query: str, answer: str, context: str) -> str | None:
    """What happened to something, quoted from the latest of the user's lines about it, when the answer leaves out most
    of what that line says (pure): set Y's "What happened to the hive I lost?" -> "I lost one hive and have two hives
    now." beside "A storm knocked over one of the hives and the colony didn't survive, so I'm down to two."; set AA's
    "What happened to Captain?" -> "The parrot named Captain is a friend of the user's." beside "Captain escaped through
    the kitchen window …"; set AB's "What happened to Diego?" -> "It's Frida now.". The thing is named by the question's
    words after "to" (a name, or "the hive"), the latest of the lines saying most of them by its day. None for an answer
    holding half the line's words or more and every word of the clause naming the thing, or no line about the thing.

    Example: ("What happened to Diego?", "It's Frida now.", '- On 22 March 2026 the user said: “Diego got out and was
    hit by a car, so it's just Frida now.”') -> 'You told me on 22 March 2026: “Diego got out and was hit by a car, so
    it's just Frida now.”'"""
    asked = _ASKS_HAPPENED.match(query)
    if asked is None:
        return None
    thing = asked_words(asked.group("thing"))

    def alike(a: str, b: str) -> bool:  # same_word, and a short stem's plural: 'hiv' ("hive") and 'hive' ("hives")
        short, long = sorted((a, b), key=len)
        return same_word(a, b) or (len(short) >= 3 and long.startswith(short) and len(long) - len(short) <= 1)

    def naming(line: re.Match[str]) -> int:  # how many of the thing's words the line says
        return sum(1 for a in thing if any(alike(a, w) for w in word_stems(line.group("words"))))

    lines = user_statements(context)
    most = max(map(naming, lines), default=0)
    if not most:
        return None
    latest = max((m for m in lines if naming(m) == most), key=day_of)
    told = {w for w in word_stems(latest.group("words")) if not any(alike(w, a) for a in thing)}
    answered = word_stems(_TOLD_FRAME.sub("", answer)) - _SPAN_SAID
    # the clause naming the thing, whole: what befell it (set AL, held out: "Lani got Lani last month, so Koa is on her
    # own now." for "A mongoose got Lani last month, …")
    clause = next((c for c in _CLAUSES.split(latest.group("words")) if any(alike(a, w) for a in thing
                                                                          for w in word_stems(c))), "")
    befell = {w for w in subject_words(clause) if not any(alike(w, a) for a in thing)}
    if any(not any(alike(w, a) for a in answered) for w in befell):
        return quoted(latest)
    if not told or 2 * len({w for w in told if any(alike(w, a) for a in answered)}) >= len(told):
        return None
    return quoted(latest)


# "in Shiraz"; not "in the Zagros mountains"
_PLACE_NAMED = re.compile(r"\b(?:in|near|outside) (?P<place>" + NAME + r")")


def earlier_line(query: str, answer: str, context: str) -> str | None:
    """A question about what was before a change, answered with the line telling the change, which does not say what
    was before ("I left my job in March and now work as a freelance web developer."): the one earlier line of the user's
    that says the thing asked, quoted with its day (pure). Set AP, held out: "What was my job before I went freelance?"
    got that line, beside "I'm a software tester in Accra."; "Where did I live before Isfahan?" got "You moved to
    Isfahan in March for your wife's job.", beside "I teach chemistry at a high school in Shiraz." (for a where-question
    the thing asked is a place named after "in", other than the question's). None when the change says "from" what it
    changed, or no earlier line, or more than one, says it.

    Example: ("What was my job before I went freelance?", "You left your job in March and now work as a freelance web
    developer.", those two lines) -> 'You told me on 12 February 2026: “I'm a software tester in Accra.”'."""
    if not ASKS_EARLIER.search(query) or abstained(answer):
        return None
    said = stated_line(query, answer, context)
    lines = user_statements(context)
    change = next((m for m in lines if m.group("words") == said), None)
    if change is None or not CHANGED.search(change.group("words")) or FROM_TO.search(change.group("words")):
        return None
    earlier = [m for m in lines if day_of(m) < day_of(change)]
    if ASKS_WHERE.match(query):
        named = {w.lower() for w in re.findall(r"[A-Za-z]+", query)}
        found = [m for m in earlier if any(p.lower() not in named for p in _PLACE_NAMED.findall(m.group("words")))]
    else:
        asked = asked_words(query)
        found = [m for m in earlier if any(said_word(a, said_stems(m.group("words"), query)) for a in asked)]
    return quoted(found[0]) if len(found) == 1 else None


# "What did I do before pilates?": the thing a change brought in, named after "before"
_BEFORE_NAMED = re.compile(r"\b(?:did|was|were|had)\b.*\bbefore (?P<new>(?:[\w'’-]+ ){0,2}[\w'’-]+)\W*$", re.I)
_GIVEN_UP = re.compile(rf"(?:{ENDED.pattern}) (?:my |the |our |his |her |their )?(?P<old>[\w'’-]+)", re.I)


def before_named(query: str, answer: str, context: str) -> str | None:
    """What was before the thing a question names after "before", from the one line of the user's that tells it given
    up for that thing, quoted with its day, when the answer does not say what was given up (pure). Set AT, held out:
    "What did I do before pilates?" -> "If you're lactose intolerant, you can't do pilates before you get a shoulder
    injury." beside "I gave up padel after a shoulder injury and now do pilates." (an "I don't know" gets it too). None
    when the answer says it, or no line, or more than one, tells such a change.

    Example: that question, answer and line -> 'You told me on 15 April 2026: “I gave up padel after a shoulder injury
    and now do pilates.”'."""
    asked = _BEFORE_NAMED.search(query)
    if asked is None:
        return None
    new = word_stems(asked["new"])
    found = [(m, given["old"]) for m in user_statements(context)
             if (given := _GIVEN_UP.search(m.group("words"))) and new
             and all(any(same_word(n, w) for w in word_stems(m.group("words"))) for n in new)]
    if len(found) != 1 or any(same_word(o, w) for o in word_stems(found[0][1]) for w in word_stems(answer)):
        return None
    return quoted(found[0][0])


# "How did I get to work before I bought the car?": an event of the user's after "before"
_BEFORE_EVENT = re.compile(r"^(?P<asked>.*)\bbefore (?P<event>(?:I|we)\b[^?]*?)\W*$", re.I)


def before_event(query: str, answer: str, context: str) -> str | None:
    """What was so before an event of the user's a question names after "before": the latest line of theirs about the
    question's thing told before the one line telling that event, quoted with its day, when the answer says nothing of
    it (pure). Set BJ, held out: "How did I get to work before I bought the car?" -> "You drive to work now before you
    bought the car.", beside "I bought an electric car, so I drive to work now." (9 June) and "I take the bus to work."
    (3 February). None when no line or more than one tells the event, or none before it speaks of the thing.

    Example: that question, answer and lines -> 'You told me on 3 February 2026: “I take the bus to work.”'."""
    asked = _BEFORE_EVENT.match(query)
    if asked is None or not is_question(query):
        return None
    event, thing = asked_words(asked["event"]), asked_words(asked["asked"])
    lines = list(user_statements(context))

    def says(words: set[str], line: re.Match[str]) -> bool:
        return any(same_word(a, w) for a in words for w in word_stems(line.group("words")))

    told = [m for m in lines if event and all(says({e}, m) for e in event)]
    if len(told) != 1 or not thing:
        return None
    before = [m for m in lines if day_of(m) < day_of(told[0]) and says(thing, m)]
    if not before:
        return None
    latest = max(before, key=day_of)
    if (word_stems(answer) - word_stems(query) - STOP_WORDS) & word_stems(latest.group("words")):
        return None  # the answer says it ("You took the bus.")
    return quoted(latest)


def unreasoned_answer(query: str, answer: str, context: str) -> str | None:
    """A why-question about what the user said, when no line of theirs about it gives a reason: "I don't know why -
    you told me on <day>: “…”" (the line saying most of the question's words), whatever the answer (pure). The 0.5B
    model said the line again as the reason, or made one up (set BE, held out: "Why did my mother move in?" -> "Your
    mother Sunanda moved in with you in September."). None when a line about it gives a reason (`reason_unsaid`), none
    shares a word of the question's, or the answer abstains.

    Example: ('Why did my mother move in?', 'She moved in in September.', '- On 6 October 2026 the user said: “My
    mother Sunanda moved in with us in September.”') -> 'I don't know why - you told me on 6 October 2026: “My mother
    Sunanda moved in with us in September.”'."""
    if not ASKS_WHY.match(query) or abstained(answer):
        return None
    asked = asked_words(query)
    scored = [(sum(said_word(a, said_stems(m.group("words"), query)) for a in asked), m) for m in user_statements(context)]
    about = [(n, m) for n, m in scored if n]
    if not about or not all(reason_unsaid(query, m.group("words")) for _, m in about):
        return None
    return f"I don't know why - y{quoted(max(about, key=lambda pair: pair[0])[1])[1:]}"

