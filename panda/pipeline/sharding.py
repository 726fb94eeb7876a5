"""A batch sharded by user across workers: map, then one reduce (DESIGN §9).

Users are independent, so a batch splits by user. **Plan** (pure): each user goes to shard
`sha256(user_id) mod N` — the same shard in every run, process and machine (Python's `hash` is salted
per process). **Map**: each shard runs the ordinary scheduler (`run_batch`) in its own process (a Ray
task: executors.py; a Prefect task: flows/turns.py) on the same home, with
- its own catalog partition, `catalog/shards/<run>/<k>/panda.duckdb`: a copy of the home's catalog as of
  the run's start. DuckDB lets one process open a file to write and no other process open it at all
  meanwhile, so one shared live catalog cannot take several writers at once; a partition per shard can.
  The writer lock lives beside each catalog file, so each partition has its own (home_lock.py).
- the vault, where it writes only its own users' folders (disjoint by construction);
- no global file: the knowledge its research turns learned is queued (research/publication.py); and no
  counter written back to a vault file (`MemoryStore.in_shard`; its own catalog keeps its counters when
  it re-reads a document, `Catalog.counters_authoritative`): the reduce counts every turn once and writes
  the values back.
**Reduce** (the driver, which holds the home's writer lock from before the copy to the end, so no other
writer changes the home meanwhile): every finished turn folder of the run's users is committed into the
home's catalog through the function a single process uses after a crash (`recover_turns` →
`commit_turn`: counters derived from the turns' records, exactly once), with the embeddings the shards
already computed (`KnownVectors`); feedback a turn gave an earlier turn and the shards' observability
rows (LLM calls, events, retrievals) are copied; then the queued knowledge is published in (timestamp,
turn id) order and the partitions are deleted.

Why a sharded run leaves exactly the memory of a single-process run: per user, a shard runs the same
turns in the same order over the same memory (that user's documents plus global ones as of the start —
a single-process batch also reads signals shared across users as of its start, `batch_view`, and BM25
counts only the corpus the searcher may read); every catalog row the reduce writes is derived from the
vault's turn records, and global notes are written once, in a fixed order.

Failure: a shard whose worker dies is retried by the executor; the retry starts from a fresh copy of
the partition and finds its finished turns' folders (the scheduler commits them, then skips them), so
every turn counts once. A shard that fails all its tries fails the run *after* the reduce has committed
what every shard finished; running the file again does the rest.

For a cluster: the home must be on storage every node mounts at the same path (NFS and the like), and
each node either runs its own engine (`--backend vllm`) or all shards share a `vllm serve` fleet
(`--backend openai --base-url`); the reduce runs where the command was started.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import socket
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from panda.catalog.home_lock import acquire_writer, publish_snapshot, release_writer
from panda.config import Settings
from panda.memory.embeddings import Embedder
from panda.pipeline.state import PipelineContext
from panda.pipeline.turn_input import TurnInput

log = logging.getLogger(__name__)

SHARDS_DIR = "shards"
WORKER_FILE = "worker.json"
# Tables the turns' records do not derive: observability, copied from the partitions by id.
COPIED_TABLES = ("llm_calls", "system_events", "retrieval_operations")


def shard_of(user_id: str, shards: int) -> int:
    """The shard a user belongs to (pure, stable). Example: shard_of("alice", 3) is the same everywhere."""
    if shards < 1:
        raise ValueError(f"shards must be at least 1, got {shards}")
    return int.from_bytes(hashlib.sha256(user_id.encode("utf-8")).digest()[:8], "big") % shards


def partition_turns(turns: list[TurnInput], shards: int) -> list[list[TurnInput]]:
    """The turns of each shard, in input order (pure)."""
    out: list[list[TurnInput]] = [[] for _ in range(shards)]
    for turn in turns:
        out[shard_of(turn.user_id, shards)].append(turn)
    return out


@dataclass(frozen=True)
class ShardSpec:
    """One shard's work: picklable, so it travels to a Ray worker or a Prefect task."""

    index: int
    turns: list[TurnInput]
    settings: Settings  # the home's settings; the shard writes `catalog_file`
    base: Path  # the home's catalog as of the run's start
    catalog_file: Path


@dataclass
class ShardRun:
    """A sharded run in progress: the driver holds the home's writer lock until `finish`."""

    settings: Settings
    run_id: str
    specs: list[ShardSpec]
    users: list[str]
    started: float = field(default_factory=time.monotonic)

    @property
    def folder(self) -> Path:
        return self.settings.catalog_path.parent / SHARDS_DIR / self.run_id


