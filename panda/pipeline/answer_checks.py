"""What an answer written from the answer's context (evidence.py) lacks, and how it is mended (pure): read by
synthesize's guards (unanswered_abstained, told_line_quoted); an answer saying a user's line again (stated_line_approved,
unrelated_line_revised) is answer_lines.py's; a copied relative day or line frame, and a when-question answered with no
time of the line's (undated_when_answered), are answer_dates.py's; a changed value still said (superseded_value_unsaid),
answer_changes.py's.
Split from evidence.py, which builds the lines these read: each function here takes the context as the text the model
saw.
"""

from __future__ import annotations

import re

from panda.language.changes import CHANGED, COUNTED, FROM_TO
from panda.language.metrics import abstained
from panda.language.text import (
    NAME,
    STOP_WORDS,
    amounts,
    asked_part,
    is_question,
    second_person,
    stem,
    tokenize,
    word_stems,
    written_words,
)
from panda.language.vocabulary import AREAS, LENGTHS, UNITS, WEIGHTS, member_stems, members_of
from panda.memory.current_facts import names_in
from panda.pipeline.answer_dates import ASKS_WHEN, DATE_FIGURES, DATED, LINE, days_said, quoted, time_unsaid, user_statements
from panda.pipeline.answer_names import (
    ALONE,
    ASKS_OLD,
    ASKS_SURNAME,
    NOT_A_NAME,
    asked_of_someone_else,
    described,
    names_someone_else,
    new_one_named,
    places_named,
    said_whole,
    surname_given,
)
from panda.pipeline.evidence import ASKS_EARLIER, ASKS_WHO, LATER
from panda.pipeline.said_words import (
    BIRTH,
    CLOCK,
    KIN,
    PEOPLE,
    PERSON,
    PLACE_SAID,
    PLACE_WORDS,
    THEIRS,
    asked_words,
    kind_lines,
    lines_about,
    lines_naming,
    lines_of,
    lines_saying,
    measures,
    qualified,
    reason_unsaid,
    said_stems,
    said_word,
    same_word,
    says_a_job,
    things_listed,
)

# What a question about the user asks for, and what its answer must then hold (`unanswered`).
# a title is a name ("What was my thesis title?" -> "The thesis title is epidemiology.", set Z), a job title is not
_BODIES = (r"station|school|hospital|clinic|company|firm|employer|city|town|village|country|street|university|college|"
           r"gym|club|team|restaurant|hotel|airport|bank|shop|store|church|vets?|dentist|doctor|surgery|garage|salon|"
           r"barber|hairdresser|caf[eé]|pub|venue|theatre|cinema|library|pharmacy|nursery|kennels?|cattery|airline|agency|"
           r"charity")
_ASKS_BODY = re.compile(rf"^\s*(?:which|what) (?:[\w-]+ )?(?P<body>{_BODIES})\b|^\s*what(?:['’]s| is| was) (?:my|our|the|"
                        rf"[\w-]+['’]s) (?:[\w-]+ )?(?P<own>{_BODIES})\W*$", re.I)  # a body has a name
_BODY_SAID = re.compile(rf"\b(?:{_BODIES})\b", re.I)  # where one is: "I joined a chess club" (a where-question's line)
_TOWNS = frozenset("city town village country".split())  # a place's own name, asked: where the thing is
_ASKS_NAME = re.compile(rf"\b(?:names?|named|called|titled|(?<!job )titles?)\b|{_ASKS_BODY.pattern}", re.I)
# "What's my car's registration number?", "What is my flat number?", "What's our postcode?": figures or a code, said;
# an address has its number too (set V: "What is the cabin's address?" -> "… the summer house on Gotland …")
_ASKS_NUMBER = re.compile(r"\b(?:number|postcode|post code|zip code|pin|reference|address)\W*$", re.I)
# "What's my mortgage rate?", "What is our rent?": an amount of a thing
_PRICED = r"rate|price|cost|budget|rent|fee|deposit|score|salary|wage|wages"
_ASKS_PRICE = re.compile(rf"^\s*(?i:what)(?:['’]s| is| was) (?:[Mm]y|[Oo]ur|[Tt]he) ((?:[\w-]+ )?(?:{_PRICED}))\b")
# "What salary does the postdoc pay?", "What rent do we pay?" (set U: "The postdoc pays a salary based on the job …")
_ASKS_PRICE_OF = re.compile(rf"^\s*what ({_PRICED}) (?:do|does|did|will|would|is|are|was)\b", re.I)
_WITH_FIGURE = re.compile(r"\b[\w-]*\d[\w-]*\b")
# "how much/many/old", "what time …", "what finishing time …" (not "what time of day": "in the evenings" answers it)
_ASKS_AMOUNT = re.compile(r"^\s*(?:how (?:much|many|old)\b|(?:what|which)(?:'s| is| are)?(?: [\w-]+){0,3}? time\b(?! of\b))",
                          re.I)
