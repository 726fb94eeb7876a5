"""Reindex: rebuild the catalog's documents and turn index from the vault alone.

The vault is the source of truth (DESIGN §2). `reindex` clears documents, postings and turn_index,
then indexes every memory note, knowledge note, preference and fact entry, and every complete turn
(active or archived), re-embedding in batches. Observability tables are kept: they are logs, not
memory. Its incremental form, run by the scheduler before each batch, is
pipeline/recovery.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from panda.documents.model import Document
from panda.documents.turn_record import turn_document, turn_index_row
from panda.home import Home
from panda.memory.embeddings import EMBEDDER_SETTING, embed_documents
from panda.pipeline.commit import research_document_of, turn_counters

log = logging.getLogger(__name__)
BATCH = 256


@dataclass
class ReindexReport:
    documents: int = 0
    turns: int = 0
    messages: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"documents": self.documents, "turns": self.turns, "messages": self.messages, "dry_run": self.dry_run}


def _index_batch(ctx: Home, docs: list[Document], metas: list[dict[str, Any]]) -> None:
    vectors = list(embed_documents(ctx.memory.embedder, docs)) if docs else []
    with ctx.catalog.transaction():
        ctx.catalog.upsert_documents(docs, vectors)
        for meta in metas:
            used = [] if meta.get("probe") else meta.get("used_documents") or []
            ctx.catalog.upsert_turn(turn_index_row(meta), used)
            ctx.catalog.add_turn_references(meta["turn_id"], meta["user_id"], meta.get("referenced_documents") or [])


def reindex(ctx: Home, dry_run: bool = False,
            progress: Callable[[int, int], None] | None = None) -> ReindexReport:
    """Rebuild; `progress(done, total)` is called after each batch (documents + turns + transcripts)."""
    from panda.conversations.ingest import index_transcripts

    report = ReindexReport(dry_run=dry_run)
    documents = list(ctx.vault.iter_documents())
    turns = list(ctx.vault.iter_turn_records())
    report.documents, report.turns = len(documents) + len(turns), len(turns)
    if dry_run:
        return report
    identity = getattr(ctx.memory.embedder, "identity", None)
    if identity is not None:  # until it finishes, no opener may take the vectors for either model's
        ctx.catalog.set_setting(EMBEDDER_SETTING, "reindex-incomplete")
    ctx.catalog.clear_derived()
    transcripts = list(ctx.vault.iter_transcripts())
    total, done = len(documents) + len(turns) + len(transcripts), 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    for start in range(0, len(documents), BATCH):
        _index_batch(ctx, documents[start:start + BATCH], [])
        advance(len(documents[start:start + BATCH]))
    for start in range(0, len(turns), BATCH):
        chunk = turns[start:start + BATCH]
        docs = [turn_document(meta, turn_counters(path)) for meta, path in chunk if not meta.get("probe")]
        docs += [d for meta, path in chunk if not meta.get("probe") and (d := research_document_of(ctx, path)) is not None]
        _index_batch(ctx, docs, [meta for meta, _ in chunk])
        advance(len(chunk))
    for start in range(0, len(transcripts), 16):
        report.messages += index_transcripts(ctx, transcripts[start:start + 16])
        advance(len(transcripts[start:start + 16]))
    if identity is not None:
        ctx.catalog.set_setting(EMBEDDER_SETTING, identity)
    ctx.catalog.record_event("reindex", "catalog", None, report.as_dict())
    log.info("reindexed %d documents, %d turns", report.documents, report.turns)
    return report
