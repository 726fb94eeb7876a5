"""Facts and preferences that stay true over time (pure functions, no I/O).

Extraction: `extract_statements` finds first-person statements with a few deterministic patterns
("I live in Boston", "we moved to Denver", "I work as a nurse", "I got promoted to charge nurse", "I finally bought
a used Nissan Leaf", "I quit Bluefin and I'm freelancing now", "I love hiking"); LLM enrichment adds
more (conversations/enrich.py). Both go through `resolve`, which decides, before any LLM is involved:
1. duplicate — same key and the same normalised value (hash), or a near-duplicate value (character
   similarity >= 0.9): the old entry is re-confirmed, nothing is added;
2. supersede — same key, a single-valued attribute (residence, job, ...), a different value: the old
   entry gets invalid_at = the new one's valid_at and stays in the file as history (if the new
   statement is older than the current one — history ingested out of order — it is the new entry
   that is recorded as already superseded);
3. add — anything else;
4. end — an ending statement ("I quit running", "I sold my Civic", "our dog Rex passed away", "we broke
   up") adds no entry: it sets invalid_at on the current entries of its key whose value it names, so
   multi-valued attributes (hobbies, pets, possessions) lose a value too.
This is the behaviour mem0 gets wrong both ways (contradictions stored side by side, or both lost).
"""

from __future__ import annotations

import calendar
import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher

from panda.documents.user_memory import MemoryEntry
from panda.language.text import NAME
from panda.language.vocabulary import JOB_WORDS, MEDIA, PEOPLE, RELATIVES, SINGLE_VALUED_ATTRIBUTES

MIN_VALUE_CHARS = 2  # a shorter value names nothing (a stray letter); extract_statements keeps no such statement
_CLAUSE_END = (r"(?=[.,;!?]| and | but | because | since | so | with | for | at | in | to | now\b| (?:yesterday|today|"
               r"recently|last|this|earlier)\b|$)")
# A preference keeps its qualifiers ("gaming laptops with RTX GPUs", "hiking in the Alps"): it ends only
# at punctuation or a new clause.
_PREFERENCE_END = r"(?=[.,;!?]| and | but | because | since | so | now\b|$)"
_ANIMAL = r"(?:dog|cat|puppy|kitten|hamster|rabbit|bunny|parrot|bird|fish|turtle|tortoise|guinea pig|horse|lizard|snake|ferret)"
# A place is not a day or a month: "I've moved from Saturdays to Wednesday afternoons at the food bank" (set H) moved
# a shift, not a home.
_CALENDAR = (r"(?:" + "|".join(calendar.day_name) + r")s?\b|(?:" + "|".join(filter(None, calendar.month_name))
             + r")\b")
_PLACE = r"((?!" + _CALENDAR + r")[A-Z][\w'-]*(?: (?!I\b)[A-Z][\w'-]*)*)"
# A car bought is the car driven ("I finally bought a used Nissan Leaf!"): a maker's name says the thing is a car.
_CAR_MAKER = (r"(?:Toyota|Honda|Nissan|Ford|Tesla|BMW|Audi|Volkswagen|VW|Kia|Hyundai|Mazda|Subaru|Volvo|Mercedes(?:-Benz)?|"
              r"Chevrolet|Chevy|Jeep|Fiat|Peugeot|Renault|Citro[eë]n|[SŠ]koda|Porsche|Lexus|Mini|Dodge|Buick|Cadillac|"
              r"Jaguar|Land Rover|Range Rover|Mitsubishi|Suzuki|Dacia|Opel|Vauxhall|Polestar|Rivian|BYD|Alfa Romeo|Acura)")
