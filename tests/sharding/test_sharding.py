"""A batch sharded by user on a real local Ray runtime leaves exactly the memory of a single-process run,
and a shard whose worker is killed mid-run is retried so that every turn counts once.

Five users, two of whom research the same topic from different shards (one global note, two
contributions), and a rejection that changes an earlier turn: the sharded home must equal the
single-process home in turns, outcomes, documents with their counters, vault files and search results.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from panda.config import Settings
from panda.memory.search import SearchRequest
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from panda.runtime import make_backend, open_home
from panda.sharding.executors import RayExecutor
from panda.sharding.shards import WORKER_FILE, partition_turns, run_sharded, shard_of
from tests.conftest import SHARED_DATA

PAGES = SHARED_DATA / "webpages"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "samples" / "turns.jsonl"
EXTRA = [
    '{"user_id": "erin", "session_id": "e1", "turn_id": "e1", "timestamp": "2026-03-06T11:00:00Z", '
    '"query": "Pineapple upside-down cake: what is the best recipe?"}',
    '{"user_id": "erin", "session_id": "e1", "turn_id": "e2", "timestamp": "2026-03-06T11:04:00Z", '
    '"query": "No, that is wrong. Which pan does the recipe use?"}',
    '{"user_id": "bob", "session_id": "b3", "turn_id": "b4", "timestamp": "2026-03-11T08:00:00Z", '
    '"query": "No, that is not what I asked."}',
]
QUERIES = ["hamster name", "laptop budget", "where do I live", "pineapple cake recipe pan", "hiking weekends"]
NOW = datetime(2026, 4, 1, tzinfo=UTC)
pytestmark = pytest.mark.skipif(not (PAGES / "manifest.json").exists(), reason="../shared/data/webpages is absent")


def test_users_go_to_stable_shards_and_keep_their_order():
    assert [shard_of(u, 3) for u in ("alice", "dave", "erin")] == [2, 1, 0]  # sha256: the same in every process
    assert all(0 <= shard_of(f"user{i}", 4) < 4 for i in range(200))
    assert len({shard_of(f"user{i}", 4) for i in range(200)}) == 4
    turns, _ = read_turns(SAMPLE)
    parts = partition_turns(turns, 3)
    assert sorted(t.input_key for p in parts for t in p) == sorted(t.input_key for t in turns)
    for part in parts:
        assert len({shard_of(t.user_id, 3) for t in part}) <= 1
        assert [t.input_key for t in part] == [t.input_key for t in turns if t in part]  # input order kept
    with pytest.raises(ValueError, match="at least 1"):
        shard_of("alice", 0)


def _turn_file(tmp_path: Path) -> Path:
    path = tmp_path / "turns.jsonl"
    path.write_text(SAMPLE.read_text() + "\n".join(EXTRA) + "\n", encoding="utf-8")
    return path


def _home_with_pages(home: Path, embedder: Any, tmp_path: Path) -> Settings:
    from panda.research.corpus import ingest_corpus

    crawl = tmp_path / "crawl"
    if not crawl.exists():
        crawl.mkdir()
        for name in ("bettycrocker.com.pineapple.html", "parallels.com.desktop.html", "pcgamer.com.darkest.html",
                     "manifest.json"):
            shutil.copy(PAGES / name, crawl / name)
    settings = Settings(home=home, backend="scripted")
    ctx = open_home(settings, embedder=embedder)
    try:
        ingest_corpus(ctx, crawl, datetime(2026, 3, 1, tzinfo=UTC))
    finally:
        ctx.catalog.close()
    return settings


def memory_of(settings: Settings, embedder: Any) -> dict[str, Any]:
    """Everything a user can observe of a home: turns, documents with counters, files, search results."""
    con = duckdb.connect(str(settings.catalog_path), read_only=True)
    try:
        state = {
            "turns": con.execute("""SELECT id, user_id, turn_number, validation_outcome, quality_score, user_feedback_status,
                                           rejection_detected_in, input_key FROM turn_index ORDER BY id""").fetchall(),
            "documents": con.execute("""SELECT id, kind, scope, owner_user, md5(search_text), content_types, usage_count,
                                               reference_count, validation_count, validation_success
                                        FROM documents ORDER BY id""").fetchall(),
            "messages": con.execute("SELECT id, session_id, content FROM messages ORDER BY id").fetchall(),
            "users": con.execute("SELECT id, total_threads, total_sessions, total_messages FROM users ORDER BY id").fetchall(),
            "queue": con.execute("SELECT turn_id, published_at IS NOT NULL FROM knowledge_queue ORDER BY turn_id").fetchall(),
            # ids: the turns' are derived from them; the page ingest before the run gives random ones
            "extractions": con.execute("SELECT CASE WHEN contains(id, ':') THEN id END, domain, url, success "
                                       "FROM source_extractions ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()
    home = settings.home
    state["files"] = {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in sorted(home.rglob("*")) if p.is_file() and "catalog" not in p.relative_to(home).parts
                      and p.suffix in (".md", ".json") and p.name not in ("metrics.json", "metadata.json")}
    ctx = open_home(settings, embedder=embedder, read_only=True)
    try:
        users = sorted({row[1] for row in state["turns"]})
        state["search"] = {(u, q): [(r.id, round(r.score, 6), r.superseded) for r in
                                    ctx.memory.search(SearchRequest(q, user_id=u, limit=8, now=NOW, record=False))]
                           for u in users for q in QUERIES}
    finally:
        ctx.catalog.close()
    return state


@pytest.fixture(scope="module")
def ray_runtime():
    ray = pytest.importorskip("ray")
    ray.init(include_dashboard=False, _node_ip_address="127.0.0.1", num_cpus=2, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_sharded_run_on_ray_equals_single_process_run(tmp_path, embedder, ray_runtime):
    path = _turn_file(tmp_path)
    turns, errors = read_turns(path)
    assert not errors and len({shard_of(t.user_id, 3) for t in turns}) == 3

    single = _home_with_pages(tmp_path / "single", embedder, tmp_path)
    backend = make_backend(single)
    ctx = open_home(single, embedder=embedder, backend=backend)
    try:
        report = run_batch(turns, ctx, backend)
    finally:
        ctx.catalog.close()
    assert sum(report.outcomes.values()) == len(turns) and not report.errors

    sharded = _home_with_pages(tmp_path / "sharded", embedder, tmp_path)
    summary = run_sharded(turns, sharded, 3, RayExecutor(), embedder=embedder)
    assert not summary["errors"], summary["errors"]
    assert summary["outcomes"] == dict(report.outcomes)
    assert sorted(s["shard"] for s in summary["shards"]) == [0, 1, 2]
    assert os.getpid() not in {s["pid"] for s in summary["shards"]}  # Ray worker processes ran them, not this one
    assert summary["reduce"]["turns_merged"] == len(turns) and summary["reduce"]["embeddings_reused"] > 0
    assert not (sharded.catalog_path.parent / "shards" / summary["run_id"]).exists()  # partitions deleted

    a, b = memory_of(single, embedder), memory_of(sharded, embedder)
    note = "Knowledge/Research/pineapple_upside.md"
    assert note in a["files"], sorted(f for f in a["files"] if f.startswith("Knowledge"))
    assert sum(1 for t in a["turns"] if t[5] == "rejected") >= 1  # feedback reached an earlier turn
    for key in a:
        assert a[key] == b[key], f"sharded run differs from the single-process run in {key}"
    from panda.doctor import check_home

    ctx = open_home(sharded, embedder=embedder)
    try:
        doctor = check_home(ctx)  # `panda check` on the sharded home: links, frontmatter, catalog == reindex
    finally:
        ctx.catalog.close()
    assert doctor.ok, doctor.markdown()
    text = (sharded.home / note).read_text()
    fed = [json.loads(p.read_text()) for p in sorted(sharded.home.glob("users/*/turns/*/knowledge.json"))]
    fed = [k for k in fed if k["public"]["topic"] == "pineapple.upside"]
    assert {k["public"]["turn_id"] for k in fed} and len({p.parts[-4] for p in sharded.home.glob("users/*/turns/*/knowledge.json")}) >= 2
    assert text.count("## Update") == len(fed) - 1  # one creation, then each contribution once, from two shards


def test_killed_ray_worker_is_retried_and_every_turn_counts_once(tmp_path, embedder):
    pytest.importorskip("ray")
    path = _turn_file(tmp_path)
    turns, _ = read_turns(path)
    settings = _home_with_pages(tmp_path / "home", embedder, tmp_path)
    env = {**os.environ, "PANDA_SCRIPTED_LATENCY_S": "0.4", "PANDA_HOME": str(settings.home)}
    process = subprocess.Popen([sys.executable, "-m", "panda.cli", "run", str(path), "--backend", "scripted",
                                "--executor", "ray", "--shards", "3", "--json", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    shards_dir = settings.catalog_path.parent / "shards"
    victim = None
    deadline = time.monotonic() + 240
    while victim is None and time.monotonic() < deadline and process.poll() is None:
        for worker in shards_dir.glob(f"*/2/{WORKER_FILE}"):  # alice, bob and carol's shard: 3 users, 10 turns
            users = ("alice", "bob", "carol")
            done = [p for u in users for p in (settings.home / "users" / u / "turns").glob("*/metadata.json")]
            if done:
                victim = json.loads(worker.read_text())["pid"]
        time.sleep(0.2)
    assert victim is not None, "shard 2 never started a turn"
    finished_before_kill = len(done)
    os.kill(victim, signal.SIGKILL)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    summary = json.loads(out)
    assert not summary["errors"] and sum(summary["outcomes"].values()) + summary["skipped"] == len(turns)
    retried = next(s for s in summary["shards"] if s["shard"] == 2)
    assert retried["pid"] != victim  # Ray ran the shard again in a new worker
    assert 0 < finished_before_kill < 10

    con = duckdb.connect(str(settings.catalog_path), read_only=True)
    try:
        keys = [r[0] for r in con.execute("SELECT input_key FROM turn_index").fetchall()]
        counted = con.execute("SELECT count(*) FROM turn_uses WHERE doc_id IN (SELECT id FROM documents)").fetchone()[0]
        used = con.execute("SELECT coalesce(sum(usage_count), 0) FROM documents").fetchone()[0]
    finally:
        con.close()
    assert sorted(keys) == sorted(t.input_key for t in turns)  # every turn once
    assert used == counted  # each use counted once: usage counters agree with the per-turn records
    folders = [p for u in ("alice", "bob", "carol", "dave", "erin") for p in (settings.home / "users" / u / "turns").iterdir()]
    assert len(folders) == len(turns)  # no turn ran twice into a second folder

    again = subprocess.run([sys.executable, "-m", "panda.cli", "run", str(path), "--backend", "scripted", "--json",
                            "--quiet"], capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["skipped"] == len(turns)


def _conversations() -> list[Any]:
    from datetime import timedelta

    from panda.conversations.messages import MessageInput

    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    said = {
        "alice": ["I live in Boston and I work as a nurse.", "My hamster is called Biscuit.", "We moved to Denver, I live in Denver now."],
        "dave": ["I love baking pineapple upside-down cakes.", "My budget for a stand mixer is under $300."],
        "erin": ["I just started learning the guitar.", "I prefer vegetarian recipes with lentils.", "My sister is called Ana."],
    }
    out = []
    for u, (user, lines) in enumerate(sorted(said.items())):
        for i, line in enumerate(lines):
            when = start + timedelta(days=40 * i, hours=u)
            out += [MessageInput(user, "t1", when, "user", line, user),
                    MessageInput(user, "t1", when + timedelta(minutes=1), "assistant", "Noted.", "panda")]
    return out


def test_sharded_ingest_on_ray_equals_single_process_ingest(tmp_path, embedder, ray_runtime):
    from panda.conversations.ingest import ingest_messages

    messages = _conversations()
    single = Settings(home=tmp_path / "single", backend="scripted")
    ctx = open_home(single, embedder=embedder)
    try:
        report = ingest_messages(ctx, messages)
    finally:
        ctx.catalog.close()
    sharded = Settings(home=tmp_path / "sharded", backend="scripted")
    summary = run_sharded([], sharded, 3, RayExecutor(), embedder=embedder, messages=messages)
    assert not summary["errors"] and summary["new"] == report.new == len(messages)
    assert summary["facts_recorded"] == report.facts_recorded > 0
    assert len(summary["shards"]) == 3 and summary["reduce"]["rows_copied"]["messages"] == len(messages)

    def observed(settings: Settings) -> dict[str, Any]:
        con = duckdb.connect(str(settings.catalog_path), read_only=True)
        try:
            rows = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() if t != "documents" else
                    con.execute("SELECT id, kind, owner_user, md5(search_text), embedding FROM documents ORDER BY id").fetchall()
                    for t in ("messages", "sessions", "threads", "documents")}
            rows["users"] = con.execute("SELECT id, total_threads, total_sessions, total_messages FROM users ORDER BY id").fetchall()
        finally:
            con.close()
        # when it was written: differs between runs (and the change log's HH:MM, when they straddle a minute)
        wall_clock = re.compile(r"(recorded_at=|modified: ')[0-9T:.+-]+Z?|()\b\d{2}:\d{2}(?= (?:created|updated) )")
        rows["files"] = {str(p.relative_to(settings.home)): wall_clock.sub(r"\1", p.read_text())
                         for p in sorted(settings.home.glob("users/**/*.md"))}
        reader = open_home(settings, embedder=embedder, read_only=True)
        try:
            rows["search"] = [(r.id, round(r.score, 6)) for r in reader.memory.search(SearchRequest("where does alice live", user_id="alice",
                                                                                      now=NOW, record=False))]
        finally:
            reader.catalog.close()
        return rows

    a, b = observed(single), observed(sharded)
    assert_same_up_to_rounding(a, b)


def assert_same_up_to_rounding(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Every table, file and search result equal; vectors and scores equal up to float32 rounding. A shard embeds
    its own messages in batches of other shapes than one process does, and some BLAS builds (AVX2 here) round
    differently by shape: the same text's vector differs by ~1e-7, never more than 1e-5."""
    for key in a:
        if key == "documents":
            assert [row[:4] for row in a[key]] == [row[:4] for row in b[key]], "sharded ingest differs in documents"
            assert all(np.allclose(x[4], y[4], atol=1e-5) for x, y in zip(a[key], b[key], strict=True)), "vectors differ"
        elif key == "search":
            assert [i for i, _ in a[key]] == [i for i, _ in b[key]], "sharded ingest ranks the search differently"
            assert np.allclose([s for _, s in a[key]], [s for _, s in b[key]], atol=1e-5), "search scores differ"
        else:
            assert a[key] == b[key], f"sharded ingest differs in {key}"


