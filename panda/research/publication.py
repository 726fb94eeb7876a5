"""Publishing a batch's global knowledge after the batch, in one fixed order (DESIGN §9's reduce step).

A research turn writes only its own user's files while it runs. What it learned for everyone —
knowledge and product notes, site knowledge, the Meta indexes, the change log — is computed at save
(public data only: privacy/provenance.py) and kept in the turn folder as `knowledge.json`; the turn's
commit transaction queues it in the catalog (`knowledge_queue`). `publish_pending` applies the queue
in (turn timestamp, turn id) order, then indexes the notes it touched and marks the rows published in
one transaction.

Why not write the notes while the batch runs (what seed 003's write protocol does turn by turn):
global notes are read-modify-write files shared by every user. Written mid-batch, their content would
depend on which user's turn finished first, and with the home sharded across workers
(sharding.py) on which shard did, and two shards would write the same file. Published after
the batch in a fixed order, the same turns give the same notes however they were scheduled, and only
the one process that holds the home's writer lock writes global files. The cost: another user finds a
note learned in this batch from the next batch on (the researching user finds her own research.md at
once, it is hers and indexed at her commit).

Exactly once: the notes skip a contribution already present (its provenance hash), site knowledge
skips a counted turn, and a row is marked published only after its files are written; a crash in
between re-applies it harmlessly. A queued turn whose folder is gone (the user was deleted) publishes
nothing.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.catalog import knowledge_queue
from panda.documents.model import Document, parse_time
from panda.home import Home
from panda.memory.embeddings import embed_documents

log = logging.getLogger(__name__)

KNOWLEDGE_FILE = "knowledge.json"


def knowledge_record(public: dict[str, Any], pages: list[dict[str, Any]], site_turn: str, when: datetime,
                     reliability: dict[str, float], lesson: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a research turn keeps for publication (pure): public research, its pages' site facts, and
    for a significant turn its lesson (outcome, quality, the tools that served it: research/lessons.py)."""
    return {"public": public, "pages": pages, "site_turn": site_turn, "when": when.isoformat(),
            "reliability": reliability, "lesson": lesson}


def apply_record(ctx: Home, record: dict[str, Any]) -> list[str]:
    """Write one turn's knowledge (seed 003 write protocol); returns the notes it created or updated."""
    from panda.research import site_knowledge
    from panda.research.knowledge import log_changes, product_notes, research_note
    from panda.research.lessons import turn_lesson_note

    public, when = record["public"], parse_time(record["when"])
    assert when is not None
    names = [p["name"] for page in public["pages"] for p in page["products"] if p.get("name")]
    note = research_note(ctx.vault, ctx.policy, public, when, names)
    changes = [note, *product_notes(ctx.vault, ctx.policy, public, note.path.rsplit("/", 1)[-1][:-3], when)]
    site_knowledge.update(ctx.vault, record["pages"], record["site_turn"], when, record["reliability"])
    if record.get("lesson"):
        lesson = turn_lesson_note(ctx.vault, public, record["lesson"], [c.path for c in changes], when)
        changes += [lesson] if lesson is not None else []
    fresh = [c for c in changes if c.action != "unchanged"]  # a replay after a crash logs nothing twice
    if fresh and ctx.policy.write.log_changes:  # seed 003's write.log_changes switch
        log_changes(ctx.vault, fresh, public["turn_id"], when)
    return [c.path for c in changes]


def publish_pending(ctx: Home) -> list[str]:
    """Apply every queued turn's knowledge in order; index the touched notes. Returns their vault paths."""
    from panda.research.knowledge import rebuild_indexes

    queue = knowledge_queue.pending(ctx.catalog)
    if not queue:
        return []
    touched: list[str] = []
    last = queue[-1][2]
    for turn_id, turn_dir, _ in queue:
        path = ctx.vault.layout.resolve_relative(turn_dir) / KNOWLEDGE_FILE
        if not path.exists():
            log.info("nothing to publish for %s: no %s (a turn from before publication, or a deleted user)",
                     turn_id, KNOWLEDGE_FILE)
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            log.error("knowledge of %s not published: %s is not JSON (%s)", turn_id, path, exc)
            continue
        touched += apply_record(ctx, record)
    rebuild_indexes(ctx.vault, last)
    docs = [d for d in (_read_note(ctx, p) for p in dict.fromkeys(touched)) if d is not None]
    vectors = list(embed_documents(ctx.memory.embedder, docs)) if docs else None
    with ctx.catalog.transaction():
        ctx.catalog.upsert_documents(docs, vectors)
        knowledge_queue.mark_published(ctx.catalog, [t for t, _, _ in queue])
    ctx.memory.sync_counters()
    return list(dict.fromkeys(touched))


def _read_note(ctx: Home, rel: str) -> Document | None:
    path: Path = ctx.vault.layout.resolve_relative(rel)
    return ctx.vault.read_document(rel) if path.exists() else None
