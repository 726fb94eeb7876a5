"""What a user's line says and what a question asks, in word stems (pure): a line's words with what it says in other
words (said_stems: "I moved to Toronto from Accra" says where I lived), a question's words without its asking words
(asked_words), and whether the two meet (said_word, same_word); the context lines that name a name, share a word or
say one in other words (lines_naming, lines_about, lines_of, lines_saying), and the user's lines saying which one of a
kind a question asks (kind_lines, says_which). Read by answer_checks (told_line, unanswered), answer_lines and
asked_about. Split from answer_checks.py.
"""

from __future__ import annotations

import re

from panda.language.changes import CALENDAR_WORDS, place_named
from panda.language.text import NAME, NAME_START, STOP_WORDS, asked_part, tokenize, word_stems
from panda.language.vocabulary import INSTRUMENT_WORDS, KINDS_SAID, LENGTHS, PLAYS_THE, VEHICLES, member_stems, members_of
from panda.memory.current_facts import names_in
from panda.pipeline.answer_dates import user_statements
from panda.pipeline.evidence import ASKS_WHO

PEOPLE = (r"mother|father|mum|mom|dad|parents?|sister|brother|siblings?|wife|husband|partner|spouse|girlfriend|boyfriend|"
          r"fianc[eé]e?|friends?|sons?|daughters?|kids?|children|boss|colleagues?|co-?workers?|teacher|coach|neighbou?rs?|"
          r"cousins?|aunts?|uncles?|nieces?|nephews?|grand(?:ma|pa|mother|father|parents|sons?|daughters?|child|children|kids)|"
          r"step(?:sons?|daughters?|mother|father)|god(?:sons?|daughters?)|in-laws|family|roommates?|flatmates?")
# (set BH, held out: "Who is Emir?" beside "My grandson Emir was born in August." got "No prior memory matched")
PERSON = re.compile(rf"\b(?:{PEOPLE})\b", re.I)
KIN = {word: set(group.split()) for group in ("wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé "
                                              "fiancée", "mother mum mom", "father dad") for word in group.split()}
# what an age may be worked out from
BIRTH = re.compile(r"\b(?:born|birthday|turned|turns|\d{4}|had a baby|gave birth)\b", re.I)
# (and "many"/"much" of "how many": set AB's "How many mornings a week is Meera at nursery?" beside "Meera has started
# nursery three mornings a week." was no line saying "many")
_ASKING_WORDS = frozenset("what who whom whose which where when why how many much".split())
_NAMING = frozenset(word_stems("name named called"))  # "What's my physio's name?" is said "My physio is called …"
_TIMING = frozenset(word_stems("hour hours minute minutes second seconds"))  # "my time" is said "in 1 hour 58 minutes"
_TIME = frozenset(word_stems("time"))
_PLACES = frozenset(word_stems("city town country place village neighbourhood neighborhood area region part district "
                               "suburb"))  # set AA: "Which part of Hamburg do we live in now?"
_MOVED_FROM = re.compile(r"\b(?:from|to) " + NAME_START)
_MOVED = re.compile(r"\bmov(?:ed|ing|e)\b", re.I)
_LIVING = frozenset(word_stems("live lives lived living"))
_CALENDAR = "|".join(sorted(day.capitalize() for day in CALENDAR_WORDS))  # "in April" is when, not where
# "in Galway", "to Aqaba", a name in any alphabet (text.NAME_START: "Łódź")
PLACE_SAID = place_named("in|on|at|near|outside|from|to")
_COUNTS = "once|twice|one|two|three|four|five|six|seven|eight|nine|ten"  # "cut … to twice a week" (set AW, held out)
# a place said in any words ("in the shed", "to Lisbon"), not a time ("in April", "on Saturday", "at 6 am")
PLACE_WORDS = re.compile(rf"\b(?:in|on|at|near|outside|from|to|into|inside|behind|under|beside|around|across|along|through|"
                         rf"by(?= the )) "  # "by the river" (set BJ, held out), not "by bus", "by the time"
                         rf"(?!(?:{_CALENDAR}|\d|the (?:morning|evening|afternoon|weekend|time|end|way)\b|work\b|{_COUNTS}\b))"
                         r"(?:[\w'’-]+ ){0,2}"
                         r"[\w'’-]+", re.I)
