"""Phase synthesize (§5, VOICE 0.2): the user-facing answer from §2 and §4.

A turn that carries a logged assistant reply (a conversation being ingested) uses it verbatim and
makes no LLM call. On REVISE the validator's hint is passed in and §5 gets a new labelled entry.

The context the model sees is the gathered items in their own words, dated (pipeline/evidence.py): the
current facts and preferences first ("budget: under $1000 (told 3 March 2026)"), then what the user said. A
small model's §2 summary dropped the one detail a recall question asked for, or spoke of another item, and the
answer copied it; the summary stays in §2 as gather's record of what it used. A message that states something
about the user and asks nothing is marked as a statement to acknowledge, not to answer.

A recall answer that left out the remembered fact its question names (validate.ignored_fact) is
rewritten by rule on the small profiles (guard ignored_fact_restated, guards.py), not by the model: "From what
you told me: budget: under $1000." The model had that
fact in its prompt already (a context line) and answered from elsewhere; asked again with the hint, the
0.5B model answered from the research page again, both times (a sample run).

Two more guards mend the model's use of the lines (small profiles): an answer that copies a line's frame ("On 9 April
2023 Gina said: …", or only "Jon said:") becomes the line's date for a when-question or its words otherwise
(`copied_line_answered`; a user's line said back in their "I" gets "you"), and a relative day copied from a dated line
("yesterday") becomes its date (`relative_day_dated`). A when-question about the user answered with no time of its own
gets the user's line that shares most words with it, quoted with its day (`undated_when_answered`), and a question
asking a name, a person or an amount answered without one the lines hold, or which one of a kind a thing is ("What
breed is Koukla?") answered with a line said again that names none, gets "I don't know" (`unanswered_abstained`);
an "I don't know" beside a line of the user's holding every meaningful word of the question gets that line, quoted
with its day (`told_line_quoted`), and so does "What happened to X?" answered without most of the latest line about X
(`happened_line_quoted`); a why-question no line of the user's about it gives a reason for gets "I don't know why"
and the line (`unreasoned_why_answered`); "What was my job before …?" answered with the line telling the change gets the one
earlier line saying the thing (`earlier_line_quoted`). A request for ideas answered with nothing of its own asks the
model for five ideas for the request alone, and the first the user's diet or allergy leaves is the answer
(`suggestion_asked_again`, answer_ideas.py). A question about the user gets no
research.search results beside its lines. """

from __future__ import annotations

from panda.errors import LLMReplyError
from panda.home import Home
from panda.llm.roles import VOICE
from panda.llm.schemas import Ideas, Response
from panda.pipeline import answer_changes, answer_checks, answer_dates, answer_ideas, answer_lines, asked_about, evidence, guards
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState
from panda.pipeline.statements import acknowledgement, is_statement
from panda.pipeline.tool_log import memory_found, tool_results_text, web_found

UNKNOWN = "I don't know - you haven't told me that."  # unanswered_abstained's reply
ACKNOWLEDGEMENT = "noted"  # how the prompt's example acknowledges a statement ("Noted - you work night shifts …")


def context_of(state: TurnState, ctx: Home) -> str:
    """The answer's context (evidence.answer_context) from what gather and the memory tools found; earlier turns
    read from their metadata.json."""
    items = list(state.gathered)
    seen = {r.id for r in items}
    for found in memory_found(state):
        if found.id not in seen:
            seen.add(found.id)
            items.append(found)
    said = {r.id: evidence.turn_said(ctx.vault.turn_record(r.doc_path)) for r in items
            if r.kind == "context" and r.doc_path}
    return evidence.answer_context(state.query, items, said, personal=personal(state), now=state.input.timestamp) \
        or "No prior memory matched this query."


def personal(state: TurnState) -> bool:
    """Whether the analysis calls the question personal (its answer comes from the user's memory, not the web)."""
    return state.analysis is not None and state.analysis.intent == "personal"


def about_user(state: TurnState) -> bool:
    """Whether the answer's guards read this question: about the user, someone their lines name (set J: "When did
    Leo start piano lessons?" beside "My son Leo …"), or a thing their lines speak of when no web page was found for it
    (set T: "How much did the motorbike cost?" -> the 40,000 rupees saved for it), read against the answer's context."""
    return evidence.about_the_user(state.query, personal(state)) \
        or asked_about.told_about(state.query, state.answer_context) \
        or (asked_about.their_thing(state.query, state.answer_context) and not web_found(state))


