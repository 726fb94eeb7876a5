"""Seed 002 §8 and seed 000's todo lists: §4 results name the goal they serve, and the todo statuses move
on as tools complete."""

from __future__ import annotations

from panda.documents.context_md import ContextDocument
from panda.llm.schemas import Goal, Plan, ToolRequest
from panda.llm.scripted import ScriptedBackend
from panda.llm.scripted_replies import schema_responder
from panda.pipeline.plan import dependency_order, goal_of, goal_statuses, render_plan, todo_lines, todo_progress
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl


def _plan(todo: list[str], requests: list[ToolRequest]) -> Plan:
    return Plan(goals=[Goal(id="G1", description="find laptops"), Goal(id="G2", description="save the budget")],
                todo=todo, tool_requests=requests, route="execute")


def test_goal_of_named_then_by_position():
    plan = _plan(["search", "save", "answer"], [
        ToolRequest(tool="memory.search", argument="laptops"), ToolRequest(tool="memory.save", argument="budget $1000"),
        ToolRequest(tool="research.search", argument="laptops", goal="G1")])
    assert [goal_of(plan, i) for i in range(3)] == ["G1", "G2", "G1"]
    plan.tool_requests[0] = ToolRequest(tool="memory.search", argument="x", goal="G5")  # names no goal of the plan
    assert goal_of(plan, 0) == "G1"


def test_todo_statuses_move_with_completed_tools():
    assert todo_lines(["search", "review", "answer"], 1) == [
        "1. [completed] search", "2. [in_progress] review", "3. [pending] answer"]
    plan = _plan(["search", "answer"], [])
    assert todo_progress(plan, 5) == "**Todo:** 1. [completed] search · 2. [in_progress] answer"  # the answer waits


def test_tool_log_names_goals_and_progress(ctx, tmp_path):
    def two_goals(request):
        reply = schema_responder(request)
        if request.phase == "plan" and reply["tool_requests"]:
            reply["goals"].append({"id": "G2", "description": "remember the budget"})
            reply["tool_requests"].append({"tool": "memory.save", "argument": "budget: under $1000", "topic": "user.preference"})
            reply["todo"] = ["search memory", "save the budget", "answer"]
        return reply

    backend = ScriptedBackend(responder=two_goals)
    lines = ['{"user_id": "bob", "timestamp": "2026-03-03T12:00:00Z", "query": "Which gaming laptop fits a $1000 budget?"}']
    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", lines))
    run_batch(turns, ctx, backend)
    doc = ContextDocument.parse((ctx.vault.turn_dir("bob", 1) / "context.md").read_text())
    section3, section4 = doc.latest("3"), doc.latest("4")
    assert "memory.search `Which gaming laptop" in section3 and "· serves G1" in section3
    assert "memory.save `budget: under $1000` (topic `user.preference`) · serves G2" in section3
    assert "**memory.search** `Which gaming laptop fits a $1000 budget?` · serves G1 →" in section4
    assert "**memory.save** `budget: under $1000` · serves G2 →" in section4
    assert ("**Todo:** 1. [completed] search memory · 2. [completed] save the budget · 3. [in_progress] answer"
            in section4)
    assert "- G1: " in section3 and "· status: pending" in section3  # §3: ids and statuses
    # §4: each goal's status after the tools (empty memory; the save of a question is refused)
    assert "**Goals:** G1 no results · G2 no results" in section4


def test_goal_statuses_and_dependencies():
    plan = Plan(goals=[Goal(id="G1", description="find the trail"), Goal(id="G2", description="check its weather",
                                                                       depends_on=["G1", "G2", "G5"])],
                todo=["search", "weather", "answer"], route="execute", tool_requests=[
                    ToolRequest(tool="research.search", argument="weather at the trail", goal="G2"),
                    ToolRequest(tool="memory.search", argument="favourite trail", goal="G1")])
    assert dependency_order(plan) == [1, 0]  # G2 waits on G1: G1's search runs first
    assert "- G2: check its weather · status: waits on G1 · depends on: G1" in render_plan(plan)  # itself and G5 (no goal of the plan) dropped
    log = [{"attempt": 1, "goal": "G1", "results": [{"id": "a"}, {"id": "b"}]},
           {"attempt": 1, "goal": "G2", "results": []}, {"attempt": 0, "goal": "G2", "results": [{"id": "c"}]}]
    assert goal_statuses(plan, log, 1) == {"G1": "done (2 results)", "G2": "no results"}
    assert goal_statuses(plan, log[1:2], 1) == {"G1": "pending", "G2": "waits on G1"}
    cycle = Plan(goals=[Goal(id="G1", description="a", depends_on=["G2"]), Goal(id="G2", description="b", depends_on=["G1"])],
                 todo=[], route="execute", tool_requests=[ToolRequest(tool="memory.search", argument="x", goal="G2"),
                                                          ToolRequest(tool="memory.search", argument="y", goal="G1")])
    assert sorted(dependency_order(cycle)) == [0, 1]  # a cycle does not loop forever


def test_a_turn_is_indexed_with_its_plan_and_tools(ctx, backend, tmp_path):
    """Seed 000: context.md is indexed with its plan and tool log, so a later search finds how it was answered."""
    lines = ['{"user_id": "bob", "timestamp": "2026-03-03T12:00:00Z", "query": "Which gaming laptop fits a $1000 budget?"}']
    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", lines))
    run_batch(turns, ctx, backend)
    text = ctx.catalog.con.execute("SELECT search_text FROM documents WHERE kind = 'context'").fetchone()[0]
    assert "Plan: answer: Which gaming laptop" in text and "Tools: memory.search `Which gaming laptop" in text
    from panda.jobs.reindex import reindex

    reindex(ctx)  # rebuilt from metadata.json: the same text
    assert ctx.catalog.con.execute("SELECT search_text FROM documents WHERE kind = 'context'").fetchone()[0] == text
