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
live") keeps that subject's entries only. Left out: attributes no cue names (the relevance ranking
still finds their entries as ordinary fact documents).

Example: dana said "I live in Boston" (Jan) and "I live in Denver now" (June); searching "where does
dana live" in July returns [residence: Denver (current), residence: Boston (superseded, Jan→June), …,
the January message (superseded, score × 0.5)]; with --as-of March: [residence: Boston (current), …].
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from panda.documents.user_memory import MemoryEntry
from panda.memory.text import is_question

# attribute (as facts.py and enrichment key it) -> cue words in a question about it
ATTRIBUTE_CUES: dict[str, re.Pattern[str]] = {
    "residence": re.compile(r"\b(?:live[sd]?|living in|reside[sd]?|moved?|moving|home ?town|city|address|based in|"
                            r"where (?:is|are) (?:\w+ )?(?:home|from))\b", re.I),
    "job": re.compile(r"\b(?:jobs?|occupation|profession|career|for a living|work as|works as|employed as)\b", re.I),
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
}
# Attribute names enrichment may produce for the same thing (free-form keys, llm/schemas.py).
ALIASES = {"location": "residence", "city": "residence", "hometown": "residence", "home": "residence",
           "occupation": "job", "profession": "job", "work": "job", "company": "employer",
           "marital_status": "relationship_status", "spouse": "partner", "pets": "pet", "vehicle": "car",
           "hobby": "likes", "hobbies": "likes", "interest": "likes", "interests": "likes",
           "possession": "owns", "possessions": "owns"}


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


def facts_for(entries: list[tuple[str, MemoryEntry]], query: str, when: datetime) -> list[FactHit]:
    """The entries a query about attributes should lead with, in order: current (newest first), then
    superseded (newest first). `entries` are (kind, entry) of the searcher's facts and preferences.

    A subject named in the query keeps that subject's entries; otherwise all subjects count.
    """
    asked = attributes_asked(query)
    if not asked:
        return []
    keyed = [(kind, e, *split_key(e.key)) for kind, e in entries]
    relevant = [(kind, e, subject) for kind, e, attribute, subject in keyed if attribute in asked]
    query_words = set(re.findall(r"\w+", query.lower()))
    named = [(kind, e, s) for kind, e, s in relevant if s and set(s.lower().split()) <= query_words]
    chosen = named or [(kind, e, s) for kind, e, s in relevant if not s] or relevant
    current, past = [], []
    for kind, entry, _ in chosen:
        if entry.learned_at is not None and entry.learned_at > when:
            continue  # learned after the search time: not known then
        if entry.invalid_at is not None and entry.invalid_at <= when:
            past.append(FactHit(kind, entry, True))
        else:
            current.append(FactHit(kind, entry, False))
    newest = lambda hit: (hit.entry.learned_at is not None, hit.entry.learned_at or when)  # noqa: E731
    return (sorted(current, key=newest, reverse=True)[:MAX_CURRENT]
            + sorted(past, key=newest, reverse=True)[:MAX_SUPERSEDED])


MAX_CURRENT, MAX_SUPERSEDED = 5, 3  # a hobby list can be long; the relevance ranking keeps the rest


def superseded_sources(hits: list[FactHit]) -> set[str]:
    """Ids of the messages/turns that stated a superseded value and no current one.

    Example: Boston (source msg_1, superseded), Denver (source msg_9, current) -> {'msg_1'}.
    """
    current = {h.entry.source for h in hits if not h.superseded}
    return {h.entry.source for h in hits if h.superseded and h.entry.source} - current
