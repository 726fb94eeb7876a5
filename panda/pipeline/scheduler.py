"""The batch scheduler: every pending LLM request of every active turn goes out as ONE batch.

Turns are generators (turn.py). Each user's turns run in order — turn N+1 starts only after turn N
is saved — and different users run side by side, up to `max_active_users` lanes. Probe turns (evaluation
questions: they change no memory) of a user who has nothing else in the batch need no order: they
are spread over up to `probe_lanes` lanes and run side by side too, each with its own turn number
(a LoCoMo conversation's 100-odd questions are one user's). At each step the
scheduler advances every active turn to its next LLM request, sends all of them to the backend in
one call, and hands each result back to its turn. vLLM's continuous batching and prefix caching do
the rest. Finished turns (by input key) are skipped, so re-running a file is idempotent; complete
turn folders the catalog lacks (a crash after the files, before the catalog) are indexed first.
A turn that raises is reported with its ids and the batch goes on. While the batch runs, signals shared
across users stay as of its start (`Home.batch_view`), and the global knowledge its research
turns learned is published after it, in a fixed order (research/publication.py): the same turns give the
same memory however they are scheduled, in one process or sharded (sharding.py).
"""

from __future__ import annotations

import logging
import traceback
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from panda.home import Home
from panda.language.metrics import answer_correct, token_f1
from panda.llm.backend import Backend, ChatRequest, ChatResult
from panda.pipeline.state import Step, TurnState
from panda.pipeline.turn import run_turn
from panda.pipeline.turn_input import TurnInput

log = logging.getLogger(__name__)


@dataclass
class BatchReport:
    outcomes: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    recovered: int = 0
    errors: list[str] = field(default_factory=list)
    llm_batches: int = 0
    llm_requests: int = 0
    completion_tokens: int = 0
    largest_batch: int = 0
    finished: list[str] = field(default_factory=list)
    published_notes: int = 0  # global notes written after the batch (research/publication.py)
    answers: list[dict[str, Any]] = field(default_factory=list)  # turns with an `expected` answer, scored

    def score_answer(self, state: TurnState) -> None:
        turn = state.input
        if turn.expected or turn.abstain or turn.stale:
            response = state.response or ""
            correct = answer_correct(response, turn.expected, turn.stale, turn.abstain)
            f1 = max((token_f1(response, option) for option in (turn.expected or "").split("|") if option.strip()),
                     default=float(correct))
            self.answers.append({"turn_id": state.turn_id, "expected": turn.expected, "stale": turn.stale,
                                 "abstain": turn.abstain, "correct": correct, "f1": round(f1, 3),
                                 "query": turn.query, "response": response, "outcome": state.outcome})

    def answer_quality(self) -> dict[str, Any]:
        return answer_quality(self.answers)

    def summary(self) -> dict[str, Any]:
        return {"outcomes": dict(self.outcomes), "skipped": self.skipped, "recovered": self.recovered,
                "errors": self.errors, "llm_batches": self.llm_batches, "llm_requests": self.llm_requests,
                "completion_tokens": self.completion_tokens, "largest_batch": self.largest_batch,
                "published_notes": self.published_notes,
                "answers": self.answer_quality()}


