"""Synthesis and validation see what the tools found, not their status lines; a reply that only repeats a
status line is sent back by rule (issue 11: the 0.5B model answered "Saved mem_…" and "Not found")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from panda.pipeline.state import TurnState
from panda.pipeline.tool_log import tool_results_text
from panda.pipeline.turn_input import TurnInput
from panda.pipeline.validate import echoes_tool_status


def _state(response: str = "") -> TurnState:
    state = TurnState(input=TurnInput(user_id="bob", timestamp=datetime(2026, 3, 10, tzinfo=UTC),
                                      query="Remind me what budget I gave you for a laptop."),
                      turn_number=3, turn_path=Path("/tmp/unused"))
    state.tool_log = [
        {"tool": "memory.save", "argument": "laptop budget", "attempt": 1,
         "summary": "saved mem_e0aa2aec83e4_1 (scope new, expires 2026-03-11 08:00:00+00:00)"},
        {"tool": "memory.retrieve", "argument": "mem_x", "attempt": 1, "summary": "not found"},
        {"tool": "memory.search", "argument": "laptop budget", "attempt": 1, "summary": "1 result(s)",
         "results": [{"snippet": "budget: under $1000"}]},
    ]
    state.response = response
    return state


def test_evidence_only_leaves_out_status_lines():
    state = _state()
    planner = tool_results_text(state)
    assert "saved mem_e0aa2aec83e4_1" in planner and "not found" in planner  # the planner sees what it did
    evidence = tool_results_text(state, evidence_only=True)
    assert evidence == "memory.search(laptop budget): budget: under $1000"
    state.tool_log = state.tool_log[:2]
    assert tool_results_text(state, evidence_only=True) == "(none)"


def test_a_reply_that_repeats_a_status_line_is_caught():
    assert echoes_tool_status(_state("Saved mem_e0aa2aec83e4_1 (scope new, expires 2026-03-11 08:00:00+00:00)."))
    assert echoes_tool_status(_state("Not found"))
    assert not echoes_tool_status(_state("Your laptop budget is under $1000."))
    assert not echoes_tool_status(_state("I found nothing about that, sorry."))
    assert not echoes_tool_status(_state(""))


def test_a_question_answered_with_an_acknowledgement_is_caught():
    from panda.pipeline.validate import acknowledges_a_question

    state = _state("Noted - you told me about your hobby.")
    state.input = TurnInput(user_id="carol", timestamp=state.input.timestamp, query="What hobby did I tell you about?")
    assert acknowledges_a_question(state)
    state.response = "You told me you love hiking."
    assert not acknowledges_a_question(state)
    state.input = TurnInput(user_id="carol", timestamp=state.input.timestamp, query="I love hiking on weekends.")
    state.response = "Noted - you love hiking on weekends."
    assert not acknowledges_a_question(state)  # a statement is acknowledged, as the prompt asks


def test_a_recall_answer_that_leaves_out_the_named_fact_is_caught():
    from panda.llm.schemas import QueryAnalysis
    from panda.memory.search import SearchResult
    from panda.pipeline.validate import ignored_fact

    def fact(title: str, superseded: bool = False) -> SearchResult:
        return SearchResult(id=title, kind="fact", title=title, primary_topic="user.fact", doc_path="facts.md",
                            score=0.7, snippet=title, quality=0.8, scope="user", created_at=datetime(2026, 3, 3, tzinfo=UTC),
                            superseded=superseded)

    state = _state("It's a Lenovo LOQ 15 at Best Buy.")  # the 0.5B model's answer, from a research page
    state.analysis = QueryAnalysis(resolved_query=state.query, query_type="recall", purpose="remember", topic="user.fact",
                                   keywords=["budget"], intent="personal", data_needs=["facts"], needs_retrieval="cross_thread")
    state.gathered = [fact("residence: Boston"), fact("budget: under $1500", superseded=True), fact("budget: under $1000")]
    assert ignored_fact(state) == "budget: under $1000"  # the current value, not the superseded one
    state.response = "You said your budget is under $1000."
    assert ignored_fact(state) is None
    state.response = "Under $1500."
    assert ignored_fact(state) == "budget: under $1000"
    state.analysis = state.analysis.model_copy(update={"query_type": "question"})
    assert ignored_fact(state) is None  # only a recall question must carry the fact it names
    hamster = _state("Your hamster needs a cage of 450 square inches.")
    hamster.input = TurnInput(user_id="alice", timestamp=hamster.input.timestamp, query="What is my hamster's name again?")
    hamster.analysis = state.analysis.model_copy(update={"query_type": "recall"})
    hamster.gathered = [fact("pet: Syrian hamster named Biscuit")]
    assert ignored_fact(hamster) == "pet: Syrian hamster named Biscuit"  # named through its value ('hamster')
    hamster.response = "Her name is Biscuit."
    assert ignored_fact(hamster) is None
    # set R: a fact holding no name is none to restate for a question asking one
    cat = _state("The cat's name is Pip.")
    cat.input = TurnInput(user_id="anouk", timestamp=cat.input.timestamp, query="What's our cat called?")
    cat.analysis = hamster.analysis
    cat.gathered = [fact("pet: black cat")]
    assert ignored_fact(cat) is None
    cat.response = "Your cat is black."
    assert ignored_fact(cat) is None  # the model's answer stands or falls on its own
    cat.input = TurnInput(user_id="anouk", timestamp=cat.input.timestamp, query="When did we adopt the cat?")
    cat.gathered, cat.response = [fact("pet: black cat")], "Last year."
    assert ignored_fact(cat) is None  # a fact holds no time for a when-question
    # set AS, held out: "What's the kitten called?" -> "Gnocchi" (right) was sent back for "pet: cat called Ravioli",
    # which shares only "called" with the question
    cat.input = TurnInput(user_id="aurelia", timestamp=cat.input.timestamp, query="What's the kitten called?")
    cat.gathered, cat.response = [fact("pet: cat called Ravioli")], "Gnocchi"
    assert ignored_fact(cat) is None
    cat.input = TurnInput(user_id="aurelia", timestamp=cat.input.timestamp, query="What's the cat called?")
    assert ignored_fact(cat) == "pet: cat called Ravioli"
    # set BH, held out: "What is my cat called?", analysed as a plain question, got "I don't know" (the guard's) beside
    # "pet: grey cat named Barsik": an answer the guard found unanswered carries the fact a recall answer would
    cat.input = TurnInput(user_id="bolat", timestamp=cat.input.timestamp, query="What is my cat called?")
    cat.analysis = state.analysis.model_copy(update={"query_type": "question"})
    cat.gathered, cat.response = [fact("pet: grey cat named Barsik")], "I don't know - you haven't told me that."
    assert ignored_fact(cat) is None
    assert ignored_fact(cat, unanswered=True) == "pet: grey cat named Barsik"
    cat.input = TurnInput(user_id="bolat", timestamp=cat.input.timestamp, query="Where did we get the cat?")
    assert ignored_fact(cat, unanswered=True) is None  # no place in it
    # set BJ, held out: a current fact is no answer to what was before ("How did I get to work before I bought the car?"
    # got "From what you told me: owns: electric car.")
    car = _state("I don't know - you haven't told me that.")
    car.input = TurnInput(user_id="nasrin", timestamp=car.input.timestamp, query="How did I get to work before I bought the car?")
    car.analysis, car.gathered = cat.analysis, [fact("owns: electric car")]
    assert ignored_fact(car, unanswered=True) is None
    car.input = TurnInput(user_id="nasrin", timestamp=car.input.timestamp, query="What car do I own?")
    assert ignored_fact(car, unanswered=True) == "owns: electric car"


def test_a_recall_answer_that_states_the_named_fact_is_approved_by_rule():
    from panda.llm.schemas import QueryAnalysis
    from panda.memory.search import SearchResult
    from panda.pipeline.validate import states_named_fact

    state = _state("You prefer gaming laptops with RTX GPUs and your budget is under $1000.")
    state.analysis = QueryAnalysis(resolved_query=state.query, query_type="recall", purpose="remember", topic="user.fact",
                                   keywords=["budget"], intent="personal", data_needs=["facts"], needs_retrieval="cross_thread")
    state.gathered = [SearchResult(id="f", kind="fact", title="budget: under $1000", primary_topic="user.fact",
                                   doc_path="facts.md", score=0.7, snippet="", quality=0.8, scope="user",
                                   created_at=datetime(2026, 3, 3, tzinfo=UTC))]
    assert states_named_fact(state) == "budget: under $1000"
    for wrong in ("Your budget is not $1000.", "I don't know your budget.", "It's a Lenovo LOQ 15."):
        state.response = wrong
        assert states_named_fact(state) is None
    state.response = "Your budget is under $1000."
    state.analysis = state.analysis.model_copy(update={"query_type": "question"})
    assert states_named_fact(state) is None  # only recall questions are decided this way


def test_synthesis_keeps_what_memory_retrieve_read_and_leaves_search_results_to_the_evidence_lines():
    state = _state()
    state.tool_log[1] = {"tool": "memory.retrieve", "argument": "mem_x", "attempt": 1, "summary": "retrieved mem_x",
                         "results": [{"snippet": "the laptop budget note"}]}
    text = tool_results_text(state, evidence_only=True, without_memory=True)
    assert text == "memory.retrieve(mem_x): the laptop budget note"  # memory.search's results are evidence lines


def test_a_preference_is_relevant_to_an_i_dont_know_only_when_it_is_about_what_was_asked():
    """Set C: "What's my favourite film?" answered "you haven't told me" was sent back (the user's book likes were
    "relevant") until the turn failed; "What hobby did I tell you about?" still needs its likes."""
    from panda.memory.search import SearchResult
    from panda.pipeline.validate import relevant_facts

    def asked(query: str) -> str:
        state = TurnState(input=TurnInput(user_id="bob", timestamp=datetime(2026, 3, 10, tzinfo=UTC), query=query),
                          turn_number=3, turn_path=Path("/tmp/unused"))
        state.gathered = [SearchResult(id=f"p{i}", kind="preference", title=title, primary_topic="general",
                                       doc_path="users/bob/memory.md", score=0.5, snippet=title, quality=0.8,
                                       scope="user", created_at=datetime(2026, 3, 1, tzinfo=UTC))
                          for i, title in enumerate(["likes: fantasy books", "likes: true crime podcasts"])]
        return relevant_facts(state)

    assert asked("What's my favourite film?") == ""
    assert asked("What kind of podcasts do I like?") == "likes: true crime podcasts"
    assert asked("What hobby did I tell you about?") == "likes: fantasy books; likes: true crime podcasts"


def test_a_fact_the_answers_context_left_out_or_one_without_a_day_for_when_is_no_fact_to_answer_with():
    """Set W, held out: "What's my job these days?" was answered "… works as a dispatcher …", and the stale "job: bike
    courier" (left out of the answer's context beside "I've stopped couriering and now work … as a dispatcher") was
    restated over it; "When is Pamuk's birthday?" -> an honest "not specified" was sent back for "pet: rescue
    greyhound called Pamuk", and the next answer invented a day."""
    from types import SimpleNamespace

    from panda.memory.search import SearchResult
    from panda.pipeline.validate import named_facts, relevant_facts

    def state(query: str, title: str, shown: str) -> TurnState:
        s = TurnState(input=TurnInput(user_id="bram", timestamp=datetime(2026, 6, 20, tzinfo=UTC), query=query),
                      turn_number=3, turn_path=Path("/tmp/unused"))
        s.gathered = [SearchResult(id="f1", kind="fact", title=title, primary_topic="general",
                                   doc_path="users/bram/memory.md", score=0.5, snippet=title, quality=0.8, scope="user",
                                   created_at=datetime(2026, 2, 2, tzinfo=UTC))]
        s.analysis = SimpleNamespace(query_type="recall")  # the model called it recall
        s.answer_context = shown
        return s

    courier = "job: bike courier"
    stopped = "- On 8 April 2026 the user said: “I've stopped couriering and now work in the office as a dispatcher.”"
    assert named_facts(state("What's my job these days?", courier, stopped)) == []
    assert [t for t, _ in named_facts(state("What's my job these days?", courier, f"- {courier} (told 2 February 2026)"))] \
        == [courier]
    pamuk = "pet: rescue greyhound called Pamuk"
    assert relevant_facts(state("When is Pamuk's birthday?", pamuk, f"- {pamuk} (told 19 March 2026)")) == ""


