"""Which later statement of a user's changes which earlier one, and what part of it (pure, over plain text).

"The clinic moved to Amersfoort, so I take the train now." changes "I cycle to work along the canal": a change word
(`CHANGED`: instead, switched, now, dropped, promoted, …) and a word both say that is not one of time or of change, or
two words of one kind (vocabulary.ONE_KIND: ways of travel, races). A change that ends the thing itself (`ENDED`:
died, sold, quit, pulled out of, …) leaves nothing of it standing; any other change updates one part of what was said,
and a question about another part (`other_part_asked`) still gets the older statement. pipeline/evidence pairs the
gathered items with these rules and builds the answer's context; the answer guards (answer_changes, answer_dates,
answer_lines, answer_checks) read the same words.
"""

from __future__ import annotations

import calendar
import re
from functools import lru_cache

from panda.language.facts import extract_statements
from panda.language.text import NAME_START, amounts, stem, word_stems, words
from panda.language.vocabulary import ONE_KIND, SINGLE_VALUED_ATTRIBUTES, kind_named

# A change that ends the thing itself ("Tofu died", "I dropped the app"), whatever a question asks about it; any other
# change updates one part of what was said (`other_part_asked`)
# set V: "The triathlon got cancelled, so I've entered a half marathon …" ends the triathlon trained for
# set Y: "I handed in my notice at the bank and started as a UI artist at a game studio" ends the job at the bank
# set AH, held out: "I had to pull out of the half marathon because of a stress fracture" ended the training for it,
# and "Emi graduated in June and got a job in Tokyo" the studies in Kyoto
# set AD, held out: "Our studio's game launched on 2 April and sold better than we hoped." ended "I'm a game developer
# at a studio in Tampere." (they share "game"): a thing sold is the user's, sold by someone or sold off
_SOLD = r"(?:(?<=I )|(?<=we )|(?<=I've )|(?<=we've )|(?<=have )|(?<=they ))sold|sold (?=(?:my|our|the|it|them|off|up)\b)"
_ENDING = (rf"dropped|no longer|any ?more|stopped|quit|gave up|moved out|died|passed away|{_SOLD}|left|cancell?ed|called off|"
           r"handed in (?:my|his|her|their) notice|resigned|(?:was|got|been) (?:laid off|made redundant|fired)|"
           r"pull(?:ed)? out of|withdr(?:ew|awn|aw) from|back(?:ed)? out of|graduated")
ENDED = re.compile(rf"\b(?:{_ENDING})\b", re.I)
# What "how much/many" counts: "how many hives" -> 'hives'; "how much do I earn" counts nothing named.
# "how many of my athletes" counts athletes (set X: "of" was read as the thing counted)
COUNTED = re.compile(r"^\s*how (?:much|many) (?:of (?:my|our|the|your|his|her|their) )?(?!(?:do|does|did|is|are|was|"
                     r"were|will|would|have|has|had|can|could|should|i|you|we|they|he|she|it)\b)([a-z][\w-]*)", re.I)
# A change to how many there are: "one of our cats, Tunde, died", "two of my hens were taken by a fox", "we adopted
# another cat", "two more hives" (set AO, held out: "How many cats do I have now?" lost "I have three cats." to it)
NUMBER = r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# (the thing counted is among <what>'s words)
COUNT_CHANGED = re.compile(rf"\b(?:(?P<lost>{NUMBER}) of (?:my|our|the|his|her|their) |(?P<another>another) |"
                           rf"(?P<more>{NUMBER}) more )(?P<what>[\w'’-]+(?: [\w'’-]+){{0,2}})", re.I)
_COUNT = re.compile(rf"\b(?P<n>{NUMBER}) (?!of\b|more\b)(?=(?P<what>[\w'’-]+(?: [\w'’-]+){{0,2}}))", re.I)
_LOSS = re.compile(r"\b(?:lost|killed|taken|took|stole|stolen|snatched|ran away|went missing|rehomed|gave away|"
                   r"given away)\b", re.I)  # set AT, held out: "A fox took one of our chickens on Sunday."
