"""Small-model guards (pipeline/guards.py): on for the embedded profiles (tiny, small, base), off for a model given by
path or name, each switchable by name; where one decides, context.md says so; where none does, the model decides."""

import json

import pytest

from panda.config import ConfigError, Policy
from panda.documents.context_md import ContextDocument
from panda.guard_names import GUARDS
from panda.llm.scripted import ScriptedBackend
from panda.llm.scripted_replies import schema_responder
from panda.pipeline import guards
from tests.conftest import write_jsonl
from tests.pipeline.test_scheduler import LINES, run_file


def _with(ctx, model=None, off=()):
    ctx.settings = ctx.settings.model_copy(update={"model": model})
    ctx.policy = ctx.policy.model_copy(update={"llm": ctx.policy.llm.model_copy(update={
        "guards": ctx.policy.llm.guards.model_copy(update={"disabled": list(off)})})})
    return ctx


@pytest.mark.parametrize(("model", "on"), [(None, True), ("tiny", True), ("small", True), ("base", True),
                                           ("/models/Qwen2.5-7B-Instruct", False), ("gpt-4o-mini", False)])
def test_guards_are_on_for_the_embedded_profiles_only(ctx, model, on):
    _with(ctx, model)
    assert all(guards.active(ctx, name, "MIND") is on for name in GUARDS)


def test_a_guard_can_be_switched_off_by_name_and_a_misspelt_one_is_refused(ctx):
    _with(ctx, None, off=["status_line_revised"])
    assert not guards.active(ctx, "status_line_revised", "MIND") and guards.active(ctx, "stated_fact_approved", "MIND")
    with pytest.raises(ConfigError, match="unknown guard"):
        Policy.from_yaml_text("llm:\n  guards:\n    disabled: [status_line_revsied]\n")


def test_a_role_model_given_by_path_turns_the_guards_off_for_that_role_only(ctx):
    ctx.settings = ctx.settings.model_copy(update={"role_models": {"MIND": "/models/big"}})
    assert not guards.active(ctx, "status_line_revised", "MIND") and guards.active(ctx, "clear_request_proceeds", "REFLEX")


def _turn(user: str, session: str, turn: str, timestamp: str, query: str) -> str:
    return json.dumps({"user_id": user, "session_id": session, "turn_id": turn, "timestamp": timestamp, "query": query})


def _answers(asked: str, answer: str, query_type: str | None = None):
    """A scripted model that answers the message holding `asked` with `answer` (its analysis calling it `query_type`,
    personal, when given) and every other request from the schemas."""
    def respond(request):
        reply = schema_responder(request)
        if asked in request.messages[-1]["content"]:
            if request.phase == "synthesize":
                return {"answer": answer}
            if request.phase == "analyze" and query_type:
                reply.update(query_type=query_type, intent="personal")
        return reply
    return respond


def _last_turn(ctx, tmp_path, lines: list[str], responder) -> ContextDocument:
    """Run `lines` (one user's turns) on a scripted model; the last turn's context.md."""
    run_file(ctx, ScriptedBackend(responder=responder), write_jsonl(tmp_path / "t.jsonl", lines))
    user = json.loads(lines[-1])["user_id"]
    return ContextDocument.parse((ctx.vault.turn_dir(user, len(lines)) / "context.md").read_text())


def _reflect_asked(backend) -> bool:
    return "reflect" in [r.phase for batch in backend.history for r in batch]


def test_with_the_guards_off_the_model_decides_reflect_and_a_clarify_stands(ctx, tmp_path):
    def clarify(request):
        if request.phase == "reflect":
            return {"decision": "CLARIFY", "reason": "no request in the message",
                    "clarification_question": "What would you like me to help with?"}
        return schema_responder(request)

    _with(ctx, "/models/Qwen2.5-7B-Instruct")  # a model given by path: the guards are off
    backend = ScriptedBackend(responder=clarify)
    report, _ = run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES[:1]))
    assert _reflect_asked(backend) and report.outcomes == {"CLARIFY": 1}
    text = (ctx.vault.turn_dir("alice", 1) / "context.md").read_text()
    assert "guard:" not in text  # nobody but the model decided


def test_with_the_guards_on_context_md_names_the_guard_that_decided(ctx, tmp_path):
    def abstains(request):
        if request.phase == "synthesize":
            return {"answer": "I don't know - you haven't told me that."}
        return schema_responder(request)

    backend = ScriptedBackend(responder=abstains)
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES[2:3]))  # a question on an empty memory
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text())
    assert "guard: clear_request_proceeds" in doc.latest("1") and "guard: honest_unknown_approved" in doc.latest("6")
    assert "validate" not in [r.phase for batch in backend.history for r in batch]