# "How big is my greenhouse?", "How far is our allotment?": a measure of the user's thing, which a line must give (set P:
# "about 3 meters wide and 2 meters tall", never said); not "how long"/"how old", which dates answer ("since 2019"), nor
# advice ("How big should her cage be?")
# "How big is the farmhouse?" too (set AH, held out: -> "The farmhouse is 120 square feet.", never said)
_ASKS_MEASURE = re.compile(r"^\s*(?:how (?P<dim>big|large|small|tall|high|far|wide|deep|heavy) (?:is|are|was|were) "
                           r"(?:my|our|the|his|her|their|[A-Z][\w-]*(?:'s|’s)?)\b|"
                           r"what (?:[\w-]+ ){0,2}size\b)", re.I)  # set R: "What shoe size do I wear?" -> "a size 10"
_MEASURES = frozenset(word_stems("big large small tall high far wide deep heavy size wear"))


def _unit_of(word: str) -> set[str] | None:
    """The units of the dimension a unit's name belongs to. Example: _unit_of('kilometres') -> LENGTHS; 'hives' ->
    None."""
    singular = word.lower().removesuffix("s")
    return next((units for units in (LENGTHS, WEIGHTS) if singular in units or singular + "s" in units), None)


_ASKS_AGE = re.compile(r"^\s*how old\b", re.I)
# a line an age is worked out from: a birth or a year ("born in 2019"), not "turned fifty", which says the age itself
_WORKED_OUT = re.compile(r"\b(?:born|\d{4}|had a baby|gave birth)\b", re.I)
# since when, in a span; or how long a thing lasts (set BF, held out: "How long is Tuva's art course?" -> "12 months")
_ASKS_SPAN = re.compile(r"^\s*(?:for )?how long (?:(?P<since>have|has|had)|is|are|was|were|will)\b", re.I)
_ASKS_BIRTHDAY = re.compile(r"\b(?:birthday|born)\b", re.I)
# "Gwen's"; a name in any alphabet (text.NAME: "Rocío", "Łukasz")
_OWNER = re.compile(r"\b(?!(?:What|Who|Where|When|Which|How|That|It|There|Here)['’])(" + NAME + r")['’]s\b|"
                    r"\b(?:is|are|was|were) (" + NAME + r")\W*$")  # "What breed is Pemba?" (set AN, held out)
# The thing a possessive question asks the name of: "my cat's vet" -> 'vet' ("my dog's name" asks the dog's own), the
# last of two words ("Leo's drum teacher" -> 'teacher': set J's "The drum teacher is your son Leo." named Leo from the
# line about drums), "called"/"named" left out.
_NOT_A_NOUN = STOP_WORDS | {"again", "now", "still", "today", "anymore", "these", "days"}
_OWNED = re.compile(r"\b(?:(?:my|our|your|the) (?:[\w-]+ )?[\w-]+|(?!(?:What|Who|Where|When|How|That|It|There|Here)'s)"
                    + NAME + r")['’]s ([a-z][\w-]*)(?: (?!called\b|named\b)([a-z][\w-]*))?")
# The thing a question asks the name of, said the other way round: "What's the name of my pottery teacher?"
# "What's my X called?", "What's the bakery called?" (set Y: the bakery's place, Croix-Rousse, was taken for its name)
_CALLED_WHAT = re.compile(r"\b(?:my|our|the) ((?:[\w-]+ )?[\w-]+) (?:(?:is |are )?going to be |will be )?(?:called|named)\W*$",
                          re.I)  # set AZ, held out: "What are the twins going to be called?"
_CALLED_NAME = re.compile(r"\b(?:called|named) [A-Z]")
_NAME_OF = re.compile(r"\bname of (?:my|our|the) ((?:[\w-]+ )?(?!I\b)[\w-]+)", re.I)  # not "the café I work at"
# "What's my wife's name?": someone named by who they are to the user, whom a line must name as such; one word for
# each relation however it is said ("my partner Lars" answers "my husband's name")
_RELATIVE_NAMED = re.compile(rf"\b(?:my|our) (?:[\w-]+ )?({PEOPLE})['’]s name\b", re.I)
_NAME_OWNED = re.compile(r"\b(?:my|our|the) (?:[\w-]+ )?([\w-]+)['’]s name\b", re.I)  # "my landlord's name": the landlord's
# "How much did the motorbike cost?", "How much do I pay for the gym?": a price, which a line says as one
_ASKS_COST = re.compile(r"^\s*how much\b.*\b(?:cost|costs|pay|paid|spend|spent|charge|charged|charges)\b", re.I)
_COST_SAID = re.compile(r"\b(?:cost|costs|costing|pay|paid|pays|paying|price|priced|spend|spent|charge|charged|charges|fee|"
                        r"fees|rent)\b|\b(?:bought|sold|got|buy|sell)\b[^.;!?”]*\bfor\b[^.;!?”]*\d", re.I)
# "it's just Frida now"; "Koa is on her own now" (set AL, held out)
_ONE_LEFT = re.compile(r"\b(?:just|only) " + NAME + r"(?: now| left)?\b(?! and\b)|"
                       r"\b" + NAME + r" is (?:on (?:her|his|its|their) own|alone|the only one left)\b")