def answer_quality(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The scored turns of a batch (or of all its shards) summed up. Example: two answers, one correct, F1 1.0
    and 0.2 -> {'with_expected': 2, 'correct': 1, 'mean_f1': 0.6, 'items': [...]}."""
    n = len(answers)
    return {"with_expected": n, "correct": sum(a["correct"] for a in answers),
            "mean_f1": round(sum(a["f1"] for a in answers) / n, 3) if n else None, "items": answers}


def lane_queues(turns: list[TurnInput], probe_lanes: int) -> dict[str, deque[TurnInput]]:
    """Turns by lane, in input order within a lane (pure). A user's turns share one lane, named by the
    user; a user with only probe turns gets up to `probe_lanes` lanes, dealt in turn.

    Example: alice a1, a2 and conv-30 probes q1, q2, q3 with 2 probe lanes ->
    {'alice': [a1, a2], 'conv-30\\x1f0': [q1, q3], 'conv-30\\x1f1': [q2]}."""
    probes_only = {t.user_id for t in turns} - {t.user_id for t in turns if not t.probe}
    dealt: Counter[str] = Counter()
    queues: dict[str, deque[TurnInput]] = {}
    for turn in turns:
        lane = turn.user_id
        if turn.user_id in probes_only:  # a user id never holds a control character (validate_name)
            lane = f"{turn.user_id}\x1f{dealt[turn.user_id] % max(1, probe_lanes)}"
            dealt[turn.user_id] += 1
        queues.setdefault(lane, deque()).append(turn)
    return queues


@dataclass
class _Active:
    state: TurnState
    gen: Step[TurnState]
    pending: list[ChatRequest]


def run_batch(
    turns: list[TurnInput],
    ctx: Home,
    backend: Backend,
    max_active_users: int = 64,
    probe_lanes: int = 32,
    on_turn_done: Callable[[TurnState | None, str], None] | None = None,
    publish_knowledge: bool = True,
) -> BatchReport:
    """Run `turns`; with `publish_knowledge` (not in a shard: sharding.py) publish their global knowledge after."""
    from panda.pipeline.recovery import recover_turns
    from panda.research.publication import publish_pending

    report = BatchReport()
    users = sorted({t.user_id for t in turns})
    report.recovered = recover_turns(ctx, users)
    finished = ctx.catalog.finished_input_keys([t.input_key for t in turns])
    pending = [t for t in turns if t.input_key not in finished]
    report.skipped = len(turns) - len(pending)
    queues = lane_queues(pending, probe_lanes)
    active: dict[str, _Active] = {}  # by lane
    reserved: dict[str, int] = {}  # the last turn number handed out per user (lanes of one user run at once)

    def start_next(lane: str) -> None:
        queue = queues.get(lane)
        while queue:
            turn = queue.popleft()
            user = turn.user_id
            try:
                number = max(ctx.vault.next_turn_number(user, ctx.catalog.max_turn_number(user)), reserved.get(user, 0) + 1)
                reserved[user] = number
                path = ctx.vault.reset_turn_dir(user, number)
                state = TurnState(input=turn, turn_number=number, turn_path=path)
                entry = _Active(state, run_turn(state, ctx), [])
                if advance(user, entry, None):
                    active[lane] = entry
                    return
            except Exception as exc:  # noqa: BLE001 - one bad turn must not stop the batch
                fail(user, turn, exc)

    def advance(user: str, entry: _Active, results: list[ChatResult] | None) -> bool:
        """Run the turn to its next LLM request. False when the turn has finished."""
        try:
            entry.pending = next(entry.gen) if results is None else entry.gen.send(results)
            flush_calls(entry.state)
            return True
        except StopIteration:
            flush_calls(entry.state)
            report.outcomes[entry.state.outcome] += 1
            report.finished.append(entry.state.turn_id)
            report.score_answer(entry.state)
            ctx.catalog.record_event("turn_finished", "turn", entry.state.turn_id,
                                     {"outcome": entry.state.outcome, "user_id": user}, entry.state.input.timestamp)
            if on_turn_done:
                on_turn_done(entry.state, entry.state.outcome)
            return False
        except Exception as exc:  # noqa: BLE001
            flush_calls(entry.state)
            fail(user, entry.state.input, exc)
            return False

    def fail(user: str, turn: TurnInput, exc: Exception) -> None:
        where = f"{turn.source_file}:{turn.source_line}" if turn.source_file else "input"
        message = f"turn from {where} of {user} failed: {exc}; marked ERROR, batch continues"
        log.error("%s\n%s", message, traceback.format_exc())
        report.errors.append(message)
        report.outcomes["ERROR"] += 1
        ctx.catalog.record_event("turn_error", "user", user, {"error": str(exc), "source": where})
        if on_turn_done:
            on_turn_done(None, "ERROR")

    def flush_calls(state: TurnState) -> None:
        if state.call_records:
            ctx.catalog.record_llm_calls(state.call_records, ctx.policy.llm.prices_usd_per_million)
            state.call_records = []

    if publish_knowledge:
        publish_pending(ctx)  # what a batch killed before its end had queued
    with ctx.batch_view():
        for lane in sorted(queues)[:max_active_users]:
            start_next(lane)
        while active or any(queues.values()):
            for lane in sorted(queues):
                if lane not in active and queues[lane] and len(active) < max_active_users:
                    start_next(lane)
            if not active:
                break
            order = sorted(active)
            batch: list[ChatRequest] = []
            spans: list[tuple[str, int, int]] = []
            for lane in order:
                entry = active[lane]
                spans.append((lane, len(batch), len(batch) + len(entry.pending)))
                batch.extend(entry.pending)
            results = backend.generate(batch)
            if len(results) != len(batch):
                raise RuntimeError(f"backend {backend.name} returned {len(results)} results for {len(batch)} requests")
            report.llm_batches += 1
            report.llm_requests += len(batch)
            report.largest_batch = max(report.largest_batch, len(batch))
            report.completion_tokens += sum(r.completion_tokens for r in results)
            for lane, lo, hi in spans:
                entry = active[lane]
                if not advance(entry.state.input.user_id, entry, results[lo:hi]):
                    del active[lane]
                    start_next(lane)
    if publish_knowledge:
        report.published_notes = len(publish_pending(ctx))
    return report
