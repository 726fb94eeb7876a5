"""Phase plan (§3, MIND 0.5) and the bounded plan⇄execute loop.

The first plan of an attempt is §3 (goals, todo list, tool requests, route). While the planner
routes to `execute`, its tools run (§4) and the planner sees their results; later planner decisions
are logged in §4, since §3 is immutable once written. The loop stops after max_plan_iterations.
Seed 002 §8 (multi-goal turns): §3 lists the goals with their ids, statuses and dependencies; a goal's
tools run after those of the goals it waits on; every tool result in §4 names the goal it serves, and
after each iteration §4 shows each goal's status and the todo list moved on by the tools that completed
(seed 000's [completed] / [in_progress] / [pending]).

Departure from seed 000's open loop: the planner is asked again only when an iteration's tools found
nothing (no result, nothing saved) — a re-plan is for recovery. Measured on the sample with
Qwen2.5-Coder-0.5B, the planner otherwise re-requested tools until the bound on 10 of 12 turns (3
planner calls and up to 3 Page Intelligence batches per turn), each round a sequential LLM round trip
on the turn's critical path, and the repeats added nothing the synthesis used.
"""

from __future__ import annotations

from panda.documents.budgets import truncate_to_words
from panda.errors import LLMReplyError
from panda.home import Home
from panda.llm.roles import MIND
from panda.llm.schemas import Goal, Plan
from panda.pipeline import execute
from panda.pipeline.llm_step import ask, fit_section
from panda.pipeline.state import Step, TurnState
from panda.pipeline.tool_log import tool_results_text


def goal_of(plan: Plan, index: int) -> str:
    """The goal tool request `index` serves: the one it names, else the goal at its position, else the last.

    Example: goals G1, G2; requests [search (no goal), save (no goal), search (G1)] -> G1, G2, G1."""
    ids = [g.id for g in plan.goals]
    named = plan.tool_requests[index].goal if index < len(plan.tool_requests) else None
    return named if named in ids else ids[min(index, len(ids) - 1)]


def todo_lines(todo: list[str], completed: int) -> list[str]:
    """The todo list with the first `completed` items done and the next one in progress (pure).

    Example: ['search', 'review', 'answer'] with 1 completed ->
    ['1. [completed] search', '2. [in_progress] review', '3. [pending] answer']."""
    def status(i: int) -> str:
        return "completed" if i < completed else "in_progress" if i == completed else "pending"

    return [f"{i + 1}. [{status(i)}] {t}" for i, t in enumerate(todo)]


def todo_progress(plan: Plan, tools_completed: int) -> str:
    """§4's todo update after an iteration: each completed tool completes one item, in order; the last
    item (the answer) stays in progress until synthesis."""
    done = min(tools_completed, max(len(plan.todo) - 1, 0))
    return "**Todo:** " + " · ".join(todo_lines(plan.todo, done))


def waits_on(plan: Plan) -> dict[str, list[str]]:
    """Each goal's dependencies among the plan's own goals (a goal never waits on itself or an unknown id)."""
    ids = {g.id for g in plan.goals}
    return {g.id: [d for d in dict.fromkeys(g.depends_on) if d in ids and d != g.id] for g in plan.goals}


def goal_statuses(plan: Plan, tool_log: list[dict[str, object]], attempt: int) -> dict[str, str]:
    """Seed 002 §8: each goal's status from this attempt's tool results (pure).

    - `done (n results)` / `done (saved)`: a tool serving it returned something;
    - `no results`: its tools ran and found nothing;
    - `waits on G1`: it depends on a goal not done yet;
    - `pending`: no tool served it (synthesis answers it from the gathered context).
    Example: G1 with 2 results, G2 depending on G1 with no tool -> {'G1': 'done (2 results)', 'G2': 'pending'}.
    """
    status: dict[str, str] = {}
    for goal in plan.goals:
        entries = [e for e in tool_log if e.get("attempt") == attempt and e.get("goal") == goal.id]
        results = sum(len(r) if isinstance(r := e.get("results"), list) else 0 for e in entries)
        saved = any(e.get("saved_id") for e in entries)
        status[goal.id] = (f"done ({results} results)" if results else "done (saved)" if saved
                           else "no results" if entries else "pending")
    for goal_id, deps in waits_on(plan).items():
        unmet = [d for d in deps if not status[d].startswith("done")]
        if unmet and not status[goal_id].startswith("done"):
            status[goal_id] = "waits on " + ", ".join(unmet)
    return status


def dependency_order(plan: Plan) -> list[int]:
    """Tool request indexes with the requests of a goal after those of the goals it waits on (stable; a cycle
    keeps the planner's order). Example: G2 waits on G1, requests [G2, G1] -> [1, 0]."""
    deps = waits_on(plan)
    depth: dict[str, int] = {}

    def level(goal: str, seen: frozenset[str] = frozenset()) -> int:
        if goal not in depth:
            depth[goal] = 0 if goal in seen else 1 + max((level(d, seen | {goal}) for d in deps.get(goal, [])), default=-1)
        return depth[goal]

    return sorted(range(len(plan.tool_requests)), key=lambda i: level(goal_of(plan, i)))


def goals_line(plan: Plan, tool_log: list[dict[str, object]], attempt: int) -> str:
    """§4's goal update after an iteration. Example: '**Goals:** G1 done (2 results) · G2 pending'."""
    return "**Goals:** " + " · ".join(f"{g} {s}" for g, s in goal_statuses(plan, tool_log, attempt).items())