# a child born adds one to the children counted (set AT, held out: "We had a baby girl, Maja, on Friday!" beside "My wife
# Signe and I have two kids." -> "At least 2 kids now.")
_BORN = re.compile(r"\b(?:had|welcomed|gave birth to) (?:a|our|another|a new) (?:new |second |third )?(?:baby|son|daughter|"
                   r"boy|girl)\b(?! (?:shower|monitor|sitter|seat|scan|clothes|food|gifts?)\b)", re.I)
_OFFSPRING = frozenset(word_stems("kid kids child children son sons daughter daughters baby babies"))
# A statement that marks a change: "so I've switched to the aquathlon instead", "I dropped the app", "Tofu died"
CHANGED = re.compile(rf"\b(?:{_ENDING}|instead|rather than|switched|swapped|changed|replaced|"
                      r"moved(?= (?:[\w-]+ )?(?:from|off|onto|on to|to|into)\b)|moved there|now|"
                      r"moved(?= (?:the|my|our) (?:[\w-]+ ){1,2}(?:from|off|onto|on to|to|into)\b)|"
                      r"new (?:job|role|position|post|employer|house|home|flat|apartment|address|car)|got a job|"
                      r"cut (?:back|down)|cut(?=(?: [\w-]+){1,3} (?:back|down)\b)|"  # "cut my volunteering back" (BG)
                      r"reduced|increased|upped|postponed|rescheduled|delayed|pushed (?:back|forward)|"
                      r"brought forward|became|(?:got |been |was )?promoted|"
                      # a pause: "I tore a ligament in my ankle, so no football for at least two months" (set AD)
                      r"no(?= [\w-]+ for (?:at least |another |the next )?(?:a|an|\d+|one|two|three|four|five|six|"
                      r"several|a few|a couple of) (?:days?|weeks?|months?))|"
                      r"(?:raised|put up|lowered|bumped up|cut|trimmed|scaled back)(?=(?: [\w'’-]+){0,3} to\b)|"  # set AW:
                      # "I've cut my swimming to twice a week" left "I swim three times a week" standing (held out)
                      r"(?:went|gone|goes|going) (?:up|down) to|"
                      r"since (?:\d|early|mid|late|last|(?:January|February|March|April|May|June|July|August|September|"
                      r"October|November|December)\b))\b", re.I)
# ("moved the … to": set AM, held out: "We moved the Japan trip to next April." left "… a trip to Japan in October";
# the words between stay the statement's subject, and only the user's things, not "The choir moved its practice to …")
# ("now" and "left": set N's "I've now saved £12,000 for the deposit" and "I've left Salt and now run my own food truck"
# left "… I've got £8,000 so far" and "I work as a chef at a tapas bar called Salt" as what holds now;
# "a new job" replaces the job: set K's "I got a new job as deputy head at a school in Swansea" left "I'm a primary
# school teacher in Cardiff" standing, and "Which city do I work in now?" was answered with both cities; "since" a day
# starts what holds now, as "now" does: set U's "Since 1 April I've been flying long-haul on the Boeing 787" left "I fly
# Airbus A320s out of Amman", and "Which plane am I flying these days?" was answered "an Airbus A320"; so does an amount
# cut back or increased: set X's "I've cut back to 40 km a week" left "I run about 60 km a week"; raised to one: set Z's
# "My landlord raised the rent to 2,400 reais from May" left "I rent a small flat … for 2,100 reais a month", and "How
# much is my rent from May?" was answered 2,100 - not "I was raised in Leeds"; so is a day postponed: set AA's "I've
# postponed the West Highland Way to September because my knee is playing up" left "… in June" what holds)

# Words of time (read by answer_checks and answer_dates too): the month and day names, and the rest.
CALENDAR_WORDS = frozenset(day.lower() for day in (*calendar.month_name, *calendar.day_name) if day)  # 19 words
DATE_WORDS = re.compile(r"\d|\b(?:yesterday|today|tonight|ago|last|this|next|week|weekend|month|year|morning|"
                         r"evening|night|spring|summer|autumn|fall|winter|" + "|".join(sorted(CALENDAR_WORDS))
                         + r")\b", re.I)