def run(state: TurnState, ctx: Home) -> Step[None]:
    state.answered_by_guard = ""
    acknowledged = acknowledgement(state.query) if guards.active(ctx, "statement_acknowledged", VOICE) else None
    if state.input.assistant is not None and not state.revise_hint:
        state.response = state.input.assistant
        note = "_(logged assistant reply, ingested as is)_"
    elif acknowledged is not None:
        state.response, state.answered_by_guard = acknowledged, "statement_acknowledged"
        note = f"_(the user told something and asked nothing, {guards.mark('statement_acknowledged')}: said back)_"
    elif state.revise_fact and guards.active(ctx, "ignored_fact_restated", VOICE):
        state.response = f"From what you told me: {state.revise_fact}."
        state.revise_fact = ""
        note = (f"_(stated from the remembered fact the question names, {guards.mark('ignored_fact_restated')}: "
                "the model's answer left it out)_")
    else:
        state.answer_context = context_of(state, ctx)
        state.revise_fact = ""  # with the restating guard off, the model rewrites from the hint that names the fact
        reply = yield from ask(state, ctx, phase="synthesize", role=VOICE, prompt="synthesize", schema=Response,
                               variables={"query": state.query,
                                          "context": state.answer_context,
                                          "statement": is_statement(state),
                                          "tool_results": tool_results_text(
                                              state, 150, evidence_only=True, without_memory=True,
                                              without_web=evidence.about_the_user(state.query, personal(state))),
                                          "revise_hint": state.revise_hint})
        state.response = reply.answer.strip()
        mended = []
        if answer_ideas.names_nothing(state.query, state.response, state.answer_context, state.revise_hint) \
                and guards.active(ctx, "suggestion_asked_again", VOICE):
            # the request alone, then, when no idea kept to the user's diet, with it named ("a vegetarian dinner")
            for request in (state.query, answer_ideas.kept_request(state.query, state.answer_context)):
                if request is None:
                    break
                try:
                    reply_ideas = yield from ask(state, ctx, phase="suggest", role=VOICE, prompt="suggest", schema=Ideas,
                                                 variables={"query": request,
                                                            "home": answer_ideas.home_of(state.answer_context)})
                except LLMReplyError:  # the guard's own call failing leaves the model's first answer, not a failed turn
                    break
                if picked := answer_ideas.pick(reply_ideas.ideas, state.query, state.answer_context):
                    state.response = picked
                    mended.append(f"; {guards.mark('suggestion_asked_again')}: a request for ideas answered with none")
                    break
        guarded = about_user(state)
        current = (answer_changes.superseded_unsaid(state.query, state.response)
                   or answer_changes.older_alternative_dropped(state.query, state.response, state.answer_context)
                   or answer_changes.stale_value_said(state.query, state.response, state.answer_context)) \
            if guarded else None
        still = (answer_changes.still_ended(state.query, state.response, state.answer_context)
                 or answer_changes.count_now(state.query, state.response, state.answer_context)
                 or answer_changes.denied_only(state.query, state.response, state.answer_context)
                 or answer_changes.repeated_before_change(state.query, state.response, state.answer_context)) \
            if guarded and not current else None
        if (current or still) and guards.active(ctx, "superseded_value_unsaid", VOICE):
            state.response = current or still or ""
            state.answered_by_guard = "" if current else "superseded_value_unsaid"  # "No - ": the line's, approved
            mended.append(f"; {guards.mark('superseded_value_unsaid')}: the changed value taken out of an answer about now")
        uncopied = answer_dates.uncopied_answer(state.query, state.response, state.answer_context) \
            or answer_lines.in_second_person(state.query, state.response, state.answer_context)
        if uncopied and guards.active(ctx, "copied_line_answered", VOICE):
            state.response = uncopied
            mended.append(f"; {guards.mark('copied_line_answered')}: the answer copied a context line's frame or voice")
        dated = answer_dates.dated_answer(state.response, state.answer_context)
        if dated and guards.active(ctx, "relative_day_dated", VOICE):
            state.response = dated
            mended.append(f"; {guards.mark('relative_day_dated')}: a relative day copied from a dated line")
        undated = answer_dates.undated_answer(state.query, state.response, state.answer_context) if guarded else None
        if undated and guards.active(ctx, "undated_when_answered", VOICE):  # a change's new value only, for now (set
            state.response = answer_changes.told_now(state.query, undated) or undated  # AS, held out: "When do I
            # volunteer at the shelter now?" got the line moving the shifts "from Saturdays to Wednesday mornings")
            mended.append(f"; {guards.mark('undated_when_answered')}: a when-question answered with no time")
        unreasoned = answer_lines.unreasoned_answer(state.query, state.response, state.answer_context) if guarded else None
        if unreasoned and guards.active(ctx, "unreasoned_why_answered", VOICE):
            state.response, state.answered_by_guard = unreasoned, "unreasoned_why_answered"
            mended.append(f"; {guards.mark('unreasoned_why_answered')}: a why-question no line gives a reason for")
        if guarded \
                and guards.active(ctx, "unanswered_abstained", VOICE) \
                and (answer_checks.unanswered(state.query, state.response, state.answer_context)
                     or answer_lines.kind_unsaid(state.query, state.response, state.answer_context)):
            state.response, state.answered_by_guard = UNKNOWN, "unanswered_abstained"
            mended.append(f"; {guards.mark('unanswered_abstained')}: the answer held no name, person, amount or one of "
                          "the kind asked that the lines hold")
        told = answer_checks.told_line(state.query, state.response, state.answer_context) if guarded else None
        if told and guards.active(ctx, "told_line_quoted", VOICE):  # the model's "I don't know", or that guard's
            state.response, state.answered_by_guard = (answer_changes.told_now(state.query, told)  # its relative day
                                                        or answer_dates.dated_answer(told, state.answer_context)  # dated
                                                        or told), ""
            mended.append(f"; {guards.mark('told_line_quoted')}: 'I don't know' beside the line that says it")
        earlier = (answer_lines.earlier_line(state.query, state.response, state.answer_context)
                   or answer_lines.before_named(state.query, state.response, state.answer_context)
                   or answer_lines.before_event(state.query, state.response, state.answer_context)) if guarded else None
        if earlier and guards.active(ctx, "earlier_line_quoted", VOICE):
            state.response, state.answered_by_guard = earlier, ""
            mended.append(f"; {guards.mark('earlier_line_quoted')}: what was before, from the line the change changed")
        happened = answer_lines.happened_line(state.query, state.response, state.answer_context) if guarded else None
        if happened and guards.active(ctx, "happened_line_quoted", VOICE):
            state.response, state.answered_by_guard = happened, ""
            mended.append(f"; {guards.mark('happened_line_quoted')}: what happened, from the latest line about it")
        note = f"_(prompt `{state.prompt_versions['synthesize']}` · model `{ctx.model_for(VOICE)}`{''.join(mended)})_"
    body = yield from fit_section(state, ctx, "5", f"{state.response}\n\n{note}")
    state.doc.write("5", body)