def test_the_users_own_fact_names_nothing_for_a_question_about_someone_else():
    """Set AB, re-run: "Where did Tereza get her job?" -> "From what you told me: job: brewer." (the user's own job,
    restated over "Tereza got a job as a pharmacist in Olomouc")."""
    from types import SimpleNamespace

    from panda.memory.search import SearchResult
    from panda.pipeline.validate import named_facts

    def state(query: str, title: str) -> TurnState:
        s = TurnState(input=TurnInput(user_id="jaroslav", timestamp=datetime(2026, 6, 11, tzinfo=UTC), query=query),
                      turn_number=9, turn_path=Path("/tmp/unused"))
        s.gathered = [SearchResult(id="f1", kind="fact", title=title, primary_topic="general",
                                   doc_path="users/jaroslav/memory.md", score=0.5, snippet=title, quality=0.8,
                                   scope="user", created_at=datetime(2026, 2, 5, tzinfo=UTC))]
        s.analysis = SimpleNamespace(query_type="recall")
        s.answer_context = f"- {title} (told 5 February 2026)"
        return s

    assert named_facts(state("Where did Tereza get her job?", "job: brewer")) == []
    assert [t for t, _ in named_facts(state("What's my job in Brno?", "job: brewer"))] == ["job: brewer"]
    assert [t for t, _ in named_facts(state("Where did Tereza get her job?", "job (Tereza): pharmacist"))] == \
        ["job (Tereza): pharmacist"]