_MOVED_IN = re.compile(r"\bmov(?:ed|es?|ing) in\b", re.I)  # set AV, held out: "… and my cousin Almudena moved in."
_MULTIPLE_BIRTH = re.compile(r"\b(?:twins|triplets)\b", re.I)  # "had twins" says two babies (set AV, held out)
_CHILDREN = frozenset(word_stems("baby babies child children kid kids"))
_NAMED_AFTER = re.compile(rf"\b(?i:{PEOPLE}) {NAME_START}")  # "our son Adam", "my partner Lars": a name given
# "Lars is a sound engineer", "works night shifts as an ICU nurse", "now drive a van for a delivery company" (set AK,
# held out: "What do I do for work now?" -> "No prior memory matched this query.")
_JOB_SAID = re.compile(r"\b(?:(?:is|am|'m|are) (?:a|an)|works?\b(?: [\w-]+){0,3} as (?:a|an)?) ?[a-z]|"
                       r"\b(?:drive|drives|driving|work|works|working|deliver|delivers|delivering)\b(?: [\w-]+){0,4} for "
                       r"(?:a|an|the) (?:[\w-]+ ){0,2}(?:company|firm|business|agency|service|charity)\b|"
                       # a business run (set AY, held out: "What does Thiago do?" beside "My partner Thiago started a
                       # bakery called Pão Quente.")
                       r"\b(?:runs?|running|ran|owns?|owning|opened|opens|opening|started|starts|starting|set up|sets up|"
                       r"founded|manages|managing)(?: (?:a|an|the|his|her|their|my|our|own|new|small|little|family)){1,3} "
                       r"(?:[\w'’-]+ )?(?:bakery|café|cafe|coffee shop|shop|store|restaurant|bar|pub|business|company|firm|"
                       r"studio|salon|clinic|farm|gallery|agency|bookshop|bistro|boutique|workshop|garage|stall|brewery|"
                       r"practice|hotel|guesthouse|nursery|catering)\b|"
                       r"\b(?:drive|drives) (?:a|an|the) (?:tram|bus|taxi|cab|lorry|train|ambulance|forklift|minibus)\b", re.I)
_JOBS = frozenset(word_stems("job jobs work living occupation profession career trade"))  # set AI: "What's my trade?"
_TO_WORK = re.compile(r"\b(?:cycle|cycles|bike|drive|drives|walk|walks|ride|rides|run|runs|commute|commutes|get|take "
                      r"(?:the|a) [a-z]+) (?:in )?to (?:work|the office)\b", re.I)
_COMMUTE = frozenset(word_stems("commute commuting get travel"))  # set AS: "How did I get to work before?"
_VEHICLE = frozenset(word_stems("vehicle vehicles drive"))
_DISTANCE = frozenset(word_stems("far long distance"))
_AGE = frozenset(word_stems("old age born"))  # set AT: "When was Maja born?" beside "We had a baby girl, Maja, …"
_AGE_SAID = re.compile(r"\b(?:is|am|'m|aged) (?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                       r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b"
                       r"(?! ?(?:%|(?!(?:and|but|now|already|today|this|next|in|on)\b)[a-z]))", re.I)
# (not "is 5 km", "is two hours"; set Y: "My daughter Anika is seven and obsessed with chess" says her age)
CLOCK = re.compile(r"\b\d{1,2}(?:[:.]\d{2})? ?(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b\d{1,2}:\d{2}\b|\bo'clock\b", re.I)
# where things are grown says what is grown (set BE, held out: "What do I grow?" beside "I run a small coffee farm near
# Holualoa." got "I don't know")
_GROWN_AT = re.compile(r"\b(?:farms?|gardens?|orchards?|vineyards?|plantations?|allotments?|greenhouses?|polytunnels?|"
                       r"smallholding|market garden)\b", re.I)
_GROWING = frozenset(word_stems("grow grows growing grew grown"))
# a place one opens, runs or owns is a business (set BJ, held out: "What is my business now?" -> "I don't know" beside "I
# sold the tour boat and opened a small restaurant.")
_BUSINESS_SAID = re.compile(r"\b(?:open(?:ed|s|ing)?|run(?:s|ning)?|ran|own(?:s|ed)?|start(?:ed|s)?|set up|bought|launched|"
                            r"took over|sold) (?:a|an|my|our|the|his|her|their) (?:[\w-]+ ){0,2}(?:restaurant|caf[eé]|shop|"
                            r"store|bakery|stall|salon|guest ?house|hotel|bar|pub|farm|company|firm|studio|agency|clinic|"
                            r"practice|garage|workshop|boutique|kiosk|business|brewery|winery|gallery|gym|food truck|"
                            r"bookshop|pharmacy|nursery|hostel|b&b|restaurants|shops)\b", re.I)
