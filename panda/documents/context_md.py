"""context.md: sections §0–§6 and the Turn Summary Appendix, with seed 002's write rules.

`ContextDocument` is the turn's working document. Phases append; the rules are enforced here:
- §0, §1, §2 are written once and are immutable afterwards;
- §3 is written once per attempt (a RETRY opens a new, labelled attempt of §3–§6);
- attempts are numbered once for the whole file: a REVISE after attempt 1 is "Attempt 2 (REVISE)" in §5 and §6,
  a RETRY after it "Attempt 3 (RETRY)" in §3 to §6 (seed 002: each attempt labelled with its number);
- §4 accumulates entries during the plan⇄execute loop of an attempt;
- §5 and §6 are written once per revision (a REVISE opens a new labelled §5/§6 entry);
- the appendix is written once, last.
Nothing is ever erased: earlier attempts stay in the file, labelled. `render()` and `parse()` are
inverse. Left out: budgets and compression (budgets.py and the pipeline), file I/O (the save phase).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import frontmatter

from panda.documents.escaping import escape, unescape_line
from panda.errors import SectionRuleError

SECTION_KEYS = ("0", "1", "2", "3", "4", "5", "6", "appendix")
SECTION_TITLES = {
    "0": "§0 Query Analysis",
    "1": "§1 Reflection Decision",
    "2": "§2 Gathered Context",
    "3": "§3 Plan",
    "4": "§4 Tool Log",
    "5": "§5 Response",
    "6": "§6 Validation",
    "appendix": "Turn Summary Appendix",
}
_TITLE_TO_KEY = {title: key for key, title in SECTION_TITLES.items()}
_HEADING = re.compile(r"^## (.+?)\s*$")
_ATTEMPT = re.compile(r"^### Attempt (\d+)(?: \((REVISE|RETRY)\))?\s*$")
_ONCE = {"0", "1", "2", "appendix"}


def _is_marker(line: str) -> bool:
    heading = _HEADING.match(line)
    return bool((heading and heading.group(1) in _TITLE_TO_KEY) or _ATTEMPT.match(line))
_PER_ATTEMPT = {"3", "5", "6"}


@dataclass
class Entry:
    """One attempt's content of a section."""

    number: int
    label: str | None  # None for the first attempt, "REVISE" or "RETRY" after
    body: str


