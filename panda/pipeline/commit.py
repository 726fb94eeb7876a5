"""Making a finished turn count, exactly once (DESIGN §10): one transaction, derived from metadata.json.

The save phase writes the turn's files with metadata.json last; metadata.json lists everything the
turn changes in the catalog — the documents it wrote (`indexed_paths`, its research and knowledge
notes), the documents it used (`used_documents`, with the outcome), the documents its searches returned
(`referenced_documents`), its retrievals and its Page Intelligence extractions. `commit_turn` applies
all of that in ONE transaction together with the turn_index row that marks the turn done:
- usage and validation counters of the used documents (APPROVE +1/+1, RETRY/FAIL +1/0, REVISE 0);
- reference counts once per turn for the referenced documents (turn_references keys them by turn);
- retrieval_operations and source_extractions rows with ids derived from the turn (a repeat is a no-op);
- a research turn's row in knowledge_queue (its global notes are published after the batch).
A crash before the commit leaves a complete folder that `recover_turns` commits through this same
function; a crash after it finds the turn done. Nothing was counted while the turn ran, so a turn that
is re-run from scratch counts once. After the commit the vault files get the catalog's counter values
(memory.sync_counters, absolute values: repeating it is harmless).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter

from panda.catalog import knowledge_queue
from panda.catalog.conversations import Conversations
from panda.catalog.maintenance import Maintenance
from panda.documents.model import Document, parse_time
from panda.documents.turn_record import turn_document, turn_index_row
from panda.documents.vault import entry_document
from panda.home import Home
from panda.memory.embeddings import embed_documents

TRUST_EFFECT = {"APPROVE": (1, 1), "RETRY": (1, 0), "FAIL": (1, 0), "REVISE": (0, 0)}  # (count, success)


def turn_counters(context_path: Path) -> dict[str, Any]:
    if not context_path.exists():
        return {}
    return dict(frontmatter.loads(context_path.read_text(encoding="utf-8")).metadata)


def research_document_of(ctx: Home, context_path: Path) -> Document | None:
    """The research document a turn folder holds (research.md), if any."""
    path = context_path.parent / "research.md"
    if not path.exists():
        return None
    return Document.from_markdown(path.read_text(encoding="utf-8"), doc_path=ctx.vault.layout.relative(path))


def read_indexable(ctx: Home, doc_path: str) -> Document | None:
    """The catalog document at a vault path: a file, or one entry of preferences.md/facts.md (`#id`)."""
    rel, _, fragment = doc_path.partition("#")
    path = ctx.vault.layout.resolve_relative(rel)
    if not path.exists():
        return None
    if fragment and path.name in ("preferences.md", "facts.md"):
        kind = "preference" if path.name == "preferences.md" else "fact"
        user = path.parent.name
        entry = next((e for e in ctx.vault.memory_file(user, kind).entries if e.id == fragment), None)
        return entry_document(entry, kind, user, rel) if entry is not None else None
    return ctx.vault.read_document(rel)


def turn_search_documents(ctx: Home, meta: dict[str, Any], context_path: Path) -> list[Document]:
    """Every document a finished turn (re)indexes, read back from the vault (the same for save and recovery)."""
    if meta.get("probe"):
        return []
    docs = [turn_document(meta, turn_counters(context_path))]
    research = research_document_of(ctx, context_path)
    if research is not None:
        docs.append(research)
    # The global notes a research turn feeds are indexed when they are published (research/publication.py).
    for doc_path in dict.fromkeys(meta.get("indexed_paths", [])):
        doc = read_indexable(ctx, doc_path)
        if doc is not None:
            docs.append(doc)
    return list({d.id: d for d in docs}.values())


def referenced_documents(retrievals: list[dict[str, Any]]) -> list[str]:
    """Documents returned by the turn's memory.search and research.search calls, each once, in order (pure).

    Example: two searches returning [a, b] and [b, c] -> [a, b, c] (each reference-counted once).
    """
    ids: list[str] = []
    for record in retrievals:
        if record.get("retrieval_type") in ("memory.search", "research.search"):
            ids += record.get("result_ids", [])
    return list(dict.fromkeys(ids))


def commit_turn(ctx: Home, meta: dict[str, Any], docs: list[Document],
                calls: list[dict[str, Any]] | None = None) -> None:
    catalog = ctx.catalog
    vectors = list(embed_documents(ctx.memory.embedder, docs)) if docs else []
    probe = bool(meta.get("probe"))
    turn_id, user_id = meta["turn_id"], meta["user_id"]
    used = [] if probe else list(dict.fromkeys(meta.get("used_documents") or []))
    referenced = [] if probe else list(meta.get("referenced_documents") or [])
    count_delta, success_delta = TRUST_EFFECT.get(str(meta.get("outcome")), (0, 0))
    maintenance, conversations = Maintenance(catalog), Conversations(catalog)
    with catalog.transaction():
        catalog.upsert_documents(docs, vectors)
        catalog.upsert_turn(turn_index_row(meta), used)
        session = conversations.session_of_message(user_id, f"{turn_id}:q") or meta.get("session_id")
        for i, r in enumerate(meta.get("retrievals") or []):
            catalog.record_retrieval_entry({**r, "turn_id": turn_id, "session_id": session}, record_id=f"{turn_id}:r{i}")
        if calls:
            catalog.record_llm_calls(calls, ctx.policy.llm.prices_usd_per_million)
        # One session id form (README, Observability): the turn's calls carry its catalog session, thread
        # and the message that asked (the turn's query, recorded in its thread).
        thread, message = conversations.thread_and_message(user_id, f"{turn_id}:q")
        conversations.link_llm_calls(turn_id, session, thread, message)
        for i, e in enumerate(meta.get("extractions") or []):
            maintenance.record_extraction(e["domain"], e.get("url"), e["type"], bool(e["success"]),
                                          e.get("confidence"), None, parse_time(meta["timestamp"]),  # type: ignore[arg-type]
                                          record_id=f"{turn_id}:x{i}")
        if meta.get("research") and not probe:  # its global knowledge, published after the batch
            knowledge_queue.enqueue(catalog, turn_id, user_id, meta["doc_path"].rsplit("/", 1)[0],
                                    parse_time(meta["timestamp"]))  # type: ignore[arg-type]
        fresh = catalog.add_turn_references(turn_id, user_id, referenced)
        catalog.increment_counters(fresh, "reference_count")
        catalog.increment_counters(used, "usage_count")
        catalog.increment_counters(used, "validation_count", count_delta)
        catalog.increment_counters(used, "validation_success", success_delta)
    ctx.memory.sync_counters()
