"""Phase synthesize (§5, VOICE 0.7): the user-facing answer from §2 and §4.

A turn that carries a logged assistant reply (a conversation being ingested) uses it verbatim and
makes no LLM call. On REVISE the validator's hint is passed in and §5 gets a new labelled entry.

The context the model sees starts with the current facts and preferences gather found, verbatim
("budget: under $1000"): a small model's §2 summary can drop the one detail a recall question asks
for. A message that states something about the user and asks nothing is marked as a statement to
acknowledge, not to answer.

A recall answer that left out the remembered fact its question names (validate.ignored_fact) is
rewritten by rule on the small profiles (guard ignored_fact_restated, guards.py), not by the model: "From what
you told me: budget: under $1000." The model had that
fact in its prompt already ("Known: …") and answered from elsewhere; asked again with the hint, the
0.5B model answered from the research page again, both times (a sample run).
"""

from __future__ import annotations

from panda.documents.budgets import truncate_to_words
from panda.home import Home
from panda.llm.roles import VOICE
from panda.llm.schemas import Response
from panda.pipeline import guards
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState
from panda.pipeline.statements import is_statement
from panda.pipeline.tool_log import tool_results_text

ACKNOWLEDGEMENT = "noted"  # how the prompt's example acknowledges a statement ("Noted - you work night shifts …")


def known_facts(state: TurnState, limit: int = 5) -> str:
    """Example: gathered facts 'budget: under $1000' and 'likes: hiking' -> 'Known: budget: under $1000; likes:
    hiking. ' (superseded ones left out)."""
    facts = [r.title for r in state.gathered if r.kind in ("fact", "preference") and not r.superseded][:limit]
    return f"Known: {'; '.join(facts)}. " if facts else ""


def run(state: TurnState, ctx: Home) -> Step[None]:
    if state.input.assistant is not None and not state.revise_hint:
        state.response = state.input.assistant
        note = "_(logged assistant reply, ingested as is)_"
    elif state.revise_fact and guards.active(ctx, "ignored_fact_restated", VOICE):
        state.response = f"From what you told me: {state.revise_fact}."
        state.revise_fact = ""
        note = (f"_(stated from the remembered fact the question names, {guards.mark('ignored_fact_restated')}: "
                "the model's answer left it out)_")
    else:
        state.revise_fact = ""  # with the restating guard off, the model rewrites from the hint that names the fact
        reply = yield from ask(state, ctx, phase="synthesize", role=VOICE, prompt="synthesize", schema=Response,
                               variables={"query": state.query,
                                          "context": truncate_to_words(known_facts(state) + state.gather_summary, 200),
                                          "statement": is_statement(state),
                                          "tool_results": tool_results_text(state, 150, evidence_only=True),
                                          "revise_hint": state.revise_hint})
        state.response = reply.answer.strip()
        note = f"_(prompt `{state.prompt_versions['synthesize']}` · model `{ctx.model_for(VOICE)}`)_"
    body = yield from fit_section(state, ctx, "5", f"{state.response}\n\n{note}")
    state.doc.write("5", body)
