"""Turns per second of a batch sharded by user on Ray, at 1, 2 and 4 shards, against one process.

The scripted backend answers every LLM call at once, so what is measured is Panda's own CPU work per
turn (retrieval with embeddings, the phases' Python, vault files, the catalog commit) plus the
sharding costs (a catalog copy per shard, a task's start, and the reduce that commits every turn into
the home's catalog). Each case runs on a fresh home; one local Ray runtime serves all cases and is
warmed first (its workers load the embedding model once, as a long-lived cluster's would). Figures:
wall seconds, turns/s, the slowest shard's map time, the reduce's time.

Usage: python benchmarks/shard_scaling.py [USERS] [TURNS_PER_USER]   (default 16 users x 4)

A multi-node GPU cluster (a model; not measured here):
- Per node: one shard per GPU, each with its own vLLM engine (`--backend vllm`), or no engine at all
  when every shard calls one `vllm serve` fleet behind a load balancer (`--backend openai`). The
  shard's CPU work (embeddings, phases, files) runs beside its engine on the node.
- Shared: the home on a shared filesystem (vault files per user are disjoint, so writes never collide)
  and the Ray head. Each shard copies the home's catalog once at the start (O(catalog size) per shard).
- The reduce runs on the driver after every shard finished: it re-reads each finished turn's records,
  reuses the shards' embeddings, commits them into the one catalog, then publishes global knowledge.
  Its cost is linear in the batch's turns and does not shrink with more nodes (Amdahl's serial part).
- Expected scaling: the map is LLM-bound on GPUs; with S shards of equal size it takes T/S plus a
  worker's start (~10 s with a vLLM engine, much more for a large model: pay it once per long batch).
  Speed-up = (map + reduce) / (map / S + reduce + start); with the reduce at a few ms per turn against
  seconds per turn of LLM work, 8 GPUs give close to 8x on large batches, and a batch of a few turns
  per user does not pay off.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.config import Settings
from panda.memory.embeddings import SentenceEmbedder
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import TurnInput
from panda.runtime import make_backend, open_home
from panda.sharding.executors import RayExecutor
from panda.sharding.shards import run_sharded

QUERIES = ["I just adopted a Syrian hamster. What should I feed it?", "My budget for a gaming laptop is $900.",
           "I live in Boston and love weekend hikes.", "Remind me what my sister's name is.",
           "What is a good beginner guitar?", "I prefer vegetarian recipes with lentils."]


def make_turns(users: int, per_user: int) -> list[TurnInput]:
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    return [TurnInput(user_id=f"user{u:03d}", session_id=f"s{u}", turn_id=f"u{u}t{t}",
                      timestamp=start + timedelta(hours=u, minutes=5 * t), query=QUERIES[(u + t) % len(QUERIES)])
            for u in range(users) for t in range(per_user)]


def single_process(turns: list[TurnInput], home: Path, embedder: SentenceEmbedder) -> dict[str, float]:
    settings = Settings(home=home, backend="scripted")
    started = time.monotonic()
    backend = make_backend(settings)
    ctx = open_home(settings, embedder=embedder, backend=backend)
    try:
        report = run_batch(turns, ctx, backend)
    finally:
        ctx.catalog.close()
    seconds = time.monotonic() - started
    assert sum(report.outcomes.values()) == len(turns), report.summary()
    return {"seconds": round(seconds, 2), "turns_per_s": round(len(turns) / seconds, 2)}


def sharded(turns: list[TurnInput], home: Path, shards: int, embedder: SentenceEmbedder) -> dict[str, float]:
    settings = Settings(home=home, backend="scripted")
    started = time.monotonic()
    summary = run_sharded(turns, settings, shards, RayExecutor(), embedder=embedder)
    seconds = time.monotonic() - started
    assert not summary["errors"] and sum(summary["outcomes"].values()) == len(turns), summary["errors"]
    return {"seconds": round(seconds, 2), "turns_per_s": round(len(turns) / seconds, 2),
            "slowest_shard_s": max(s["seconds"] for s in summary["shards"]), "reduce_s": summary["reduce"]["seconds"],
            "workers": len({s["pid"] for s in summary["shards"]})}


def main(argv: list[str]) -> None:
    import ray

    users = int(argv[0]) if argv else 16
    per_user = int(argv[1]) if len(argv) > 1 else 4
    turns = make_turns(users, per_user)
    embedder = SentenceEmbedder()
    ray.init(include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    results: dict[str, dict[str, float]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sharded(make_turns(4, 1), Path(tmp) / "warm", 4, embedder)  # workers start and load their model
            results["1 process"] = single_process(turns, Path(tmp) / "single", embedder)
            for shards in (1, 2, 4):
                results[f"{shards} shards"] = sharded(turns, Path(tmp) / f"s{shards}", shards, embedder)
    finally:
        ray.shutdown()
    print(f"{len(turns)} turns of {users} users, scripted backend, {os.cpu_count()} CPUs")
    for name, row in results.items():
        print(f"  {name:>10}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
