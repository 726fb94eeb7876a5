"""A batch sharded by user across workers: map, then one reduce (DESIGN §9).

Users are independent, so a batch — turns (`panda run`) or logged messages (`panda ingest`) — splits
by user. **Plan** (pure): each user goes to shard
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

A sharded **ingest** is simpler: ingesting (and enriching) a user's messages reads and writes only that
user's memory, so the reduce replaces the home's rows of each shard's users by the partition's
(catalog/partitions.py: documents with their embeddings, postings, messages, sessions, threads, users)
and copies the observability rows.

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
from panda.conversations.messages import MessageInput
from panda.home import Home
from panda.memory.embeddings import Embedder
from panda.pipeline.turn_input import TurnInput

log = logging.getLogger(__name__)

SHARDS_DIR = "shards"
WORKER_FILE = "worker.json"


def shard_of(user_id: str, shards: int) -> int:
    """The shard a user belongs to (pure, stable). Example: shard_of("alice", 3) is the same everywhere."""
    if shards < 1:
        raise ValueError(f"shards must be at least 1, got {shards}")
    return int.from_bytes(hashlib.sha256(user_id.encode("utf-8")).digest()[:8], "big") % shards


def by_shard(items: list[Any], shards: int) -> list[list[Any]]:
    """Items (turns or messages, anything with a user_id) of each shard, in input order (pure)."""
    out: list[list[Any]] = [[] for _ in range(shards)]
    for item in items:
        out[shard_of(str(item.user_id), shards)].append(item)
    return out


def partition_turns(turns: list[TurnInput], shards: int) -> list[list[TurnInput]]:
    return by_shard(turns, shards)


@dataclass(frozen=True)
class ShardSpec:
    """One shard's work, turns or messages: picklable, so it travels to a Ray worker or a Prefect task."""

    index: int
    turns: list[TurnInput]
    settings: Settings  # the home's settings; the shard writes `catalog_file`
    base: Path  # the home's catalog as of the run's start
    catalog_file: Path
    messages: list[MessageInput] = field(default_factory=list)
    enrich: bool = False  # ingest: enrich the shard's users' pending messages after storing them
    enrich_limit: int | None = None

    @property
    def users(self) -> list[str]:
        return sorted({t.user_id for t in self.turns} | {m.user_id for m in self.messages})


@dataclass
class ShardRun:
    """A sharded run in progress: the driver holds the home's writer lock until `finish`."""

    settings: Settings
    run_id: str
    specs: list[ShardSpec]
    users: list[str]
    kind: str = "turns"  # turns | messages
    started: float = field(default_factory=time.monotonic)

    @property
    def folder(self) -> Path:
        return self.settings.catalog_path.parent / SHARDS_DIR / self.run_id


def start(turns: list[TurnInput], settings: Settings, shards: int, messages: list[MessageInput] | None = None,
          enrich: bool = False, enrich_limit: int | None = None) -> ShardRun:
    """Take the home's writer lock, make sure its catalog exists, snapshot it, and plan the shards of
    `turns` (or, for an ingest, of `messages`)."""
    from panda.catalog.store import Catalog
    from panda.runtime import embedder_choice

    database = settings.catalog_path
    acquire_writer(database.parent)
    try:
        catalog = Catalog(database)  # creates and migrates a new home's catalog; the lock stays held (re-entrant)
        try:  # every shard embeds with the model the home keeps (runtime.embedder_choice), whatever its machine
            settings = embedder_choice(settings, catalog)
        finally:
            catalog.close()
        base = publish_snapshot(database)
        run_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
        folder = database.parent / SHARDS_DIR / run_id
        if messages:
            specs = [ShardSpec(k, [], settings, base, folder / str(k) / database.name, part, enrich, enrich_limit)
                     for k, part in enumerate(by_shard(messages, shards)) if part]
        else:
            specs = [ShardSpec(k, part, settings, base, folder / str(k) / database.name)
                     for k, part in enumerate(by_shard(turns, shards)) if part]
    except BaseException:
        release_writer(database.parent, None)
        raise
    return ShardRun(settings, run_id, specs, sorted({u for spec in specs for u in spec.users}),
                    "messages" if messages else "turns")


