"""Recording what a turn or message revealed into preferences.md / facts.md and the catalog.

Both write paths — the pipeline's save phase and conversation ingest — call `record`, so every
preference and fact goes through the same deterministic dedup and contradiction rules
(language/facts.py). Entry ids come from the caller (derived from the input), which makes a re-run
add nothing. Returns the catalog documents to (re)index: new entries, re-confirmed ones and the
ones a new fact invalidated.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from panda.documents.model import Document
from panda.documents.user_memory import MemoryEntry
from panda.documents.vault import Vault, entry_document
from panda.language.facts import Statement, end, resolve
from panda.language.vocabulary import preference_type


@dataclass(frozen=True)
class Learned:
    kind: str  # preference | fact
    text: str
    entry_id: str
    valid_at: datetime
    source: str
    confidence: float = 0.7
    statement: Statement | None = None
    session_id: str | None = None


def from_statement(statement: Statement, entry_id: str, valid_at: datetime, source: str,
                   confidence: float = 0.7, session_id: str | None = None) -> Learned:
    return Learned(kind=statement.kind, text=statement.value, entry_id=entry_id, valid_at=valid_at, source=source,
                   confidence=confidence, statement=statement, session_id=session_id)


def cause_of(sources: list[str]) -> str:
    """The change log's cause (pure): turns as links from users/<id>/Logs/Changes/, messages and jobs by id.

    Example: ['turn_bob_000003', 'msg_1a'] -> '[turn_bob_000003](../../turns/turn_000003/context.md), msg_1a'."""
    def one(source: str) -> str:
        number = source.rsplit("_", 1)[-1]
        if source.startswith("turn_") and number.isdigit():
            return f"[{source}](../../turns/turn_{int(number):06d}/context.md)"
        return source

    unique = list(dict.fromkeys(s for s in sources if s))
    shown = ", ".join(one(s) for s in unique[:3])
    return shown + (f" and {len(unique) - 3} more" if len(unique) > 3 else "")


def record(vault: Vault, user_id: str, items: list[Learned], recorded_at: datetime,
           log_changes: bool = True) -> list[Document]:
    files = {kind: vault.memory_file(user_id, kind) for kind in ("preference", "fact")}
    touched: dict[str, dict[str, MemoryEntry]] = {"preference": {}, "fact": {}}
    causes: dict[str, list[str]] = {"preference": [], "fact": []}
    already: dict[str, dict[str, MemoryEntry]] = {"preference": {}, "fact": {}}
    for item in items:
        memory = files[item.kind]
        existing = next((e for e in memory.entries if e.id == item.entry_id), None)
        if existing is not None:  # written by an earlier run that may have died before the catalog
            already[item.kind][existing.id] = existing
            continue
        if item.statement is not None and item.statement.ends:  # "I quit running": no entry, an end
            for ended in end(memory.entries, item.statement.key, item.statement.value, item.valid_at):
                touched[item.kind][ended.id] = ended
                causes[item.kind].append(item.source)
            continue
        entry = MemoryEntry(value=item.text, key=item.statement.key if item.statement else None, id=item.entry_id,
                            confidence=item.confidence, source=item.source, learned_at=item.valid_at,
                            recorded_at=recorded_at, session=item.session_id,
                            preference_type=preference_type(item.text) if item.kind == "preference" else None)
        result = resolve(memory.entries, entry, item.statement.attribute if item.statement else None)
        for changed in (result.entry, *result.invalidated):
            touched[item.kind][changed.id] = changed
        causes[item.kind].append(item.source)
    docs: list[Document] = []
    for kind in ("preference", "fact"):
        rel = vault.write_memory_file(files[kind], recorded_at, cause_of(causes[kind]), log_changes) if touched[kind] else \
            vault.layout.relative(vault.layout.memory_path(user_id, kind))
        entries = {**already[kind], **touched[kind]}  # re-indexing an existing entry is an idempotent upsert
        docs += [entry_document(e, kind, user_id, rel) for e in entries.values()]
    return docs