_PEOPLE_COUNTED = frozenset("people persons staff employees members workers guests adults".split())
_PEOPLE_SAID = re.compile(r"\b(?:of us|of them|people|persons|staff|employees|members|workers|guests|adults|team)\b", re.I)
_DAY = re.compile(r"\b\d{1,2}(?:-\d{1,2})? [A-Z][a-z]+ \d{4}\b")  # "20 June 2026", as the lines date what was said


def asks_a_name(query: str) -> bool:
    """Whether a question asks who, or for something's name. Example: "What's my partner's name?" -> True; "Who is my
    flatmate?" -> True; "What does my partner do?" -> False."""
    return bool(ASKS_WHO.match(query) or _ASKS_NAME.search(query))


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
    marathon.", "…") -> True; ("What's the name of my pottery teacher?", "The pottery teacher is Pepper.", "… “I started a
    pottery class …” … “I've just adopted a greyhound named Pepper.”") -> True (set H: no line about pottery names Pepper);
    ("What's my car's registration number?", "That's the registration number for your Kia Niro.", "…") -> True (set L:
    a number or a code asked needs a token with a figure that a line holds); ("What's Mango's favourite toy?", "Mango's
    favourite toy is a blue rubber ball.", "… “Our cat Mango is twelve.”") -> True (set M: what the user's thing is
    needs a word of the answer's own that a line says); ("How big is my greenhouse?", "About 3 metres wide.", "…") -> True
    (set P: a measure's figures must be said); ("Where did I ride my longest ride?", "On 14 March 2026.", "…") -> True
    (a where-question needs a word a line says, dates aside); ("What is Bronagh's surname?", "Biscuit is Bronagh's
    dog.", "… “My flatmate Bronagh and I share a dachshund called Biscuit.”") -> True (set Q: a family name is one a
    line says after the first name); ("How old is Pip?", "Pip is 2 years old.", "…") -> True (an age is said or worked
    out from a birth); ("What breed is Gwen's dog?", "A border collie.", "… “We got a border collie puppy called Moss.”")
    -> True (what someone's thing is, a line naming them says).
    """
    if abstained(answer) or not is_question(query):  # "I adopted a hamster named Biscuit" asks nothing
        return False
    query = asked_part(query)  # the bundled sample: "I just adopted a Syrian hamster named Biscuit. What should I feed
    # her?" was taken to ask a name ("named"), and the 1.5B model's advice without one became "I don't know"
    if ASKS_WHEN.match(query) and _ASKS_BIRTHDAY.search(query):  # set W: "When is Pamuk's birthday?" -> "… on 2 March
        # 2026." (the day the dog was adopted): a birthday's day is said by a line about a birth
        born = "\n".join(f"{told} {' '.join(m['when'] for m in DATED.finditer(line))}"  # "turned seven yesterday" (set BB)
                         for line in context.splitlines() if BIRTH.search(told := _DAY.sub(" ", line)))
        return not days_said(answer) & days_said(born)
    if asked_of_someone_else(query, answer):  # set BI, held out: "What car does Xiaoyu drive?" -> "You drive a taxi."
        return True
    if (old := ASKS_OLD.search(query)) and asks_a_name(query) and new_one_named(old.group(1), answer, context):
        return True  # set AU, held out: "What was my old violin teacher called?" -> "My new teacher is called Zsófia."
    if surname := ASKS_SURNAME.search(query):  # set Q: "What is Bronagh's surname?" -> "Biscuit is Bronagh's dog."
        return not surname_given(surname.group(1), answer, context)
    if _ASKS_NUMBER.search(query):  # set L: "What's my car's registration number?" -> "That's the registration number
        # for your electric Kia Niro." (never said): a number or code is a token with a figure in it that a line holds
        said = set(_WITH_FIGURE.findall(DATE_FIGURES.sub(" ", context)))  # a date's figures are no number of a thing
        return not any(token in said for token in _WITH_FIGURE.findall(DATE_FIGURES.sub(" ", answer)))
    # set N: "What's my mortgage rate?" -> "You have £12,000 saved for the deposit.": an amount, said, but by a line
    # about savings; a line about a mortgage or a rate must say it
    if priced := _ASKS_PRICE.match(query) or _ASKS_PRICE_OF.match(query):
        context = lines_about(context, set(tokenize(priced.group(1))))
        given = amounts(DATE_FIGURES.sub(" ", answer))
        return not given or not context or bool(given - amounts(DATE_FIGURES.sub(" ", context)))
    if measure := _ASKS_MEASURE.match(query):
        # a figure the lines about the thing do not give; an answer in words is the model's (set R: "What shoe size do I
        # wear?" -> "… 1 hour 32 minutes", said of a half marathon). With no line naming the thing, the figure and a unit
        # of the measure asked as a line says them (set S: "How far is my commute?" -> "12 km", said "I cycle to work
        # every day, about 12 km each way.")
        about = lines_about(context, asked_words(query) - _MEASURES)
        if not about and measure.group("dim"):
            return not {m for m in measures(answer) & measures(context) if m.split()[1] in UNITS[measure["dim"].lower()]}
        context = about
        return bool(amounts(DATE_FIGURES.sub(" ", answer)) - amounts(_DAY.sub(" ", DATE_FIGURES.sub(" ", context))))
    if span := _ASKS_SPAN.match(query):  # set AM, held out: "How long have I been married?" -> "16 months" (never said): a
        # span a line about the thing says, or one worked out from a year it names ("We married in 2019")
        about = _DAY.sub(" ", lines_about(context, asked_words(query) - {"long"}) or ("" if span["since"] else context))
        unsaid = amounts(DATE_FIGURES.sub(" ", answer)) - amounts(DATE_FIGURES.sub(" ", about))
        if {a for a in unsaid if float(a) >= 100 or not re.search(r"\b(?:19|20)\d\d\b", about)}:
            return True
    if _ASKS_TIME.match(query):  # set AP, held out: "What was my 10k time?" -> "You ran your first 10k on 3 May 2026!": a
        # clock time or a span ("52 minutes", "1:58") a line says; a race's "10k" is neither
        given, said = ({re.sub(r"\s", "", t.lower()) for t in _TIMES_SAID.findall(text)} for text in (answer, context))
        return not given or not given <= said
    if _ASKS_AMOUNT.match(query):
        # "how many hives": a line must speak of hives; "how many kilometres", of a figure in a length (set X: "40 km")
        whole, counted = context, COUNTED.match(query)
        if counted and not _ASKS_COST.match(query) and things_listed(answer, whole) > 1:
            return False  # counted by naming each (set BE, held out: "How many pets …?" -> "… a parrot and a dog now.")
        if counted and (unit := _unit_of(counted.group(1))):
            context = "\n".join(line for line in context.splitlines()
                                 if any(m.split()[1] in unit for m in measures(line)))
        elif counted and counted.group(1).lower() in _PEOPLE_COUNTED:  # set Z: "How many people work at my practice?"
            context = "\n".join(line for line in context.splitlines()  # beside "… there are five of us at the practice"
                                 if _PEOPLE_SAID.search(line))
        elif counted:  # in other words too (set AV, held out: "How many babies did Thembeka have?" beside "… had twins")
            context = lines_saying(context, word_stems(counted.group(1)), query)
        if counted and not context:  # none is said, unless one is left by name (set AB: "How many cats do I have?" ->
            # "There is only one cat." beside "Diego got out and was hit by a car, so it's just Frida now.")
            return not (_ONE_LEFT.search(whole) and amounts(answer) == {"1"})
        cost = bool(_ASKS_COST.match(query))
        if cost:  # a price, from a line that says one (set T: "How much did the motorbike cost?" -> the savings)
            context = "\n".join(line for line in context.splitlines() if _COST_SAID.search(line))
        # a small count may be inferred ("it's just Pip now": one rabbit); a larger amount is said, and so is an age
        said = amounts(DATE_FIGURES.sub(" ", _DAY.sub(" ", context)))  # (set R: "How old is Pip?" -> "Pip is 2 years
        if _ASKS_AGE.match(query):  # old."), unless a line gives a birth, worked out from it;
            # a day's figure is no age (set U: "Eirik is 11 years old.", beside "… beat me at chess … on 11 April")
            given = amounts(DATE_FIGURES.sub(" ", _DAY.sub(" ", answer)))  # set W: "… five years old from 16 January 2026"
            # said of the one asked, when a line names them (set AW, held out: "How old is Gábor?" -> 76, beside "My
            # husband Gábor turned fifty"; "How old is Ijapa?" -> 12, beside "the under-12 team" and a tortoise)
            about = _DAY.sub(" ", lines_of(query, context)) or _DAY.sub(" ", context)
            said = amounts(DATE_FIGURES.sub(" ", about))
            return not given or (not _WORKED_OUT.search(about) and bool(given - said))
        # a date is no amount (set S: "How much did Adam weigh at birth?" -> "… born on May 11th."), and a measure no
        given = amounts(DATE_FIGURES.sub(" ", answer))  # count ("3.4 kg")
        measured = {m for m in measures(answer) if m.split()[1] in AREAS | WEIGHTS} - measures(context)
        small = 0 if cost else 10  # a price is never inferred, however small (set AF: "It cost 6 euros.", never said)
        return not given or bool({a for a in given if float(a) >= small} - said) or bool(measured)
    if _ASKS_WHERE.match(query):  # a place a line says, not the day it was said; where lines about the thing name a
        # place, one of theirs (set U: "Where is my postdoc going to be?" -> "… at the University of Manchester, starting
        # in September.", beside "I've accepted a postdoc in Leeds, starting in September.")
        about, asked = lines_about(context, asked_words(query) - _GOING), {w.lower() for w in written_words(query)}
        places = [t for t in written_words(answer)[1:] if t[:1].isupper() and t.lower() not in asked | NOT_A_NAME]
        if places and PLACE_SAID.search(about) and not any(re.search(rf"\b{re.escape(t)}\b", about) for t in places):
            return True
        capitalised = places_named(asked, answer, context)  # not "Tut and Lille" (set BG, held out: "Where did we get …")
        if not capitalised and not PLACE_WORDS.search(_DAY.sub(" ", answer)):  # no place at all (set AV, held out: "Where
            return True  # did Rocío move to?" -> "You live with your flatmate Rocío.")
        return not _holds_a_said_word(query, _DAY.sub(" ", DATE_FIGURES.sub(" ", answer)), context)
    if members := next((found for m in (_ASKS_KIND.match(query), _ASKS_KIND_LAST.match(query))
                        if m and (found := _members(m.group(1)))), frozenset()):
        # one of a kind: a member a line names (set AK, held out: "Which languages do I translate from?" -> "… Russian
        # and English.", beside "I'm a translator in Riga."; set AL: "What is Aigerim studying?" -> "Aigerim studies
        # diabetes."); none named is no answer ("You can't eat gluten …"); someone's, a line naming them ("Gwen's dog")
        given, asked, owner = member_stems(answer) & members, asked_words(query), _OWNER.search(query)
        if given:
            return not given <= word_stems(lines_naming(context, owner.group(1) or owner.group(2)) if owner else context)
        own = word_stems(answer) - asked  # none named: the answer a line about the question says (a member unlisted),
        # by a word not a name's (set AX, held out: "What is Tuấn studying?" -> "… Tuấn moved to Melbourne for university.")
        asked -= word_stems(" ".join(names_in(query)))
        return not any(own <= word_stems(m["words"]) | word_stems(second_person(m["words"])) for m in user_statements(context)
                       if asked & said_stems(m["words"], query))
    # one of a kind done, that lines say (set BA, held out: "What shifts do I work now?" -> "You work as a nurse …",
    # beside "I changed to night shifts in April."): a word of theirs
    if not _ASKS_NAME.search(query) and (saying := kind_lines(query, context)):
        own = word_stems(answer) - word_stems(query) - STOP_WORDS
        return not own & word_stems(" ".join(m["words"] for m in saying))
    asks_who = bool(ASKS_WHO.match(query))
    if not (asks_who or _ASKS_NAME.search(query)):  # "What's Mango's favourite toy?" -> "Mango's favourite toy is a blue
        # rubber ball." (set M, never said): what the user's thing is needs a word of the answer's own that a line holds
        # set O: "What does Sam do for work?" -> "The user's partner is Sam." (no work was said): what someone does too
        if job := _ASKS_JOB.match(query) or _ASKS_JOB_OF.match(query):  # who one is ("the user's partner") is no job
            if job.group("name"):  # set Y: "What does Radu do?" -> "The user is a nurse …" (the user's job), beside "My
                context = lines_naming(context, job.group("name"))  # husband Radu is a firefighter."
            elif not PERSON.search(query):  # the user's own, from a line saying one of theirs or a fact (set AZ, held
                context = "\n".join(line for line in context.splitlines()  # out: "What do I do for a living?" ->
                                     if (m := LINE.match(line)) and says_a_job(m["words"]) or _JOB_FACT.match(line))
                # "Buran is twelve now and can't go on long walks anymore.")
            return not _holds_a_said_word(query, answer, context, besides=_WHOM | _HOW_MANY)  # "… have two kids" (AT)
        if done := _ASKS_DONE.match(query):  # what one eats, reads, grows: from a line saying it (set AZ, held out:
            verb = stem(done["verb"].lower())  # "What does Buran eat?" -> "Buran is twelve now …")
            context = "\n".join(line for line in context.splitlines()
                                 if (m := LINE.match(line)) and said_word(verb, said_stems(m["words"], query)))
            return not _holds_a_said_word(query, answer, context)
        if not _ASKS_WHAT_OF.match(query):
            return False
        if owner := _OWNER.search(query):  # set R: "What breed is Gwen's dog?" -> "border collie", said of the user's
            context = lines_naming(context, name := owner.group(1) or owner.group(2))  # puppy: a line naming Gwen
        kind = re.findall(rf"(\w+) (?:called|named) {name}\b", context) if owner else []  # set AQ, held out: "a cat"
        return not _holds_a_said_word(query, answer, context, besides=frozenset(word_stems(" ".join(kind))))  # no breed
    asked = {w.lower() for w in written_words(query)}
    owned, named = _OWNED.search(query), _CALLED_WHAT.search(query) or _NAME_OF.search(query)
    thing, whose = (owned.group(1) if owned else None), ""
    if owned and thing != "name" and owned.group(2) and owned.group(2) not in _NOT_A_NOUN:
        thing = owned.group(2)  # "Leo's drum teacher"; not "my hamster's name again" (the bundled sample)
    if thing and thing != "name":  # the name must come from a line about that thing, not its owner's
        context = lines_about(context, set(tokenize(thing)))
    elif relation := _RELATIVE_NAMED.search(query):  # set S: "What is my wife's name?" -> "… Yui …" (his daughter)
        context = lines_about(context, set(tokenize(" ".join(KIN.get(whose := relation.group(1).lower(), {whose})))))
    elif owner := _NAME_OWNED.search(query):  # set Z: "What's my landlord's name?" -> "… in Porto Alegre, I rent a
        # small flat in Cidade Baixa …": from a line about the landlord, else one naming something outright ("my dog's
        # name" beside "a greyhound called Pepper")
        context = lines_about(context, set(tokenize(whose := owner.group(1).lower()))) or \
            "\n".join(line for line in context.splitlines() if _CALLED_NAME.search(line))
    elif named:
        # "What's the name of my pottery teacher?", "What's my ward manager called?": from a line about pottery or a
        # teacher when one is (set H: not "a greyhound named Pepper"), else from one naming something outright ("We
        # adopted a greyhound called Pepper" for "my dog"); set K: "The ward manager is a nurse at St Luke's." (from
        # "I work … as a nurse at St Luke's hospital"), set J: "The name of our new street is Leeds." (from "I live in
        # Leeds …")
        context = lines_about(context, set(tokenize(named.group(1)))) or \
            "\n".join(line for line in context.splitlines() if _CALLED_NAME.search(line))
    if asks_who:  # "Who conducts my orchestra?" is not answered by a name from the line about the user's brother; "Who
        # lives with me now?" is, by "… my cousin Almudena moved in." (set AV, held out)
        context = lines_saying(context, word_stems(query), query)
    lines = set(written_words(context))
    tokens = written_words(answer)
    names = [t for i, t in enumerate(tokens) if t[:1].isupper() and t.lower() not in asked
             and t.lower() not in NOT_A_NAME and t.lower().removesuffix("s") not in NOT_A_NAME  # nor "Tuesdays"
             and not (i == 0 and t.lower() in STOP_WORDS) and not amounts(t)]  # nor "Two" (set X)
    if whose:  # one named as someone else is not the one asked (set BC, held out: "What is the baby's name?" -> "Your
        names = [n for n in names  # wife Mele had a baby boy …")
                 if not (said_as := {r.lower() for r in re.findall(rf"\b({PEOPLE}) {re.escape(n)}\b", context, re.I)})
                 or said_as & KIN.get(whose, {whose})]
    # where the thing is, is not its name (set T: "What's the name of the games studio?" -> "… is in Galway.")
    body = ((bodied["body"] or bodied["own"]).lower() if (bodied := _ASKS_BODY.match(query)) else "")
    if body and described(body, answer, context):
        return False
    # (not for "Which city is Aroha's university in?", which asks where the thing is)
    town = body in _TOWNS
    noun = None if town else thing if thing and thing != "name" else named.group(1).split()[-1] if named else body or None
    if noun:
        # every word of the place, and of the place it is in (set V: "… a café near Porta Nuova in Turin")
        # (set AD: "a secondary school maths teacher in Kumasi", up to two words between)
        located = re.findall(rf"\b(?i:{re.escape(noun)})s?(?: [a-z][\w'’-]*){{0,2}} (?:in|near|outside|by) "
                             r"((?:[A-Z][\w'’-]*\b ?)+(?:(?:in|,) "
                             r"(?:[A-Z][\w'’-]*\b ?)+)*)", context)
        names = [name for name in names if not any(name in place.split() for place in located)]
    if body and not town:  # nor the town a line puts one in ("Which university is Caio at?" -> "… a PhD in Pelotas")
        names = [n for n in names if not re.search(rf"\bin {re.escape(n)}\b", context)]
    if town or noun and not PERSON.fullmatch(noun):  # a person named with who they are is no thing's name (set AV, held out:
        names = [n for n in names if not re.search(rf"\b(?i:{PEOPLE}) {re.escape(n)}\b", context)]  # "What are the
        # twins called?" -> "Your sister Thembeka had twins …")
    if asks_who:  # a place is no one (set BA, held out: "Who is Aurélien marrying?" -> "… married in Annecy …")
        names = [n for n in names if not re.search(rf"\b(?:in|at|near|outside) {re.escape(n)}\b(?!['’])", context)]
    if any(name in lines and said_whole(name, answer, context) for name in names):
        return False
    if asks_who:  # a person a line names, not the one asked about (set AK, held out: "Who is Chioma marrying?" -> "Your
        said = {m.lower() for m in PERSON.findall(context)}  # sister Chioma is getting married in December.")
        asked_of = {m.lower() for name in names_in(query)
                    for m in re.findall(rf"\b(?i:my|our|your) ({PEOPLE}) {re.escape(name)}\b", context)}
        if ALONE.search(answer) and ALONE.search(context):  # the user alone, as a line about it says ("Who do I live
            return False  # with now?" -> "You live alone now.", beside "… so I live alone now.": set AW, held out)
        return not any(m.lower() in said - asked_of for m in PERSON.findall(answer))
    return True


# "Where did I ride my longest ride?" (set P: "… on 14 March 2026", a when), "Where is my allotment?"
_ASKS_WHERE = re.compile(r"^\s*(?i:where)(?:['’]s| (?:do|does|did|is|are|was|were)) (?:I|we|[Mm]y|[Oo]ur|"
                         + NAME + r")\b")
_ASKS_KIND = re.compile(r"^\s*(?i:what|which) (?:kind of |type of |sort of )?([a-z]+)\b")  # "What sport …?"
_ASKS_KIND_LAST = re.compile(r"^\s*(?i:what)\b.*\b([a-z]+)\W*$")  # "What is Aigerim studying?" (set AL, held out)


def _members(kind: str) -> frozenset[str]:
    """The members of a kind a question asks for (vocabulary.KINDS_SAID), as stems. Example: 'languages' -> {'english',
    'french', …}; 'dog' -> frozenset()."""
    return members_of(word_stems(kind))  # none for "What do I do?"


# "What's my X?", "What colour is my Land Rover?" (set O: "The Land Rover is a dark grey.", never said)
_ASKS_WHAT_OF = re.compile(r"^\s*(?i:what)(?: [a-z]+)?(?:['’]s| is| are| was| were) (?:[Mm]y|[Oo]ur|"
                           + NAME + r"(?:['’]s\b|\W*$))")
# not "What do I do in the evenings?" (set V)
_ASKS_JOB = re.compile(r"^\s*(?i:what) (?:do|does|did) (?:I|we|(?P<name>" + NAME + r")|(?:[Mm]y|[Oo]ur) [\w-]+) do"
                       r"(?: for (?:a )?(?:living|work|a job))?\W*$")
_HOW_MANY = frozenset(word_stems("one two three four five six seven eight nine ten both"))
_ASKS_JOB_OF = re.compile(r"^\s*(?i:what)(?:['’]s| is| was) (?P<name>" + NAME + r")['’]s "
                          r"(?i:job|occupation|profession|work)\W*$")
_FACT_LINE = re.compile(r"^- (?P<words>[^(\n]+?)(?: \(told [^)]*\))?$")  # "- diet: vegan (told 11 January 2026)"


# whom an answer is about, not what it says: "the user", the people of a line ("What does Sam do?" -> "Sam is the user's
# partner" says no work)
_WHOM = frozenset(word_stems("user users mother father mum mom dad parent parents sister brother sibling siblings wife "
                             "husband partner spouse girlfriend boyfriend fiance fiancee friend friends son sons daughter "
                             "daughters kid kids child children family cousin aunt uncle grandma grandpa grandmother "
                             "grandfather neighbour neighbor roommate flatmate"))  # not "teacher", "coach": also jobs


def _holds_a_said_word(query: str, answer: str, context: str, besides: frozenset[str] = frozenset()) -> bool:
    """Whether the answer has a word of its own (not the question's, nor one of `besides`) that the user's lines or
    facts say."""
    asked = word_stems(query)
    own = [w for w in word_stems(answer) if not any(same_word(w, a) for a in asked) and w not in besides]
    said = set().union(*(word_stems(t["words"]) for m in user_statements(context) for t in (m, *LATER.finditer(m.string))),
                       *(word_stems(m.group("words")) for line in context.splitlines()
                         if not LINE.match(line) and (m := _FACT_LINE.match(line))))
    return any(same_word(w, s) for w in own for s in said)




def told_line(query: str, answer: str, context: str) -> str | None:
    """An "I don't know" to a question beside a line of the user's holding every meaningful word of the question (two
    or more): that line, quoted with its day (pure). The 1.5B model abstained with the answer's line in its context
    (set J: "What's my bakery called?" -> "No information given about the bakery's name." beside "I run a bakery in
    Bristol called Crumb and Co."; "What is my swimming goal?" -> "I am not sure …" beside "My goal is to swim 5 km in
    one go by the summer."). A line missing any of them does not count ("Where does my book club meet?" beside "I'm
    reading Middlemarch for my book club": never said), nor does a question of fewer words.

    Example: ("What's my bakery called?", "No information given.", '- On 8 January 2026 the user said: “I run a
    bakery in Bristol called Crumb and Co.”') -> 'You told me on 8 January 2026: “I run a bakery in Bristol called
    Crumb and Co.”'; a name asked is a name given: ("What's my physio's name?", "No information given about your
    physio's name.", '- On 16 March 2026 the user said: “My physio is called Hannah Okafor.”') -> that line (set L);
    so is one after who someone is ("Our son Adam …"), and a job one said as "Lars is a sound engineer" (set S)."""
    if not abstained(answer) or not is_question(query):
        return None
    asked = asked_words(query) | ({"job"} if _ASKS_JOB.match(query) or _ASKS_JOB_OF.match(query) else set())  # set T
    # one word is enough for where, in a line that names a place (set T: "Where do I go sailing?" beside "I sail … on
    # Lough Corrib most weekends."); going there is no word a line need say (set BA, held out: "Where is Tamati going
    # to university?" beside "My nephew Tamati starts university in Wellington next month.")
    if _ASKS_WHERE.match(query):
        asked -= _GOING
    where = bool(_ASKS_WHERE.match(query)) and len(asked) == 1
    lines = user_statements(context)
    # one left by name, when no line counts the thing (set AJ: "How many rabbits do I have now?" -> "I don't know",
    # beside "Flo died last week, so it's just Pip now.", the line of two rabbits replaced by it)
    if (counted := COUNTED.match(query)) and not lines_about(context, set(tokenize(counted.group(1)))) \
            and len(left := [m for m in lines if _ONE_LEFT.search(m.group("words"))]) == 1:
        return f"One - y{quoted(left[0])[1:]}"
    # what was before a change, from the one line telling a change "from" it that speaks of the question (set AH, held
    # out: "What exercise did I do before I hurt my knee?" beside "I hurt my knee …, so I've switched from running to
    # cycling." got "No prior memory matched this query.")
    if ASKS_EARLIER.search(query) and len(changed := [m for m in lines if FROM_TO.search(m.group("words"))
                                                      and asked & said_stems(m.group("words"), query)]) == 1:
        return quoted(changed[0])
    if not asks_a_name(query) and len(saying := kind_lines(query, context)) == 1:  # the one saying the kind asked
        return quoted(saying[0])
    if len(asked) == 1 and not where and _ASKS_WHAT.match(query) and not (asks_a_name(query) or _ASKS_AMOUNT.match(query)):
        # one word of what is done or had: the one line that says it (set V: "What do I do in the evenings these days?"
        # beside "I've swapped my evening yoga class for climbing twice a week.")
        lines = [m for m in lines if said_word(next(iter(asked)), said_stems(m.group("words"), query))]
        lines = lines if len(lines) == 1 else []
    elif len(asked) < 2 and not where:
        if not ASKS_WHO.match(query):
            return None
        # who did one thing, from a line naming a person (set BC, held out: "Who moved in with us?" beside "My mother
        # moved in with us in April."), not a thing's name ("a Laser" for "Who do I sail with?")
        lines = [m for m in lines if PERSON.search(m.group("words"))]
    asks_who = bool(ASKS_WHO.match(query))
    thing = _ASKS_WHAT_OF.match(query) and (last := re.search(r"([a-z]+)\W*$", query)) and last.group(1)
    # an amount asked is one a line says (set AW, held out: "How much did I sell my scooter for?" beside "I sold it")
    amount = bool(_ASKS_AMOUNT.match(query))
    # the user's own job is no line about someone else's ("What's my job?" beside "My husband Radu is a firefighter.",
    # "My brother Abebe runs a coffee farm …": read over the earlier sets when set AY's business rule came in)
    own_job = bool(_JOB_ASKED.search(query)) and not (names_in(query) or PERSON.search(query))
    for match in lines:  # a change says what holds now (set AK, held out: "Salma switched to medicine.")
        words = match.group("words")
        said = said_stems(words, query) | (_NOW if CHANGED.search(words) else set()) | qualified(query, words)
        if all(said_word(a, said) for a in asked) and (not asks_who or names_someone_else(query, words)) \
                and (PLACE_SAID.search(words) if where else not _ASKS_WHERE.match(query)
                     or PLACE_WORDS.search(words) or _BODY_SAID.search(words)) \
                and not (thing and re.search(rf"\b(?:a|an) (?:new )?{thing}\W*(?:[.,;!?]|$)", words, re.I)) \
                and not (amount and not amounts(DATE_FIGURES.sub(" ", _DAY.sub(" ", words)))) \
                and not (own_job and THEIRS.match(words)) \
                and not (time_unsaid(query, words) or reason_unsaid(query, words)):  # no when (set BD), no why (BE)
            return quoted(match)  # (not "… for a new job.", which says of one and not what it is: set AT, held out)
    return None


_ASKS_WHAT = re.compile(r"^\s*(?:what|which)\b", re.I)
_JOB_FACT = re.compile(r"^- (?:job|employer|occupation|profession|role|workplace):")
_ASKS_DONE = re.compile(r"^\s*(?i:what) (?:do|does|did) (?:I|we|" + NAME + r"|(?i:my|our) [\w-]+) (?P<verb>(?!do\b)[a-z]+)\W*$")
_JOB_ASKED = re.compile(r"\b(?:job|jobs|work|occupation|profession|career|trade|for a living)\b", re.I)  # not "live"
_NOW = frozenset(word_stems("now"))
_GOING = frozenset(word_stems("go goes going come comes coming"))  # "Where do I go sailing?" asks where I sail
_ASKS_TIME = re.compile(r"^\s*(?:what|which)(?:'s| is| are| was| were)?(?: [\w-]+){0,3}? time\b(?! of\b)", re.I)
_TIMES_SAID = re.compile(rf"\b\d+(?:[:.]\d{{2}})? ?(?:h|hours?|hrs?|minutes?|mins?|seconds?|secs?)(?!\w)|"  # or a clock
                         rf"\b\d{{1,2}}:\d{{2}}:\d{{2}}\b|{CLOCK.pattern}", re.I)  # "52 minutes", "1:58:30", "6 am"