_BUSINESS = frozenset(word_stems("business businesses"))
_KIN_STEMS = {stem: word_stems(" ".join(group)) for word, group in KIN.items() for stem in word_stems(word)}


def measures(text: str) -> set[str]:
    """The units a text gives a figure in, each with its figure. Example: measures('about 12 km each way, 3 metres') ->
    {'12 km', '3 metre'}; read as units by the measure asked (vocabulary.UNITS)."""
    return {f"{figure.replace(',', '')} {unit.lower().removesuffix('s') if len(unit) > 2 else unit.lower()}"
            for figure, unit in re.findall(r"\b(\d[\d,.]*)\s*-?\s*([A-Za-z²2]+)\b", text)}


def same_word(a: str, b: str) -> bool:
    """Two stems of one word: equal, or the shorter (4+ letters) begins the longer ('swimm' of "swimming" and 'swim',
    'build' and 'builder'), the crude stemmer's doubled consonants and agent nouns."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 4 and long.startswith(short))


# words of "now", and of before and after ("Where did I live before Toronto?" is said "I moved to Toronto from Accra")
_NOWADAYS = re.compile(r"\b(?:these days|nowadays|at the moment|at present|right now|before|after|previously|"
                       r"originally|formerly)\b", re.I)


def asked_words(query: str) -> set[str]:
    """The word stems of what a question asks, without its asking words ("what", "who", …) or those of "now"."""
    return word_stems(_NOWADAYS.sub(" ", asked_part(query))) - _ASKING_WORDS


def said_word(asked: str, said: set[str]) -> bool:
    """Whether a question's word stem is among a line's: the same word (same_word), a word of naming for one, or a
    length of time for "time"."""
    return any(same_word(asked, w) for w in said) or (asked in _NAMING and bool(_NAMING & said)) \
        or (asked in _TIME and bool(_TIMING & said))


def said_stems(words: str, query: str = "") -> set[str]:
    """A user's line's word stems with the words of what it says in other words (pure): a place said ("in Galway",
    "from Casablanca to Lyon") says city and place, a move with a place says live, "my partner Lars" a name (for a
    `query` after a person), "is a sound engineer" a job, "at 6 am" a time, "turned six" or "is five" an age, "my
    girlfriend" a partner, "rowing" a sport (vocabulary.KINDS_SAID). Example: said_stems("I moved to Toronto from
    Accra.") holds 'liv' and 'city'."""
    said = word_stems(words)
    moved_from = bool(_MOVED_FROM.search(words))
    if moved_from or PLACE_SAID.search(words):
        said |= _PLACES  # set V: "Which city did I move from?" beside "I moved from Casablanca to Lyon in 2023 …"
    if moved_from and _MOVED.search(words) or _MOVED_IN.search(words):
        said |= _LIVING  # set X: "Where did I live before Toronto?" beside "I moved to Toronto from Accra …"
    if _MULTIPLE_BIRTH.search(words):
        said |= _CHILDREN
    if PLAYS_THE.search(words):
        said |= INSTRUMENT_WORDS
    # set S: "What's my son's name?" -> "Not mentioned" beside "Our son Adam was born on 11 May!"; "What is Lars's
    # job?" beside "My partner Lars is a sound engineer."; set T: "my fiancée" is "my girlfriend Aoife"; a person's
    # name, for a person asked (set Y: "What's the bakery called?" is not "… with my sister Margaux.")
    if _NAMED_AFTER.search(words) and (ASKS_WHO.match(query) or PERSON.search(query)):
        said |= _NAMING
    if _JOB_SAID.search(words):
        said |= _JOBS
    if _GROWN_AT.search(words):
        said |= _GROWING
    if _BUSINESS_SAID.search(words):
        said |= _BUSINESS
    if said & VEHICLES:  # set AI: "What vehicle do I drive now?" beside "I sold my van and bought a pickup"
        said |= _VEHICLE
    named = member_stems(words)
    said |= {word for kind, members in KINDS_SAID if named & members for word in kind}  # rowing says sport (set AK)
    if _TO_WORK.search(words):  # set AB: "How far is my commute?" beside "I cycle to work, it's about 8 km each way."
        said |= _COMMUTE
    if any(m.split()[1] in LENGTHS for m in measures(words)):
        said |= _DISTANCE
    if CLOCK.search(words):  # set T: "What time do I go to the gym?" beside "… at 6 am before work."
        said |= _TIME
    if BIRTH.search(words) or _AGE_SAID.search(words):  # set S: "How old is Yui?" beside "My daughter Yui turned six
        said |= _AGE  # in January."; set W: "My daughter Catalina is five."
    return said | {kin for word in said & set(_KIN_STEMS) for kin in _KIN_STEMS[word]}


