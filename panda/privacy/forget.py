"""What a deleted user leaves in global knowledge, taken out (pure; used by jobs/deletion.py).

Global notes hold public web data plus what a research turn contributed: its scrubbed query (a
research note's subtopic, tags and `**Query:**` lines), its provenance hash (privacy/provenance.py),
an update section. Forgetting the turns with hashes H:
- a research note drops the update sections of H; when it was created by a turn of H, the next
  remaining contribution becomes its creator (provenance, subtopic, tags from the remaining queries),
  and with none left the note is removed;
- a product note drops H from its `turns`; with none left (and created by H) it is removed;
- site knowledge drops H from its `turns` (visit counts are aggregates and stay).
The public findings and prices a note holds stay: they came from web pages, not from the user.
"""

from __future__ import annotations

import re
from typing import Any

from panda.documents.model import Document
from panda.privacy.pii import without_placeholders

_UPDATE = re.compile(r"^## Update (\S+) · `(t_[0-9a-f]+)`\s*$")
_PROVENANCE = re.compile(r"_Provenance: `(t_[0-9a-f]+)`\._")
_SOURCE_ROW = re.compile(r"^\| \[[^\]]*\]\([^)]*\) \| [^|]* \| (.*) \|$", re.MULTILINE)
_STOP = {"the", "and", "for", "with", "general", "what", "which", "how", "best"}


def note_hashes(doc: Document) -> set[str]:
    """Every provenance hash a note names (creator, updates, product turns)."""
    found = set(_PROVENANCE.findall(doc.body)) | {m.group(2) for m in map(_UPDATE.match, doc.body.splitlines()) if m}
    return found | {str(t) for t in doc.extra.get("turns", []) or []}


def _sections(body: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(lines before the first update, [(hash, lines of that update section)])."""
    head: list[str] = []
    updates: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        m = _UPDATE.match(line)
        if m:
            updates.append((m.group(2), [line]))
        elif updates:
            updates[-1][1].append(line)
        else:
            head.append(line)
    return head, updates


def source_titles(text: str) -> list[str]:
    """The page titles of a note's source rows ('| [domain](url) | date | title |'): public words for its tags."""
    return _SOURCE_ROW.findall(text)


def tags_of(*texts: str) -> list[str]:
    out: list[str] = []
    for text in texts:
        for word in re.split(r"[^a-z0-9]+", without_placeholders(text).lower()):
            if len(word) > 2 and word not in _STOP and word not in out:
                out.append(word)
    return out[:12]


def forget_in_note(doc: Document, hashes: set[str]) -> tuple[str, Document | None]:
    """('unchanged' | 'rewritten' | 'removed', the note after forgetting `hashes`)."""
    if not note_hashes(doc) & hashes:
        return "unchanged", doc
    if doc.extra.get("artifact_type") == "product":
        turns = [t for t in doc.extra.get("turns", []) or [] if t not in hashes]
        if not turns:
            return "removed", None
        body = _PROVENANCE.sub(f"_Provenance: `{turns[0]}`._", doc.body)
        return "rewritten", doc.model_copy(update={"body": body, "extra": {**doc.extra, "turns": turns}})
    head, updates = _sections(doc.body)
    kept = [(h, lines) for h, lines in updates if h not in hashes]
    creator = _PROVENANCE.search("\n".join(head))
    creator_forgotten = creator is not None and creator.group(1) in hashes
    if creator_forgotten and not kept:
        return "removed", None
    head_text = "\n".join(head).rstrip()
    extra = dict(doc.extra)
    keywords = list(doc.keywords)
    if creator_forgotten:
        head_text = _PROVENANCE.sub(f"_Provenance: `{kept[0][0]}`._", head_text)
    if creator_forgotten or len(kept) != len(updates):
        topic = str(extra.get("topic") or doc.primary_topic.replace(".", " "))
        titles = [*source_titles(head_text), *(s for _, lines in kept for s in source_titles("\n".join(lines)))]
        keywords = tags_of(topic, *titles)
        extra["tags"] = sorted(set(keywords))
        if creator_forgotten:
            extra["subtopic"] = topic[:80]
    body = "\n\n".join([head_text, *("\n".join(lines).strip() for _, lines in kept)]) + "\n"
    return "rewritten", doc.model_copy(update={"body": body, "keywords": keywords, "extra": extra})


def forget_in_site_knowledge(data: dict[str, Any], hashes: set[str]) -> dict[str, Any] | None:
    """The site's knowledge without those turns, or None when nothing changes."""
    turns = data.get("turns", [])
    if not set(turns) & hashes:
        return None
    return {**data, "turns": [t for t in turns if t not in hashes]}
