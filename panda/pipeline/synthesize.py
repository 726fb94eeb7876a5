"""Phase synthesize (§5, VOICE 0.7): the user-facing answer from §2 and §4.

A turn that carries a logged assistant reply (a conversation being ingested) uses it verbatim and
makes no LLM call. On REVISE the validator's hint is passed in and §5 gets a new labelled entry.
"""

from __future__ import annotations

from panda.documents.budgets import truncate_to_words
from panda.llm.roles import VOICE
from panda.llm.schemas import Response
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.plan import tool_results_text
from panda.pipeline.state import PipelineContext, Step, TurnState


def run(state: TurnState, ctx: PipelineContext) -> Step[None]:
    if state.input.assistant is not None and not state.revise_hint:
        state.response = state.input.assistant
        note = "_(logged assistant reply, ingested as is)_"
    else:
        reply = yield from ask(state, ctx, phase="synthesize", role=VOICE, prompt="synthesize", schema=Response,
                               variables={"query": state.query,
                                          "context": truncate_to_words(state.gather_summary, 200),
                                          "tool_results": tool_results_text(state, 150),
                                          "revise_hint": state.revise_hint})
        state.response = reply.answer.strip()
        note = f"_(prompt `{state.prompt_versions['synthesize']}` · model `{ctx.model_for(VOICE)}`)_"
    body = yield from fit_section(state, ctx, "5", f"{state.response}\n\n{note}")
    state.doc.write("5", body)
