"""Phase gather (§2, MIND 0.5): retrieve once, then synthesise; §2 capped at 2,000 tokens.

Retrieval: one memory.search over every kind the user may see (turn history, memories, research,
global knowledge) plus one over the user's preferences and facts (seed 003: always include relevant
preferences). Synthesis: the MIND role keeps what matters and says which items it used; those are
the documents whose usage and trust the save phase updates. §2 links every source with a relative
markdown link (prior context.md, memory notes, preferences.md). Over budget, NERVES compresses.
"""

from __future__ import annotations

import os
from pathlib import Path

from panda.llm.roles import MIND
from panda.llm.schemas import GatherSynthesis
from panda.memory.search import SearchResult
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import PipelineContext, Step, TurnState


def relative_link(home: Path, from_dir: Path, doc_path: str) -> str:
    """Example: from users/a/turns/turn_000002 to users/a/turns/turn_000001/context.md -> '../turn_000001/context.md'."""
    target = home / doc_path.split("#", 1)[0]
    return Path(os.path.relpath(target, from_dir)).as_posix()


def item_line(result: SearchResult) -> str:
    outdated = " (may be outdated)" if result.possibly_outdated else ""
    return f"{result.kind}: {' '.join(result.snippet.split()[:40])} ({result.created_at.date().isoformat()}){outdated}"


def run(state: TurnState, ctx: PipelineContext) -> Step[None]:
    assert state.analysis is not None
    a = state.analysis
    limit = ctx.policy.context.gather_candidates
    query = a.resolved_query if a.resolved_query.lower() == state.query.lower() else f"{state.query} {a.resolved_query}"
    common = dict(user_id=state.user_id, now=state.input.timestamp, query_topic=a.topic, turn_id=state.turn_id)
    found = ctx.memory.search(query, limit=limit, **common)  # type: ignore[arg-type]
    seen = {r.id for r in found}
    personal = ctx.memory.search(query, kinds=["preference", "fact"], limit=3, exclude_ids=seen, **common)  # type: ignore[arg-type]
    state.gathered = found + personal
    if not state.gathered:
        state.gather_summary = "No prior memory matched this query."
        state.doc.write("2", f"**Synthesis:** {state.gather_summary}\n\n### Sources\n- (none)")
        return
    reply = yield from ask(state, ctx, phase="gather", role=MIND, prompt="gather", schema=GatherSynthesis,
                           variables={"query": state.query, "items": [item_line(r) for r in state.gathered]})
    picked = [state.gathered[i - 1] for i in dict.fromkeys(reply.relevant_items) if i <= len(state.gathered)]
    state.used = picked or state.gathered[:3]
    state.gather_summary = reply.summary
    lines = [f"**Gathered for:** {a.resolved_query}", f"**Synthesis:** {reply.summary}", "", "### Sources"]
    used_ids = {r.id for r in state.used}
    for r in state.gathered:
        link = relative_link(ctx.vault.home, state.turn_path, r.doc_path)
        mark = "used" if r.id in used_ids else "seen"
        outdated = " · may be outdated" if r.possibly_outdated else ""
        lines.append(f"- [{r.title or r.id}]({link}) · {r.kind} · `{r.primary_topic}` · "
                     f"{r.created_at.date().isoformat()} · score {r.score:.2f} · quality {r.quality:.2f} · {mark}{outdated}")
        lines.append(f"  > {' '.join(r.snippet.split()[:50])}")
    body = yield from fit_section(state, ctx, "2", "\n".join(lines))
    state.doc.write("2", body)