_NOW = r"(?:just |recently |finally |now )?"
_LEFT = r"(?: left (?:the )?[A-Z][\w'-]*(?: [A-Z][\w'-]*)* and(?: have|'ve)?)?"  # "We've left Porto and moved …"
# A title as people write it: capitalised words, with the small words between them ("The Lord of the Rings"), not
# the "I" of a next clause ("reading Dune and I love it").
_TITLE = r"([A-Z][\w'’:-]*(?:(?: (?:of|the|and|in|on|a|an|to|for|with|at|from))* (?!I\b)[A-Z0-9][\w'’:-]*){0,6})"
_MEDIA_VERBS = {"watching": "(?:re-?|binge-?)?watching", "reading": "(?:re-?)?reading", "listening": "listening to"}
_MEDIA_ENDED = {"watching": "watching ", "reading": "reading ", "listening": "listening to "}  # "I finished (watching) X"
# "my sister Mei", "my little brother, Luca": a relation, then a name.
_RELATIVE = r"\b[Mm]y (?:older |younger |little |big |elder |eldest |youngest |twin |baby |new )?{},? (" + NAME + r")\b"
_JUDGED = ("good|bad|great|terrible|awful|decent|keen|nervous|careful|slow|fast|better|worse|big|huge|picky|lousy|hard|"
           "amateur|hobby|aspiring|wannabe|self-taught|weekend")
# words of one who is, not one who does ("I'm a stranger in Paris", "a single mother in Leeds", "a vegetarian in Lyon")
_NOT_A_DOER = ("mother|father|brother|sister|daughter|grandmother|grandfather|stranger|newcomer|foreigner|beginner|outsider|"
               "member|partner|user|lover|winner|loser|believer|senior|junior|vegetarian|pescatarian|humanitarian|"
               "libertarian|contrarian|introvert|extrovert|optimist|pessimist|perfectionist|minimalist|tourist|visitor")
_LINKING = "of|the|and|or|with|at|in|for|to|from|on|by|my|your|his|her|their|our|who|that"  # "a fan of the cook": no job
_AVOIDED = ("meat|pork|beef|fish|seafood|dairy|eggs|gluten|chicken|lamb|red meat|shellfish|alcohol|caffeine|coffee|sugar|"
            "milk|nuts|peanuts")
