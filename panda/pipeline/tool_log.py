"""The tool log (§4) as prompt text for the phases that read it: the planner sees every call and its status,
synthesis and validation only what the tools found. Pure; left out: running the tools (execute.py) and writing §4.
"""

from __future__ import annotations

from typing import Any

from panda.documents.budgets import truncate_to_words
from panda.pipeline.state import TurnState


def tool_results_text(state: TurnState, max_words: int = 250, evidence_only: bool = False) -> str:
    """This attempt's tool log as prompt text. The planner sees every call with its status ("saved …",
    "not found"); with `evidence_only` (synthesis, validation) only what the tools found is shown: a status
    line is bookkeeping, and a small model copied it as the answer ("Saved mem_…", "Not found")."""
    def found(e: dict[str, Any]) -> str:
        return "; ".join(" ".join(r["snippet"].split()[:20]) for r in e.get("results", [])[:3])

    entries = [e for e in state.tool_log if e["attempt"] == state.doc.attempt]
    if evidence_only:
        lines = [f"{e['tool']}({e['argument']}): {found(e)}" for e in entries if e.get("results")]
    else:
        lines = [f"{e['tool']}({e['argument']}): {e['summary']}; {found(e)}" for e in entries]
    return truncate_to_words("\n".join(lines), max_words) if lines else "(none)"
