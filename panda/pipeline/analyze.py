"""Phase analyze (§0, REFLEX 0.3): resolve references, classify, find what the turn needs.

Reads the Turn Summary Appendices of the user's previous turns so "that one" can be resolved.
The original query is always written verbatim at the top of §0 (seed 002: original query preserved).

A message with no word that points back ("it", "that one", "her", "there" …) has nothing to resolve, and on the
small profiles it keeps its own words as the resolved query (guard unreferenced_query_kept): the 0.5B model
copied an earlier turn's resolved query into unrelated messages ("I'm vegetarian, so no meat or fish for me." ->
"What is the name of the user's hospital?", benchmarks/answer_sets.py), and gather searched with it.
"""

from __future__ import annotations

import re

from panda.home import Home
from panda.llm.roles import REFLEX
from panda.llm.schemas import QueryAnalysis
from panda.pipeline import guards
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState


def previous_turn_lines(appendices: list[str], max_words: int = 60) -> list[str]:
    """One line per earlier turn from its appendix. Example: '- **Query:** x\\n- **Topic:** y' -> 'Query: x; Topic: y'."""
    lines = []
    for text in appendices:
        parts = [p.strip().lstrip("-").replace("**", "").strip() for p in text.splitlines() if p.strip()]
        joined = "; ".join(p for p in parts if p.split(":", 1)[0] in ("Turn", "Query", "Resolved", "Topic", "Answer"))
        lines.append(" ".join(joined.split()[:max_words]))
    return lines


_POINTS_BACK = re.compile(
    r"\b(it|its|it's|that|this|these|those|them|they|their|theirs|she|her|hers|he|him|his|there|then|one|ones|"
    r"former|latter|above|same|again|else|other|another)\b", re.I)


def points_back(query: str) -> bool:
    """Whether a message has a word that may point to earlier turns. Example: 'How big should her cage be?' ->
    True; 'What is my dog's name?' -> False; "I'm vegetarian, so no meat or fish for me." -> False."""
    return bool(_POINTS_BACK.search(query.replace("’", "'")))


def run(state: TurnState, ctx: Home) -> Step[None]:
    appendices = ctx.vault.recent_appendices(state.user_id, state.turn_number,
                                             ctx.policy.context.previous_turn_summaries)
    analysis = yield from ask(state, ctx, phase="analyze", role=REFLEX, prompt="analyze", schema=QueryAnalysis,
                              variables={"query": state.query, "turn_summaries": previous_turn_lines(appendices)})
    kept = ""
    if analysis.resolved_query != state.query and not points_back(state.query) \
            and guards.active(ctx, "unreferenced_query_kept", REFLEX):
        analysis = analysis.model_copy(update={"resolved_query": state.query})
        kept = f" ({guards.mark('unreferenced_query_kept')}: nothing in the message points back)"
    state.analysis = analysis
    details = "\n".join([
        f"**Resolved query:** {analysis.resolved_query}{kept}",
        f"**Query type:** {analysis.query_type} · **Intent:** {analysis.intent} · **Topic:** `{analysis.topic}`",
        f"**Purpose:** {analysis.purpose}",
        f"**Data needs:** {', '.join(analysis.data_needs) or 'none'}",
        f"**Keywords:** {', '.join(analysis.keywords) or '-'}",
        f"**References:** {'; '.join(analysis.references) or 'none'}",
        f"**Revealed:** preferences {analysis.revealed_preferences or '[]'}; facts {analysis.revealed_facts or '[]'}",
        f"**Mode:** {'probe (an evaluation question: answered, adds nothing to memory)' if state.input.probe else 'batch'}"
        f" · prompt `{state.prompt_versions['analyze']}` · model `{ctx.model_for(REFLEX)}`",
    ])
    details = yield from fit_section(state, ctx, "0", details)
    state.doc.write("0", f"**Original query:** {state.query}\n{details}")
