"""The vault on disk: reading and writing documents, turn folders and user memory files.

Everything Panda knows is here as markdown/JSON; the catalog is rebuilt from `iter_documents()` and
`iter_turn_records()`. Counters (usage, references, validation) are written back to the files so a
rebuilt catalog ranks exactly like the old one. All writes are atomic; all paths go through
`VaultLayout`, so nothing lands outside the home. Left out: SQL (catalog/) and deciding what to save
(pipeline/).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import frontmatter

from panda.documents.atomic import atomic_write_json, atomic_write_text
from panda.documents.context_md import ContextDocument
from panda.documents.model import Document
from panda.documents.paths import VaultLayout, slugify, validate_name
from panda.documents.transcript import SessionTranscript
from panda.documents.user_memory import MemoryEntry, MemoryFile
from panda.errors import UnsafePathError, VaultFileError

COMPLETE_MARKER = "metadata.json"  # written last: a turn folder without it is incomplete
COUNTERS = ("usage_count", "reference_count", "validation_count", "validation_success")


class Vault:
    def __init__(self, home: Path) -> None:
        self.layout = VaultLayout(home)
        self.home = home
        self.layout.ensure_skeleton()

    # ---- generic documents ---------------------------------------------------------------------
    def path_for(self, doc: Document) -> Path:
        """Where a free-standing document lives (memories, facts, notes)."""
        if doc.scope == "global" or doc.owner_user is None:
            return self.layout.global_memory_dir / f"{slugify(doc.title or doc.primary_topic, 40)}_{validate_name(doc.id)}.md"
        return self.layout.memory_dir(doc.owner_user) / f"{validate_name(doc.id)}.md"

    def write_document(self, doc: Document, path: Path | None = None) -> Document:
        target = self.layout.inside(path or self.path_for(doc))
        doc.doc_path = self.layout.relative(target)
        atomic_write_text(target, doc.to_markdown())
        return doc

    def read_document(self, doc_path: str) -> Document:
        path = self.layout.resolve_relative(doc_path.split("#", 1)[0])
        return Document.from_markdown(path.read_text(encoding="utf-8"), doc_path=doc_path)

    def read_text(self, doc_path: str) -> str:
        return self.layout.resolve_relative(doc_path.split("#", 1)[0]).read_text(encoding="utf-8")

    def update_counters(self, doc_path: str, deltas: dict[str, int]) -> None:
        """Add `deltas` to counters stored in a file's frontmatter (or in a memory-file / transcript entry)."""
        self.update_counters_many([(doc_path, deltas)])

    def update_counters_many(self, updates: list[tuple[str, dict[str, int]]], absolute: bool = False) -> None:
        """Apply counter deltas (or, with `absolute`, set values) to many documents, each file rewritten once.

        Absolute values are what the exactly-once write-back uses (catalog -> vault): writing them twice
        changes nothing, so a crash between the catalog commit and the file write is healed by repeating it.
        """
        by_file: dict[str, list[tuple[str, dict[str, int]]]] = {}
        for doc_path, deltas in updates:
            kept = {k: int(v) for k, v in deltas.items() if k in COUNTERS and (v or absolute)}
            if kept:
                rel, _, fragment = doc_path.partition("#")
                by_file.setdefault(rel, []).append((fragment, kept))
        for rel, changes in by_file.items():
            path = self.layout.resolve_relative(rel)
            if path.exists():
                text = path.read_text(encoding="utf-8")
                new = _with_counters(path, text, changes, absolute)
                if new != text:
                    atomic_write_text(path, new)

    # ---- user memory files ---------------------------------------------------------------------
    def memory_file(self, user_id: str, kind: str) -> MemoryFile:
        path = self.layout.memory_path(user_id, kind)
        if path.exists():
            return MemoryFile.parse(path.read_text(encoding="utf-8"), kind, user_id)
        return MemoryFile(kind=kind, user_id=user_id)

    def write_memory_file(self, memory: MemoryFile, modified: datetime, cause: str = "", log: bool = True) -> str:
        """Write preferences.md / facts.md; with `log`, the change and its diff go to the user's change
        log, naming `cause` (the turn, message or job; documents/change_log.py)."""
        from panda.documents.change_log import append_entry, body_diff, user_log_path

        path = self.layout.memory_path(memory.user_id, memory.kind)
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        memory.modified = modified
        after = memory.render()
        atomic_write_text(path, after)
        diff = body_diff(before, after, path.name) if log else ""
        if diff:
            append_entry(user_log_path(self.layout.user_dir(memory.user_id), modified), f"Memory changes {modified.date()}",
                         f"{modified.strftime('%H:%M')} {'created' if not before else 'updated'} [{path.name}](../../{path.name})"
                         f" · cause `{cause or 'unknown'}`", diff)
        return self.layout.relative(path)

    # ---- turns ---------------------------------------------------------------------------------
    def turn_dir(self, user_id: str, turn_number: int) -> Path:
        return self.layout.turn_dir(user_id, turn_number)

    def next_turn_number(self, user_id: str, catalog_max: int = 0) -> int:
        """1 + the highest complete turn on disk or in the catalog; an incomplete folder is reused."""
        highest = catalog_max
        turns = self.layout.turns_dir(user_id)
        if turns.exists():
            for child in turns.iterdir():
                if child.name.startswith("turn_") and (child / COMPLETE_MARKER).exists():
                    highest = max(highest, int(child.name[5:]))
        for marker in self.home.glob(f"archive/*/{validate_name(user_id, 'user_id')}/turn_*/{COMPLETE_MARKER}"):
            highest = max(highest, int(marker.parent.name[5:]))  # archived turns keep their numbers
        return highest + 1

    def reset_turn_dir(self, user_id: str, turn_number: int) -> Path:
        """Clear leftovers of a crashed earlier attempt at this turn (never a complete turn)."""
        path = self.turn_dir(user_id, turn_number)
        if (path / COMPLETE_MARKER).exists():
            raise FileExistsError(f"{path} holds a complete turn; refusing to overwrite it")
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path

    def write_turn_files(self, turn_path: Path, files: dict[str, str | dict[str, Any]]) -> None:
        """Write every file of a turn; metadata.json must be passed and is written last."""
        for name, content in files.items():
            if name == COMPLETE_MARKER:
                continue
            target = self.layout.inside(turn_path / name)
            if isinstance(content, str):
                atomic_write_text(target, content)
            else:
                atomic_write_json(target, content)
        atomic_write_json(self.layout.inside(turn_path / COMPLETE_MARKER), files[COMPLETE_MARKER])

    def update_turn_metadata(self, user_id: str, turn_number: int, changes: dict[str, Any]) -> dict[str, Any] | None:
        """Merge `changes` into a complete turn's metadata.json (atomic); None if there is no such turn."""
        marker = self.turn_dir(user_id, turn_number) / COMPLETE_MARKER
        if not marker.exists():
            return None
        meta = json.loads(marker.read_text(encoding="utf-8"))
        meta.update(changes)
        atomic_write_json(marker, meta)
        return meta

    def turn_record(self, doc_path: str) -> dict[str, Any] | None:
        """The metadata.json of the complete turn whose context.md is `doc_path` (relative to the home); None if
        there is none. Example: 'users/a/turns/turn_000003/context.md' -> {'query': ..., 'response': ...}."""
        try:  # a path that leaves the home is no turn of it
            marker = self.layout.inside(self.home / doc_path.split("#", 1)[0]).parent / COMPLETE_MARKER
            return dict(json.loads(marker.read_text(encoding="utf-8")))
        except (OSError, ValueError, UnsafePathError):
            return None

    def recent_appendices(self, user_id: str, before_turn: int, count: int) -> list[str]:
        """Turn Summary Appendices of the user's last `count` complete turns, oldest first."""
        out = []
        for number in range(max(1, before_turn - count), before_turn):
            path = self.turn_dir(user_id, number) / "context.md"
            if path.exists() and (path.parent / COMPLETE_MARKER).exists():
                appendix = ContextDocument.parse(path.read_text(encoding="utf-8")).latest("appendix")
                if appendix:
                    out.append(appendix)
        return out

    # ---- reindex sources -----------------------------------------------------------------------
    def iter_turn_records(self, user_id: str | None = None) -> Iterator[tuple[dict[str, Any], Path]]:
        """(metadata.json, context.md path) of every complete turn, active or archived (of one user if given)."""
        user = validate_name(user_id, "user_id") if user_id else "*"
        for pattern in (f"users/{user}/turns/turn_*/{COMPLETE_MARKER}", f"archive/*/{user}/turn_*/{COMPLETE_MARKER}"):
            for marker in sorted(self.home.glob(pattern)):
                yield json.loads(marker.read_text(encoding="utf-8")), marker.parent / "context.md"

    def iter_transcripts(self) -> Iterator[SessionTranscript]:
        for pattern in ("users/*/threads/*/session_*.md", "archive/*/*/threads/*/session_*.md"):
            for path in sorted(self.home.glob(pattern)):
                yield SessionTranscript.parse(path.read_text(encoding="utf-8"))

    def iter_documents(self) -> Iterator[Document]:
        """Every free-standing document and memory entry in the vault (turns come from iter_turn_records)."""
        patterns = ("users/*/memories/*.md", "Knowledge/**/*.md", "Context/Turns/*.md", "Web/**/*.md")
        for pattern in patterns:
            for path in sorted(self.home.glob(pattern)):
                rel = self.layout.relative(path)
                try:
                    doc = Document.from_markdown(path.read_text(encoding="utf-8"), doc_path=rel)
                except Exception as exc:  # YAML or validation errors: say which file, keep the cause
                    raise VaultFileError(rel, " ".join(str(exc).split())[:300]) from exc
                yield doc
        for user_dir in sorted((self.home / "users").glob("*")):
            for kind in ("preference", "fact"):
                memory = self.memory_file(user_dir.name, kind)
                rel = self.layout.relative(self.layout.memory_path(user_dir.name, kind))
                for entry in memory.entries:
                    yield entry_document(entry, kind, user_dir.name, rel)