FROM_TO = re.compile(r"\bfrom ([^,.;!?]+?) to\b", re.I)  # a change of one value: "from Fridays to Thursdays"
# what a change carries somewhere new whole ("now I grow everything in pots"), and a question after where it went
_CARRIED = re.compile(r"\b(?:everything|all of (?:it|them)|them all|it all)\b", re.I)
ASKS_WHERE = re.compile(r"^\s*where\b", re.I)  # where a moved thing is now, the change says
ASKS_PLACE = re.compile(r"^\s*(?:where|(?:which|what) (?:city|town|country|village|neighbou?rhood|area|region|part|"
                         r"district|suburb|street))\b", re.I)


def place_named(prepositions: str) -> re.Pattern[str]:
    """A place named after one of `prepositions` ('|' between them): "in Abuja", "to the Hague", a name in any alphabet
    (text.NAME_START: "from Łódź"), not a month or a day ("in March", "to Saturdays": set BE, held out, "Where do I
    volunteer?" lost "I volunteer at a turtle rescue on Thursdays." to "I moved my volunteering to Saturdays …")."""
    return re.compile(rf"\b(?:{prepositions}) (?:the )?(?!(?i:{'|'.join(sorted(CALENDAR_WORDS))})s?\b){NAME_START}")


# "in Abuja", "from Altona"; not "in March" (set AE: "I moved to day shifts in March" named no place)
_PLACE_IN = place_named("in|at|near|outside|from|to")
# a place named by what it is, for a question asking where (set AK, held out: "Where do I work now?" kept "I work as a
# dental hygienist at a practice in Lyon." for its city beside "Since April I've been working at a children's hospital
# instead.", and was answered from it), and one the older line names for a question asking where the change leaves it
# (set AM, held out: "Where do I run?" lost "I run … along the river" to "I sprained my ankle, so no running for six
# weeks."); not a time or a manner ("at the moment", "in a row")
_SOMEWHERE = re.compile(r"\b(?:at|in|into|to|on|along|by|near|around|beside|through|across) (?:a|an|the|my|our) "
                        r"(?!(?:moment|weekend|morning|afternoon|evening|night|end|"
                        r"start|beginning|meantime|time|week|month|year|same|row|bit|while|way|hurry|minute|rush|mood|"
                        r"sense|future|past|first|last|next|whole|long|few|couple|lot)\b)[a-z]")
# Words that say how or how often, not what: "I play tennis every week" and "I stopped playing the piano every week"
# are about different things.
GENERAL_WORDS = frozenset(word_stems("every each often always usually sometimes daily weekly monthly also just still "
                                      "really go going get getting have having make making take taking use using "
                                      "play playing do doing try trying keep keeping start started"))


_SAME_AS = {"employer": "job"}  # one's work, by what one does or by whom one works for (`_one_valued`)
_KINDS = tuple(ONE_KIND.values())  # as written: set AW, held out, "moved into a care home" was no "scooter" change


def subject_words(text: str) -> set[str]:
    """A statement's word stems, without words of time ("week", "May"), of change or of how often: what it is about."""
    return word_stems(CHANGED.sub(" ", DATE_WORDS.sub(" ", text))) - GENERAL_WORDS


def asked_stems(query: str) -> set[str]:
    """What a question asks about, as stems: its words but those of time and of how often. Example: 'Which city is our
    new house in?' -> {'citi', 'our', 'new', 'hous', …} ("our new house" asks about the house)."""
    return word_stems(DATE_WORDS.sub(" ", query)) - GENERAL_WORDS