def test_a_message_pointing_nowhere_keeps_its_own_words_as_the_resolved_query(ctx, tmp_path):
    """The 0.5B model copied an earlier turn's resolved query into an unrelated message; on the small profiles a
    message with no word pointing back is its own resolved query (guard unreferenced_query_kept); one that points
    back ("her cage") is the model's to resolve, and with the guards off every one is."""
    from panda.pipeline.analyze import points_back

    assert points_back("How big should her cage be?") and points_back("Is it safe?")
    assert not points_back("I'm vegetarian, so no meat or fish for me.") and not points_back("What is my dog's name?")

    def copies(request):
        reply = schema_responder(request)
        if request.phase == "analyze":
            reply["resolved_query"] = "What is the name of the user's hospital?"
        return reply

    lines = ['{"user_id": "dan", "timestamp": "2026-05-02T21:02:00Z", "query": "I am vegetarian, no meat for me."}',
             '{"user_id": "dan", "timestamp": "2026-05-02T21:04:00Z", "query": "Is it easy to cook?"}']
    run_file(ctx, ScriptedBackend(responder=copies), write_jsonl(tmp_path / "t.jsonl", lines))
    first = ContextDocument.parse((ctx.vault.turn_dir("dan", 1) / "context.md").read_text()).latest("0")
    second = ContextDocument.parse((ctx.vault.turn_dir("dan", 2) / "context.md").read_text()).latest("0")
    assert "**Resolved query:** I am vegetarian, no meat for me. (guard: unreferenced_query_kept" in first
    assert "**Resolved query:** What is the name of the user's hospital?\n" in second  # "it": the model's

    _with(ctx, "/models/Qwen2.5-7B-Instruct")  # a model given by path: the guards are off
    run_file(ctx, ScriptedBackend(responder=copies), write_jsonl(tmp_path / "u.jsonl", [lines[0].replace("dan", "eve")]))
    third = ContextDocument.parse((ctx.vault.turn_dir("eve", 1) / "context.md").read_text()).latest("0")
    assert "**Resolved query:** What is the name of the user's hospital?\n" in third and "guard:" not in third


def test_an_answer_without_the_person_asked_for_becomes_i_dont_know_and_is_approved(ctx, tmp_path):
    """Set D: "Who is my guitar teacher?" was answered from the line about learning the guitar (APPROVE). On the small
    profiles such an answer becomes "I don't know" (unanswered_abstained) and validate approves it without the model;
    with the guard off the model's answer and the model's verdict stand."""
    lines = [LINES[0], '{"user_id": "alice", "session_id": "s2", "turn_id": "a9", "timestamp": '
                       '"2026-03-09T09:00:00Z", "query": "Who is my vet?"}']

    copies_a_line = _answers("Who is my vet?", "You adopted a hamster.")
    backend = ScriptedBackend(responder=copies_a_line)
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", lines))
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 2) / "context.md").read_text())
    assert doc.latest("5").startswith("I don't know - you haven't told me that.")
    assert "guard: unanswered_abstained" in doc.latest("5") and "guard: unanswered_abstained" in doc.latest("6")
    assert "**Decision:** APPROVE" in doc.latest("6")

    _with(ctx, None, off=["unanswered_abstained"])
    backend = ScriptedBackend(responder=copies_a_line)
    run_file(ctx, backend, write_jsonl(tmp_path / "u.jsonl", [lines[1].replace('"a9"', '"a10"')]))
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 3) / "context.md").read_text())
    assert doc.latest("5").startswith("You adopted a hamster.") and "unanswered_abstained" not in doc.latest("6")


def test_a_remembered_fact_the_question_names_is_stated_rather_than_i_dont_know(ctx, tmp_path):
    """Set D: "What's my partner's name?" was first answered "They are planning their wedding for next June."; the
    fact partner: Theo is stated (ignored_fact_restated), not replaced by "I don't know"."""
    lines = [_turn("quinn", "q1", "q1", "2026-07-07T12:00:00Z",
                   "My partner Theo and I are planning our wedding for next June."),
             _turn("quinn", "q3", "q2", "2026-08-20T17:00:00Z", "What's my partner's name?")]

    recall = _answers("partner's name", "They are planning their wedding for next June.", query_type="recall")
    doc = _last_turn(ctx, tmp_path, lines, recall)
    assert "Theo" in doc.latest("5") and "guard: ignored_fact_restated" in doc.latest("5")
    text = (ctx.vault.turn_dir("quinn", 2) / "context.md").read_text()
    assert "guard: unanswered_abstained" in text  # the first attempt said "I don't know"; the fact won


def test_a_when_question_answered_with_no_time_gets_the_day_of_the_matching_line(ctx, tmp_path):
    """Set E: "When did I start training?" was answered from the other line ("You pulled a hamstring, …"), with no
    time at all. On the small profiles the answer becomes the day of the user's line that shares most words with the
    question (undated_when_answered); with the guard off the model's answer stands."""
    lines = [_turn("victor", "v1", "v1", "2026-05-05T07:00:00Z",
                   "I've started training for the Berlin marathon in September."),
             _turn("victor", "v2", "v2", "2026-06-02T19:00:00Z",
                   "I pulled a hamstring, so I've dropped down to the half marathon."),
             _turn("victor", "v3", "v3", "2026-06-30T08:00:00Z", "When did I start training?")]

    undated = _answers("When did I start training?", "You pulled a hamstring, so you dropped down to the half marathon.")
    run_file(ctx, ScriptedBackend(responder=undated), write_jsonl(tmp_path / "t.jsonl", lines))
    answer = ContextDocument.parse((ctx.vault.turn_dir("victor", 3) / "context.md").read_text()).latest("5")
    assert answer.startswith("You told me on 5 May 2026: “I've started training for the Berlin marathon in September.”")
    assert "guard: undated_when_answered" in answer

    _with(ctx, None, off=["undated_when_answered"])
    run_file(ctx, ScriptedBackend(responder=undated),
             write_jsonl(tmp_path / "u.jsonl", [lines[2].replace('"v3"', '"v4"')]))
    answer = ContextDocument.parse((ctx.vault.turn_dir("victor", 4) / "context.md").read_text()).latest("5")
    assert answer.startswith("You pulled a hamstring") and "undated_when_answered" not in answer


