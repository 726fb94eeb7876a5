"""A finished turn's metadata.json → its catalog document and turn_index row (pure).

Both the save phase and `panda reindex` go through these two functions, which is what makes a
rebuilt catalog identical to the one the pipeline wrote.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from panda.documents.model import Document, parse_time


def turn_document(meta: dict[str, Any], counters: dict[str, Any]) -> Document:
    """The searchable document of a turn: query, resolved query, answer, and the lesson of how it was
    answered — the plan's goals and the tools that ran (seed 000: context.md is indexed with its plan and
    tool log); counters from context.md."""
    answer = " ".join(str(meta.get("response") or meta.get("answer") or "").split()[:300])  # "answer": older files
    lesson = [f"Plan: {meta['strategy_summary']}" if meta.get("strategy_summary") else "",
              f"Tools: {meta['tools_summary']}" if meta.get("tools_summary") else ""]
    body = "\n".join(x for x in (meta.get("query", ""), meta.get("resolved_query", ""), answer, *lesson) if x)
    return Document(
        id=meta["turn_id"], kind="context", title=(meta.get("resolved_query") or meta.get("query", ""))[:120],
        primary_topic=meta.get("topic") or "general", keywords=list(meta.get("keywords") or []),
        intent=meta.get("intent") or "informational",
        content_types=["context"] + (["rejected"] if meta.get("user_feedback_status") == "rejected" else []), scope="user",
        quality=float(meta.get("quality_score") or 0.0), importance=float(meta.get("importance", 0.15)),
        owner_user=meta["user_id"], session_id=meta.get("session_id"), turn_number=int(meta["turn_number"]),
        usage_count=int(counters.get("usage_count", 0) or 0),
        reference_count=int(counters.get("reference_count", 0) or 0),
        validation_count=int(counters.get("validation_count", 0) or 0),
        validation_success=int(counters.get("validation_success", 0) or 0),
        created_at=parse_time(meta["timestamp"]) or datetime.fromtimestamp(0, UTC), doc_path=meta["doc_path"], body=body,
    )


def turn_index_row(meta: dict[str, Any]) -> dict[str, Any]:
    """Seed 000's turn_index columns plus archival, revisions and input tracking."""
    return {
        "id": meta["turn_id"], "user_id": meta["user_id"], "turn_number": int(meta["turn_number"]),
        "session_id": meta.get("session_id"), "topic": meta.get("topic"), "intent": meta.get("intent"),
        "validation_outcome": meta.get("outcome"), "strategy_summary": meta.get("strategy_summary"),
        "quality_score": float(meta.get("quality_score") or 0.0),
        "user_feedback_status": meta.get("user_feedback_status", "neutral"),
        "rejection_detected_in": meta.get("rejection_detected_in"),
        "created_at": parse_time(meta["timestamp"]), "keywords": ",".join(meta.get("keywords") or []),
        "doc_path": meta["doc_path"], "archived": bool(meta.get("archived", False)),
        "summary_json": meta.get("summary_json"), "revision_count": int(meta.get("revision_count", 0)),
        "input_key": meta["input_key"], "source_file": meta.get("source_file"), "source_line": meta.get("source_line"),
    }