def test_sharded_eval_gives_the_single_process_scores(tmp_path, embedder, ray_runtime):
    from panda.evaluation.runner import run_eval
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder

    lme = SHARED_DATA / "longmemeval" / "longmemeval_oracle_subset60.json"
    settings = Settings(home=tmp_path / "results", backend="scripted")
    common = {"ks": [1, 5], "retrieval_only": False, "settings": settings, "embedder": embedder, "limit": 6,
              "work_dir": tmp_path}
    single = run_eval("longmemeval", lme, backend=ScriptedBackend(responder=schema_responder), **common)
    sharded = run_eval("longmemeval", lme, backend=None, executor=RayExecutor(), shards=3, **common)
    keep = ("item_id", "conversation", "prediction", "f1", "em", "abstained", "recall", "context_tokens")
    assert [{k: i[k] for k in keep} for i in sharded["items"]] == [{k: i[k] for k in keep} for i in single["items"]]
    assert all(i["prediction"] for i in sharded["items"])
    for metric in ("recall@1", "recall@5", "f1", "exact_match", "abstention_accuracy"):
        assert sharded["metrics"][metric] == single["metrics"][metric]


def test_ray_without_its_extra_is_refused_with_the_extra_named(monkeypatch):
    from panda.errors import BackendUnavailableError
    from panda.sharding.executors import SerialExecutor, make_executor

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the [ray] extra were not installed
    with pytest.raises(BackendUnavailableError, match=r"\[ray\] extra.*--executor serial"):
        make_executor("ray")
    assert isinstance(make_executor("serial"), SerialExecutor)


def test_shards_on_a_local_ray_runtime_run_at_the_commands_priority():
    # Ray starts its workers at nice 15: beside two CPU-bound processes a 12-turn sharded run took 44 minutes
    # (benchmarks/load_test.py). A local runtime that Panda starts runs them at the command's own priority.
    ray = pytest.importorskip("ray")
    if ray.is_initialized():  # the module's ray_runtime fixture started one with Ray's defaults
        ray.shutdown()
    executor = RayExecutor()
    assert executor._connect()
    try:
        niceness = ray.get(ray.remote(lambda: os.nice(0)).remote())
        assert niceness == os.nice(0)
    finally:
        ray.shutdown()
