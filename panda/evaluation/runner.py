"""`panda eval`: ingest a benchmark's history, ask its questions, score retrieval and answers.

Memory isolation: every LoCoMo conversation and every LongMemEval question gets its own user in a
fresh evaluation home. Search only sees a user's own documents, so this is the same as a fresh home
each, and it lets the scheduler batch all questions of all conversations together. Questions are
asked as probe turns at the question's time: they leave context.md files to inspect but add
nothing to memory, so question 12 cannot see question 11's answer.

Metrics: evidence recall@k from memory.search (LoCoMo dia_ids; LongMemEval has_answer turns), token
F1 and exact match per category, abstention accuracy (LoCoMo category 5, LongMemEval `_abs`),
context tokens per answer (§2), LLM latency per phase. `retrieval_only` skips answer generation.
With a judge backend, LoCoMo's J protocol labels every answered item CORRECT/WRONG with a reason
(evaluation/judge.py), stored per item and reported as J beside F1 and EM.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from panda.catalog.conversations import Conversations
from panda.config import POLICY_RELATIVE_PATH, Settings
from panda.conversations import locomo
from panda.conversations.ingest import ingest_messages
from panda.conversations.messages import MessageInput
from panda.documents.budgets import estimate_tokens
from panda.documents.context_md import ContextDocument
from panda.evaluation import longmemeval
from panda.evaluation.baseline import bm25_recall
from panda.home import Home
from panda.language.metrics import abstained, exact_match, locomo_f1, recall_at_k, token_f1
from panda.llm.backend import Backend
from panda.memory.embeddings import Embedder
from panda.memory.search import SearchRequest
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import TurnInput, read_turns
from panda.runtime import open_home

TEMPORAL_HINT = " Use DATE of CONVERSATION to answer with an approximate date."  # upstream LoCoMo


@dataclass
class Question:
    item_id: str
    user_id: str
    category: str
    question: str
    gold: str | None
    asked_at: datetime
    evidence: list[str] = field(default_factory=list)
    abstention: bool = False
    locomo_category: int | None = None
    prompt_suffix: str = ""  # added to the question put to the pipeline, never to the search


@dataclass
class Benchmark:
    dataset: str
    messages: list[MessageInput]
    questions: list[Question]
    # Evidence entries that name no turn ("file: sample conv-42 qa[88].evidence: 'D' names no turn"): left out of
    # the question's evidence, so recall scores the turns it does name; reported with the run's metrics.
    data_errors: list[str] = field(default_factory=list)


def locomo_benchmark(path: Path, only: list[str] | None, limit: int | None) -> Benchmark:
    messages, questions, errors = [], [], []
    for sample in locomo.load_samples(path, only):
        sid = sample["sample_id"]
        turns = locomo.sample_messages(sample)
        messages += turns
        asked = locomo.sessions(sample)[-1][1] + timedelta(hours=1)  # after the last session
        known = {str(turn.external_id) for turn in turns}  # the turns' dia_ids
        qas = sample["qa"][:limit] if limit else sample["qa"]
        for i, qa in enumerate(qas):
            category = int(qa["category"])
            evidence, unknown = locomo.evidence_ids(qa.get("evidence") or [], known)
            errors += [f"{path}: sample {sid} qa[{i}].evidence: {entry!r} names no turn of the conversation "
                       "(left out of the question's evidence)" for entry in unknown]
            questions.append(Question(f"{sid}:q{i:04d}", sid, str(category), qa["question"],
                                      None if category == 5 else str(qa.get("answer", "")),
                                      asked + timedelta(seconds=i), evidence,
                                      abstention=category == 5, locomo_category=category,
                                      prompt_suffix=TEMPORAL_HINT if category == 2 else ""))
    return Benchmark("locomo", messages, questions, errors)


def longmemeval_benchmark(path: Path, only: list[str] | None, limit: int | None) -> Benchmark:
    items = longmemeval.load_instances(path, only, limit)
    messages = [m for item in items for m in item.messages]
    questions = [Question(item.question_id, item.user_id, item.question_type, item.question, item.answer,
                          item.asked_at, item.evidence_turns, abstention=item.abstention) for item in items]
    return Benchmark("longmemeval", messages, questions)


def jsonl_benchmark(path: Path, only: list[str] | None, limit: int | None) -> Benchmark:
    """Plain turn JSONL: every line with `expected` is a question, the others are history turns."""
    turns, _errors = read_turns(path)
    messages, questions = [], []
    for turn in turns:
        if only and turn.user_id not in only:
            continue
        if turn.expected is None:
            messages.append(MessageInput(turn.user_id, turn.session_id or "default", turn.timestamp, "user",
                                         turn.query, "", turn.turn_id))
            if turn.assistant:
                messages.append(MessageInput(turn.user_id, turn.session_id or "default", turn.timestamp, "assistant",
                                             turn.assistant, "", f"{turn.turn_id}:a" if turn.turn_id else None))
        else:
            questions.append(Question(turn.turn_id or turn.input_key, turn.user_id, "jsonl", turn.query, turn.expected,
                                      turn.timestamp))
    return Benchmark("jsonl", messages, questions[:limit] if limit else questions)


LOADERS = {"locomo": locomo_benchmark, "longmemeval": longmemeval_benchmark, "jsonl": jsonl_benchmark}


def score_answer(q: Question, prediction: str) -> dict[str, Any]:
    did_abstain = abstained(prediction)
    if q.abstention or q.gold is None:
        return {"f1": None, "em": None, "abstained": did_abstain}
    f1 = locomo_f1(prediction, q.gold, q.locomo_category) if q.locomo_category else token_f1(prediction, q.gold)
    return {"f1": round(f1, 6), "em": exact_match(prediction, q.gold), "abstained": did_abstain}


LOCOMO_CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                         "5": "adversarial"}


def relevance_label(model: Any) -> str:
    """How a run's searches scored relevance: the learned model (what it was trained on) or the hand-set mix."""
    return f"learned ({model.trained_on})" if model is not None else "hand-set (lexical mix and signal weights)"