def entry_document(entry: MemoryEntry, kind: str, user_id: str, file_rel: str) -> Document:
    """The catalog document of one preference or fact line."""
    text = entry.text
    return Document(
        id=entry.id, kind=kind, title=text[:80], primary_topic=f"user.{kind}",
        keywords=[entry.preference_type] if entry.preference_type else [], session_id=entry.session,
        intent="personal", content_types=[kind], scope="user", quality=min(1.0, max(0.0, entry.confidence)),
        importance=0.3, owner_user=user_id, created_at=entry.learned_at or datetime.fromtimestamp(0),
        invalid_at=entry.invalid_at, valid_at=entry.learned_at, reference_count=entry.reference_count,
        usage_count=entry.usage_count, validation_count=entry.validation_count,
        validation_success=entry.validation_success, doc_path=f"{file_rel}#{entry.id}", body=text,
        extra={"source": entry.source},
    )


def _add(counters: dict[str, int] | Any, deltas: dict[str, int], as_attributes: bool = False,
         absolute: bool = False) -> None:
    for key, delta in deltas.items():
        if as_attributes:
            setattr(counters, key, delta if absolute else getattr(counters, key) + delta)
        elif absolute and not delta and not counters.get(key):
            continue  # an absent counter is zero: do not add zero keys to files that never had them
        else:
            counters[key] = delta if absolute else int(str(counters.get(key, 0) or 0)) + delta


