"""Integration: turn batches over a temporary home with the scripted backend."""

import json
from datetime import UTC

from panda.documents.context_md import ContextDocument
from panda.llm.scripted import ScriptedBackend
from panda.llm.scripted_replies import schema_responder
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl

LINES = [
    '{"user_id": "alice", "session_id": "s1", "turn_id": "a1", "timestamp": "2026-03-02T09:00:00Z", "query": "I just adopted a Syrian hamster named Biscuit."}',
    '{"user_id": "bob", "session_id": "b1", "turn_id": "b1", "timestamp": "2026-03-02T09:00:00Z", "query": "I prefer gaming laptops with RTX GPUs."}',
    '{"user_id": "alice", "session_id": "s1", "turn_id": "a2", "timestamp": "2026-03-03T09:00:00Z", "query": "What is my hamster called?"}',
    '{"user_id": "bob", "session_id": "b1", "turn_id": "b2", "timestamp": "2026-03-03T09:00:00Z", "query": "Which laptop GPU do I like?"}',
]


def run_file(ctx, backend, path):
    turns, errors = read_turns(path)
    return run_batch(turns, ctx, backend), errors


def model_answers_statements(ctx):
    """The guard statement_acknowledged off: the model answers (and validates) a statement, as on `base`."""
    ctx.policy = ctx.policy.model_copy(update={"llm": ctx.policy.llm.model_copy(update={
        "guards": ctx.policy.llm.guards.model_copy(update={"disabled": ["statement_acknowledged"]})})})
    return ctx


def test_every_turn_leaves_a_complete_context_md_and_catalog_rows(ctx, backend, tmp_path):
    report, _ = run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES))
    assert report.outcomes == {"APPROVE": 4}
    for user, n in (("alice", 1), ("alice", 2), ("bob", 1), ("bob", 2)):
        folder = ctx.vault.turn_dir(user, n)
        names = {p.name for p in folder.iterdir()}
        assert {"context.md", "query_analysis.json", "ticket.md", "toolresults.md", "metrics.json", "metadata.json"} <= names
        doc = ContextDocument.parse((folder / "context.md").read_text())
        assert all(doc.has(k) for k in ("0", "1", "2", "3", "5", "6", "appendix"))
        assert "**Original query:**" in doc.latest("0")
    rows = ctx.catalog.turns()
    assert [(r["user_id"], r["turn_number"], r["validation_outcome"]) for r in rows] == [
        ("alice", 1, "APPROVE"), ("alice", 2, "APPROVE"), ("bob", 1, "APPROVE"), ("bob", 2, "APPROVE")]
    assert ctx.catalog.table_count("llm_calls") == report.llm_requests
    # Turn 2 found turn 1 in memory and linked it relatively.
    second = (ctx.vault.turn_dir("alice", 2) / "context.md").read_text()
    assert "](../turn_000001/context.md)" in second
    assert "Biscuit" in second
    # Used documents got usage and trust updates in catalog and vault.
    first = ctx.catalog.get_document("turn_alice_000001")
    assert first["usage_count"] >= 1 and first["validation_success"] >= 1
    meta = (ctx.vault.turn_dir("alice", 1) / "context.md").read_text()
    assert "usage_count: 1" in meta or "usage_count: 2" in meta


def test_requests_of_different_users_share_one_batch_and_each_user_runs_in_order(ctx, backend, tmp_path):
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES))
    first_batch = backend.history[0]
    assert {r.user_id for r in first_batch} == {"alice", "bob"}
    assert all(r.phase == "analyze" for r in first_batch)
    alice_turns = [r.turn_id for batch in backend.history for r in batch if r.user_id == "alice"]
    assert alice_turns == sorted(alice_turns)  # turn 2 starts only after turn 1 is done


