"""What a global document may say about where it came from (DESIGN §10): scrubbed text, opaque hashes.

Knowledge notes, product notes, the change log, Meta indexes and site_knowledge/ are global: every user
can read them. They are written from `public_research(...)`, the research data with the user's personal
details replaced by placeholders (privacy/pii.py, plus the user's own known terms and everything the
scrubber found in the query, wherever the model repeated it), and their provenance is
`provenance_hash(turn_id)` — never a path into users/ nor a turn id, which names the user. The turn
keeps the link the other way (its research.md links the notes). Deleting a user recomputes the hashes
of their turns to find what came from them.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from panda.language.text import STOP_WORDS
from panda.privacy.pii import scrub, without_placeholders

_GENERIC = {"best", "good", "what", "which", "recipe", "need", "help", "want", "looking", "name", "phone", "live"}


def provenance_hash(turn_id: str) -> str:
    """Example: provenance_hash('turn_dave_000001') -> 't_…' (20 hex digits; no user id inside)."""
    return "t_" + hashlib.sha256(f"panda-provenance:{turn_id}".encode()).hexdigest()[:20]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def public_topic(topic: str, private: set[str], scrubbed_query: str) -> str:
    """The topic with private words removed; when the topic was about a private detail, one from the
    question instead (pure).

    Example: public_topic('name.zoe', {'zoe'}, 'My name is [NAME]. Best pineapple upside down cake?')
    -> 'pineapple.upside'.
    """
    parts = [p for p in (topic or "general").split(".") if p]
    kept = [p for p in parts if not set(_words(p)) & private]
    if kept == parts and kept:
        return ".".join(kept)
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", without_placeholders(scrubbed_query)) if s.strip()]
    question = next((s for s in sentences if s.rstrip().endswith("?")), sentences[-1] if sentences else "")
    words = [w for w in _words(question) if len(w) > 3 and w not in STOP_WORDS and w not in _GENERIC and w not in private]
    return ".".join(words[:2]) or ".".join(kept) or "general"


def public_research(data: dict[str, Any], categories: tuple[str, ...] | list[str], terms: list[str]) -> dict[str, Any]:
    """research.json data as it may appear in global notes: no personal detail, provenance hashed."""
    query = scrub(str(data.get("query", "")), categories, terms)
    private_terms = [*terms, *(value for _, value in query.spans)]
    private = {w for t in private_terms for w in _words(t) if len(w) > 1}

    def clean(text: str) -> str:
        return scrub(str(text or ""), categories, private_terms).text

    pages = [{**p, "title": clean(p.get("title", "")), "summary": clean(p.get("summary", "")),
              "claims": [{**c, "text": clean(c.get("text", ""))} for c in p.get("claims", [])],
              "products": [{**x, "name": clean(x.get("name", "")), "specs": [clean(s) for s in x.get("specs", [])]}
                           for x in p.get("products", [])]}
             for p in data.get("pages", [])]
    return {**data, "query": query.text, "topic": public_topic(str(data.get("topic") or "general"), private, query.text),
            "pages": pages, "turn_id": provenance_hash(str(data["turn_id"])), "private_words": sorted(private)}
