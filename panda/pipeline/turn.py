"""One turn through every phase: analyze → reflect → gather → (plan⇄execute → synthesize → validate)* → save.

Validation decides what happens next, within policy.context.max_validation_attempts: APPROVE and
FAIL end the turn; REVISE rewrites §5 (new labelled entry); RETRY replays from §3 (new labelled
attempt). An LLM reply that never parses ends the turn FAIL with the reason in §6. Save always runs,
so every turn — approved, clarified or failed — leaves a complete context.md: sections a turn did
not reach are written with the reason (a CLARIFY turn's §5 is the question put to the user).
"""

from __future__ import annotations

from panda.errors import LLMReplyError
from panda.home import Home
from panda.pipeline import analyze, gather, guards, plan, reflect, save, synthesize, validate
from panda.pipeline.state import Step, TurnState


def run_turn(state: TurnState, ctx: Home) -> Step[TurnState]:
    try:
        yield from analyze.run(state, ctx)
        if (yield from reflect.run(state, ctx)):
            yield from gather.run(state, ctx)
            yield from _attempts(state, ctx)
    except LLMReplyError as exc:
        state.outcome = "FAIL"
        state.fail_reason = str(exc)
        if state.doc.can_write("6"):
            state.doc.write("6", f"**Decision:** FAIL\n**Quality:** 0.00\n**Issues:** {exc}")
    close_unreached_sections(state)
    save.run(state, ctx)
    return state


def close_unreached_sections(state: TurnState) -> None:
    """Write every section the turn never reached, saying why, so each context.md has §0–§6."""
    if state.outcome == "CLARIFY":
        why = "the reflection gate asked the user to clarify (§1)"
    else:
        why = f"the turn ended {state.outcome}: {state.fail_reason or 'see §6'}"
    for key in ("0", "1", "2", "3", "4", "5", "6"):
        if state.doc.has(key):
            continue
        if key == "5" and state.outcome == "CLARIFY":
            state.doc.write("5", f"{state.response}\n\n_(clarifying question from §1)_")
        elif key == "6" and state.outcome == "CLARIFY":
            state.doc.write("6", "**Decision:** CLARIFY\n**Quality:** -\n**Issues:** not validated: the turn asked a question")
        else:
            state.doc.write(key, f"_Not reached: {why}._")


def _attempts(state: TurnState, ctx: Home) -> Step[None]:
    limit = ctx.policy.context.max_validation_attempts
    used = 0
    replan = True
    while True:
        if replan:
            yield from plan.run(state, ctx)
        yield from synthesize.run(state, ctx)
        verdict = yield from validate.run(state, ctx)
        used += 1
        state.outcome = verdict.decision
        if verdict.decision in ("APPROVE", "FAIL"):
            return
        if used >= limit:
            state.attempts_exhausted = True
            return
        if verdict.decision == "REVISE":
            state.revise_hint = guards.unmarked(verdict.issues)
            state.doc.begin_revise()
            replan = False
        else:
            state.retry_hint = guards.unmarked(verdict.issues)
            state.revise_hint = ""
            state.doc.begin_retry()
            replan = True