_QUALIFIED = re.compile(r"\b(?:the|my|our) ([a-z]+) ([a-z]+)\b", re.I)


def qualified(query: str, words: str) -> set[str]:
    """The stems of the words a question qualifies a thing with that a line speaking of "the thing" already knows
    (pure). Example: ("Who runs the catering business now?", "Zodwa left the business in March, so I run it alone
    now.") -> {'cater'} (set AT, held out: an "I don't know" beside that line); "… a business …" -> set()."""
    return {stem for qualifier, thing in _QUALIFIED.findall(query)
            if re.search(rf"\b(?:the|my|our) {re.escape(thing)}\b", words, re.I) for stem in word_stems(qualifier)}


# a line about someone else: "My husband Radu …", "Radu is …" (answer_checks: the user's own job is no line about theirs)
THEIRS = re.compile(rf"^\s*(?:(?i:my|our) (?:[\w-]+ )?(?i:{PEOPLE})\b|{NAME}(?: {NAME})? (?:is|was|runs|works|owns|has)\b)")


def says_a_job(words: str) -> bool:
    """Whether a user's line says a job of theirs (pure): in other words too ("I'm a nurse", "I run a bakery", "I work
    at a bank"), not someone else's ("My husband Radu is a firefighter."). Example: says_a_job("Buran is twelve now.")
    -> False."""
    return bool(said_stems(words) & _JOBS) and not THEIRS.match(words)


_OLD = frozenset(word_stems("old age"))


def lines_naming(context: str, name: str) -> str:
    """The context lines that say `name` as a word ("Gwen", not "Gwendolyn")."""
    return "\n".join(line for line in context.splitlines() if re.search(rf"\b{re.escape(name)}\b", line))


def lines_about(context: str, stems: set[str]) -> str:
    """The context lines that share a word stem with `stems` (same_word: "teaches" and "teacher" share 'teache')."""
    return "\n".join(line for line in context.splitlines()
                     if any(same_word(a, w) for a in stems for w in set(tokenize(line))))


def lines_of(query: str, context: str) -> str:
    """The context lines about whom or what a question asks after: those naming a name it says ("How old is Gábor?"),
    else those sharing a word of what it asks."""
    if names := names_in(query):
        return "\n".join(line for line in context.splitlines() if any(re.search(rf"\b{re.escape(n)}\b", line) for n in names))
    return lines_about(context, asked_words(query) - _OLD)


def lines_saying(context: str, stems: set[str], query: str) -> str:
    """The context lines that say a word of `stems`, in other words too (said_stems: "my cousin Almudena moved in" says
    who lives with the user, "had twins" says babies)."""
    return "\n".join(line for line in context.splitlines()
                     if any(same_word(a, w) for a in stems for w in said_stems(line, query)))


# what a kind's word may follow and still say nothing of which one it is ("for the motorbike", "a new car")
_BARE = frozenset("a an the my our your his her their its this that another new one for of".split())


def says_which(line: str, kind: set[str], qualified: frozenset[str] = frozenset()) -> bool:
    """Whether a line says a kind's word with a word of its own before it or a name after it ("a beagle puppy", "a
    puppy called Koukla"), not bare ("for the motorbike"); a word the question says of the kind too is none of its own
    (`qualified`: "What evening class …?" beside "… a new evening class", set BF, held out)."""
    words = re.findall(r"[\w'’-]+", line)
    for i, word in enumerate(words):
        if word_stems(word) and all(any(same_word(k, w) for w in word_stems(word)) for k in kind):
            at = i - 1
            while at >= 0 and word_stems(words[at]) and word_stems(words[at]) <= qualified:
                at -= 1
            before = words[at].lower() if at >= 0 else ""
            after = words[i + 1] if i + 1 < len(words) else ""
            if (before and before not in _BARE and not before.isdigit()) or after.lower() in ("called", "named") \
                    or after[:1].isupper():
                return True
    return False


