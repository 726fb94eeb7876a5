"""The tool log (§4) as prompt text for the phases that read it: the planner sees every call and its status,
synthesis and validation only what the tools found. Pure; left out: running the tools (execute.py) and writing §4.
"""

from __future__ import annotations

from typing import Any

from panda.documents.budgets import truncate_to_words
from panda.documents.model import parse_time
from panda.memory.search import SearchResult
from panda.pipeline.state import TurnState


def tool_results_text(state: TurnState, max_words: int = 250, evidence_only: bool = False,
                      without_memory: bool = False, without_web: bool = False) -> str:
    """This attempt's tool log as prompt text. The planner sees every call with its status ("saved …",
    "not found"); with `evidence_only` (synthesis, validation) only what the tools found is shown: a status
    line is bookkeeping, and a small model copied it as the answer ("Saved mem_…", "Not found"). With
    `without_memory` (synthesis) memory.search is left out: what it found is in the answer's context, as
    evidence lines (memory_found, pipeline/evidence.py); what memory.retrieve read stays here. With `without_web`
    (synthesis of a question about the user) research.search is left out too: the 0.5B model answered "What did I
    tell you about my diet?" with a page on body fat that the planner's search had found."""
    def found(e: dict[str, Any]) -> str:
        return "; ".join(" ".join(r["snippet"].split()[:20]) for r in e.get("results", [])[:3])

    entries = [e for e in state.tool_log if e["attempt"] == state.doc.attempt
               and not (without_memory and e["tool"] == "memory.search")
               and not (without_web and e["tool"] == "research.search")]
    if evidence_only:
        lines = [f"{e['tool']}({e['argument']}): {found(e)}" for e in entries if e.get("results")]
    else:
        lines = [f"{e['tool']}({e['argument']}): {e['summary']}; {found(e)}" for e in entries]
    return truncate_to_words("\n".join(lines), max_words) if lines else "(none)"


def memory_found(state: TurnState) -> list[SearchResult]:
    """What this attempt's memory.search calls found, as search results (for the answer's context)."""
    found = []
    for e in state.tool_log:
        if e["attempt"] != state.doc.attempt or e["tool"] != "memory.search":
            continue
        for r in e.get("results", []):
            created = parse_time(r.get("created_at"))
            if created is None:
                continue
            found.append(SearchResult(id=r["id"], kind=r["kind"], title=r.get("title") or "", primary_topic="",
                                      doc_path=r.get("doc_path") or "", score=float(r.get("score") or 0.0),
                                      snippet=r.get("snippet") or "", quality=0.0, scope="", created_at=created,
                                      superseded=bool(r.get("superseded"))))
    return found


def web_found(state: TurnState) -> bool:
    """Whether this attempt's research.search calls found pages (an answer may then rest on them, not on the user's
    lines)."""
    return any(e.get("results") for e in state.tool_log
               if e["attempt"] == state.doc.attempt and e["tool"] == "research.search")