def test_rerun_is_idempotent_and_preferences_are_saved_once(ctx, backend, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", LINES)
    run_file(ctx, backend, path)
    before = ctx.catalog.table_count("documents")
    report, _ = run_file(ctx, ScriptedBackend(responder=schema_responder), path)
    assert report.skipped == 4 and not report.outcomes
    assert ctx.catalog.table_count("documents") == before
    assert ctx.catalog.table_count("turn_index") == 4
    prefs = (ctx.vault.layout.preferences_path("bob")).read_text()
    assert prefs.count("gaming laptops") == 1


def test_a_crash_mid_turn_resumes_without_loss_or_duplicates(ctx, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:1] + LINES[2:3])
    calls = {"n": 0}

    def dies_in_second_turn(request):
        calls["n"] += 1
        if request.turn_id == "turn_alice_000002" and request.phase == "plan":
            raise KeyboardInterrupt("killed")
        return schema_responder(request)

    try:
        run_file(ctx, ScriptedBackend(responder=dies_in_second_turn), path)
    except KeyboardInterrupt:
        pass
    assert [r["turn_number"] for r in ctx.catalog.turns("alice")] == [1]
    assert not (ctx.vault.turn_dir("alice", 2) / "metadata.json").exists()
    report, _ = run_file(ctx, ScriptedBackend(responder=schema_responder), path)
    assert report.skipped == 1 and report.outcomes == {"APPROVE": 1}
    assert [r["turn_number"] for r in ctx.catalog.turns("alice")] == [1, 2]
    assert sorted(p.name for p in ctx.vault.layout.turns_dir("alice").iterdir()) == ["turn_000001", "turn_000002"]


def test_complete_turn_missing_from_catalog_is_recovered_not_rerun(ctx, backend, tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:1])
    run_file(ctx, backend, path)
    ctx.catalog.con.execute("DELETE FROM turn_index")  # as if the crash hit between files and catalog
    report, _ = run_file(ctx, ScriptedBackend(responder=schema_responder), path)
    assert report.recovered == 1 and report.skipped == 1 and not report.outcomes


def test_unparseable_reply_is_retried_once_then_the_turn_fails_with_the_reason(ctx, tmp_path):
    replies = iter(["not json at all", '{"still": "wrong"}'])

    def broken_for_alice(request):
        if request.user_id == "alice" and request.phase == "analyze":
            return next(replies)
        return schema_responder(request)

    backend = ScriptedBackend(responder=broken_for_alice)
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:1] + LINES[1:2])
    report, _ = run_file(ctx, backend, path)
    assert report.outcomes == {"FAIL": 1, "APPROVE": 1}
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text())
    assert "FAIL" in doc.latest("6") and "did not parse after 2 tries" in doc.latest("6")
    assert all(doc.has(k) for k in ("0", "1", "2", "3", "4", "5", "6", "appendix"))
    assert doc.latest("0").startswith("_Not reached: the turn ended FAIL")
    statuses = [r[0] for r in ctx.catalog.con.execute(
        "SELECT status FROM llm_calls WHERE turn_id = 'turn_alice_000001' ORDER BY started_at").fetchall()]
    assert statuses == ["parse_error", "parse_error"]


def test_clarify_ends_the_turn_with_a_question(ctx, tmp_path):
    def clarify(request):
        if request.phase == "reflect":
            return {"decision": "CLARIFY", "reason": "unclear", "clarification_question": "Which hamster?"}
        return schema_responder(request)

    backend = ScriptedBackend(responder=clarify)
    vague = '{"user_id": "alice", "turn_id": "v1", "timestamp": "2026-03-02T08:00:00Z", "query": "hmm??"}'
    report, _ = run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", [vague]))
    assert report.outcomes == {"CLARIFY": 1}
    assert [r.phase for batch in backend.history for r in batch] == ["analyze", "reflect"]
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text())
    assert "Which hamster?" in doc.latest("1") and "Which hamster?" in doc.latest("5")
    assert doc.latest("3").startswith("_Not reached: the reflection gate asked the user to clarify")
    assert "CLARIFY" in doc.latest("6") and doc.has("appendix")


def test_a_clear_question_is_never_gated_and_the_model_is_not_asked(ctx, tmp_path):
    def clarify(request):
        if request.phase == "reflect":
            return {"decision": "CLARIFY", "reason": "no request in the message",
                    "clarification_question": "What would you like me to help with?"}
        return schema_responder(request)

    backend = ScriptedBackend(responder=clarify)
    report, _ = run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES[:1]))
    assert report.outcomes == {"APPROVE": 1}
    assert "reflect" not in [r.phase for batch in backend.history for r in batch]
    section1 = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text()).latest("1")
    assert "**Decision:** PROCEED" in section1 and "guard: clear_request_proceeds, no model call" in section1