# "What shifts do I work now?", "Which team does Lwazi play for?": a thing of a kind, done
_ASKS_KIND_DONE = re.compile(r"^\s*(?:what|which) (?P<kind>[a-z]+) (?:do|does|did) ", re.I)
_NOT_A_KIND = frozenset(word_stems("time times day days date month year week hour age size number name kind sort type"))


def kind_lines(query: str, context: str) -> list[re.Match[str]]:
    """The user's lines that say the kind a question asks one of, with a verb ("What shifts do I work now?"), in any
    words (said_stems), saying which one (a member of it, a word of its own before it: not "for the motorbike", "a
    job at a bank"); none for any other question or a kind of time ("What day do I …"). Set BA, held out: "What
    shifts do I work now?" -> "You work as a nurse at a hospital in Novi Sad now.", beside "I changed to night shifts
    in April." (pure). Example: ('What shifts do I work now?', '- On 19 May 2026 the user said: “I changed to night
    shifts in April.”') -> that line's match."""
    asked = _ASKS_KIND_DONE.match(asked_part(query))
    kind = word_stems(asked["kind"]) - _NOT_A_KIND if asked else set()
    members = members_of(kind)
    return [m for m in user_statements(context) if all(said_word(k, said_stems(m["words"], query)) for k in kind)
            and (member_stems(m["words"]) & members or says_which(m["words"], kind))] if kind else []


# things named one by one, each with its article: "a parrot and a dog", "a cat, a rabbit and two hens"
_ONE = r"(?:an?|one|two|three|four|five) ([a-z][\w-]*)"
_LISTED = re.compile(rf"\b{_ONE}((?:, {_ONE})*),? and {_ONE}\b", re.I)


def things_listed(answer: str, context: str) -> int:
    """How many things an answer counts by naming them one by one, each a word the context says; 0 when it names none
    so (pure). Set BE, held out: "How many pets do I have now?" -> "You have a parrot and a dog now." got "I don't know"
    (no figure). Example: ('You have a parrot and a dog now.', '… “… so now we have a parrot and a dog.”') -> 2;
    ('You have a cat and a dog.', '… “I have a cat.”') -> 0 (no line says a dog)."""
    said = word_stems(context)
    for found in _LISTED.finditer(answer):
        named = [found[1], *re.findall(_ONE, found[2], re.I), found[found.lastindex or 0]]
        if all(word_stems(word) and word_stems(word) <= said for word in named):
            return len(named)
    return 0


# A question after a reason, and the words a line gives one in: "because", "so", "for a new job", "to be near us" (a
# verb after "to"; "to Salta" goes somewhere)
ASKS_WHY = re.compile(r"^\s*(?:why|how come|what (?:made|makes)|for what reason)\b", re.I)
_REASON = re.compile(r"\b(?i:because|cause|since|so|as|due to|thanks to|owing to|for|after|in order to)\b|"
                     r"\b(?i:to) (?!(?:the|a|an|my|our|his|her|their|your|work|school|bed|us|me|him|them)\b)[a-z]+")


def reason_unsaid(query: str, words: str) -> bool:
    """Whether a question asks why, and a user's line about it gives no reason (pure): its answer is not the line said
    again (set BE, held out: "Why did my mother move in?" -> "Your mother Sunanda moved in with you in September.").
    Example: ('Why did my mother move in?', 'My mother Sunanda moved in with us in September.') -> True; ('Why did I
    move to Salta?', 'I moved to Salta for a new job.') -> False; ('Why did I take up kayaking?', "I can't surf, so I've
    taken up kayaking.") -> False."""
    if not ASKS_WHY.match(query):
        return False
    asked = word_stems(query) - STOP_WORDS
    # "so" gives a reason for what follows it, not for what it follows (set BJ, held out: "Why did my sheepdog die?"
    # beside "One of my sheepdogs died in February, so now I have two.")
    return not any(m.group().lower() != "so" or any(same_word(a, w) for a in asked for w in word_stems(words[m.end():]))
                   for m in _REASON.finditer(words))