def start(turns: list[TurnInput], settings: Settings, shards: int) -> ShardRun:
    """Take the home's writer lock, make sure its catalog exists, snapshot it, and plan the shards."""
    from panda.catalog.store import Catalog

    database = settings.catalog_path
    acquire_writer(database.parent)
    try:
        Catalog(database).close()  # creates and migrates a new home's catalog; the lock stays held (re-entrant)
        base = publish_snapshot(database)
        run_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
        folder = database.parent / SHARDS_DIR / run_id
        specs = [ShardSpec(k, part, settings, base, folder / str(k) / database.name)
                 for k, part in enumerate(partition_turns(turns, shards)) if part]
    except BaseException:
        release_writer(database.parent, None)
        raise
    return ShardRun(settings, run_id, specs, sorted({t.user_id for t in turns}))


def run_shard(spec: ShardSpec) -> dict[str, Any]:
    """Map: run one shard's turns on its own catalog partition (in whatever process runs this)."""
    from panda.pipeline.scheduler import run_batch
    from panda.runtime import make_backend, open_home

    started = time.monotonic()
    folder = spec.catalog_file.parent
    if folder.exists():  # an earlier try of this shard: start again from the run's base
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    # Who runs this shard, for an operator (and the test that kills it): host and pid.
    (folder / WORKER_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                                                  "turns": len(spec.turns)}), encoding="utf-8")
    shutil.copyfile(spec.base, spec.catalog_file)
    settings = spec.settings.model_copy(update={"catalog_file": spec.catalog_file})
    backend = make_backend(settings)
    try:
        ctx = open_home(settings, embedder=_worker_embedder(settings.embedding_model), backend=backend, in_shard=True)
        try:
            report = run_batch(spec.turns, ctx, backend, settings.max_active_users, publish_knowledge=False)
        finally:
            ctx.catalog.close()
    finally:
        backend.close()
    return {"shard": spec.index, "host": socket.gethostname(), "pid": os.getpid(), "turns": len(spec.turns),
            "users": len({t.user_id for t in spec.turns}), "seconds": round(time.monotonic() - started, 2),
            **report.summary()}


_EMBEDDERS: dict[str | None, Embedder] = {}


def _worker_embedder(model: str | None) -> Embedder:
    """One embedding model per worker process: a Ray worker that runs several shards loads it once."""
    if model not in _EMBEDDERS:
        from panda.memory.embeddings import SentenceEmbedder

        _EMBEDDERS[model] = SentenceEmbedder(model)
    return _EMBEDDERS[model]


