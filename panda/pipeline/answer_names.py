"""Whether a name an answer gives is one the user's lines give (pure), read by answer_checks.unanswered: the run of
capitalised words it stands in said as such ("Surly Bank" is not "my Surly"), a family name said after the first name
asked, a place told by the description a line gives it ("the provincial chess team"); whether the names are only the
new one's for a question after the old one (`new_one_named`), and whether a line names someone a question does not
(`names_someone_else`, read by answer_checks.told_line). Split from answer_checks.py.
"""

from __future__ import annotations

import re

from panda.language.changes import CALENDAR_WORDS
from panda.language.text import NAME, STOP_WORDS, first_person, written_words
from panda.language.vocabulary import LANGUAGES
from panda.memory.current_facts import names_in
from panda.pipeline.answer_dates import user_statements
from panda.pipeline.said_words import PERSON

# Capitalised words that are no one's name
NOT_A_NAME = frozenset({"i", "you", "your", "you're", "yours", "he", "she", "it", "we", "they", "the", "a", "an", "my",
                        "our", "their", "his", "her", "this", "that", "there", "from", "on", "in", "no", "yes",
                        "sorry", "noted", "based", "phd", "dphil", "mphil", "msc", "bsc", "mba", "llb", "llm", "beng",
                        "meng"} | CALENDAR_WORDS | LANGUAGES)  # nor a date's, a language's or a degree's (set BG: "a PhD")
POSSESSIVE_END = re.compile(r"['’]s$")


# a place's preposition, up to three words before the name ("in Odense", "from a breeder near Vejle")
_PLACED = r"\b(?:in|at|from|to|near|on|into|outside|around|via) (?:[\w'’-]+ ){0,3}"


def places_named(asked: set[str], answer: str, context: str) -> list[str]:
    """The capitalised words of an answer that may name a place (pure): not the question's (`asked`, lowered), no
    pronoun's, date's or common word's, and said by no line or by one after a place's preposition. Set BG, held out:
    "Where did we get the guinea pigs?" -> "You got two guinea pigs, Tut and Lille." (their names, said as such).
    Example: ({'where', 'did', 'we', 'get', 'the', 'guinea', 'pigs'}, "You got Tut in Odense.", '… “We got a guinea pig,
    Tut, from a shop in Odense.”') -> ['Odense']."""
    words = [t for t in written_words(answer) if t[:1].isupper() and t.lower() not in asked | NOT_A_NAME | STOP_WORDS
             and t.lower().removesuffix("s") not in NOT_A_NAME]  # nor "to Saturdays" (set BE, held out)
    return [t for t in words
            if not re.search(rf"\b{re.escape(t)}\b", context) or re.search(rf"{_PLACED}{re.escape(t)}\b", context)]


def described(body: str, answer: str, context: str) -> bool:
    """Whether an answer tells which place or body by a description a line gives it (pure): set AC's "What team did Lwazi
    get into?" is answered by "the provincial chess team" (said so), not by "an insurance company" nor "the restaurant",
    which tell no one which."""
    phrase = re.compile(rf"\b(?:the|my|our|your|his|her|their) ((?:[\w'’-]+ ){{1,3}}{re.escape(body)}s?)\b", re.I)
    return any(re.search(rf"\b{re.escape(m.group(1))}\b", context, re.I) for m in phrase.finditer(answer))


_CAPITALISED_RUN = re.compile(r"\b(?!I\b)[A-Z][\w'’-]*(?: (?!I\b)[A-Z][\w'’-]*)*")  # "Surly Bank", "St Luke's"


def said_whole(name: str, answer: str, context: str) -> bool:
    """Whether the run of capitalised words the answer gives a name in (a leading "The" or "Your" left out) is said as
    such in the context (set S: "Which bank do I use?" -> "The bank I use is Surly Bank.", beside "My Surly was stolen
    …"). Example: ("Surly", "Surly Bank.", "… “My Surly was stolen.”") -> False; ("Luke's", "At St Luke's.", "… “a nurse
    at St Luke's hospital.”") -> True."""
    def words(text: str) -> str:
        return " " + " ".join(written_words(text.replace("’", "'"))).lower() + " "

    said = words(context)
    for run in _CAPITALISED_RUN.findall(answer.replace("’", "'")):
        parts = run.split()
        while parts and parts[0].lower() in NOT_A_NAME | STOP_WORDS:
            parts.pop(0)
        if name.replace("’", "'") in parts:
            whole = " ".join(parts)
            return words(whole) in said or words(POSSESSIVE_END.sub("", whole)) in said
    return True  # not in a run of its own: the word said is enough