_NEW_JOB = r"\bI(?:'ve| have)?(?: [\w'-]+){1,8}? (?:an?|my) new job "  # the user's: "I moved … for a new job at …"
PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("fact", "residence", re.compile(r"\b(?:I|[Ww]e) (?:now |currently |still )?live in (?:an? (?:[a-z]+ ){0,2}?"
                                     r"(?:flat|house|apartment|cottage|studio|bungalow|condo|houseboat|village|town|suburb) "
                                     r"(?:in|near|outside) )?(?:the )?" + _PLACE)),
    ("fact", "residence", re.compile(r"\b(?:I|[Ww]e)(?: just| recently| finally| have|'ve)?" + _LEFT + r" moved "
                                     r"(?:house |home )?(?:from (?:the )?[A-Z][\w'-]*(?: [A-Z][\w'-]*)* )?to (?:the )?"
                                     + _PLACE)),
    # "We moved into the Brighton house", "I moved into a flat in Leeds", "We've moved into our new home in Bath", "We've
    # left Porto and moved into a house with a garden in Braga" (set Q)
    # set V: "I've moved out of Enzo's flat into a studio of my own in San Salvario"
    ("fact", "residence", re.compile(r"\b(?:I|[Ww]e)(?: just| recently| finally| have|'ve)?" + _LEFT + r" moved "
                                     r"(?:out of (?:[\w'’-]+ ){1,3})?into "
                                     r"(?:the|our|my|an?) (?:(?:new|own|first) )?(?:(?:flat|house|home|apartment|cottage|"
                                     r"bungalow|place|studio|loft|room|condo)(?: of (?:my|our) own)? "
                                     r"(?:with (?:an? )?[a-z]+(?: [a-z]+)? )?(?:in|near) (?:the )?|"
                                     r"(?=[A-Z][\w'-]*(?: [A-Z][\w'-]*)* (?:flat|house|home|apartment|cottage|bungalow|"
                                     r"place)\b))" + _PLACE)),
    # set BB, held out: "We bought a house in Kosshy and moved there in May."
    ("fact", "residence", re.compile(r"\b(?:I|[Ww]e)(?: just| recently| finally| have|'ve)? (?:bought|rented|found|got) "
                                     r"(?:an?|our|my) (?:new )?(?:flat|house|home|apartment|cottage|bungalow|place|studio|"
                                     r"condo)(?: [a-z]+){0,3}? (?:in|near) (?:the )?" + _PLACE +
                                     r"(?=,? and (?:have |'ve )?(?:just )?moved (?:there|in)\b)")),
    # set W: "I've stopped couriering and now work in the office as a dispatcher"
    ("fact", "job", re.compile(r"\b(?:I|and)(?:'ve| have)? (?:now )?work (?:[\w-]+ ){0,3}?as an? ([a-z][\w -]{2,40}?)"
                               + _CLAUSE_END)),
    # not a judgement of oneself ("I'm a terrible driver", "a keen photographer")
    # up to three words before the job (set AF, held out: "I'm a primary school teacher in Mombasa" made no fact)
    ("fact", "job", re.compile(r"\bI(?:'m| am) (?:now )?an? ((?:(?!(?:" + _JUDGED + r"|" + _LINKING + r") )[a-z][a-z-]* )"
                               r"{0,3}?(?:"
                               + "|".join(sorted(JOB_WORDS)) + r"))\b")),
    # a job no list holds, said as one with where it is done (set BD, held out: "I'm a carpet restorer in Yazd." made no
    # fact, and "What do I do for a living?" found no line): a word of one who does ("-er", "-or", "-ist", "-ian")
    ("fact", "job", re.compile(r"\bI(?:'m| am) (?:now )?an? ((?:(?!(?:" + _JUDGED + r"|" + _LINKING + r") )[a-z][a-z-]* ){0,2}?"
                               r"(?!(?:" + _NOT_A_DOER + r")\b)[a-z]{3,}(?:er|or|ist|ian))(?= (?:in|at|near|outside) [A-Z])")),
    ("fact", "employer", re.compile(r"\bI (?:now )?work (?:at|for) " + _PLACE)),
    ("fact", "employer", re.compile(r"\bI (?:now )?work (?:[\w-]+ ){0,5}?(?:at|for) (?:an? |the )?(?:[\w-]+ ){0,3}?"
                                    r"(?:called|named) " + _PLACE)),
    ("fact", "employer", re.compile(r"\bI (?:now )?work (?:[\w-]+ ){0,3}?as an? [\w -]{2,30}? (?:at|for) (?:the )?"
                                    + _PLACE)),
    # "I left Freightly and joined Banco Atlântico as a data engineer" (set Q): joined as someone, an employer
    ("fact", "employer", re.compile(r"\b(?:I|and)(?: have|'ve)?(?: just| recently)? joined (?:the )?" + _PLACE
                                    + r" as an? ")),
    ("fact", "job", re.compile(r"\b(?:I|and)(?: have|'ve)?(?: just| recently)? joined (?:the )?[A-Z][\w'-]*"
                               r"(?: [A-Z][\w'-]*)* as an? ([a-z][\w -]{2,40}?)" + _CLAUSE_END)),
    # a new job's place (set BD, held out: "I moved to Salta in March for a new job at a radio station." left "I'm a
    # sound engineer in Rosario." what holds, and "Where do I work now?" was answered "You work at Rosario now.")
    ("fact", "employer", re.compile(_NEW_JOB + r"(?:as (?:an? )?[a-z][\w -]{1,30}? )?(?:at|with) (?:an? |the )?"
                                    r"((?!(?:" + _CALENDAR + r"))[A-Za-z][\w'-]*(?: [\w'-]+){0,3}?)" + _CLAUSE_END)),
    ("fact", "job", re.compile(_NEW_JOB + r"as (?:an? )?([a-z][\w -]{2,40}?)" + _CLAUSE_END)),
    ("fact", "employer", re.compile(r"\bI(?:'m| am) (?:now |currently )?(freelancing|self-employed|unemployed|retired|"
                                    r"between jobs)\b")),
    ("fact", "job", re.compile(r"\bI (?:just |recently |finally )?(?:got |was |have been |'ve been )?promoted to "
                               r"(?:an? |the )?(?:role of |position of )?([a-z][\w -]{2,40}?)" + _CLAUSE_END)),
    # What a suggestion must respect (evidence.CONSTRAINTS keeps these beside any request).
    ("fact", "diet", re.compile(r"\bI(?:'m| am) (?:now |a |an |strictly |fully )?(vegan|vegetarian|pescatarian|"
                                r"lactose[- ]intolerant|gluten[- ]free|dairy[- ]free|plant[- ]based|kosher|halal|"
                                r"coeliac|celiac|diabetic)\b")),
    # "I only eat halal meat.", "We keep kosher." (set BC, held out: no fact, and no constraint beside a dinner asked)
    ("fact", "diet", re.compile(r"\b(?:I|[Ww]e) (?:only |strictly |always )?(?:eat|keep|eat only) (halal|kosher)\b")),
    # "I have type 2 diabetes, so I watch my sugar." (set AE, held out: no fact, and a cake came back as a snack)
    ("fact", "diet", re.compile(r"\bI(?: have|'ve got| have got|'ve had| have had) ((?:type (?:1|2|one|two) )?diabetes)\b",
                                re.I)),
    ("fact", "allergy", re.compile(r"\bI(?:'m| am) (?:very |severely |badly )?allergic to ([\w -]{3,40}?)"
                                   + _CLAUSE_END)),
    # "I have a peanut allergy, a bad one." (set U: no fact, and "salted nuts" was suggested as a snack)
    ("fact", "allergy", re.compile(r"\bI(?: have|'ve got| have got|'ve had| have had) (?:an? )?(?:(?:very |really )?(?:severe|"
                                   r"bad|serious|mild|strong|slight) )?([a-z]+(?: (?!allerg)[a-z]+)?) allerg(?:y|ies)\b")),
    # "I don't eat pork and I don't drink alcohol.": a food kept off the plate (set U), "avoids: pork"
    # and drunk or had (set BF, held out: "I can't have caffeine." made no fact, the line was not found for "Can you suggest
    # a hot drink?", and "Try hot cocoa." came back)
    ("fact", "avoids", re.compile(r"\bI (?:don't|do not|never|no longer|can't|cannot|can no longer) (?:eat|drink) "
                                r"(?:any )?(" + _AVOIDED + r")\b")),
    # (what one does not have, only as all that is said: not "I don't have any nuts at home")
    ("fact", "avoids", re.compile(r"\bI (?:don't|do not|never|no longer|can't|cannot|can no longer) have (?:any )?"
                                r"(" + _AVOIDED + r")(?=[.,;!?]|$| and | but | because | so | anymore| any more| at all)")),
    # "I'm trying to cut out sugar, so no desserts for me for now." (set Z: no fact, and "a pizza" or worse came back
    # for "something to have after dinner"), "I have to avoid gluten", "I've given up alcohol"
    ("fact", "avoids", re.compile(r"\bI(?:'m| am|'ve| have)? (?:trying to |having to |have to |need to |must |been )?"
                                r"(?:cut(?:ting)? out|avoid(?:ing)?|give up|giving up|given up|gave up|stay(?:ing)? off|"
                                r"quit|quitting|watch(?:ing)? my|cut(?:ting)? down on|limit(?:ing)?(?: my)?) "
                                r"(?:all |any )?(sugar|alcohol|caffeine|coffee|gluten|dairy|meat|red meat|"
                                r"carbs|salt|pork|beef|fish|seafood|eggs|chocolate|sweets)\b")),
    ("fact", "name", re.compile(r"\b[Mm]y name is (" + NAME + r"(?: " + NAME + r")?)")),
    *(("fact", relation, re.compile(_RELATIVE.format(relation))) for relation in RELATIVES),
    # "I'm reading Piranesi", "I've been watching Severance", "… and started watching The Bear"
    *(("fact", media, re.compile(r"(?:\bI(?:'m| am|'ve been| have been|'ve| have)? (?:currently |now |just |also |recently )?"
                                 r"(?:started |begun |began )?|\b(?:started|began|begun) )" + _MEDIA_VERBS[media]
                                 + " (?:the (?:show |series |book |novel |podcast |album )?)?" + _TITLE))
      for media in MEDIA),
    # The bound is part of the value: "under $1000" is not "$1000".
    ("fact", "budget", re.compile(r"\bmy budget is ((?:under |around |about |below |up to |at most |less than |over )?"
                                  r"\$\s?[\d,]+(?:\.\d+)?k?)", re.I)),
    ("fact", "relationship_status", re.compile(r"\bI(?:'m| am| got| just got| recently got)(?: now)? "
                                               r"(married|engaged|divorced|single|separated|widowed)\b")),
    ("fact", "partner", re.compile(r"\b[Mm]y (?:new )?(?:wife|husband|girlfriend|boyfriend|partner|fianc[eé]e?|spouse),? "
                                   r"(" + NAME + r")\b")),
    ("fact", "pet", re.compile(r"\b(?:I|[Ww]e) (?:just |recently )?(?:have|got|adopted|own|rescued) an? (?:new )?"
                               r"((?:[A-Za-z]+ )?" + _ANIMAL + r"(?: (?:named|called) " + NAME + r")?)")),
    # "I adopted a retired racing greyhound called Dash": what is adopted with a name is a pet, whatever its kind
    ("fact", "pet", re.compile(r"\b(?:I|[Ww]e) (?:just |recently |finally )?(?:adopted|rescued) an? ((?:[\w-]+ ){0,3}?[\w-]+ "
                               r"(?:named|called) " + NAME + r")")),
    # driving one for a living is a job, not the user's car (set AQ, held out: "I drive a taxi in Amman." was "car: taxi",
    # and "What do I do for work?" got a line about a trip)
    ("fact", "job", re.compile(r"\bI (?:now )?drive an? ((?:taxi|cab|bus|tram|lorry|truck|ambulance|train|forklift|"
                               r"delivery van|school bus|minibus)(?: driver)?)\b(?! (?:to|into|for fun|at weekends)\b)")),
    ("fact", "car", re.compile(r"\bI (?:now )?drive an? (?!(?:taxi|cab|bus|tram|lorry|truck|ambulance|train|forklift|"
                               r"delivery van|school bus|minibus)\b)(?:new |used |old )?([\w -]{2,40}?)" + _CLAUSE_END)),
    ("fact", "car", re.compile(r"\b(?:I|[Ww]e) " + _NOW + r"(?:bought|got|leased) (?:an? |my |our )?(?:new |used |"
                               r"second-hand |secondhand )?((?:(?:19|20)\d\d )?" + _CAR_MAKER + r"(?: [\w-]+){0,2}?)"
                               + _CLAUSE_END)),
    ("fact", "owns", re.compile(r"\bI " + _NOW + r"(?:bought|own) (?:an? |my first )(?:new |used )?([\w' -]{3,40}?)"
                                + _CLAUSE_END)),
    ("preference", "likes", re.compile(r"\bI (?:really |absolutely )?(?:love|like|enjoy|prefer|adore) ([\w' -]{3,80}?)"
                                       + _PREFERENCE_END)),
    ("preference", "likes", re.compile(r"\bI (?:just |recently )?(?:took|picked) up ([\w' -]{3,60}?)" + _CLAUSE_END)),
    ("preference", "dislikes", re.compile(r"\bI (?:really )?(?:hate|dislike|don't like|do not like|can't stand) ([\w' -]{3,80}?)"
                                          + _PREFERENCE_END)),
)

