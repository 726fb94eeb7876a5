"""Phase reflect (§1, REFLEX 0.3): PROCEED or CLARIFY. CLARIFY ends the turn with a question."""

from __future__ import annotations

from panda.llm.roles import REFLEX
from panda.llm.schemas import ReflectionDecision
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import PipelineContext, Step, TurnState


def run(state: TurnState, ctx: PipelineContext) -> Step[bool]:
    """Returns True when the pipeline may proceed."""
    assert state.analysis is not None
    decision = yield from ask(state, ctx, phase="reflect", role=REFLEX, prompt="reflect", schema=ReflectionDecision,
                              variables={"query": state.query, "resolved_query": state.analysis.resolved_query,
                                         "query_type": state.analysis.query_type,
                                         "purpose": state.analysis.purpose})
    state.reflection = decision
    body = f"**Decision:** {decision.decision}\n**Reason:** {decision.reason}"
    if decision.decision == "CLARIFY":
        question = decision.clarification_question or "Could you say a little more about what you need?"
        body += f"\n**Question to the user:** {question}"
        state.response = question
        state.outcome = "CLARIFY"
    state.doc.write("1", (yield from fit_section(state, ctx, "1", body)))
    return decision.decision == "PROCEED"