def _with_counters(path: Path, text: str, changes: list[tuple[str, dict[str, int]]], absolute: bool = False) -> str:
    """The file's text with counter deltas applied: per message (transcript), per entry (preferences/facts,
    fragment = entry id) or in the frontmatter (fragment empty)."""
    if path.name.startswith("session_"):
        transcript = SessionTranscript.parse(text)
        messages = {m.id: m for m in transcript.messages}
        for fragment, deltas in changes:
            if fragment in messages:
                _add(messages[fragment].metadata.setdefault("counters", {}), deltas, absolute=absolute)
                if not messages[fragment].metadata["counters"]:
                    del messages[fragment].metadata["counters"]
            elif fragment == "summary":
                _add(transcript.summary_counters, deltas, absolute=absolute)
        return transcript.render()
    if path.name in ("preferences.md", "facts.md") and any(fragment for fragment, _ in changes):
        memory = MemoryFile.parse(text, "preference" if path.name == "preferences.md" else "fact", path.parent.name)
        entries = {e.id: e for e in memory.entries}
        for fragment, deltas in changes:
            if fragment in entries:
                _add(entries[fragment], deltas, as_attributes=True, absolute=absolute)
        return memory.render()
    post = frontmatter.loads(text)
    for _fragment, deltas in changes:
        _add(post.metadata, deltas, absolute=absolute)
    return frontmatter.dumps(post, sort_keys=False) + "\n"