def run_shard(spec: ShardSpec) -> dict[str, Any]:
    """Map: run one shard's work on its own catalog partition (in whatever process runs this)."""
    from panda.pipeline.scheduler import run_batch
    from panda.runtime import make_backend, open_home

    started = time.monotonic()
    folder = spec.catalog_file.parent
    if folder.exists():  # an earlier try of this shard: start again from the run's base
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    # Who runs this shard, for an operator (and the test that kills it): host and pid.
    (folder / WORKER_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                                                  "turns": len(spec.turns), "messages": len(spec.messages)}),
                                      encoding="utf-8")
    shutil.copyfile(spec.base, spec.catalog_file)
    settings = spec.settings.model_copy(update={"catalog_file": spec.catalog_file})
    backend = make_backend(settings) if spec.turns or spec.enrich else None
    out: dict[str, Any] = {"shard": spec.index, "host": socket.gethostname(), "pid": os.getpid(),
                           "turns": len(spec.turns), "messages": len(spec.messages), "users": len(spec.users)}
    try:
        embedder = _worker_embedder(settings.embedding_model, settings.embedding_dim)
        with open_home(settings, embedder=embedder, backend=backend, in_shard=True) as ctx:
            if spec.turns:
                assert backend is not None
                out.update(run_batch(spec.turns, ctx, backend, settings.max_active_users, publish_knowledge=False).summary())
            else:
                out["ingest"] = _ingest(ctx, spec, backend)
    finally:
        if backend is not None:
            backend.close()
    out["seconds"] = round(time.monotonic() - started, 2)
    return out


def _ingest(ctx: Home, spec: ShardSpec, backend: Any) -> dict[str, Any]:
    from panda.conversations.enrich import enrich_pending
    from panda.conversations.ingest import ingest_messages

    report = ingest_messages(ctx, spec.messages)
    if spec.enrich and backend is not None:  # only this shard's users: another shard owns the others' files
        report.enrichment = enrich_pending(ctx, backend, users=spec.users, limit=spec.enrich_limit)
    return report.as_dict()


_EMBEDDERS: dict[tuple[str | None, int | None], Embedder] = {}


def _worker_embedder(model: str | None, dim: int | None = None) -> Embedder:
    """One embedding model per worker process: a Ray worker that runs several shards loads it once."""
    if (model, dim) not in _EMBEDDERS:
        from panda.memory.embeddings import SentenceEmbedder

        _EMBEDDERS[(model, dim)] = SentenceEmbedder(model, dim=dim)
    return _EMBEDDERS[(model, dim)]