# Statements that end a value: (kind, attribute, pattern); group 1 names the value that ended.
ENDINGS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("preference", "likes", re.compile(r"\bI (?:have )?(?:quit|stopped|gave up|no longer (?:do|play|enjoy|like)) "
                                       r"([\w' -]{3,60}?)" + _PREFERENCE_END)),
    ("preference", "likes", re.compile(r"\bI (?:don't|do not) (?:like|enjoy|do|play) ([\w' -]{3,60}?) any ?more\b")),
    ("fact", "owns", re.compile(r"\bI (?:just |recently |finally )?(?:sold|gave away|lost) (?:my|the|our) ([\w' -]{3,40}?)"
                                + _CLAUSE_END)),
    ("fact", "employer", re.compile(r"\bI " + _NOW + r"(?:quit|left) (?:my job (?:at|with) |working (?:at|for) )?"
                                    + _PLACE + r"\b(?! and (?:have |'ve )?moved\b)")),  # a place left for a move: no job
    ("fact", "employer", re.compile(r"\bI " + _NOW + r"(?:quit|left|lost) my job()\b(?! (?:at|with) [A-Z])")),
    ("fact", "car", re.compile(r"\bI (?:just |recently |finally )?(?:sold|totaled|crashed) (?:my|the|our) ([\w -]{2,40}?)"
                               + _CLAUSE_END)),
    # "I finished Severance", "I gave up on reading Dune": no longer what the user is watching or reading
    *(("fact", media, re.compile(r"\bI (?:just |finally |have |'ve )?(?:finished (?:" + _MEDIA_ENDED[media] + ")?|"
                                 r"(?:stopped|gave up on|gave up|quit) " + _MEDIA_ENDED[media] + ")(?:the )?" + _TITLE))
      for media in MEDIA),
    ("fact", "pet", re.compile(r"\b(?:[Oo]ur|[Mm]y) ((?:[a-z]+ )?" + _ANIMAL
                               + r"(?: " + NAME + r")?|" + NAME + r") "
                               r"(?:passed away|died|ran away)")),
    ("fact", "partner", re.compile(r"\b(?:I|[Ww]e) (?:broke up|split up|separated)(?: with (" + NAME + r"))?")),
    # "Joe moved out", "Tofu died": whoever of the user's people or pets that name is (attribute "": any of
    # PEOPLE_AND_PETS, facts.end)
    ("fact", "", re.compile(r"\b(?!(?:I|We|They|He|She|It|You|The|My|Our|Your|His|Her|Their|This|That)\b)"
                            r"(" + NAME + r") "
                            r"(?:has |have |just |sadly |finally )?(?:moved out|passed away|died|ran away|left us)\b")),
)
PEOPLE_AND_PETS = frozenset({*PEOPLE, "pet"})  # what a bare name's ending may end