def test_a_move_read_as_a_fact_is_stated_for_a_question_about_now_the_model_called_plain(ctx, tmp_path):
    """Set E: "We finally moved from Leeds to York" was no fact, and "Which city do I live in now?" (called a plain
    question, not recall, by the 0.5B model) was answered "You live in Leeds now." The move is a residence fact now,
    and a question asking what an attribute is now names it whatever the analysis calls it. Since set V the answer's
    old value is mended first, at synthesis, from the line telling the move (`superseded_value_unsaid`); the fact is
    stated when no line tells it (the next test's budget)."""
    lines = [_turn("uma", "u1", "u1", "2026-02-02T17:00:00Z", "I teach chemistry at a secondary school in Leeds."),
             _turn("uma", "u2", "u2", "2026-03-10T18:00:00Z",
                   "We finally moved from Leeds to York, and I've started at a school there."),
             _turn("uma", "u2", "u3", "2026-03-10T18:02:00Z", "Which city do I live in now?")]

    doc = _last_turn(ctx, tmp_path, lines, _answers("Which city", "You live in Leeds now.", query_type="question"))
    answer = doc.latest("5")
    assert answer.startswith("You told me on 10 March 2026 that you finally moved to York")
    assert "Leeds" not in answer and "guard: superseded_value_unsaid" in answer


def test_a_fact_about_the_owner_does_not_answer_for_the_thing_owned(ctx, tmp_path):
    """Set F: "What is my daughter's teacher called?" became "I don't know" (unanswered_abstained), and then the fact
    daughter: Ines was stated in its place; a fact must answer the question to win over the abstention."""
    lines = [_turn("bea", "b1", "b1", "2026-01-08T10:02:00Z", "My daughter Ines just started primary school."),
             _turn("bea", "b3", "b2", "2026-03-12T09:04:00Z", "What is my daughter's teacher called?")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("teacher called", "Your daughter Ines just started primary school.",
                                                   query_type="recall"))
    assert doc.latest("5").startswith("I don't know - you haven't told me that.")
    assert "**Decision:** APPROVE" in doc.latest("6") and "Ines" not in doc.latest("5")


def test_a_question_said_back_twice_beside_the_fact_it_names_gets_the_fact(ctx, tmp_path):
    """`make demo` at stop 48: "Remind me what budget I gave you for a laptop." was answered "Noted - … your budget is
    under $1000." three times, each sent back (acknowledged_question_revised), and the turn ended REVISE. Sent back
    once and said back again, the remembered fact the question names is stated (ignored_fact_restated)."""
    lines = [_turn("bob", "b1", "b1", "2026-03-03T10:00:00Z", "My budget is under $1000 for a gaming laptop."),
             _turn("bob", "b2", "b2", "2026-03-10T10:00:00Z", "Remind me what budget I gave you for a laptop.")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("what budget", "Noted - your budget is under $1000.",
                                                   query_type="recall"))
    assert doc.latest("5").count("budget: under $1000") == 1 and "guard: ignored_fact_restated" in doc.latest("5")
    assert "**Decision:** APPROVE" in doc.latest("6")
    text = (ctx.vault.turn_dir("bob", 2) / "context.md").read_text()
    assert text.count("guard: acknowledged_question_revised") == 1 and "guard: ignored_fact_revised" in text


def test_i_dont_know_beside_the_job_the_user_told_states_it(ctx, tmp_path):
    """Set F: "What do I do for a living?" was answered "I don't know" three times, each sent back with the job in the
    hint (unknown_beside_facts_revised), and the turn ended REVISE; the job is now stated: since set T the user's line
    saying it ("I work as a …") is quoted at synthesis (told_line_quoted), before the fact would be restated."""
    lines = [_turn("abe", "a1", "a1", "2026-09-09T12:00:00Z", "I work as a software engineer at a startup called Lumen."),
             _turn("abe", "a3", "a2", "2026-11-02T13:02:00Z", "What do I do for a living?")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("for a living", "I don't know - you haven't told me that.",
                                                   query_type="question"))
    assert "“I work as a software engineer at a startup called Lumen.”" in doc.latest("5")
    assert "guard: told_line_quoted" in doc.latest("5") and "**Decision:** APPROVE" in doc.latest("6")


def test_a_statement_that_asks_nothing_is_said_back_without_a_model_call(ctx, tmp_path):
    """Set G: the 0.5B model answered "This term they've asked me to teach physics rather than chemistry." with
    "Sven is a nurse at a secondary school in Bristol.", and its validator FAILed right acknowledgements with
    "issues: none" (8 of 13 FAILed turns were statements). On the small profiles a message telling something of the
    user and asking nothing is said back (statement_acknowledged) and approved; with the guard off the model answers."""
    def garbles(request):
        if request.phase == "synthesize":
            return {"answer": "Sven is a nurse at a secondary school in Bristol."}
        return schema_responder(request)

    told = _turn("ruth", "r2", "r1", "2026-03-17T18:00:00Z",
                 "This term they've asked me to teach physics rather than chemistry.")
    backend = ScriptedBackend(responder=garbles)
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", [told]))
    doc = ContextDocument.parse((ctx.vault.turn_dir("ruth", 1) / "context.md").read_text())
    assert doc.latest("5").startswith("Noted - This term they've asked you to teach physics rather than chemistry.")
    assert "guard: statement_acknowledged" in doc.latest("5") and "**Decision:** APPROVE" in doc.latest("6")
    assert not {"synthesize", "validate"} & {r.phase for batch in backend.history for r in batch}

    # a message that asks, requests or speaks to the assistant is the model's to answer
    for n, query in enumerate(["I need a recipe for tonight.", "Suggest a dinner I could cook.",
                               "I told you about my sister last week."], 2):
        backend = ScriptedBackend(responder=garbles)
        run_file(ctx, backend, write_jsonl(tmp_path / f"{n}.jsonl", [_turn("ruth", "r3", f"r{n}", "2026-03-18T18:00:00Z",
                                                                           query)]))
        assert "synthesize" in {r.phase for batch in backend.history for r in batch}, query

    _with(ctx, None, off=["statement_acknowledged"])
    run_file(ctx, ScriptedBackend(responder=garbles), write_jsonl(tmp_path / "off.jsonl", [told.replace('"r1"', '"r9"')]))
    doc = ContextDocument.parse((ctx.vault.turn_dir("ruth", 5) / "context.md").read_text())
    assert doc.latest("5").startswith("Sven is a nurse") and "statement_acknowledged" not in doc.latest("5")


