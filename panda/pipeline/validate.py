"""Phase validate (§6, MIND 0.5): APPROVE, REVISE (rewrite §5), RETRY (replay from §3) or FAIL.

Returns the decision; the turn runner (turn.py) applies it within the bounded number of attempts.
"""

from __future__ import annotations

from panda.documents.budgets import truncate_to_words
from panda.llm.roles import MIND
from panda.llm.schemas import Validation
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import PipelineContext, Step, TurnState


def render(v: Validation, goal_ids: list[str]) -> str:
    lines = [f"**Decision:** {v.decision}", f"**Quality:** {v.quality:.2f}", f"**Issues:** {v.issues}"]
    if v.goal_scores:
        pairs = [f"{gid} {score:.2f}" for gid, score in zip(goal_ids, v.goal_scores, strict=False)]
        lines.append(f"**Per-goal quality:** {', '.join(pairs) or '-'}")
    return "\n".join(lines)


def run(state: TurnState, ctx: PipelineContext) -> Step[Validation]:
    verdict = yield from ask(state, ctx, phase="validate", role=MIND, prompt="validate", schema=Validation,
                             variables={"query": state.query,
                                        "context": truncate_to_words(state.gather_summary, 150),
                                        "answer": truncate_to_words(state.response, 200)})
    state.validation = verdict
    goal_ids = [g.id for g in state.plan.goals] if state.plan else []
    state.doc.write("6", (yield from fit_section(state, ctx, "6", render(verdict, goal_ids))))
    return verdict