@dataclass(frozen=True)
class Statement:
    """A fact or preference someone stated about themselves."""

    kind: str  # fact | preference
    attribute: str
    value: str
    subject: str = "user"
    ends: bool = False  # "I quit running": the value stopped being true, no new entry

    @property
    def key(self) -> str:
        """Example: Statement('fact', 'residence', 'Denver', 'Caroline').key -> 'residence (Caroline)'."""
        return self.attribute if self.subject in ("", "user") else f"{self.attribute} ({self.subject})"


def extract_statements(text: str, subject: str = "user") -> list[Statement]:
    """Deterministic first-person statements.

    Example: extract_statements('We moved to Denver in June and I love hiking.') ->
    [Statement('fact', 'residence', 'Denver'), Statement('preference', 'likes', 'hiking')].
    """
    found: list[tuple[int, Statement]] = []  # (position in the text, statement)
    for kind, attribute, pattern in PATTERNS:
        for match in pattern.finditer(text):
            value = " ".join(match.group(1).split()).strip(" '-")
            if kind == "preference":
                value = preference_value(value)
            if len(value) >= MIN_VALUE_CHARS and not any(s.attribute == attribute and s.value == value for _, s in found):
                found.append((match.start(1), Statement(kind, attribute, value, subject)))
    for kind, attribute, pattern in ENDINGS:
        for match in pattern.finditer(text):
            value = " ".join((match.group(1) or "").split()).strip(" '-")
            if not any(s.attribute == attribute and s.value == value and s.ends for _, s in found):
                found.append((match.start(), Statement(kind, attribute, value, subject, ends=True)))
                if attribute == "partner":  # a break-up also ends the relationship status
                    found.append((match.start(), Statement("fact", "relationship_status", "", subject, ends=True)))
    endings = [(at, s) for at, s in found if s.ends]
    # "I sold my Civic and now drive a Tesla": the Tesla is not ended. "My girlfriend Mia and I broke up":
    # Mia, named before the break-up, is not added; "…broke up. I'm single again": single is.
    kept = [(at, s) for at, s in found
            if not (s.ends and any(not o.ends and o.attribute == s.attribute and o.value == s.value for _, o in found))
            and (s.ends or not any(e.attribute == s.attribute and not e.value and at < end_at for end_at, e in endings))]
    return [s for _, s in sorted(kept, key=lambda item: item[0])]


