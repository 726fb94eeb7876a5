"""Phase reflect (§1, REFLEX 0.3): PROCEED or CLARIFY. CLARIFY ends the turn with a question.

CLARIFY is for a message with nothing to act on ("??", "asdf", "hm"). A small model copies its few-shot
CLARIFY example onto clear questions ("How big should her cage be?" was gated as "no request in the message"),
so a deterministic rule has the last word: a message with at least `MEANINGFUL_WORDS` words that are not stop
words is clear (a question about the user, with one). Since the rule would override any CLARIFY on such a
message, the model is not asked about it at all (one sequential LLM round less per turn, on the turn's
critical path); §1 says the rule decided. The model decides the rest, and a CLARIFY it gives there stands. The
rule is a small-model guard (guards.py): on larger models the model decides.
"""

from __future__ import annotations

from panda.home import Home
from panda.language.text import STOP_WORDS, is_question, words
from panda.llm.roles import REFLEX
from panda.llm.schemas import ReflectionDecision
from panda.pipeline import guards
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState
from panda.pipeline.statements import acknowledgement

MEANINGFUL_WORDS = 2


def is_clear(query: str) -> bool:
    """Example: is_clear('How big should her cage be?') -> True; is_clear('??') -> False; is_clear('hm ok') -> False.
    A question about the user needs one meaningful word: their memory answers it (set G: "What am I allergic to?"
    was gated by the 0.5B model as "check a pet's allergy"), and so does the user telling something of themselves (set
    L: "I'm pescatarian." got the 0.5B model's CLARIFY, "What would you like me to help with?"), and so does any
    question (set L: "When is the concert?" got that CLARIFY too)."""
    meaningful = [w for w in words(query) if w not in STOP_WORDS and len(w) > 1 and w not in ("hm", "hmm", "ok", "okay")]
    return len(meaningful) >= (1 if is_question(query) or acknowledgement(query) is not None else MEANINGFUL_WORDS)


def run(state: TurnState, ctx: Home) -> Step[bool]:
    """Returns True when the pipeline may proceed."""
    assert state.analysis is not None
    if guards.active(ctx, "clear_request_proceeds", REFLEX) and is_clear(state.query):
        state.reflection = ReflectionDecision(decision="PROCEED", reason="a clear request", clarification_question="")
        state.doc.write("1", "**Decision:** PROCEED\n**Reason:** the message is a clear request "
                             f"(at least {MEANINGFUL_WORDS} meaningful words); "
                             f"{guards.mark('clear_request_proceeds')}, no model call")
        return True
    decision = yield from ask(state, ctx, phase="reflect", role=REFLEX, prompt="reflect", schema=ReflectionDecision,
                              variables={"query": state.query, "resolved_query": state.analysis.resolved_query,
                                         "query_type": state.analysis.query_type,
                                         "purpose": state.analysis.purpose})
    body = f"**Decision:** {decision.decision}\n**Reason:** {decision.reason}"
    state.reflection = decision
    if decision.decision == "CLARIFY":
        question = decision.clarification_question or "Could you say a little more about what you need?"
        body += f"\n**Question to the user:** {question}"
        state.response = question
        state.outcome = "CLARIFY"
    state.doc.write("1", (yield from fit_section(state, ctx, "1", body)))
    return decision.decision == "PROCEED"