def test_a_suggestion_naming_what_the_users_allergy_rules_out_is_sent_back(ctx, tmp_path):
    """Set G: "Suggest something I could cook for Anika's birthday dinner." beside "allergy: shellfish" was answered
    "Cook the shellfish sandwich." and APPROVEd. A suggestion naming what the allergy or diet rules out (its words or
    a food of that kind) is REVISEd (constraint_ignored_revised); one that keeps clear of it is not."""
    lines = [_turn("priya", "p1", "p1", "2026-03-09T12:00:00Z", "I'm allergic to shellfish."),
             _turn("priya", "p2", "p2", "2026-05-21T20:02:00Z", "Suggest something I could cook for a birthday dinner.")]
    answers = iter(["Cook the shellfish sandwich.", "A garlic prawn linguine.", "A mushroom risotto, shellfish-free."])

    def careless(request):
        if request.phase == "synthesize" and "birthday dinner" in request.messages[-1]["content"]:
            return {"answer": next(answers)}
        return schema_responder(request)

    run_file(ctx, ScriptedBackend(responder=careless), write_jsonl(tmp_path / "t.jsonl", lines))
    text = (ctx.vault.turn_dir("priya", 2) / "context.md").read_text()
    assert text.count("guard: constraint_ignored_revised") == 2 and "allergy: shellfish" in text
    assert ContextDocument.parse(text).latest("5").startswith("A mushroom risotto, shellfish-free.")


def test_a_dish_named_for_the_users_diet_keeps_it_and_the_model_is_not_told_the_guards_name(ctx, tmp_path):
    """Set H: beside "diet: vegan", "Bake a vegan pizza." was sent back as ignoring the diet (its own word, "vegan",
    counted as a food it rules out), and the model, told to fix "… (guard: constraint_ignored_revised, no model
    call)", answered "Guard: constraint_ignored_revised". A diet's name keeps it; the model is told the issue alone."""
    for n, (first, kept) in enumerate([("Bake a vegan pizza.", True), ("A cheesecake with whipped cream.", False)]):
        lines = [_turn("mina", f"m{n}a", f"m{n}a", "2026-05-05T12:00:00Z", "I'm vegan, so no meat, fish, eggs or dairy."),
                 _turn("mina", f"m{n}b", f"m{n}b", "2026-07-30T16:00:00Z", "Suggest a dessert I could bake for the weekend.")]
        answers = iter([first, "A dark chocolate and raspberry tart with coconut oil pastry."])

        def careless(request, answers=answers):
            if request.phase == "synthesize" and "dessert" in request.messages[-1]["content"]:
                return {"answer": next(answers)}
            return schema_responder(request)

        backend = ScriptedBackend(responder=careless)
        run_file(ctx, backend, write_jsonl(tmp_path / f"{n}.jsonl", lines))
        text = (ctx.vault.turn_dir("mina", 2 + 2 * n) / "context.md").read_text()
        prompts = [r.messages[-1]["content"] for batch in backend.history for r in batch if r.phase == "synthesize"]
        assert ("constraint_ignored_revised" in text) is not kept, first
        assert not any("guard" in prompt.lower() for prompt in prompts)
        if not kept:
            assert "Fix this in your answer: the suggestion names what the user must keep clear of" in prompts[-1]
            assert ContextDocument.parse(text).latest("5").startswith("A dark chocolate and raspberry tart")


def test_a_question_about_the_user_routed_to_no_retrieval_searches_their_memory(ctx, tmp_path):
    """Set G: the 0.5B analysis routed "Which city do I live in?" to no retrieval; gather took only the session's last
    messages and the answer was "I don't know". On the small profiles a question about the user searches their memory
    (question_retrieves); a greeting routed to none stays none."""
    def no_retrieval(request):
        reply = schema_responder(request)
        if request.phase == "analyze":
            reply.update(needs_retrieval="none")
        return reply

    lines = [_turn("priya", "p1", "p1", "2026-03-09T12:02:00Z", "I live in a flat in Manchester with my flatmate Joe."),
             _turn("priya", "p3", "p2", "2026-06-30T12:02:00Z", "Which city do I live in?")]
    doc = _last_turn(ctx, tmp_path, lines, no_retrieval)
    assert "cross_thread (widened from none, guard: question_retrieves)" in doc.latest("2")
    assert "Manchester" in doc.latest("5")
    run_file(ctx, ScriptedBackend(responder=no_retrieval),
             write_jsonl(tmp_path / "hi.jsonl", [_turn("priya", "p4", "p3", "2026-07-01T12:00:00Z", "Hi there!")]))
    hello = ContextDocument.parse((ctx.vault.turn_dir("priya", 3) / "context.md").read_text()).latest("2")
    assert "**Retrieval route:** none" in hello
    # `make demo` at stop 48: a question asking for something, routed to none, answered "There's no recipe …"
    run_file(ctx, ScriptedBackend(responder=no_retrieval), write_jsonl(tmp_path / "cake.jsonl", [
        _turn("priya", "p5", "p4", "2026-07-02T12:00:00Z", "Pineapple upside-down cake: what is the best recipe?"),
        _turn("priya", "p5", "p5", "2026-07-02T12:02:00Z", "How are you?")]))
    cake, small_talk = (ContextDocument.parse((ctx.vault.turn_dir("priya", n) / "context.md").read_text()).latest("2")
                        for n in (4, 5))
    assert "widened from none, guard: question_retrieves" in cake and "**Retrieval route:** none" in small_talk