def test_revise_then_retry_are_labelled_and_bounded(ctx, tmp_path):
    model_answers_statements(ctx)  # the loop under test is the model's
    verdicts = iter(["REVISE", "RETRY", "RETRY", "APPROVE"])

    def picky(request):
        if request.phase == "validate":
            return {"decision": next(verdicts), "quality": 0.4, "issues": "too vague", "goals": []}
        return schema_responder(request)

    report, _ = run_file(ctx, ScriptedBackend(responder=picky), write_jsonl(tmp_path / "t.jsonl", LINES[:1]))
    assert report.outcomes == {"RETRY": 1}  # max_validation_attempts = 3 stops before the 4th verdict
    text = (ctx.vault.turn_dir("alice", 1) / "context.md").read_text()
    assert "### Attempt 2 (REVISE)" in text and "### Attempt 3 (RETRY)" in text  # one numbering for the file
    assert "Attempt 2 (RETRY)" not in text
    assert "attempt limit reached" in text
    meta = json.loads((ctx.vault.turn_dir("alice", 1) / "metadata.json").read_text())
    assert meta["revision_count"] == 1 and meta["attempts"] == 2  # one REVISE; the RETRY is an attempt, not a revision


def test_overflowing_section_is_compressed_by_nerves(ctx, tmp_path):
    model_answers_statements(ctx)  # the loop under test is the model's
    long_answer = " ".join(f"w{i}" for i in range(150))  # 150 words, under the 900-char cap

    def verbose(request):
        if request.phase == "synthesize":
            return {"answer": long_answer}
        return schema_responder(request)

    ctx.policy = ctx.policy.model_copy(update={"context": ctx.policy.context.model_copy(
        update={"section_word_budgets": {**ctx.policy.context.section_word_budgets, "5": 40}})})
    backend = ScriptedBackend(responder=verbose)
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES[:1]))
    nerves = [r for batch in backend.history for r in batch if r.phase == "compress_s5"]
    assert nerves and nerves[0].role == "NERVES" and nerves[0].sampling.temperature == 0.1
    doc = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text())
    assert len(doc.latest("5").split()) <= 40 + 10