def summarise(items: list[dict[str, Any]], ks: list[int], phase_latency: dict[str, float]) -> dict[str, Any]:
    """Every metric of a run as one JSON-able dict."""
    def mean(values: list[float]) -> float | None:
        return round(statistics.fmean(values), 4) if values else None

    with_evidence = [i for i in items if i["recall"] is not None]
    out: dict[str, Any] = {"items": len(items)}
    for k in ks:
        out[f"recall@{k}"] = mean([i["recall"][str(k)] for i in with_evidence])
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_category[item["category"]].append(item)
    out["recall_by_category"] = {c: {str(k): mean([i["recall"][str(k)] for i in group if i["recall"] is not None])
                                     for k in ks} for c, group in sorted(by_category.items())}
    if set(by_category) & set(LOCOMO_CATEGORY_NAMES):
        # The headline peers report: categories 1-4 (not adversarial), weighted by question count.
        core = [i for i in with_evidence if i["category"] in ("1", "2", "3", "4")]
        for k in ks:
            out[f"recall@{k}_cat1_4"] = mean([i["recall"][str(k)] for i in core])
        out["category_names"] = {c: LOCOMO_CATEGORY_NAMES[c] for c in by_category if c in LOCOMO_CATEGORY_NAMES}
    scored = [i for i in items if i["f1"] is not None]
    out["f1"] = mean([i["f1"] for i in scored])
    out["exact_match"] = mean([i["em"] for i in scored])
    out["f1_by_category"] = {c: mean([i["f1"] for i in group if i["f1"] is not None]) for c, group in sorted(by_category.items())}
    out["em_by_category"] = {c: mean([i["em"] for i in group if i["em"] is not None]) for c, group in sorted(by_category.items())}
    abst = [i for i in items if i["abstention_expected"] and i["abstained"] is not None]
    out["abstention_accuracy"] = mean([float(i["abstained"]) for i in abst])
    out["false_abstention_rate"] = mean([float(i["abstained"]) for i in items
                                         if not i["abstention_expected"] and i["abstained"] is not None])
    out["context_tokens_mean"] = mean([float(i["context_tokens"]) for i in items if i["context_tokens"] is not None])
    out["latency_ms_by_phase"] = phase_latency
    return out


def latency_by_phase(ctx: Home) -> dict[str, float]:
    """Mean LLM latency per phase (ms) in the evaluation home's catalog."""
    return {row["phase"]: round(float(row["avg_latency_ms"] or 0.0), 1) for row in ctx.catalog.llm_usage_by_phase()}