def other_part_asked(query: str, newer: str, older: str) -> bool:
    """Whether a question is about a part of `older` that the change `newer` leaves alone
    (pure): set O's "Which city is our new house in?" lost "My partner Sam and I bought a house in Bristol and we move
    in on 3 March" to "… so our moving day is now 17 March", which shares "move" with it and nothing with the question.
    A question whose words, where `older` says them, all stand near what the change shares with it asks after the
    changed part (`_near`). A change that ends the thing (ENDED: died, sold, dropped, …) leaves no part standing. A
    change that carries "everything" somewhere new leaves what was carried, for a question that is not `where` it is."""
    asked = asked_stems(query)
    # a kind asked, one of which the older line names and the change none: the change is of another part, whatever it
    # ends (set AX, held out: "What instrument do I play?" lost "I play the đàn bầu in a folk band." to "I left the folk
    # band in April and now play in a jazz trio.")
    if kind_named(asked, older) and kind_named(asked, newer) is False:
        return True
    if ENDED.search(newer):
        return False
    where, place = bool(ASKS_WHERE.match(query)), bool(ASKS_PLACE.match(query))
    # "so now I grow everything in pots on the balcony": what was moved stands, for a question not about what the change
    # says anew (set U: "Which vegetables do I grow?" lost "I grow tomatoes and chillies in my greenhouse")
    if _CARRIED.search(newer) and not where and not asked & (subject_words(newer) - subject_words(older)):
        return True
    # a place asked, which the change does not say and the older line does, is the older line's (set AA: "Which city
    # is my catering business in?" lost "I run a small catering business in Abuja …" to "Business is growing: …
    # there are six employees now.")
    if place and (_PLACE_IN.search(older) or (where and _SOMEWHERE.search(older))) and not _PLACE_IN.search(newer) \
            and not (where and _SOMEWHERE.search(newer)):
        return True
    if asked & subject_words(newer):
        return False
    # a time the question names that the older line says and the change does not: the change leaves that part (set BF,
    # held out: "What do I do on weekends now?" lost "I go cross-country skiing on weekends." to "I broke my wrist, so
    # I've switched from skiing to hiking for now.", and was answered "You can't do anything on weekends now.")
    if _times(query) & _times(older) - _times(newer):
        return True
    # a change "from <one value> to another" updates that value: a question neither line says a word of asks after
    # another part (set AA: "What instrument do I play?" lost "I play the Portuguese guitar in a fado group on Friday
    # nights." to "Our fado group changed its night from Fridays to Thursdays."); without "from … to", which part changed
    # is unknown ("Which city do I work in now?" beside "I got a new job as deputy head at a school in Swansea.")
    # - when what changed is a time or an amount; "I've switched from running to cycling" changes the thing itself, and
    # "What exercise do I do now?" asks after it (set AH, held out)
    if asked and not asked & subject_words(older) and any(DATE_WORDS.search(value.rstrip("s")) for value in
                                                           FROM_TO.findall(newer)):
        return True
    return bool(asked & subject_words(older)) and not _near(older, asked, _shared(newer, older))


def _times(text: str) -> set[str]:
    """The words of time a text says, one of many as one ("weekends": 'weekend') (pure)."""
    return {word.lower().removesuffix("s") for word in DATE_WORDS.findall(re.sub(r"(?i)(?<=\w)s\b", "", text))} - {"now"}


def _near(text: str, these: set[str], those: set[str], within: int = 3) -> bool:
    """Whether every word of `these` that `text` says stands within `within` words of one of `those` (stems; pure): set
    R's "What am I studying now?" asks after the part "I'm in my second year studying civil engineering" that "I've
    switched my course from civil engineering to architecture" changes; set O's "Which ward do I work on?" asks after
    the ward of "I'm a nurse on the cardiology ward and I've been working night shifts", not the shifts that "I've moved
    off nights and onto day shifts" changes, though "working" stands by them."""
    at = [word_stems(word) for word in re.findall(r"[\w'’-]+", text)]
    there = [i for i, stems in enumerate(at) if stems & those]
    said = [[i for i, stems in enumerate(at) if word in stems] for word in these]
    said = [places for places in said if places]
    return bool(said) and all(any(abs(i - j) <= within for i in places for j in there) for places in said)


def reports_change_of(newer: str, older: str) -> bool:
    """Whether statement `newer` marks as changed what `older` says (pure): a change word (CHANGED) and a word both
    say that is not one of time or of change, or two words of one kind (`_shared`). Example: ("I've moved from Saturdays
    to Wednesday afternoons at the food bank.", "I volunteer at a food bank on Saturdays.") -> True; ("I also started
    swimming.", "I play tennis.") -> False."""
    return bool(CHANGED.search(newer)) and bool(_shared(newer, older))