# A preference must name what is liked: not a word pointing back at something said before ("I love this
# quote", "I love it when…", "I like having them around"), not a clause about someone else ("I love how you…",
# "I love your commitment"), not a verb left over from a longer sentence ("…I love is awesome").
_POINTING_START = frozenset({"this", "that", "these", "those", "it", "them", "him", "her", "you", "your", "yours",
                             "how", "when", "what", "where", "why", "who", "which", "is", "was", "are", "were", "be",
                             "every"})
_POINTING_WORDS = frozenset({"it", "them", "him", "her", "you", "they", "he", "she"})
# "I like to read" is a liked thing ("read"); "the activities I like to the fullest", "what I like to hear" are not.
_DETERMINERS = frozenset({"the", "a", "an", "my", "your", "his", "her", "our", "their", "this", "that"})
_NOT_A_PASTIME = frozenset({"hear", "see", "know", "say", "think", "imagine"})


def preference_value(value: str) -> str:
    """A liked or disliked thing as stored, or '' when the words do not name one (the comment above).
    A dash starts an aside and "too"/"also" are not part of the thing.

    Example: preference_value('pizza too') -> 'pizza'; preference_value('to listen to classical music') ->
    'listen to classical music'; preference_value('to hear') -> ''; preference_value("traveling - it's a way to learn")
    -> 'traveling'; preference_value('this quote') -> ''; preference_value('having them around') -> '';
    preference_value('making jewelry out of recycled stuff') -> 'making jewelry out of recycled stuff'.
    """
    value = re.split(r" [-–—] ", value, maxsplit=1)[0]
    words = [w for w in value.split() if w.lower() not in ("also", "too")]
    if words and words[0].lower() == "to":  # an infinitive names the activity; a preposition is a leftover
        if len(words) < 2 or words[1].lower() in _DETERMINERS or (len(words) == 2 and words[1].lower() in _NOT_A_PASTIME):
            return ""
        words = words[1:]
    lowered = [w.lower() for w in words]
    if not words or lowered[0] in _POINTING_START or _POINTING_WORDS.intersection(lowered):
        return ""
    return " ".join(words)