def test_a_short_question_about_the_user_proceeds_and_a_persons_name_does_not_answer_what_they_do(ctx, tmp_path):
    """Set G: "What am I allergic to?" (one meaningful word) was gated CLARIFY by the 0.5B model ("check a pet's
    allergy"): a question about the user needs one meaningful word to be clear. And "What does my partner do?" answered
    "Your partner is a nurse." was replaced by "From what you told me: partner: Sven.": a fact naming one of the user's
    people answers only who or a name."""
    from panda.pipeline.reflect import is_clear

    assert is_clear("What am I allergic to?") and not is_clear("What about it?") and not is_clear("??")
    assert is_clear("I'm pescatarian.") and not is_clear("I'm here.")  # set L: one word the user tells of themselves
    assert is_clear("When is the concert?") and not is_clear("Why?")  # set L: a question of one meaningful word
    lines = [_turn("ruth", "r1", "r1", "2026-02-03T17:02:00Z", "My partner Sven is a nurse."),
             _turn("ruth", "r3", "r2", "2026-04-20T19:00:00Z", "What does my partner do?")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("partner do", "Your partner is a nurse.", query_type="recall"))
    assert doc.latest("5").startswith("Your partner is a nurse.") and "partner: Sven" not in doc.latest("5")


def test_a_suggestion_gets_the_users_diet_whatever_the_search_ranked(ctx, tmp_path):
    """Set I: "Suggest a breakfast for me." for a lactose-intolerant user was answered "Greek yogurt with granola …" and
    APPROVEd: the searches had ranked "diet: lactose intolerant" out, so neither the model nor the validator saw it.
    A message asking for a suggestion gets the user's current diets and allergies whatever the route (here none)."""
    lines = [_turn("sami", "s1", "s1", "2026-02-02T10:00:00Z", "I'm lactose intolerant."),
             _turn("sami", "s2", "s2", "2026-06-17T13:04:00Z", "Suggest a breakfast for me.")]
    answers = iter(["Greek yogurt with granola and berries.", "Porridge made with water, banana and berries."])

    def careless(request):
        reply = schema_responder(request)
        if "breakfast" in request.messages[-1]["content"]:
            if request.phase == "analyze":
                reply.update(needs_retrieval="none", query_type="task")
            if request.phase == "synthesize":
                return {"answer": next(answers)}
        return reply

    run_file(ctx, ScriptedBackend(responder=careless), write_jsonl(tmp_path / "t.jsonl", lines))
    text = (ctx.vault.turn_dir("sami", 2) / "context.md").read_text()
    doc = ContextDocument.parse(text)
    assert "diet: lactose intolerant" in doc.latest("2") and text.count("guard: constraint_ignored_revised") == 1
    assert doc.latest("5").startswith("Porridge made with water")


def test_an_i_dont_know_beside_the_users_own_line_becomes_that_line(ctx, tmp_path):
    """Set J on the 1.5B answers: "What's my bakery called?" -> "No information given about the bakery's name." beside
    "I run a bakery in Bristol called Crumb and Co." (`told_line_quoted`), and "When did Leo start piano lessons?" ->
    "It is currently not known …" beside "My son Leo started piano lessons this month.": a question about someone
    the user's lines name gets the when-guard too. With the guards off, the model's answers stand."""
    def abstains(request):
        content = request.messages[-1]["content"]
        if request.phase == "synthesize" and "bakery called?" in content:
            return {"answer": "No information given about the bakery's name."}
        if request.phase == "synthesize" and "piano lessons?" in content:
            return {"answer": "It is currently not known when Leo started piano lessons."}
        return schema_responder(request)

    for user, model in (("hugo", None), ("hana", "/models/Qwen2.5-7B-Instruct")):
        _with(ctx, model)
        lines = [_turn(user, "h1", "h1", "2026-01-08T09:00:00Z", "I run a bakery in Bristol called Crumb and Co."),
                 _turn(user, "h1", "h2", "2025-09-15T09:02:00Z", "My son Leo started piano lessons this month."),
                 _turn(user, "h2", "h3", "2026-04-02T10:00:00Z", "What's my bakery called?"),
                 _turn(user, "h2", "h4", "2026-04-02T10:02:00Z", "When did Leo start piano lessons?")]
        run_file(ctx, ScriptedBackend(responder=abstains), write_jsonl(tmp_path / f"{user}.jsonl", lines))
        bakery, piano = (ContextDocument.parse((ctx.vault.turn_dir(user, n) / "context.md").read_text()).latest("5")
                         for n in (3, 4))
        if model is None:
            assert bakery.startswith("You told me on 8 January 2026: “I run a bakery in Bristol called Crumb and Co.”")
            assert "guard: told_line_quoted" in bakery
            assert "September 2025" in piano and "guard: undated_when_answered" in piano
        else:
            assert bakery.startswith("No information given") and piano.startswith("It is currently not known")