def render_plan(plan: Plan) -> str:
    statuses = goal_statuses(plan, [], 0)
    deps = waits_on(plan)
    lines = ["**Goals:**"] + [f"- {g.id}: {g.description} · status: {statuses[g.id]}"
                              + (f" · depends on: {', '.join(deps[g.id])}" if deps[g.id] else "") for g in plan.goals]
    lines += ["", "**Todo:**"] + todo_lines(plan.todo, 0)
    requests = [f"- {t.tool} `{t.argument}` (topic `{t.topic}`) · serves {goal_of(plan, i)}"
                for i, t in enumerate(plan.tool_requests)]
    lines += ["", "**Tool requests:**"] + (requests or ["- (none)"])
    lines += ["", f"**Route:** {plan.route}"]
    return "\n".join(lines)


def _ask_plan(state: TurnState, ctx: Home) -> Step[Plan]:
    return (yield from ask(state, ctx, phase="plan", role=MIND, prompt="plan", schema=Plan, variables={
        "query": state.query, "resolved_query": state.resolved_query,
        "context": truncate_to_words(state.gather_summary, 200), "tool_results": tool_results_text(state),
        "retry_hint": state.retry_hint,
    }))


def _plan_or_none(state: TurnState, ctx: Home) -> Step[tuple[Plan | None, str]]:
    """The planner's reply, or None and why when it did not parse after the retries (a 0.5B planner ran past its
    token limit on 2 of 31 set B turns, and each of those turns ended FAIL with nothing answered)."""
    try:
        return (yield from _ask_plan(state, ctx)), ""
    except LLMReplyError as exc:
        return None, str(exc).split(": ", 1)[-1]


def without_tools(query: str) -> Plan:
    """The plan of a turn whose planner reply did not parse: one goal, no tools, the answer from what gather found.
    Example: without_tools('When is my sister visiting?').route -> 'synthesize'."""
    return Plan(goals=[Goal(id="G1", description=f"answer: {' '.join(query.split())}"[:150])], todo=[],
                tool_requests=[], route="synthesize")


def found_something(tool_log: list[dict[str, object]], attempt: int, iteration: int) -> bool:
    """Whether any tool of this iteration returned a result or saved something.

    Example: [{'tool': 'memory.search', 'results': [], 'iteration': 1, 'attempt': 1}] -> False;
    the same with one result, or a memory.save with a saved_id -> True.
    """
    return any(e.get("attempt") == attempt and e.get("iteration") == iteration and (e.get("results") or e.get("saved_id"))
               for e in tool_log)


def nothing_new(plan: Plan, tool_log: list[dict[str, object]], attempt: int) -> bool:
    """Whether every request of a re-plan was already made in this attempt, same tool and argument (pure): running
    them again cannot find more, so the loop stops there.

    Example: a plan asking memory.save `son allergic to nuts` after that save was refused -> True; a plan asking
    memory.search `Leo's school` instead -> False; a plan with no requests -> False (it ends the loop itself).
    """
    made = {(e.get("tool"), e.get("asked") or execute.request_key(str(e.get("argument") or "")))
            for e in tool_log if e.get("attempt") == attempt}
    return bool(plan.tool_requests) and all((t.tool, execute.request_key(t.argument)) in made for t in plan.tool_requests)


def run(state: TurnState, ctx: Home) -> Step[None]:
    """Write §3 for this attempt, then loop plan⇄execute within the iteration bound."""
    first, error = yield from _plan_or_none(state, ctx)
    plan = first or without_tools(state.query)
    state.plan = plan
    note = "" if first else f"\n\n_The planner's reply did not parse ({error}); no tools: the answer comes from §2._"
    state.doc.write("3", (yield from fit_section(state, ctx, "3", render_plan(plan) + note)))
    max_iterations = ctx.policy.context.max_plan_iterations
    for iteration in range(1, max_iterations + 1):
        if plan.route == "synthesize" or not plan.tool_requests:
            break
        order = dependency_order(plan)
        yield from execute.run(state, ctx, [plan.tool_requests[i] for i in order], iteration,
                               [goal_of(plan, i) for i in order])
        completed = sum(1 for e in state.tool_log if e.get("attempt") == state.doc.attempt)
        state.doc.write("4", todo_progress(state.plan, completed) + "\n" + goals_line(state.plan, state.tool_log,
                                                                                     state.doc.attempt))
        if found_something(state.tool_log, state.doc.attempt, iteration):
            state.doc.write("4", f"_Tools of iteration {iteration} found what the plan asked for; no re-plan._")
            break
        if iteration == max_iterations:
            state.doc.write("4", f"_Planner loop stopped at its bound of {max_iterations} iterations._")
            break
        replanned, error = yield from _plan_or_none(state, ctx)
        if replanned is None:
            state.doc.write("4", f"_Planner iteration {iteration + 1} did not parse ({error}); the loop stops._")
            break
        plan = replanned
        requests = ", ".join(f"{t.tool} `{t.argument}`" for t in plan.tool_requests) or "none"
        state.doc.write("4", f"_Planner iteration {iteration + 1}: route {plan.route}; requests: {requests}_")
        if plan.route != "synthesize" and nothing_new(plan, state.tool_log, state.doc.attempt):
            state.doc.write("4", f"_Iteration {iteration + 1} would repeat requests already made; the loop stops._")
            break
    if state.doc.has("4"):
        body = state.doc.latest("4")
        fitted = yield from fit_section(state, ctx, "4", body)
        if fitted != body:
            state.doc.compact("4", fitted)
    state.doc.close("4")