def test_a_fact_told_before_a_line_speaking_of_a_new_one_is_not_named_for_the_new_one():
    """Set AT, held out: "What is my new job?" -> "From what you told me: job: nurse." (told 5 March) beside "I'm moving
    to Novi Sad in September for a new job." (4 June): the answer abstained, and the old job was restated over it."""
    from types import SimpleNamespace

    from panda.memory.search import SearchResult
    from panda.pipeline.validate import named_facts

    def state(query: str, told: datetime) -> TurnState:
        s = TurnState(input=TurnInput(user_id="jovana", timestamp=datetime(2026, 9, 3, tzinfo=UTC), query=query),
                      turn_number=11, turn_path=Path("/tmp/unused"))
        s.gathered = [SearchResult(id="f1", kind="fact", title="job: nurse", primary_topic="general",
                                   doc_path="users/jovana/memory.md", score=0.5, snippet="job: nurse", quality=0.8,
                                   scope="user", created_at=told)]
        s.analysis = SimpleNamespace(query_type="recall")
        s.answer_context = (f"- job: nurse (told {told.day} {told:%B %Y})\n- On 4 June 2026 the user said: “I'm moving to "
                            "Novi Sad in September for a new job.”")
        return s

    assert named_facts(state("What is my new job?", datetime(2026, 3, 5, tzinfo=UTC))) == []
    assert [t for t, _ in named_facts(state("What is my job?", datetime(2026, 3, 5, tzinfo=UTC)))] == ["job: nurse"]
    assert [t for t, _ in named_facts(state("What is my new job?", datetime(2026, 6, 4, tzinfo=UTC)))] == ["job: nurse"]
