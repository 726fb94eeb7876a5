"""users/{id}/preferences.md and facts.md: seed 000's list formats, with frontmatter.

Each entry is one list line in the seed's format, followed by an HTML comment carrying its id and
metadata (hidden in Obsidian's reading view), so the catalog can be rebuilt from these files alone:

    - **budget:** under $1500 <!-- id=pref_1a2b confidence=0.8 source=turn_000003 learned_at=2025-01-02T10:00:00Z -->
    - User lives in California <!-- id=fact_9f8e confidence=0.7 source=turn_000001 learned_at=... -->
    - **likes:** hiking <!-- id=pref_77aa confidence=0.8 source=turn_bob_000002 session=s1 type=activity ... -->

A preference carries seed 004's preference_type (`type=`) and both kinds their source session
(`session=`, URL-quoted); is_active is "no invalid_at".

preferences.md follows seed 003's User Preference Template: frontmatter with created, confidence and
status, the current entries under "## Budget/Category/Brand/Shopping Preferences" (and "## Other
Preferences" for the rest; `preference_section`), then "## Learned From", one line per source turn or
session naming what it taught. Parsing reads entry lines under any heading except Learned From, so a
file of any earlier layout reads the same.

Facts are bi-temporal: `learned_at` is when the fact became true (valid_at), `invalid_at` when a
newer fact replaced it, `recorded_at` when Panda wrote it down. Invalidated entries stay in the file
under "## History", so both "what is true now" and "what was true then" have answers.
Left out: deciding what is a fact and detecting contradictions (language/facts.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote, unquote

import frontmatter

from panda.documents.model import iso, new_id, parse_time

_ENTRY = re.compile(r"^- (?:\*\*(?P<key>[^*]+):\*\* )?(?P<value>.*?)(?: <!-- (?P<meta>.*?) -->)?\s*$")
_FOOTER = "*Updated automatically by turn saver*"
LEARNED_FROM = "Learned From"
# Seed 003's preference sections, first match wins; a product preference that names none is a category one.
_SECTIONS = [
    ("Budget Preferences",
     re.compile(r"\b(budget|price|prices|cost|costs|spend|spending|afford|cheap|cheapest|expensive)\b", re.I)),
    ("Brand Preferences", re.compile(r"\bbrands?\b", re.I)),
    ("Shopping Preferences",
     re.compile(r"\b(vendors?|stores?|shops?|shopping|retailers?|shipping|delivery|buy from)\b", re.I)),
]
CATEGORY, OTHER = "Category Preferences", "Other Preferences"


def preference_section(entry: MemoryEntry) -> str:
    """The seed 003 section a preference goes under.

    Examples: budget: under $1000 -> Budget Preferences; "likes: Lenovo brand" -> Brand Preferences;
    "prefers: ordering from Best Buy stores" -> Shopping Preferences; a product preference
    "gaming laptops with RTX GPUs" (type product) -> Category Preferences; "likes: hiking" -> Other Preferences.
    """
    text = entry.text
    for section, pattern in _SECTIONS:
        if pattern.search(text):
            return section
    return CATEGORY if entry.preference_type == "product" else OTHER


def key_attribute(key: str | None) -> str:
    """The attribute of an entry's key, without the subject a speaker's entry names (facts.Statement.key).

    Example: key_attribute('likes (Jon)') -> 'likes'; key_attribute('residence') -> 'residence'; None -> ''.
    """
    return (key or "").split(" (", 1)[0]


@dataclass
class MemoryEntry:
    value: str
    key: str | None = None
    id: str = field(default_factory=lambda: new_id("mem"))
    confidence: float = 0.8
    source: str = ""
    learned_at: datetime | None = None
    invalid_at: datetime | None = None
    reference_count: int = 0
    usage_count: int = 0
    validation_count: int = 0
    validation_success: int = 0
    recorded_at: datetime | None = None
    confirmed_at: datetime | None = None  # last time the entry was stated again (resets preference decay)
    session: str | None = None  # the session it was stated in (seed 004's source_session_id)
    preference_type: str | None = None  # preferences: communication, notification, product, food, activity, general

    @property
    def is_active(self) -> bool:
        return self.invalid_at is None

    @property
    def last_confirmed(self) -> datetime | None:
        return self.confirmed_at or self.learned_at

    @property
    def attribute(self) -> str:
        return key_attribute(self.key)

    @property
    def text(self) -> str:
        """Example: key 'residence', value 'Denver' -> 'residence: Denver'; no key -> the value."""
        return f"{self.key}: {self.value}" if self.key else self.value

    def render(self) -> str:
        meta = [f"id={self.id}", f"confidence={self.confidence:.2f}"]
        if self.source:
            meta.append(f"source={self.source}")
        if self.session:
            meta.append(f"session={quote(self.session, safe='')}")
        if self.preference_type:
            meta.append(f"type={self.preference_type}")
        if self.learned_at:
            meta.append(f"learned_at={iso(self.learned_at)}")
        if self.invalid_at:
            meta.append(f"invalid_at={iso(self.invalid_at)}")
        if self.recorded_at:
            meta.append(f"recorded_at={iso(self.recorded_at)}")
        if self.confirmed_at:
            meta.append(f"confirmed_at={iso(self.confirmed_at)}")
        if self.reference_count:
            meta.append(f"refs={self.reference_count}")
        if self.usage_count:
            meta.append(f"uses={self.usage_count}")
        if self.validation_count:
            meta.append(f"validated={self.validation_success}/{self.validation_count}")
        value = " ".join(self.value.split())
        head = f"- **{self.key}:** {value}" if self.key else f"- {value}"
        if self.invalid_at:
            since = self.learned_at.date().isoformat() if self.learned_at else "?"
            head += f" _(true from {since} until {self.invalid_at.date().isoformat()})_"
        return f"{head} <!-- {' '.join(meta)} -->"

    @classmethod
    def parse(cls, line: str) -> MemoryEntry | None:
        match = _ENTRY.match(line.strip())
        if not match or not line.strip().startswith("- "):
            return None
        meta = dict(part.split("=", 1) for part in (match.group("meta") or "").split() if "=" in part)
        value = re.sub(r" _\(true from \S+ until \S+\)_$", "", match.group("value").strip())
        entry = cls(value=value, key=(match.group("key") or None))
        if "id" in meta:
            entry.id = meta["id"]
        entry.confidence = float(meta.get("confidence", entry.confidence))
        entry.source = meta.get("source", "")
        entry.session = unquote(meta["session"]) if meta.get("session") else None
        entry.preference_type = meta.get("type") or None
        entry.learned_at = parse_time(meta.get("learned_at"))
        entry.invalid_at = parse_time(meta.get("invalid_at"))
        entry.recorded_at = parse_time(meta.get("recorded_at"))
        entry.confirmed_at = parse_time(meta.get("confirmed_at"))
        entry.reference_count = int(meta.get("refs", 0))
        entry.usage_count = int(meta.get("uses", 0))
        success, _, count = meta.get("validated", "0/0").partition("/")
        entry.validation_success, entry.validation_count = int(success), int(count or 0)
        return entry


@dataclass
class MemoryFile:
    """A preferences.md or facts.md file."""

    kind: str  # "preference" | "fact"
    user_id: str
    entries: list[MemoryEntry] = field(default_factory=list)
    modified: datetime | None = None

    @property
    def heading(self) -> tuple[str, str]:
        return ("User Preferences", "General") if self.kind == "preference" else ("User Facts", "Remembered Facts")

    def add(self, entry: MemoryEntry) -> bool:
        """Add unless an entry with the same key/value already exists. Returns True if added."""
        norm = " ".join(entry.value.lower().split())
        for existing in self.entries:
            if existing.key == entry.key and " ".join(existing.value.lower().split()) == norm \
                    and existing.learned_at == entry.learned_at:
                return False
        self.entries.append(entry)
        return True

    def render(self) -> str:
        title, section = self.heading
        current = [e for e in self.entries if e.invalid_at is None]
        history = [e for e in self.entries if e.invalid_at is not None]
        meta: dict[str, Any] = {"artifact_type": self.kind, "user_id": self.user_id}
        if self.kind == "preference":
            lines = [f"# {title}: {self.user_id}"]
            groups: dict[str, list[MemoryEntry]] = {}
            for entry in current:
                groups.setdefault(preference_section(entry), []).append(entry)
            for name in [s for s, _ in _SECTIONS[:1]] + [CATEGORY] + [s for s, _ in _SECTIONS[1:]] + [OTHER]:
                if name in groups:
                    lines += ["", f"## {name}", ""] + [entry.render() for entry in groups[name]]
            learned = [e.learned_at for e in self.entries if e.learned_at]
            meta.update({"created": iso(min(learned)) if learned else None, "modified": iso(self.modified),
                         "confidence": round(sum(e.confidence for e in current) / len(current), 2) if current else None,
                         "status": "active" if current else "empty"})
        else:
            lines = [f"# {title}", "", f"## {section}", ""] + [entry.render() for entry in current]
            meta["modified"] = iso(self.modified)
        meta["entry_count"] = len(self.entries)
        if history:
            lines += ["", "## History", ""] + [entry.render() for entry in history]
        if self.kind == "preference" and (sources := learned_from(current)):
            lines += ["", f"## {LEARNED_FROM}", ""] + sources
        lines += ["", "---", "", _FOOTER]
        return frontmatter.dumps(frontmatter.Post("\n".join(lines), **meta), sort_keys=False) + "\n"

    @classmethod
    def parse(cls, text: str, kind: str, user_id: str) -> MemoryFile:
        post = frontmatter.loads(text)
        memory = cls(kind=kind, user_id=user_id, modified=parse_time(post.metadata.get("modified")))
        in_sources = False
        for line in post.content.splitlines():
            if line.startswith("## "):
                in_sources = line[3:].strip() == LEARNED_FROM
                continue
            entry = None if in_sources else MemoryEntry.parse(line)
            if entry is not None:
                memory.entries.append(entry)
        return memory


def learned_from(entries: list[MemoryEntry]) -> list[str]:
    """Seed 003's "Learned From" lines: each source (a turn, or the session of ingested messages) and what
    it taught, in first-learned order. Example: "- turn_000003: budget, likes"."""
    taught: dict[str, list[str]] = {}
    for entry in sorted(entries, key=lambda e: (e.learned_at is None, e.learned_at or 0)):
        origin = entry.source or (f"session {entry.session}" if entry.session else "")
        if origin:
            label = entry.key or " ".join(entry.value.split()[:6])
            if label not in taught.setdefault(origin, []):
                taught[origin].append(label)
    return [f"- {origin}: {', '.join(labels)}" for origin, labels in taught.items()]