def test_an_answer_about_now_says_the_new_value_only(ctx, tmp_path):
    """Set L on the 1.5B answers: "When is my trip to Lisbon now?" was answered with the user's line, "The Lisbon trip
    has been pushed back from April to September." (`superseded_value_unsaid` keeps "to September"). With the guards
    off (a model given by path), the model's answer stands."""
    def copies(request):
        if request.phase == "synthesize" and "Lisbon now?" in request.messages[-1]["content"]:
            return {"answer": "The Lisbon trip has been pushed back from April to September."}
        return schema_responder(request)

    for user, model in (("hana", None), ("hugo", "/models/Qwen2.5-7B-Instruct")):
        _with(ctx, model)
        lines = [_turn(user, "h1", "h1", "2026-02-08T20:00:00Z", "I'm learning Portuguese before a trip to Lisbon."),
                 _turn(user, "h2", "h2", "2026-03-25T19:00:00Z", "The Lisbon trip has been pushed back from April to "
                       "September."),
                 _turn(user, "h3", "h3", "2026-05-05T18:00:00Z", "When is my trip to Lisbon now?")]
        run_file(ctx, ScriptedBackend(responder=copies), write_jsonl(tmp_path / f"{user}.jsonl", lines))
        answer = ContextDocument.parse((ctx.vault.turn_dir(user, 3) / "context.md").read_text()).latest("5")
        if model is None:
            assert answer.startswith("The Lisbon trip has been pushed back to September.")
            assert "guard: superseded_value_unsaid" in answer
        else:
            assert answer.startswith("The Lisbon trip has been pushed back from April to September.")


def test_an_answer_saying_the_users_own_line_is_approved_without_the_validator(ctx, tmp_path):
    """Set L: the 0.5B validator REVISEd the 1.5B model's "They are afraid of thunderstorms." beside "Pepper is scared of
    thunderstorms.", and the next answer was "I don't know". With the guard off, the validator's REVISE stands."""
    def revises(request):
        if request.phase == "validate":
            return {"decision": "REVISE", "quality": 0.3, "issues": "answer is about pepper", "goals": []}
        return _answers("afraid of?", "They are afraid of thunderstorms.")(request)

    lines = [_turn("sofia", "s1", "s1", "2026-03-10T17:00:00Z", "Pepper is scared of thunderstorms."),
             _turn("sofia", "s2", "s2", "2026-06-01T10:02:00Z", "What is Pepper afraid of?")]
    doc = _last_turn(ctx, tmp_path, lines, revises)
    assert doc.latest("5").startswith("They are afraid of thunderstorms.")
    assert "guard: stated_line_approved" in doc.latest("6") and "APPROVE" in doc.latest("6")
    _with(ctx, None, off=["stated_line_approved"])
    lines = [line.replace("sofia", "sam") for line in lines]
    doc = _last_turn(ctx, tmp_path, lines, revises)
    assert "stated_line_approved" not in doc.latest("6") and "REVISE" in doc.latest("6")



def test_an_answer_saying_again_a_line_the_question_is_not_about_is_sent_back_with_the_line_it_is(ctx):
    """Set Q: "Where are we going in July?" was answered "I teach piano from home in Osaka, mostly to children." beside
    the line about July, and the 0.5B validator APPROVEd it. The guard sends it back once with that line in the hint;
    with the guard off the validator decides; once sent back and answered from another line again, the line is stated."""
    from datetime import UTC, datetime
    from pathlib import Path

    from panda.pipeline.guards import unmarked
    from panda.pipeline.state import TurnState
    from panda.pipeline.turn_input import TurnInput
    from panda.pipeline.validate import guard_verdict

    state = TurnState(input=TurnInput("keiko", datetime(2026, 6, 9, tzinfo=UTC), "Where are we going in July?"),
                      turn_number=3, turn_path=Path("/tmp/x"))
    state.answer_context = ("- On 28 April 2026 the user said: “We cancelled Hokkaido and booked a week in Okinawa "
                            "instead, from 20 to 27 July.”\n- On 3 March 2026 the user said: “I teach piano from home in "
                            "Osaka, mostly to children.”")
    state.response = "I teach piano from home in Osaka, mostly to children."
    name, verdict = guard_verdict(state, _with(ctx))
    assert name == "unrelated_line_revised" and verdict.decision == "REVISE"
    assert "“We cancelled Hokkaido and booked a week in Okinawa instead, from 20 to 27 July.”" in verdict.issues
    state.response = "You're going to Okinawa, from 20 to 27 July."
    assert guard_verdict(state, ctx) is None  # an answer about July: the model's to judge
    state.response, state.revise_hint = "I teach piano from home in Osaka, mostly to children.", unmarked(verdict.issues)
    # sent back once already and answered from that line again: the line is stated by rule (set AJ, held out: the 0.5B
    # model answered "What did the bakery win a prize for?" from the night-shift line twice, and the validator approved)
    name, again = guard_verdict(state, _with(ctx))
    assert again.decision == "REVISE" and state.revise_fact == (
        "you cancelled Hokkaido and booked a week in Okinawa instead, from 20 to 27 July")
    state.response, state.revise_fact = "Where are we going in July?", ""  # or with the question itself
    assert guard_verdict(state, _with(ctx))[1].decision == "REVISE" and state.revise_fact.startswith("you cancelled")
    state.response = "You're going to Okinawa, from 20 to 27 July."
    assert guard_verdict(state, ctx) is None  # an answer about July, after the hint: the model's to judge
    state.revise_hint = ""
    assert guard_verdict(state, _with(ctx, None, off=["unrelated_line_revised"])) is None


def test_a_question_about_a_thing_the_user_spoke_of_is_guarded_unless_research_found_pages():
    """Set T: "How much did the motorbike cost?" names no one and says neither "I" nor "my", so no guard read the
    answer "40,000 rupees" (the savings). A thing the user's lines speak of makes it theirs, unless research.search
    found pages this attempt (the answer may rest on them)."""
    from types import SimpleNamespace

    from panda.pipeline.synthesize import about_user

    lines = "- On 20 March 2026 the user said: “I bought the motorbike, a Royal Enfield Classic 350, on 12 March.”"

    def state(tool_log: list[dict]) -> SimpleNamespace:
        return SimpleNamespace(query="How much did the motorbike cost?", analysis=None, answer_context=lines,
                               tool_log=tool_log, doc=SimpleNamespace(attempt=1))

    assert about_user(state([]))
    assert not about_user(state([{"tool": "research.search", "attempt": 1, "results": [{"id": "page"}]}]))
    assert about_user(state([{"tool": "research.search", "attempt": 1, "results": []}]))