# "What is Bronagh's surname?", "What's my physio's last name?": a family name, said after a first name
ASKS_SURNAME = re.compile(r"(?:\b(" + NAME + r")['’]s |\b)(?:surname|last name|family name|maiden name)\b")


def surname_given(first: str | None, answer: str, context: str) -> bool:
    """Whether the answer holds a family name a user's line says after a first name (`first` when the question names
    the person, any capitalised word otherwise). Example: ('Bronagh', 'Bronagh Kelly.', '… “My flatmate is Bronagh
    Kelly.”') -> True; ('Bronagh', 'Biscuit.', '… “My flatmate Bronagh and I share a dachshund called Biscuit.”') ->
    False."""
    after = rf"\b{re.escape(first)} ([A-Z][\w'’-]+)" if first else r"\b" + NAME + r" ([A-Z][\w'’-]+)"
    given = {name for m in user_statements(context) for name in re.findall(after, m.group("words"))}
    return bool(given & set(written_words(answer)))


ASKS_OLD = re.compile(r"\b(?:old|previous|former|ex-?)[ -](?:[a-z]+ )?([a-z]+)\b", re.I)


def new_one_named(thing: str, answer: str, context: str) -> bool:
    """Whether every name an answer gives is one a user's line gives the new `thing` (pure): no answer for the old one.
    Example: ('teacher', "My new teacher is called Zsófia.", '… “I switched violin teachers, and my new teacher is
    called Zsófia.”') -> True; a line naming the old one too ("… my old teacher Ildikó retired") -> False for Ildikó."""
    names = {w for w in written_words(answer) if w[0].isupper() and w.lower() not in NOT_A_NAME | STOP_WORDS}
    new = [re.search(rf"\bnew (?:[a-z]+ )?{re.escape(thing)}\b(?P<rest>[^.;!?”]*)", m.group("words"), re.I)
           for m in user_statements(context)]
    return bool(names) and all(any(found and re.search(rf"\b{re.escape(n)}\b", found.group("rest")) for found in new)
                               for n in names)


# "You drive …", "You're …": the user, the answer's subject (not "You told me …", "Your grandson …")
_YOU_DO = re.compile(r"^\s*you(?:['’](?:re|ve|d|ll)| are| were| have| had| do| did| will| can)? (?!told\b|said\b|mentioned\b)",
                     re.I)


def asked_of_someone_else(query: str, answer: str) -> bool:
    """Whether a question about someone it names, not about the user, got an answer about the user (pure). Set BI, held
    out: "What car does Xiaoyu drive?" -> "You drive a taxi." (the user's line "I … now drive a taxi."). A question in the
    first person ("Where did Nikau and I go?") may be answered so, and so may one whose name the answer says.
    Example: ("What car does Xiaoyu drive?", "You drive a taxi.") -> True; ("What car does Xiaoyu drive?", "You said
    Xiaoyu drives a Kia.") -> False."""
    named = names_in(query)
    return bool(named) and not first_person(query) and bool(_YOU_DO.match(answer)) \
        and not any(re.search(rf"\b{re.escape(name)}", answer) for name in named)


def names_someone_else(query: str, line: str) -> bool:
    """Whether a line names someone the question does not: a capitalised word past its first, a person's word, or the
    user alone (set N: "Who did I run the Bath half with?" is not answered by "I ran the Bath half in 1 hour 58 minutes!")."""
    asked = {POSSESSIVE_END.sub("", w.lower()) for w in written_words(query)}
    named = [t for t in written_words(line)[1:] if t[:1].isupper() and POSSESSIVE_END.sub("", t.lower()) not in asked
             and t.lower() not in NOT_A_NAME and t != "I"]
    return bool(named or {m.lower() for m in PERSON.findall(line)} - asked or ALONE.search(line))


# the user, named as the one who does it (set AT, held out: "Who runs the catering business now?" beside "Zodwa left the
# business in March, so I run it alone now.")
ALONE = re.compile(r"\b(?:alone|by myself|on my own|myself)\b", re.I)