def test_run_report_scores_turns_that_carry_an_expected_answer(ctx, backend, tmp_path):
    path = tmp_path / "expected.jsonl"
    rows = [{"user_id": "ann", "turn_id": "a1", "timestamp": "2026-03-02T09:00:00Z", "query": "My cat is called Miso."},
            {"user_id": "ann", "turn_id": "a2", "timestamp": "2026-03-02T09:05:00Z", "query": "What is my cat called?",
             "expected": "Miso"},
            {"user_id": "ann", "turn_id": "a3", "timestamp": "2026-03-02T09:06:00Z", "query": "Where do I live?",
             "expected": "Reykjavik"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    parsed, _ = read_turns(path)
    quality = run_batch(parsed, ctx, backend).summary()["answers"]
    assert quality["with_expected"] == 2 and [a["expected"] for a in quality["items"]] == ["Miso", "Reykjavik"]
    # The scripted backend answers from the gathered context: Miso is in memory, Reykjavik never was.
    assert [a["correct"] for a in quality["items"]] == [True, False] and quality["correct"] == 1


def test_memory_save_does_not_store_the_same_memory_twice(ctx, tmp_path):
    def saver(request):
        reply = schema_responder(request)
        if request.phase == "plan" and "Tool results so far:" in request.messages[-1]["content"] \
                and "memory.save" not in request.messages[-1]["content"].split("Tool results so far:")[-1]:
            reply["tool_requests"] = [{"tool": "memory.save", "argument": "Biscuit loves sunflower seeds.", "topic": "pet"},
                                      {"tool": "memory.save", "argument": "Biscuit loves sunflower seeds!", "topic": "pet"}]
            reply["route"] = "execute"
        return reply

    lines = [json.dumps({"user_id": "alice", "turn_id": f"m{i}", "timestamp": f"2026-03-01T0{i}:00:00Z",
                         "query": "Remember that Biscuit loves sunflower seeds."}) for i in (1, 2)]
    backend = ScriptedBackend(responder=saver)
    run_file(ctx, backend, write_jsonl(tmp_path / "a.jsonl", lines[:1]))
    run_file(ctx, backend, write_jsonl(tmp_path / "b.jsonl", lines[1:]))
    saved = ctx.catalog.con.execute("SELECT id FROM documents WHERE kind = 'memory' AND owner_user = 'alice'").fetchall()
    assert len(saved) == 1  # asked twice in a turn and again an hour later: stored once
    log = ContextDocument.parse((ctx.vault.turn_dir("alice", 2) / "context.md").read_text()).latest("4")
    assert f"already in memory as {saved[0][0]}" in log


def test_memory_save_picks_the_seed_doc_type_from_the_topic(ctx, tmp_path):
    from panda.pipeline.execute import save_doc_type

    assert [save_doc_type(t) for t in ("user.preference.budget", "site.amazon.com", "pet.parrot")] == \
           ["preference", "site_knowledge", "memory"]

    def saver(request):
        reply = schema_responder(request)
        if request.phase == "plan" and "Tool results so far:" in request.messages[-1]["content"] \
                and "memory.save" not in request.messages[-1]["content"].split("Tool results so far:")[-1]:
            reply["tool_requests"] = [
                {"tool": "memory.save", "argument": "Amazon lists prices in a span with class a-price.", "topic": "site.amazon.com"},
                {"tool": "memory.save", "argument": "Prefers laptops under $1000.", "topic": "user.preference.budget"}]
            reply["route"] = "execute"
        return reply

    line = json.dumps({"user_id": "alice", "turn_id": "s1", "timestamp": "2026-03-01T09:00:00Z",
                       "query": "Remember: Amazon shows prices in a-price spans, and I want laptops under $1000."})
    run_file(ctx, ScriptedBackend(responder=saver), write_jsonl(tmp_path / "a.jsonl", [line]))
    rows = ctx.catalog.con.execute("SELECT kind, primary_topic, content_types, intent, scope, owner_user FROM documents "
                                   "WHERE kind IN ('memory', 'preference') AND owner_user = 'alice' ORDER BY kind").fetchall()
    assert rows == [("memory", "site.amazon.com", ["site_pattern"], "informational", "new", "alice"),
                    ("preference", "user.preference.budget", ["preference"], "personal", "new", "alice")]


def test_planner_memory_search_filters_reach_the_search(ctx, tmp_path, monkeypatch):
    seen = []
    original = ctx.memory.search

    def spy(request):
        seen.append(request)
        return original(request)

    monkeypatch.setattr(ctx.memory, "search", spy)

    def filtered(request):
        reply = schema_responder(request)
        if request.phase == "plan" and reply["tool_requests"]:
            reply["tool_requests"][0]["filters"] = {"content_types": ["preference"], "scope": "user", "min_quality": 0.4,
                                                    "include_expired": True, "topic_as_filter": True}
        return reply

    run_file(ctx, ScriptedBackend(responder=filtered), write_jsonl(tmp_path / "t.jsonl", LINES[2:3]))
    planned = [r for r in seen if r.content_types]
    assert planned and planned[0].content_types == ["preference"] and planned[0].scope == "user"
    assert planned[0].min_quality == 0.4 and planned[0].include_expired is True
    assert planned[0].topic_filter == planned[0].query_topic


def test_an_honest_i_dont_know_on_empty_memory_is_approved_by_rule(ctx, tmp_path):
    def abstaining(request):
        if request.phase == "synthesize":
            return {"answer": "I don't know - you haven't told me that."}
        if request.phase == "validate":
            return {"decision": "FAIL", "quality": 0.1, "issues": "no information", "goals": []}
        return schema_responder(request)

    backend = ScriptedBackend(responder=abstaining)
    question = '{"user_id": "alice", "timestamp": "2026-03-02T09:00:00Z", "query": "When is my dentist appointment?"}'
    report, _ = run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", [question]))
    assert report.outcomes == {"APPROVE": 1}
    assert "validate" not in [r.phase for batch in backend.history for r in batch]
    section6 = ContextDocument.parse((ctx.vault.turn_dir("alice", 1) / "context.md").read_text()).latest("6")
    assert "honest 'I don't know'" in section6 and "**Quality:** 0.60" in section6
    # a statement answered "I don't know" is not honest, it is wrong: the validator decides (here FAIL)
    report, _ = run_file(model_answers_statements(ctx), backend, write_jsonl(tmp_path / "s.jsonl", [LINES[1]]))
    assert report.outcomes == {"FAIL": 1}


def test_the_validator_sees_goals_and_tool_results_and_quality_aggregates_goals(ctx, tmp_path):
    model_answers_statements(ctx)  # the loop under test is the model's
    from panda.llm.schemas import GoalVerdict, Validation
    from panda.pipeline.validate import overall_quality

    two = [GoalVerdict(goal="G1", decision="APPROVE", quality=0.9), GoalVerdict(goal="G2", decision="REVISE", quality=0.5)]
    assert overall_quality(Validation(decision="APPROVE", quality=0.2, issues="-", goals=two), ["G1", "G2"]).quality == 0.7
    assert overall_quality(Validation(decision="APPROVE", quality=0.2, issues="-", goals=two[:1]), ["G1", "G2"]).quality == 0.2
    backend = ScriptedBackend(responder=schema_responder)
    run_file(ctx, backend, write_jsonl(tmp_path / "t.jsonl", LINES[:2]))
    asked = [r for batch in backend.history for r in batch if r.phase == "validate"]
    assert asked, "a grounded answer goes to the validator"
    prompt = asked[-1].messages[-1]["content"]
    assert "Goals: G1 answer:" in prompt and "Tool results: " in prompt
    assert "result(s)" not in prompt  # what the tools found (tool_evidence tests), never their status lines


def test_synthesis_sees_known_facts_verbatim_and_acknowledges_statements(ctx, tmp_path):
    from panda.language.text import is_question

    assert is_question("Remind me what budget I gave you.") and not is_question("I live in Boston.")
    lines = ['{"user_id": "bob", "session_id": "b1", "timestamp": "2026-03-03T12:00:00Z", '
             '"query": "I prefer gaming laptops with RTX GPUs and my budget is under $1000."}',
             '{"user_id": "bob", "session_id": "b2", "timestamp": "2026-03-10T08:00:00Z", '
             '"query": "Remind me what budget I gave you for a laptop."}']
    backend = ScriptedBackend(responder=schema_responder)
    run_file(model_answers_statements(ctx), backend, write_jsonl(tmp_path / "t.jsonl", lines))
    synth = [r.messages[-1]["content"] for batch in backend.history for r in batch if r.phase == "synthesize"]
    assert "acknowledge it" in synth[0] and "acknowledge it" not in synth[-1]
    assert "budget: under $1000" in synth[-1]  # the fact itself, not only a model's summary of it


def test_i_dont_know_beside_known_facts_is_revised_with_them(ctx, tmp_path):
    """An "I don't know" to a question when gather found the user's facts goes back for a rewrite, by rule,
    with the facts named in the hint; the rewrite that uses them is approved."""
    def forgetful(request):
        if request.phase == "synthesize":
            if "Fix this in your answer" in request.messages[-1]["content"]:
                return {"answer": "You told me you love hiking on weekends."}
            return {"answer": "I don't know - you haven't told me about your hobby."}
        return schema_responder(request)

    backend = ScriptedBackend(responder=forgetful)
    lines = ['{"user_id": "carol", "timestamp": "2026-03-04T20:00:00Z", "query": "I live in Boston and I love hiking on weekends."}',
             '{"user_id": "carol", "timestamp": "2026-03-12T07:45:00Z", "query": "What hobby did I tell you about?"}']
    run_file(ctx, backend, write_jsonl(tmp_path / "h.jsonl", lines))
    text = (ctx.vault.turn_dir("carol", 2) / "context.md").read_text()
    assert "**Decision:** REVISE" in text and "does not know, but memory holds what the user said" in text
    assert "hiking on weekends" in text.split("does not know", 1)[1].split("\n", 1)[0]  # the hint names the fact
    doc = ContextDocument.parse(text)
    assert "hiking" in doc.latest("5") and "REVISE" not in doc.latest("6")


def test_probe_turns_of_one_user_run_side_by_side_with_the_answers_of_one_lane(tmp_path, embedder):
    """Evaluation questions change no memory, so one user's probes run in lanes side by side (a LoCoMo
    conversation is one user): the same answers as one after the other, distinct turn numbers, fewer rounds."""
    from datetime import datetime, timedelta

    from panda.config import Settings
    from panda.pipeline.scheduler import lane_queues
    from panda.pipeline.turn_input import TurnInput
    from panda.runtime import open_home

    start = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
    questions = ["What is my hamster called?", "What does Biscuit eat?", "Where do I live?", "What is my job?",
                 "What hobby do I have?"]
    probes = [TurnInput(user_id="alice", timestamp=start + timedelta(minutes=i), query=q, session_id="eval",
                        turn_id=f"q{i}", probe=True) for i, q in enumerate(questions)]
    runs = {}
    for lanes in (1, 3):
        backend = ScriptedBackend(responder=schema_responder)
        ctx = open_home(Settings(home=tmp_path / f"lanes{lanes}", backend="scripted"), embedder=embedder, backend=backend)
        first = run_batch([TurnInput(user_id="alice", timestamp=start - timedelta(days=1), session_id="s1",
                                     query="I just adopted a Syrian hamster named Biscuit and I live in Boston.")], ctx, backend)
        assert first.outcomes == {"APPROVE": 1}
        documents = ctx.catalog.table_count("documents")
        report = run_batch(probes, ctx, backend, probe_lanes=lanes)
        rows = {r["input_key"]: r for r in ctx.catalog.turns()}
        answers = {p.turn_id: ContextDocument.parse((ctx.vault.turn_dir("alice", rows[p.input_key]["turn_number"])
                                                     / "context.md").read_text()).latest("5") for p in probes}
        runs[lanes] = (report, answers, sorted(r["turn_number"] for r in rows.values()))
        assert ctx.catalog.table_count("documents") == documents  # probes added nothing
        ctx.catalog.close()
    (one, answers_one, numbers_one), (three, answers_three, numbers_three) = runs[1], runs[3]
    assert one.outcomes == three.outcomes and sum(one.outcomes.values()) == len(questions)
    assert answers_one == answers_three
    assert numbers_one == numbers_three == [1, 2, 3, 4, 5, 6]  # the statement, then one number per probe
    assert three.largest_batch >= 3 and three.llm_batches < one.llm_batches
    queues = lane_queues([*probes, TurnInput(user_id="bob", timestamp=start, query="Hi there, I like tea.")], 2)
    assert [t.turn_id for t in queues["alice\x1f0"]] == ["q0", "q2", "q4"] and [t.turn_id for t in queues["alice\x1f1"]] == ["q1", "q3"]
    assert list(queues["bob"]) and "bob\x1f0" not in queues  # a user with an ordinary turn keeps one lane


def test_a_recall_answer_that_ignores_the_named_fact_is_restated_from_it(ctx, tmp_path):
    """Issue 11: the 0.5B model answered "Remind me what budget I gave you" from a research page. The rule
    sends it back, §5 is restated from the fact without the model, and the restatement is approved by rule."""
    def from_research(request):
        reply = schema_responder(request)
        content = request.messages[-1]["content"]
        if request.phase == "analyze" and "Remind me" in content:
            reply["query_type"] = "recall"
        if request.phase == "synthesize" and "Remind me" in content:
            return {"answer": "It's a Lenovo LOQ 15 at Best Buy."}
        return reply

    backend = ScriptedBackend(responder=from_research)
    lines = ['{"user_id": "bob", "timestamp": "2026-03-03T12:00:00Z", "query": "My budget is under $1000."}',
             '{"user_id": "bob", "timestamp": "2026-03-10T08:00:00Z", "query": "Remind me what budget I gave you for a laptop."}']
    run_file(ctx, backend, write_jsonl(tmp_path / "r.jsonl", lines))
    doc = ContextDocument.parse((ctx.vault.turn_dir("bob", 2) / "context.md").read_text())
    assert doc.latest("5").startswith("From what you told me: budget: under $1000.")
    assert "stated from the remembered fact" in doc.latest("5")
    section6 = (ctx.vault.turn_dir("bob", 2) / "context.md").read_text().split("## §6", 1)[1]
    assert "memory holds it: budget: under $1000" in section6 and "answered with what the user said" in section6
    synth = [r for batch in backend.history for r in batch if r.phase == "synthesize" and "Remind me" in r.messages[-1]["content"]]
    assert len(synth) == 1  # the restatement made no model call
    assert ctx.catalog.turns("bob")[-1]["validation_outcome"] == "APPROVE"


def test_a_route_that_cannot_find_anything_is_widened(ctx, tmp_path):
    """The 0.5B analysis routed the first question of a new session to session_only: nothing to find there."""
    from panda.pipeline.gather import widened_route

    assert widened_route("session_only", "question", 0) == "cross_thread"
    assert widened_route("session_only", "question", 3) == "session_only"
    assert widened_route("cross_session", "recall", 3) == "cross_thread"
    assert widened_route("none", "recall", 0) == "none"

    def session_only(request):
        reply = schema_responder(request)
        if request.phase == "analyze":
            reply["needs_retrieval"] = "session_only"
        return reply

    backend = ScriptedBackend(responder=session_only)
    lines = ['{"user_id": "carol", "session_id": "c1", "timestamp": "2026-03-04T20:00:00Z", "query": "I love hiking on weekends."}',
             '{"user_id": "carol", "session_id": "c2", "timestamp": "2026-03-12T07:45:00Z", "query": "What hobby did I tell you about?"}']
    run_file(ctx, backend, write_jsonl(tmp_path / "w.jsonl", lines))
    section2 = ContextDocument.parse((ctx.vault.turn_dir("carol", 2) / "context.md").read_text()).latest("2")
    assert "**Retrieval route:** cross_thread (widened from session_only)" in section2
    assert "hiking" in section2  # the preference or the earlier turn was found
    route = ctx.catalog.con.execute("SELECT retrieval_type FROM retrieval_operations WHERE turn_id = ?",
                                    [ctx.catalog.turns("carol")[-1]["id"]]).fetchall()
    assert ("cross_thread",) in route


def test_gathered_items_the_synthesis_did_not_name_are_not_counted_as_used(ctx, tmp_path):
    def names_nothing(request):
        reply = schema_responder(request)
        if request.phase == "gather":
            reply["relevant_items"] = []
        return reply

    run_file(ctx, ScriptedBackend(responder=schema_responder), write_jsonl(tmp_path / "a.jsonl", LINES[:1]))
    run_file(ctx, ScriptedBackend(responder=names_nothing), write_jsonl(tmp_path / "b.jsonl", LINES[2:3]))
    meta = json.loads((ctx.vault.turn_dir("alice", 2) / "metadata.json").read_text())
    assert meta["used_documents"] == []  # before: the first three gathered were counted as used
    context = (ctx.vault.turn_dir("alice", 2) / "context.md").read_text()
    assert "· seen" in context and "· used" not in context
    assert all(row["usage_count"] == 0 for row in ctx.catalog.table_rows("documents", "usage_count"))


def test_a_question_routed_to_a_session_of_questions_searches_memory(ctx, tmp_path):
    """Set L: "Which vet do we take Pepper to?", the fifth question of a session in which the user only asked, was
    routed to session_only and saw nothing the user had said; a session holding a statement keeps the route
    (tests/pipeline/test_routing_and_feedback.py)."""
    backend = ScriptedBackend(responder=lambda r: {**schema_responder(r), **(
        {"needs_retrieval": "session_only"} if r.phase == "analyze" else {})})
    lines = ['{"user_id": "sofia", "session_id": "s1", "timestamp": "2026-03-10T17:00:00Z", "query": "Pepper is scared of thunderstorms."}',
             '{"user_id": "sofia", "session_id": "s2", "timestamp": "2026-06-01T10:00:00Z", "query": "What kind of dog is Pepper?"}',
             '{"user_id": "sofia", "session_id": "s2", "timestamp": "2026-06-01T10:02:00Z", "query": "What is Pepper afraid of?"}']
    run_file(ctx, backend, write_jsonl(tmp_path / "v.jsonl", lines))
    section2 = ContextDocument.parse((ctx.vault.turn_dir("sofia", 3) / "context.md").read_text()).latest("2")
    assert "**Retrieval route:** cross_thread (widened from session_only)" in section2 and "thunderstorms" in section2
