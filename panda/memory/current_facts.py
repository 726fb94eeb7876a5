"""Current facts first: what is true now outranks the messages that said something else (pure).

A question about a user attribute ("where does dana live", "what car do I drive", "does she still have
the dog") is answered best by the current entry of facts.md / preferences.md, not by the raw message
that stated an older value — yet raw messages, longer and more numerous, win a pure relevance ranking.
So memory.search, when the query asks about an attribute and the searcher has facts for it, returns:
1. the entries of that attribute true at the search time (`now`, or `--as-of`), newest first;
2. the entries of that attribute that were superseded by then, marked `superseded` with valid_at /
   invalid_at (history: "Boston, 2024-01 to 2024-06");
3. everything else in relevance order, where the messages and turns that stated a superseded value
   (an entry's `source`) are marked `superseded` and their score scaled by
   `retention.superseded_score_factor`.
An entry learned after the search time does not exist yet and is left out. Which attributes a query
asks about comes from cue words (ATTRIBUTE_CUES); a subject named in the query ("where does Caroline
live") keeps that subject's entries only — none when they have none, never another person's; of a
multi-valued attribute only the values the question is about lead (`facts_for`), except where values are names
or titles (vocabulary.NAMED_ATTRIBUTES: "What's my sister called?" shares no word with "sister: Mei"). Left out: attributes no
cue names (the relevance ranking still finds their entries as ordinary fact documents).

Example: dana said "I live in Boston" (Jan) and "I live in Denver now" (June); searching "where does
dana live" in July returns [residence: Denver (current), residence: Boston (superseded, Jan→June), …,
the January message (superseded, score × 0.5)]; with --as-of March: [residence: Boston (current), …].
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from panda.documents.user_memory import MemoryEntry
from panda.language.text import STOP_WORDS, is_question, stem, words
from panda.language.vocabulary import NAMED_ATTRIBUTES, RELATIVES, SINGLE_VALUED_ATTRIBUTES

# what a meal question says: a diet, an allergy or a food kept off the plate answers it (set U: "Recommend a dish I could
# cook for my crew." beside "I don't eat pork")
_MEALS = re.compile(r"\b(?:diet|meals?|dinner|lunch|breakfast|snacks?|recipes?|dish(?:es)?|cook|cooking|bake|baking|"
                    r"desserts?|vegan|vegetarian|dairy|cheese|milk|gluten)\b", re.I)
# attribute (as facts.py and enrichment key it) -> cue words in a question about it
ATTRIBUTE_CUES: dict[str, re.Pattern[str]] = {
    "residence": re.compile(r"\b(?:live[sd]?|living in|reside[sd]?|moved?|moving|home ?town|city|address|based in|"
                            r"where (?:is|are) (?:\w+ )?(?:home|from))\b", re.I),
    "job": re.compile(r"\b(?:jobs?|occupation|profession|career|for a living|(?:do|does) for work|line of work|work as|"
                      r"works as|employed as)\b", re.I),
    "employer": re.compile(r"\b(?:employer|company|work (?:at|for)|works (?:at|for)|working (?:at|for))\b", re.I),
    "relationship_status": re.compile(r"\b(?:married|single|engaged|divorced|relationship|dating)\b", re.I),
    "partner": re.compile(r"\b(?:partner|spouse|wife|husband|girlfriend|boyfriend|fianc[eé]e?|dating)\b", re.I),
    "pet": re.compile(r"\b(?:pets?|dogs?|cats?|pupp(?:y|ies)|kittens?|hamsters?|rabbits?|bunn(?:y|ies)|parrots?|"
                      r"birds?|fish|turtles?|tortoises?|guinea pigs?|horses?|lizards?|snakes?|ferrets?)\b", re.I),
    "car": re.compile(r"\b(?:car|drives?|driving|vehicle)\b", re.I),
    "owns": re.compile(r"\b(?:own|owns|bought)\b", re.I),
    "likes": re.compile(r"\b(?:hobby|hobbies|enjoys?|likes? to|loves? to|interests?|for fun|pastimes?|free time)\b", re.I),
    "dislikes": re.compile(r"\b(?:dislikes?|hates?|can't stand)\b", re.I),
    "budget": re.compile(r"\b(?:budget|afford|spend)\b", re.I),
    "diet": _MEALS,
    "avoids": _MEALS,
    "allergy": re.compile(r"\b(?:allerg(?:y|ies|ic)|intoleran(?:t|ce))\b", re.I),
    **{relation: re.compile(rf"\b{relation}s?\b", re.I) for relation in RELATIVES},
    "watching": re.compile(r"\b(?:watch(?:ing)?|shows?|series|tv)\b", re.I),
    "reading": re.compile(r"\b(?:read(?:ing)?|books?|novels?)\b", re.I),
    "listening": re.compile(r"\b(?:listen(?:ing)? to|podcasts?|albums?)\b", re.I),
}
# Attribute names enrichment may produce for the same thing (free-form keys, llm/schemas.py).
ALIASES = {"location": "residence", "city": "residence", "hometown": "residence", "home": "residence",
           "occupation": "job", "profession": "job", "work": "job", "company": "employer",
           "marital_status": "relationship_status", "spouse": "partner", "pets": "pet", "vehicle": "car",
           "hobby": "likes", "hobbies": "likes", "interest": "likes", "interests": "likes",
           "possession": "owns", "possessions": "owns"}


CONSTRAINTS = frozenset({"diet", "allergy", "avoids"})  # fact attributes (language/facts.py) no suggestion may ignore


def constraints_of(entries: list[MemoryEntry], when: datetime) -> list[FactHit]:
    """The user's own diets and allergies known and current at `when`, newest first (pure): what any suggestion must
    respect, whatever a search ranks (set I: "Suggest a breakfast for me." for a lactose-intolerant user was
    answered "Greek yogurt with granola …"; the search had ranked "diet: lactose intolerant" out).
    Example: [diet: vegan (2026-03), allergy (Maya): nuts, job: nurse] -> [diet: vegan]."""
    kept = [e for e in entries if split_key(e.key) in {(c, "") for c in CONSTRAINTS}
            and (e.learned_at is None or e.learned_at <= when) and (e.invalid_at is None or e.invalid_at > when)]
    return [FactHit("fact", e, False) for e in sorted(kept, key=lambda e: e.learned_at or when, reverse=True)]


def attributes_asked(query: str) -> tuple[str, ...]:
    """The attributes a question asks about; a keyword search ('ferret Noodle') asks about none.

    Example: attributes_asked('Where does Dana live now?') -> ('residence',);
    attributes_asked('What are her hobbies?') -> ('likes',); attributes_asked('Tell me a joke') -> ()."""
    if not is_question(query):
        return ()
    return tuple(attribute for attribute, cue in ATTRIBUTE_CUES.items() if cue.search(query))


def split_key(key: str | None) -> tuple[str, str]:
    """Example: split_key('residence (Caroline)') -> ('residence', 'Caroline'); split_key('hobby') -> ('likes', '')."""
    if not key:
        return "", ""
    match = re.fullmatch(r"(.+?) \((.+)\)", key)
    attribute, subject = (match.group(1), match.group(2)) if match else (key, "")
    attribute = attribute.strip().lower().replace(" ", "_")
    return ALIASES.get(attribute, attribute), subject


@dataclass(frozen=True)
class FactHit:
    kind: str  # fact | preference
    entry: MemoryEntry
    superseded: bool


def facts_for(entries: list[tuple[str, MemoryEntry]], query: str, when: datetime, user_id: str = "") -> list[FactHit]:
    """The entries a query about attributes should lead with, in order: current (newest first), then
    superseded (newest first). `entries` are (kind, entry) of the searcher's (`user_id`'s) facts and
    preferences.

    Whose entries: a subject the query names (any subject the entries know) keeps that subject's entries
    only — none if they have no entry of the attribute asked: Maria's future job is not John's job. A query
    naming no known subject keeps the entries without a subject (the user's own), else all of them unless
    it names someone else (a capitalised word after the first: a person the memory holds nothing about).
    Which values of a multi-valued attribute (hobbies, pets, possessions): those sharing a word with what
    the query asks beyond its cue, names and generic words ("what kind of films does Nate enjoy" keeps the
    likes about films, none when there is none); a question with nothing more ("what are her hobbies")
    keeps them all.
    """
    asked = attributes_asked(query)
    if not asked:
        return []
    keyed = [(kind, e, *split_key(e.key)) for kind, e in entries]
    query_words = set(re.findall(r"\w+", query.lower()))
    subjects = {subject for *_, subject in keyed if subject}
    named = {subject for subject in subjects if set(subject.lower().split()) <= query_words}
    relevant = [(kind, e, attribute, s) for kind, e, attribute, s in keyed if attribute in asked]
    if named:
        chosen = [item for item in relevant if item[3] in named]
    else:
        chosen = ([item for item in relevant if not item[3]]
                  or ([] if names_someone(query) else relevant))
    topic = topic_words(query, named | {user_id})
    chosen = [item for item in chosen if item[2] in SINGLE_VALUED_ATTRIBUTES + NAMED_ATTRIBUTES or not topic
              or topic & value_words(item[1].value)]
    current, past = [], []
    for kind, entry, _, _ in chosen:
        if entry.learned_at is not None and entry.learned_at > when:
            continue  # learned after the search time: not known then
        if entry.invalid_at is not None and entry.invalid_at <= when:
            past.append(FactHit(kind, entry, True))
        else:
            current.append(FactHit(kind, entry, False))
    newest = lambda hit: (hit.entry.learned_at is not None, hit.entry.learned_at or when)  # noqa: E731
    return (sorted(current, key=newest, reverse=True)[:MAX_CURRENT]
            + sorted(past, key=newest, reverse=True)[:MAX_SUPERSEDED])


# Words that ask for a kind of value without naming one: "what kind of hobbies", "her favourite pets".
GENERIC_WORDS = frozenset({"kind", "kinds", "type", "types", "sort", "sorts", "thing", "things", "activity",
                           "activities", "stuff", "favorite", "favourite", "favorites", "favourites", "current",
                           "currently", "now", "still", "new", "usually", "typically", "like", "likes", "love",
                           "loves", "enjoy", "enjoys", "share", "shared", "both", "tell", "remind", "know", "name",
                           "named", "called"})
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b[^\W\d_]{2,}\b")  # a capitalised word, in any alphabet: "Zsófia", "Łukasz"


def names_in(query: str) -> list[str]:
    """The capitalised words of a query not at its start or a sentence's (not "I"): the people and places it names.
    Example: names_in("How many guests are coming to Mei's wedding?") -> ['Mei']; names_in('Where do I live?') -> []."""
    return [word for match in _NAME.finditer(query.strip())
            if (word := match.group())[0].isupper() and word[1:].islower()]


def names_someone(query: str) -> bool:
    """Whether the query names a person or place (`names_in`).
    Example: names_someone('What job might Maria pursue?') -> True; names_someone('Where do I live?') -> False."""
    return bool(names_in(query))


def topic_words(query: str, named: set[str]) -> set[str]:
    """What a question asks about beyond its attribute cues, the people it names (`named`, and anyone's
    possessive: "Joanna's") and generic words, as word keys.
    Example: topic_words('What type of movies does Nate enjoy watching?', {'Nate'}) -> {'movi', 'watch'}."""
    remaining = query
    for cue in ATTRIBUTE_CUES.values():
        remaining = cue.sub(" ", remaining)
    names = {w for person in named for w in person.lower().split()}
    return {word_key(w) for w in words(remaining)
            if w not in STOP_WORDS and w not in GENERIC_WORDS and w not in names and not w.endswith("'s")
            and len(w) > 2}


def value_words(value: str) -> set[str]:
    """Example: value_words('watching sci-fi movies') -> {'watch', 'sci', 'fi', 'movi'}."""
    return {word_key(w) for w in words(value) if w not in STOP_WORDS}


def word_key(word: str) -> str:
    """A word's plural dropped, then stemmed, so 'movies' and 'movie' (or 'films' and 'film') meet.
    Example: word_key('movies') -> 'movi'; word_key('movie') -> 'movi'; word_key('hiking') -> 'hik'."""
    return stem(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)


MAX_CURRENT, MAX_SUPERSEDED = 5, 3  # a hobby list can be long; the relevance ranking keeps the rest


def superseded_sources(hits: list[FactHit]) -> set[str]:
    """Ids of the messages/turns that stated a superseded value and no current one.

    Example: Boston (source msg_1, superseded), Denver (source msg_9, current) -> {'msg_1'}.
    """
    current = {h.entry.source for h in hits if not h.superseded}
    return {h.entry.source for h in hits if h.superseded and h.entry.source} - current