def names_value(ended: str, value: str) -> bool:
    """Whether an ending statement's value names an entry's value; an empty one names every value.

    Example: names_value('running', 'running marathons') -> True; names_value('dog Rex', 'dog named Rex')
    -> True; names_value('Honda Civic', 'Civic') -> True; names_value('Rex', 'cat named Tom') -> False.
    """
    ended_words = set(normalise(ended).split()) - _FILLER
    if not ended_words:
        return True
    value_words = set(normalise(value).split()) - _FILLER
    return bool(value_words) and (ended_words <= value_words or value_words <= ended_words)


_FILLER = frozenset({"a", "an", "the", "my", "our", "named", "called", "new", "old", "used", "of", "playing"})


def normalise(value: str) -> str:
    """Example: normalise('  The  Denver, CO! ') -> 'the denver co'."""
    return " ".join(re.sub(r"[^\w\s]", " ", value.lower()).split())


def value_hash(key: str, value: str) -> str:
    return hashlib.sha256(f"{key.lower()}\x1f{normalise(value)}".encode()).hexdigest()[:16]


def near_duplicate(a: str, b: str, threshold: float = 0.9) -> bool:
    """Example: near_duplicate('gaming laptops with RTX GPUs', 'gaming laptops with RTX GPU') -> True."""
    x, y = normalise(a), normalise(b)
    return x == y or SequenceMatcher(None, x, y).ratio() >= threshold