def test_a_fact_answering_what_the_users_thing_is_wins_over_the_guards_i_dont_know(ctx):
    """Set T, re-run at stop 55: "What is my job title now?" -> "It is not possible to determine …", made "I don't know"
    (unanswered_abstained), beside the shown fact "job: team leader on 27 March". The fact was read as a context line
    without its "- ", so it held no word a line says, and the "I don't know" was APPROVEd."""
    from datetime import UTC, datetime
    from pathlib import Path

    from panda.memory.search import SearchResult
    from panda.pipeline.state import TurnState
    from panda.pipeline.turn_input import TurnInput
    from panda.pipeline.validate import guard_verdict

    state = TurnState(input=TurnInput("olu", datetime(2026, 6, 15, tzinfo=UTC), "What is my job title now?"),
                      turn_number=6, turn_path=Path("/tmp/x"))
    state.gathered = [SearchResult(id="f1", kind="fact", title="job: team leader on 27 March", primary_topic="general",
                                   doc_path="users/olu/memory.md", score=0.5, snippet="", quality=0.8, scope="user",
                                   created_at=datetime(2026, 4, 2, tzinfo=UTC))]
    state.answer_context = "- job: team leader on 27 March (told 2 April 2026)"
    state.response, state.answered_by_guard = "I don't know - you haven't told me that.", "unanswered_abstained"
    name, verdict = guard_verdict(state, _with(ctx))
    assert name == "ignored_fact_revised" and verdict.decision == "REVISE"
    assert state.revise_fact == "job: team leader on 27 March"


@pytest.mark.parametrize(("said", "asked", "answer", "mended"), [
    # set AF, held out: the guard's "No - …" was then FAILed by the 0.5B validator
    ((("2026-01-14", "I keep a small fishing boat in the harbour."),
      ("2026-03-25", "I sold the boat in March, I wasn't using it enough.")),
     "Do I still have a boat?", "You still have a boat.",
     "No - you told me on 25 March 2026 that you sold the boat in March, you weren't"),
    # set AO, held out: the loss had replaced the count in the context
    ((("2026-02-03", "I have three cats."), ("2026-05-05", "Sadly one of our cats, Tunde, died in April.")),
     "How many cats do I have now?", "No cats now.",
     "Two - you told me on 5 May 2026 that sadly one of your cats, Tunde, died in April."),
])
def test_an_answer_about_now_the_latest_line_changes_is_mended_and_approved(ctx, tmp_path, said, asked, answer, mended):
    """Set AF, held out: "Do I still have a boat?" -> "You still have a boat." beside "I sold the boat in March …"; set
    AO: "How many cats do I have now?" -> "No cats now." beside "I have three cats." and, later, "Sadly one of our cats,
    Tunde, died in April.". On the small profiles the line's answer is said and approved by rule, though the validator
    FAILs every answer (as the 0.5B one FAILed the boat's)."""
    lines = [_turn("goran", f"g{k}", f"g{k}", f"{day}T20:00:00Z", text) for k, (day, text) in enumerate(said, 1)]
    lines.append(_turn("goran", "g9", "g9", "2026-08-04T20:00:00Z", asked))
    answers = _answers(asked, answer, "recall")

    def fails(request):
        reply = answers(request)
        return {**reply, "decision": "FAIL"} if request.phase == "validate" else reply

    doc = _last_turn(ctx, tmp_path, lines, fails)
    assert doc.latest("5").startswith(mended)
    assert "guard: superseded_value_unsaid" in doc.latest("5") and "**Decision:** APPROVE" in doc.latest("6")


def test_a_request_for_ideas_answered_with_the_users_line_is_asked_again_for_ideas_and_the_rules_pick_one(ctx, tmp_path):
    """Sets AN and AO, held out: "Can you suggest a sandwich filling?" beside "I don't eat pork." -> "You don't eat
    pork." (and "No gluten for me.", "You can't eat peanuts - I'm allergic." for others). The model is asked for three
    ideas for the request alone, and the first that names nothing the user avoids is the answer; with the guard off
    the first answer stands."""
    lines = [_turn("olu", "o1", "o1", "2026-02-03T20:00:00Z", "I don't eat pork."),
             _turn("olu", "o2", "o2", "2026-08-04T20:00:00Z", "Can you suggest a sandwich filling?")]
    answers = _answers("Can you suggest a sandwich filling?", "You don't eat pork.")
    asked_again = []

    def suggests(request):
        if request.phase == "suggest":
            asked_again.append(request.messages[-1]["content"])
            return {"ideas": ["Ham and mustard", "Chicken and avocado", "Egg mayonnaise"]}
        return answers(request)

    doc = _last_turn(ctx, tmp_path, lines, suggests)
    assert doc.latest("5").startswith("Try chicken and avocado.")  # the ham is pork
    assert "guard: suggestion_asked_again" in doc.latest("5")
    assert asked_again == ["Request: Can you suggest a sandwich filling?"]  # the request alone: nothing to echo
    asked_again.clear()
    (tmp_path / "off").mkdir()
    lines = [line.replace('"olu"', '"ada"') for line in lines]
    doc = _last_turn(_with(ctx, off=["suggestion_asked_again"]), tmp_path / "off", lines, suggests)
    assert doc.latest("5").startswith("You don't eat pork.") and not asked_again