# driving one for hire is a job, no way of getting about (set BI, held out: "I sold my noodle stall and now drive a
# taxi." replaced "I cycle to the market every morning." for "How do I get to the market?")
_DRIVEN_FOR_WORK = re.compile(r"\bdriv(?:e|es|ing) (?:a|an|the) (?:taxi|cab|bus|lorry|truck|tram|train|ambulance|tractor|"
                              r"forklift|coach|minibus)\b", re.I)


def _shared(newer: str, older: str) -> set[str]:
    """What two statements both speak of (stems; pure): the words both say, the older's words of a kind the newer
    names one of (ONE_KIND), and the older's value of a one-valued attribute both state (`_one_valued`). Examples:
    ("The clinic moved, so I take the train now.", "I cycle to work.") -> {'cycl'}; ("I got promoted to test lead in
    March.", "I'm a software tester at a bank.") -> {'softwar', 'tester'}."""
    new, old = set(words(newer)), set(words(older))  # with figures: "10k"
    hired = set(words(" ".join(m.group() for m in _DRIVEN_FOR_WORK.finditer(newer))))
    kinds = ({stem(w) for w in old & kind} for kind in _KINDS if (new - hired) & kind)
    stated, before = _one_valued(newer), _one_valued(older)
    return (subject_words(newer) & subject_words(older)).union(*kinds, *(word_stems(before[a]) for a in stated.keys() & before))


@lru_cache(maxsize=4096)
def _one_valued(text: str) -> dict[str, str]:
    """The one-valued attributes a statement gives the user a value of (facts.extract_statements), a job and an employer
    as one: what a later statement of the same attribute changes though no word is shared (set AI, held out: "I got
    promoted to test lead in March." left "I'm a software tester …" standing, and "What's my role at work now?" was
    answered from it). Example: "I'm a taxi driver in Amman." -> {'job': 'taxi driver'}; "I'm a bit tired." -> {}."""
    return {_SAME_AS.get(s.attribute, s.attribute): s.value for s in extract_statements(text)
            if s.attribute in SINGLE_VALUED_ATTRIBUTES and not s.ends and s.value}


def _figure(word: str) -> int:
    return int(next(iter(amounts(word))))


# "We adopted a third cat": the count it makes (set BC, held out: "How many cats do I have now?" -> "You have two cats
# now.", beside "I have two cats." and that line)
_NTH = re.compile(r"\b(?:adopted|got|bought|took in|rescued|welcomed|added|have|has) an? (?P<nth>second|third|fourth|fifth|"
                  r"sixth) (?P<what>[\w'’-]+(?: [\w'’-]+){0,2})", re.I)
_NTHS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}


def count_of(words: str, thing: set[str]) -> int | None:
    """How many of a thing (its word stems) a statement says there are, or None (pure): "I have three cats." -> 3 for
    {'cat'}, "We adopted a third cat" -> 3; a change to the count ("one of our cats died") says none. Example:
    count_of("We keep two rescue greyhounds and a cat", {'greyhound'}) -> 2."""
    if (nth := _NTH.search(words)) and word_stems(nth.group("what").split()[0]) & thing:
        return _NTHS[nth.group("nth").lower()]
    if COUNT_CHANGED.search(words):
        return None
    for match in _COUNT.finditer(words):
        what = match.group("what").split()
        stems = [word_stems(w) for w in what[:next((i for i, w in enumerate(what) if amounts(w)), len(what))]]
        if any(s & thing for s in stems):
            return _figure(match.group("n"))
    return None


def count_change(words: str, thing: set[str]) -> int | None:
    """By how much a statement says the count of a thing (its word stems) changed, or None (pure): a loss ("one of our
    cats, Tunde, died": -1; "we lost two of the hens to a fox": -2) or a gain ("we adopted another cat": +1; "I got
    two more hives": +2). "Two of our cats are ginger" changes nothing."""
    for match in COUNT_CHANGED.finditer(words):
        if not word_stems(match.group("what")) & thing:
            continue
        lost = bool(ENDED.search(words) or _LOSS.search(words))
        if match.group("lost"):
            return -_figure(match.group("lost")) if lost else None
        change = _figure(match.group("more")) if match.group("more") else 1
        return -change if lost else change
    return 1 if _BORN.search(words) and thing & _OFFSPRING else None