def run_eval(dataset: str, path: Path, *, ks: list[int], retrieval_only: bool, settings: Settings,
             backend: Backend | None, embedder: Embedder | None = None, only: list[str] | None = None,
             limit: int | None = None, results_catalog: Any = None, work_dir: Path | None = None,
             judge: Backend | None = None, executor: Any = None, shards: int = 2) -> dict[str, Any]:
    """Run one evaluation; returns {"run_id", "metrics", "items"} and stores it when a catalog is given.

    With an `executor` (sharding/executors.py), the ingest and the answering turns are sharded by
    conversation (each is a user) on it, every shard with its own backend from `settings`; the
    questions' retrieval and the judge run here."""
    if dataset not in LOADERS:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {sorted(LOADERS)}")
    started_at, t0 = datetime.now(UTC), time.perf_counter()
    bench = LOADERS[dataset](path, only, limit)
    run_id = f"{dataset}-{started_at:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
    home = Path(tempfile.mkdtemp(prefix=f"panda-eval-{run_id}-", dir=work_dir))
    if settings.policy_path.exists():  # evaluate under the caller's tuned policy
        (home / POLICY_RELATIVE_PATH).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(settings.policy_path, home / POLICY_RELATIVE_PATH)
    eval_settings = settings.model_copy(update={"home": home})
    if executor is not None:
        from panda.sharding.shards import run_sharded

        sharded = run_sharded([], eval_settings, shards, executor, embedder=embedder, messages=bench.messages)
        if sharded["errors"]:
            raise RuntimeError(f"sharded ingest of {path} failed: {sharded['errors']}")
    items: dict[str, dict[str, Any]] = {}
    phase_latency: dict[str, float] = {}
    with open_home(eval_settings, embedder=embedder, backend=backend) as ctx:
        if executor is None:
            ingest_messages(ctx, bench.messages)
        for q in bench.questions:
            started = time.perf_counter()
            results = ctx.memory.search(SearchRequest(q.question, user_id=q.user_id, limit=max(ks), now=q.asked_at,
                                                      record=False))
            retrieved = Conversations(ctx.catalog).external_ids([r.id for r in results])  # dia_id / session:turn
            recall = {str(k): recall_at_k(retrieved, q.evidence, k) for k in ks} if q.evidence else None
            items[q.item_id] = {"run_id": run_id, "item_id": q.item_id, "conversation": q.user_id,
                                "category": q.category, "question": q.question, "gold": q.gold, "prediction": None,
                                "f1": None, "em": None, "abstention_expected": q.abstention, "abstained": None,
                                "recall": recall, "context_tokens": None,
                                "latency_ms": round((time.perf_counter() - started) * 1000, 3)}
        if not retrieval_only and executor is None:
            if backend is None:
                raise ValueError("answer evaluation needs a backend (or pass retrieval_only)")
            answer_questions(ctx, backend, bench.questions, items)
            phase_latency = latency_by_phase(ctx)
        policy = ctx.policy
        used_embedder = {"embedder": getattr(ctx.memory.embedder, "identity", None),
                         "lexical_mix": ctx.memory.lexical_mix(), "speaker_weight": ctx.memory.speaker_weight(),
                         "relevance": relevance_label(ctx.memory.relevance_model())}
    if not retrieval_only and executor is not None:
        from panda.sharding.shards import run_sharded

        sharded = run_sharded(probe_turns(bench.questions), eval_settings, shards, executor, embedder=embedder)
        if sharded["errors"]:
            raise RuntimeError(f"sharded answering of {path} failed: {sharded['errors']}")
        with open_home(eval_settings, embedder=embedder, backend=backend) as ctx:
            collect_answers(ctx, bench.questions, items)
            phase_latency = latency_by_phase(ctx)
    item_list = list(items.values())
    metrics = summarise(item_list, ks, phase_latency)
    metrics["bm25_baseline"] = bm25_recall(bench.messages, bench.questions, ks)
    if judge is not None and not retrieval_only:
        from panda.evaluation.judge import judge_items

        metrics.update(judge_items(item_list, judge, policy))
    metrics.update({"run_id": run_id, "dataset": dataset, "mode": "retrieval" if retrieval_only else "answers",
                    "seconds": round(time.perf_counter() - t0, 1), "messages_ingested": len(bench.messages),
                    "eval_home": str(home), "evidence_errors": bench.data_errors, **used_embedder})
    if results_catalog is not None:
        from panda.evaluation.results import store_run

        stored = [{**i, "recall": json.dumps(i["recall"] or {})} for i in item_list]
        store_run(results_catalog, {"run_id": run_id, "dataset": dataset, "source": str(path), "mode": metrics["mode"],
                                    "backend": settings.backend, "model": settings.model, "started_at": started_at,
                                    "finished_at": datetime.now(UTC), "items": len(item_list), "metrics": metrics},
                  stored)
    return {"run_id": run_id, "metrics": metrics, "items": item_list}


def answer_questions(ctx: Home, backend: Backend, questions: list[Question],
                     items: dict[str, dict[str, Any]]) -> None:
    """Ask every question as a probe turn; all conversations' turns are batched together."""
    run_batch(probe_turns(questions), ctx, backend)
    collect_answers(ctx, questions, items)


def probe_turns(questions: list[Question]) -> list[TurnInput]:
    """Each question as a probe turn at its time: answered and written down, adding nothing to memory."""
    return [TurnInput(user_id=q.user_id, timestamp=q.asked_at, query=q.question + q.prompt_suffix, session_id="eval",
                      turn_id=q.item_id, expected=q.gold, probe=True) for q in questions]


def collect_answers(ctx: Home, questions: list[Question], items: dict[str, dict[str, Any]]) -> None:
    """Each question's answer, read back from its turn's context.md §5, scored."""
    by_key = {row["input_key"]: row for row in ctx.catalog.turns()}
    for q, turn in zip(questions, probe_turns(questions), strict=True):
        row = by_key.get(turn.input_key)
        item = items[q.item_id]
        if row is None:  # the turn errored; it stays unanswered
            item.update(score_answer(q, ""))
            continue
        text = (ctx.vault.home / row["doc_path"]).read_text(encoding="utf-8")
        doc = ContextDocument.parse(text)
        prediction = " ".join(doc.latest("5").split("\n\n_(")[0].split())
        item["prediction"] = prediction
        item["context_tokens"] = estimate_tokens(doc.latest("2"))
        item.update(score_answer(q, prediction))