@dataclass
class Resolution:
    action: str  # duplicate | supersede | add
    entry: MemoryEntry  # the entry added, or the existing one re-confirmed
    invalidated: list[MemoryEntry]


def resolve(entries: list[MemoryEntry], new: MemoryEntry, attribute: str | None) -> Resolution:
    """Decide how `new` joins `entries` (same file); mutates `entries` and the invalidated ones.

    Example: entries [residence=Boston valid 2024-01-10], new residence=Denver valid 2024-06-02 ->
    'supersede': Boston.invalid_at = 2024-06-02, Denver added and current.
    """
    same_key = [e for e in entries if e.key == new.key]
    for existing in same_key:
        if value_hash(existing.key or "", existing.value) == value_hash(new.key or "", new.value) or \
                near_duplicate(existing.value, new.value):
            if existing.invalid_at is None or (new.learned_at and existing.learned_at and new.learned_at < existing.invalid_at):
                existing.confidence = min(1.0, max(existing.confidence, new.confidence) + 0.05)
                if new.learned_at and (existing.last_confirmed is None or new.learned_at > existing.last_confirmed):
                    existing.confirmed_at = new.learned_at  # re-confirmed: preference decay starts again
                return Resolution("duplicate", existing, [])
    invalidated: list[MemoryEntry] = []
    if attribute in SINGLE_VALUED_ATTRIBUTES:
        current = [e for e in same_key if e.invalid_at is None]
        for old in current:
            if new.learned_at and old.learned_at and new.learned_at < old.learned_at:
                new.invalid_at = old.learned_at  # an older statement: true until the current one began
            else:
                old.invalid_at = new.learned_at
                invalidated.append(old)
        entries.append(new)
        return Resolution("supersede" if invalidated or new.invalid_at else "add", new, invalidated)
    entries.append(new)
    return Resolution("add", new, [])


def end(entries: list[MemoryEntry], key: str, ended_value: str, when: datetime | None) -> list[MemoryEntry]:
    """Apply an ending statement: the entries of `key` current at `when` whose value it names get
    invalid_at = when. Returns them (none when nothing matched: re-running an ending changes nothing).

    Example: entries [likes=running (Jan)], end('likes', 'running', June) -> running.invalid_at = June; an empty
    key ends whichever of the user's people or pets the value names: end('', 'Joe', …) ends 'flatmate: Joe'.
    """
    attribute, _, subject = key.partition(" (")  # "" (or " (Caroline)"): any of PEOPLE_AND_PETS, the same speaker's

    def ends_key(entry_key: str) -> bool:
        entry_attribute, _, entry_subject = entry_key.partition(" (")
        return entry_key == key or (not attribute and entry_attribute in PEOPLE_AND_PETS and entry_subject == subject)

    ended = [e for e in entries if ends_key(e.key or "") and e.invalid_at is None and names_value(ended_value, e.value)
             and (when is None or e.learned_at is None or e.learned_at < when)]
    for entry in ended:
        entry.invalid_at = when
    return ended


def true_at(entries: list[MemoryEntry], when: datetime) -> list[MemoryEntry]:
    """Entries valid at `when`: learned_at <= when < invalid_at."""
    return [e for e in entries
            if (e.learned_at is None or e.learned_at <= when) and (e.invalid_at is None or when < e.invalid_at)]


def holding(entries: list[MemoryEntry], when: datetime | None = None) -> list[MemoryEntry]:
    """The entries that hold at `when` (true_at), or without a time the current ones (none superseded)."""
    return true_at(entries, when) if when else [e for e in entries if not e.invalid_at]