class KnownVectors:
    """An embedder that returns vectors already computed for a text (by a shard) and embeds the rest."""

    def __init__(self, base: Embedder, known: dict[str, np.ndarray]) -> None:
        self.base, self.known, self.dim = base, known, base.dim
        self.identity = getattr(base, "identity", None)
        self.reused = 0

    def embed_query(self, text: str) -> np.ndarray:
        from panda.memory.embeddings import query_embedding

        return query_embedding(self.base, text)

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.base.embed(missing), strict=True))
        self.reused += len(texts) - len(missing)
        return np.stack([self.known[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def reduce_shards(ctx: Home, run: ShardRun) -> dict[str, Any]:
    """Reduce: bring the shards' work into the home's catalog (see the module docstring), then publish."""
    from panda.catalog import partitions
    from panda.pipeline.recovery import recover_turns
    from panda.research.publication import publish_pending

    started = time.monotonic()
    paths = [s.catalog_file for s in run.specs if s.catalog_file.exists()]
    done = [s for s in run.specs if s.catalog_file.exists()]
    copied: Counter[str] = Counter()
    if run.kind == "messages":
        with partitions.attached(ctx.catalog, paths) as aliases, ctx.catalog.transaction():
            for spec, alias in zip(done, aliases, strict=True):
                copied.update(partitions.replace_user_rows(ctx.catalog, alias, spec.users))
                copied.update(partitions.copy_new_rows(ctx.catalog, alias))
        ctx.catalog.record_event("shards_merged", "run", run.run_id, {"shards": len(run.specs), "rows": dict(copied)})
        return {"rows_copied": dict(copied), "seconds": round(time.monotonic() - started, 2)}

    known: dict[str, np.ndarray] = {}
    feedback: list[tuple[str, str, str | None]] = []
    with partitions.attached(ctx.catalog, paths) as aliases:
        for alias in aliases:
            known.update(partitions.known_vectors(ctx.catalog, alias, run.users))
            feedback += partitions.feedback_changes(ctx.catalog, alias)
    embedder, ctx.memory.embedder = ctx.memory.embedder, KnownVectors(ctx.memory.embedder, known)
    try:
        merged = recover_turns(ctx, run.users, event="turn_merged")
        for turn_id, status, detected_in in feedback:  # feedback on a turn of an earlier run
            ctx.catalog.set_feedback(turn_id, status, detected_in)
        with partitions.attached(ctx.catalog, paths) as aliases, ctx.catalog.transaction():
            for alias in aliases:
                copied.update(partitions.copy_new_rows(ctx.catalog, alias))
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
        with open_home(run.settings, embedder=embedder) as ctx:
            reduced = reduce_shards(ctx, run)
            turns_in_catalog = ctx.catalog.table_count("turn_index")
        shutil.rmtree(run.folder, ignore_errors=True)
    finally:
        release_writer(database.parent, database)
    return summarise(run, results, reduced, turns_in_catalog)


SHARD_FIELDS = ("shard", "host", "pid", "turns", "messages", "users", "seconds")
INGEST_TOTALS = ("read", "new", "already_known", "recovered", "sessions_touched", "facts_recorded")


def summarise(run: ShardRun, results: list[dict[str, Any] | BaseException], reduced: dict[str, Any],
              turns_in_catalog: int) -> dict[str, Any]:
    """The sharded run's summary, shaped like one process's (BatchReport.summary, or an ingest report)
    plus `shards`, `reduce` and `run_id` (pure)."""
    outcomes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    enrichment: Counter[str] = Counter()
    errors: list[str] = []
    shards = []
    answers: list[dict[str, Any]] = []
    largest = 0
    for spec, result in zip(run.specs, results, strict=True):
        if isinstance(result, BaseException):
            errors.append(f"shard {spec.index} ({len(spec.turns) or len(spec.messages)} items) failed: {result}")
            shards.append({"shard": spec.index, "turns": len(spec.turns), "messages": len(spec.messages),
                           "failed": str(result)})
            continue
        shards.append({k: result[k] for k in SHARD_FIELDS})
        if "ingest" in result:
            totals.update({k: result["ingest"].get(k, 0) for k in INGEST_TOTALS})
            enrichment.update(result["ingest"].get("enrichment") or {})
            continue
        outcomes.update(result["outcomes"])
        for key in ("skipped", "recovered", "llm_batches", "llm_requests", "completion_tokens"):
            totals[key] += result[key]
        largest = max(largest, result["largest_batch"])
        errors += result["errors"]
        answers += result["answers"]["items"]
    common = {"errors": errors, "shards": shards, "reduce": reduced, "run_id": run.run_id,
              "seconds": round(time.monotonic() - run.started, 2)}
    if run.kind == "messages":
        return {**{k: totals[k] for k in INGEST_TOTALS}, "enrichment": dict(enrichment) or None, **common}
    from panda.pipeline.scheduler import answer_quality

    return {"outcomes": dict(outcomes), **{k: totals[k] for k in ("skipped", "recovered", "llm_batches", "llm_requests",
                                                                   "completion_tokens")},
            "largest_batch": largest, "published_notes": reduced["published_notes"],
            "answers": answer_quality(answers),
            "turns_in_catalog": turns_in_catalog, **common}


class ShardExecutor(Protocol):
    name: str

    def map(self, specs: list[ShardSpec]) -> list[dict[str, Any] | BaseException]: ...


def run_sharded(turns: list[TurnInput], settings: Settings, shards: int, executor: ShardExecutor,
                embedder: Embedder | None = None, messages: list[MessageInput] | None = None, enrich: bool = False,
                enrich_limit: int | None = None) -> dict[str, Any]:
    """Plan, map on `executor`, reduce: `turns` (a run) or `messages` (an ingest). A failed shard raises
    nothing: its error is in the summary, after the reduce kept what the other shards finished."""
    run = start(turns, settings, shards, messages, enrich, enrich_limit)
    log.info("sharded %s %s: %d users in %d shards on %s", "ingest" if messages else "run", run.run_id,
             len(run.users), len(run.specs), executor.name)
    results: list[dict[str, Any] | BaseException] = []
    try:
        results = executor.map(run.specs)
    finally:
        if len(results) != len(run.specs):  # the executor itself failed: reduce what the shards left anyway
            results = [RuntimeError("the executor stopped before this shard reported")] * len(run.specs)
        summary = finish(run, results, embedder)
    return summary