class KnownVectors:
    """An embedder that returns vectors already computed for a text (by a shard) and embeds the rest."""

    def __init__(self, base: Embedder, known: dict[str, np.ndarray]) -> None:
        self.base, self.known, self.dim = base, known, base.dim
        self.reused = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.base.embed(missing), strict=True))
        self.reused += len(texts) - len(missing)
        return np.stack([self.known[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def reduce_shards(ctx: PipelineContext, run: ShardRun) -> dict[str, Any]:
    """Reduce: commit the shards' turns into the home's catalog, copy what records do not derive, publish."""
    from panda.jobs.reindex import recover_turns
    from panda.research.publication import publish_pending

    started = time.monotonic()
    con = ctx.catalog.con
    partitions = [s.catalog_file for s in run.specs if s.catalog_file.exists()]
    known: dict[str, np.ndarray] = {}
    feedback: list[tuple[str, str, str | None]] = []
    for k, path in enumerate(partitions):
        con.execute(f"ATTACH '{path}' AS shard_{k} (READ_ONLY)")
        try:
            for text, vector in con.execute(f"""SELECT search_text, embedding FROM shard_{k}.documents
                                                WHERE embedding IS NOT NULL AND list_contains(?, owner_user)""",
                                            [run.users]).fetchall():
                known[text] = np.asarray(vector, dtype=np.float32)
            feedback += con.execute(f"""SELECT s.id, s.user_feedback_status, s.rejection_detected_in
                                        FROM shard_{k}.turn_index s JOIN turn_index t ON t.id = s.id
                                        WHERE s.user_feedback_status IS DISTINCT FROM t.user_feedback_status""").fetchall()
        finally:
            con.execute(f"DETACH shard_{k}")
    embedder, ctx.memory.embedder = ctx.memory.embedder, KnownVectors(ctx.memory.embedder, known)
    try:
        merged = recover_turns(ctx, run.users, event="turn_merged")
        for turn_id, status, detected_in in feedback:  # feedback on a turn of an earlier run
            ctx.catalog.set_feedback(turn_id, status, detected_in)
        copied: Counter[str] = Counter()
        for k, path in enumerate(partitions):
            con.execute(f"ATTACH '{path}' AS shard_{k} (READ_ONLY)")
        try:
            with ctx.catalog.transaction():
                for k in range(len(partitions)):
                    for table in COPIED_TABLES:
                        before = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
                        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM shard_{k}.{table} "
                                    f"WHERE id NOT IN (SELECT id FROM {table})")
                        copied[table] += con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] - before  # type: ignore[index]
        finally:
            for k in range(len(partitions)):
                con.execute(f"DETACH shard_{k}")
        published = publish_pending(ctx)
        reused = ctx.memory.embedder.reused  # type: ignore[attr-defined]
    finally:
        ctx.memory.embedder = embedder
    ctx.catalog.record_event("shards_merged", "run", run.run_id, {"shards": len(run.specs), "turns_merged": merged,
                                                                  "copied": dict(copied)})
    return {"turns_merged": merged, "rows_copied": dict(copied), "published_notes": len(published),
            "embeddings_reused": reused, "seconds": round(time.monotonic() - started, 2)}


def finish(run: ShardRun, results: list[dict[str, Any] | BaseException], embedder: Embedder | None = None) -> dict[str, Any]:
    """Reduce whatever the shards finished, delete the partitions, release the lock; the run's summary."""
    from panda.runtime import open_home

    database = run.settings.catalog_path
    try:
        ctx = open_home(run.settings, embedder=embedder)
        try:
            reduced = reduce_shards(ctx, run)
            turns_in_catalog = ctx.catalog.table_count("turn_index")
        finally:
            ctx.catalog.close()
        shutil.rmtree(run.folder, ignore_errors=True)
    finally:
        release_writer(database.parent, database)
    return summarise(run, results, reduced, turns_in_catalog)


def summarise(run: ShardRun, results: list[dict[str, Any] | BaseException], reduced: dict[str, Any],
              turns_in_catalog: int) -> dict[str, Any]:
    """The sharded run's summary, shaped like a single batch's (BatchReport.summary) plus `shards` (pure)."""
    outcomes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    errors: list[str] = []
    shards = []
    answers: list[dict[str, Any]] = []
    largest = 0
    for spec, result in zip(run.specs, results, strict=True):
        if isinstance(result, BaseException):
            errors.append(f"shard {spec.index} ({len(spec.turns)} turns) failed: {result}")
            shards.append({"shard": spec.index, "turns": len(spec.turns), "failed": str(result)})
            continue
        outcomes.update(result["outcomes"])
        for key in ("skipped", "recovered", "llm_batches", "llm_requests", "completion_tokens"):
            totals[key] += result[key]
        largest = max(largest, result["largest_batch"])
        errors += result["errors"]
        answers += result["answers"]["items"]
        shards.append({k: result[k] for k in ("shard", "host", "pid", "turns", "users", "seconds")})
    n = len(answers)
    return {"outcomes": dict(outcomes), **{k: totals[k] for k in ("skipped", "recovered", "llm_batches", "llm_requests",
                                                                   "completion_tokens")},
            "largest_batch": largest, "errors": errors, "published_notes": reduced["published_notes"],
            "answers": {"with_expected": n, "correct": sum(a["correct"] for a in answers),
                        "mean_f1": round(sum(a["f1"] for a in answers) / n, 3) if n else None, "items": answers},
            "shards": shards, "reduce": reduced, "turns_in_catalog": turns_in_catalog, "run_id": run.run_id,
            "seconds": round(time.monotonic() - run.started, 2)}


class ShardExecutor(Protocol):
    name: str

    def map(self, specs: list[ShardSpec]) -> list[dict[str, Any] | BaseException]: ...


def run_sharded(turns: list[TurnInput], settings: Settings, shards: int, executor: ShardExecutor,
                embedder: Embedder | None = None) -> dict[str, Any]:
    """Plan, map on `executor`, reduce. Raises nothing for a failed shard: its error is in the summary."""
    run = start(turns, settings, shards)
    log.info("sharded run %s: %d turns of %d users in %d shards on %s", run.run_id, len(turns), len(run.users),
             len(run.specs), executor.name)
    results: list[dict[str, Any] | BaseException] = []
    try:
        results = executor.map(run.specs)
    finally:
        if len(results) != len(run.specs):  # the executor itself failed: reduce what the shards left anyway
            results = [RuntimeError("the executor stopped before this shard reported")] * len(run.specs)
        summary = finish(run, results, embedder)
    return summary