def test_a_request_for_ideas_asked_again_whose_reply_never_parses_keeps_the_first_answer(ctx, tmp_path):
    """The guard's own model call failing (no parseable ideas after the retry) leaves the model's first answer; the
    turn does not end FAIL for it."""
    lines = [_turn("olu", "o1", "o1", "2026-02-03T20:00:00Z", "I don't eat pork."),
             _turn("olu", "o2", "o2", "2026-08-04T20:00:00Z", "Can you suggest a sandwich filling?")]
    answers = _answers("Can you suggest a sandwich filling?", "You don't eat pork.")

    def broken(request):
        return "not json at all" if request.phase == "suggest" else answers(request)

    doc = _last_turn(ctx, tmp_path, lines, broken)
    assert doc.latest("5").startswith("You don't eat pork.") and "suggestion_asked_again" not in doc.latest("5")



def test_a_when_question_about_now_answered_with_no_time_gets_the_moved_days_new_value_only(ctx, tmp_path):
    """Set AS, held out: "When do I volunteer at the shelter now?" -> "You volunteer at the shelter now." got the line
    quoted whole, "… from Saturdays to Wednesday mornings.", the day given up said with the new one."""
    lines = [_turn("tovah", "t1", "t1", "2026-01-26T20:00:00Z", "I volunteer at an animal shelter on Saturdays."),
             _turn("tovah", "t2", "t2", "2026-04-27T20:00:00Z",
                   "I've moved my shelter shifts from Saturdays to Wednesday mornings."),
             _turn("tovah", "t3", "t3", "2026-07-27T20:00:00Z", "When do I volunteer at the shelter now?")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("When do I volunteer at the shelter now?",
                                                    "You volunteer at the shelter now."))
    answer = doc.latest("5")
    assert answer.startswith("You told me on 27 April 2026 that you've moved your shelter shifts to Wednesday mornings.")
    assert "Saturdays" not in answer.split("\n")[0] and "guard: undated_when_answered" in answer


def test_ideas_that_all_break_the_users_diet_are_asked_for_again_with_the_diet_named(ctx, tmp_path):
    """Set AS, held out: "Can you suggest a dinner for tonight?" for a vegetarian -> "You can eat a vegetarian meal
    tonight."; asked for ideas, the model named salmon and chicken, none kept, and the first answer stood. It is asked
    once more with the diet named in the request, and the first idea that keeps it is the answer."""
    lines = [_turn("aurelia", "a1", "a1", "2026-01-12T20:00:00Z", "I'm vegetarian."),
             _turn("aurelia", "a2", "a2", "2026-07-13T20:00:00Z", "Can you suggest a dinner for tonight?")]
    answers = _answers("Can you suggest a dinner for tonight?", "You can eat a vegetarian meal tonight.")
    asked = []

    def suggests(request):
        if request.phase == "suggest":
            asked.append(request.messages[-1]["content"])
            return {"ideas": ["Steamed salmon with vegetables", "Grilled chicken", "Beef stew"] if len(asked) == 1
                    else ["Chicken curry", "Mushroom risotto", "Spinach lasagne"]}
        return answers(request)

    doc = _last_turn(ctx, tmp_path, lines, suggests)
    assert asked == ["Request: Can you suggest a dinner for tonight?",
                     "Request: Can you suggest a vegetarian dinner for tonight?"]
    assert doc.latest("5").startswith("Try mushroom risotto.") and "guard: suggestion_asked_again" in doc.latest("5")


def test_an_i_dont_know_beside_a_birth_on_a_weekday_gets_the_line_with_its_date(ctx, tmp_path):
    """Set AT, held out: "When was Maja born?" -> "I don't know" beside "We had a baby girl, Maja, on Friday!" said on
    Tuesday 12 May 2026: the line is quoted, its Friday dated."""
    lines = [_turn("bertil", "b1", "b1", "2026-05-12T20:00:00Z", "We had a baby girl, Maja, on Friday!"),
             _turn("bertil", "b2", "b2", "2026-08-11T20:00:00Z", "When was Maja born?")]
    doc = _last_turn(ctx, tmp_path, lines, _answers("When was Maja born?", "I don't know - you haven't told me that."))
    assert doc.latest("5").startswith("You told me on 12 May 2026: “We had a baby girl, Maja, on 8 May 2026!”")


def test_a_why_question_no_line_gives_a_reason_for_gets_i_dont_know_why_and_the_line(ctx, tmp_path):
    """Set BE, held out: "Why did my mother move in?" -> "Your mother Sunanda moved in with you in September." (the line
    said again, APPROVEd). On the small profiles it becomes "I don't know why" with the line quoted
    (unreasoned_why_answered), approved without the model; with the guard off the model's answer stands."""
    lines = [_turn("sanjay", "s1", "s1", "2026-10-06T20:00:00Z", "My mother Sunanda moved in with us in September."),
             _turn("sanjay", "s2", "s2", "2026-11-17T20:00:00Z", "Why did my mother move in?")]
    again = _answers("Why did my mother move in?", "Your mother Sunanda moved in with you in September.")
    doc = _last_turn(ctx, tmp_path, lines, again)
    assert doc.latest("5").startswith("I don't know why - you told me on 6 October 2026: “My mother Sunanda moved in "
                                      "with us in September.”")
    assert "guard: unreasoned_why_answered" in doc.latest("5") and "**Decision:** APPROVE" in doc.latest("6")

    _with(ctx, None, off=["unreasoned_why_answered"])
    run_file(ctx, ScriptedBackend(responder=again), write_jsonl(tmp_path / "u.jsonl", [lines[1].replace('"s2"', '"s3"')]))
    answer = ContextDocument.parse((ctx.vault.turn_dir("sanjay", 3) / "context.md").read_text()).latest("5")
    assert answer.startswith("Your mother Sunanda moved in with you in September.")
    assert "unreasoned_why_answered" not in answer