@dataclass
class ContextDocument:
    meta: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    sections: dict[str, list[Entry]] = field(default_factory=dict)
    attempt: int = 1  # execution attempts: 1 + the RETRYs (the tool log of the current one is §4's)
    number: int = 1  # the attempt number every section shows: 1 + every REVISE and RETRY so far
    label: str | None = None
    _closed: set[str] = field(default_factory=set)

    # ---- writing -------------------------------------------------------------------------------
    def has(self, key: str) -> bool:
        return bool(self.sections.get(key))

    def write(self, key: str, body: str) -> None:
        """Append `body` as section `key` under the rules in the module docstring."""
        if key not in SECTION_KEYS:
            raise SectionRuleError(f"unknown context.md section {key!r}")
        if self.has("appendix"):
            raise SectionRuleError("context.md is complete: the Turn Summary Appendix is written")
        entries = self.sections.setdefault(key, [])
        if key in _ONCE and entries:
            raise SectionRuleError(f"{SECTION_TITLES[key]} is immutable once written")
        if key == "4" and entries and entries[-1].number == self.number and key not in self._closed:
            entries[-1].body = f"{entries[-1].body.rstrip()}\n\n{body.strip()}"
            return
        if key in _PER_ATTEMPT and key in self._closed:
            raise SectionRuleError(
                f"{SECTION_TITLES[key]} is immutable in attempt {self.attempt}; a REVISE or RETRY opens a new one"
            )
        if key in _ONCE:
            number, label = 1, None  # written once: never part of a labelled attempt
        else:
            number = self.number  # one numbering for §3–§6: "Attempt 3 (RETRY)" everywhere it was written
            label = self.label if (number > 1 or self.label) else None
        entries.append(Entry(number=number, label=label, body=body.strip()))
        if key != "4":
            self._closed.add(key)

    def compact(self, key: str, body: str) -> None:
        """Replace the open §4 entry with its compressed form (seed 002 auto-compression)."""
        if key != "4" or key in self._closed or not self.sections.get(key):
            raise SectionRuleError(f"only an open {SECTION_TITLES['4']} can be compacted, not {key!r}")
        self.sections[key][-1].body = body.strip()

    def can_write(self, key: str) -> bool:
        if self.has("appendix"):
            return False
        if key in _ONCE:
            return not self.has(key)
        return key == "4" or key not in self._closed

    def close(self, key: str) -> None:
        """Mark a section finished for this attempt (used for §4 when the loop ends)."""
        self._closed.add(key)

    def begin_revise(self) -> None:
        """REVISE: validation asked for a rewrite of §5; §5 and §6 get a new labelled entry."""
        self.number += 1
        self.label = "REVISE"
        self._closed -= {"5", "6"}

    def begin_retry(self) -> None:
        """RETRY: replay from §3; §3–§6 get a new labelled attempt."""
        self.attempt += 1
        self.number += 1
        self.label = "RETRY"
        self._closed -= {"3", "4", "5", "6"}

    def latest(self, key: str) -> str:
        entries = self.sections.get(key) or []
        return entries[-1].body if entries else ""

    def revision_count(self) -> int:
        """Rewrites asked by REVISE only (a RETRY is a new attempt, counted in `attempt`)."""
        return sum(1 for entry in self.sections.get("5", []) if entry.label == "REVISE")

    # ---- rendering and parsing -----------------------------------------------------------------
    def render(self) -> str:
        parts = [f"# {self.title}" if self.title else ""]
        for key in SECTION_KEYS:
            entries = self.sections.get(key)
            if not entries:
                continue
            parts.append(f"## {SECTION_TITLES[key]}")
            if len(entries) == 1 and entries[0].number == 1 and entries[0].label is None:
                parts.append(escape(entries[0].body, _is_marker))
                continue
            for entry in entries:
                suffix = f" ({entry.label})" if entry.label else ""
                parts.append(f"### Attempt {entry.number}{suffix}")
                parts.append(escape(entry.body, _is_marker))
        body = "\n\n".join(p for p in parts if p != "")
        return frontmatter.dumps(frontmatter.Post(body, **self.meta), sort_keys=False) + "\n"

    @classmethod
    def parse(cls, text: str) -> ContextDocument:
        """Read a rendered context.md back into its sections and attempts."""
        post = frontmatter.loads(text)
        doc = cls(meta=dict(post.metadata))
        current: str | None = None
        buffer: list[str] = []

        def flush() -> None:
            if current is not None:
                doc.sections[current] = _split_attempts("\n".join(buffer))

        for line in post.content.splitlines():
            heading = _HEADING.match(line)
            if heading and heading.group(1) in _TITLE_TO_KEY:
                flush()
                current, buffer = _TITLE_TO_KEY[heading.group(1)], []
            elif current is None and line.startswith("# "):
                doc.title = line[2:].strip()
            elif current is not None:
                buffer.append(line)
        flush()
        doc.attempt = max(1, len(doc.sections.get("3", [])))  # each RETRY wrote one more §3
        doc.number = max((e.number for entries in doc.sections.values() for e in entries), default=1)
        doc.label = next((e.label for e in reversed(doc.sections.get("5", []))), None)
        return doc


def _split_attempts(text: str) -> list[Entry]:
    entries: list[Entry] = []
    number: int = 1
    label: str | None = None
    lines: list[str] = []
    seen_header = False
    for line in text.splitlines():
        match = _ATTEMPT.match(line)
        line = unescape_line(line, _is_marker)
        if match:
            if seen_header or "\n".join(lines).strip():
                entries.append(Entry(number, label, "\n".join(lines).strip()))
            number, label, lines, seen_header = int(match.group(1)), match.group(2), [], True
        else:
            lines.append(line)
    entries.append(Entry(number, label, "\n".join(lines).strip()))
    return entries
