"""The turn flows run for real under Prefect's test harness (ephemeral API, temporary database)."""

from pathlib import Path

import duckdb
import pytest

from tests.conftest import write_jsonl
from tests.pipeline.test_scheduler import LINES


def test_turn_file_flow_and_inbox(harness, tmp_path: Path, embedder):
    from flows.turns import process_inbox, process_turn_file

    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:2])
    summary = process_turn_file(str(path), home=str(home), backend="scripted")
    assert summary["outcomes"] == {"APPROVE": 2}
    assert (home / "users" / "alice" / "turns" / "turn_000001" / "context.md").exists()

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_jsonl(inbox / "new.jsonl", LINES[2:])
    summaries = process_inbox(str(inbox), home=str(home), backend="scripted")
    assert [s["outcomes"] for s in summaries] == [{"APPROVE": 2}]
    assert (inbox / "done" / "new.jsonl").exists() and not (inbox / "new.jsonl").exists()

    import asyncio

    from prefect.client.orchestration import get_client

    async def latest_artifacts():
        # Explicit body: this server build rejects the nulls the high-level read_artifacts() sends.
        async with get_client() as client:
            response = await client._client.post("/artifacts/latest/filter",
                                                 json={"limit": 50, "offset": 0, "sort": "CREATED_DESC"})
            response.raise_for_status()
            return response.json()

    artifacts = {a["key"]: a for a in asyncio.run(latest_artifacts())}
    assert {"panda-turns-outcomes", "panda-turns-summary"} <= set(artifacts)
    assert "APPROVE" in str(artifacts["panda-turns-outcomes"]["data"])
    assert "new.jsonl" in str(artifacts["panda-turns-summary"]["data"])


def test_flow_command_line_takes_the_run_options(harness, tmp_path: Path, embedder, monkeypatch):
    """`python -m flows.turns` reads `panda run`'s options with the same code: they reach the task's settings."""
    from flows.turns import main
    from panda import runtime

    seen = []
    make_backend = runtime.make_backend
    monkeypatch.setattr(runtime, "make_backend", lambda settings: seen.append(settings) or make_backend(settings))
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:2])
    assert main([str(path), "--home", str(home), "--backend", "scripted", "--model", "tiny", "--role-model", "voice=base",
                 "--base-url", "http://llm:8000/v1", "--embedding-model", "base", "--enrich"]) == 0
    assert (home / "users" / "bob" / "turns" / "turn_000001" / "metadata.json").exists()
    (settings,) = seen
    assert (settings.home, settings.backend, settings.model) == (home, "scripted", "tiny")
    assert settings.role_models == {"VOICE": "base"} and settings.openai_base_url == "http://llm:8000/v1"
    assert settings.embedding_model == "base"
    with duckdb.connect(str(home / "catalog" / "panda.duckdb"), read_only=True) as con:
        statuses = dict(con.execute("SELECT enrichment_status, count(*) FROM messages GROUP BY 1").fetchall())
    assert statuses == {"completed": 4}  # two turns' messages, enriched as `panda run --enrich` does
    with pytest.raises(SystemExit):
        main([str(path), "--home", str(home), "--backend", "scripted", "--role-model", "TONGUE=x"])  # as panda run refuses it


def test_only_transient_failures_are_retried():
    from prefect.states import Failed

    from flows.turns import only_transient
    from panda.errors import ConfigError, TransientError

    assert only_transient(None, None, Failed(data=TransientError("engine died")))  # type: ignore[arg-type]
    assert not only_transient(None, None, Failed(data=ConfigError("bad key")))  # type: ignore[arg-type]


def test_conversation_ingest_flow_and_inbox(harness, tmp_path: Path, embedder):
    from flows.conversations import ingest_file, ingest_inbox

    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "m.jsonl", [
        '{"user_id": "alice", "session_id": "c", "timestamp": "2026-01-10T09:00:00Z", "role": "user", "content": "I live in Boston."}',
        'not json',
    ])
    report = ingest_file(str(path), home=str(home), backend="scripted")
    assert report["new"] == 1 and report["malformed_lines"] == 1 and report["enrichment"]["completed"] == 1
    assert (home / "users" / "alice" / "facts.md").read_text().count("Boston") == 1
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    write_jsonl(inbox / "more.jsonl", [
        '{"user_id": "alice", "session_id": "c", "timestamp": "2026-06-02T09:00:00Z", "role": "user", "content": "We moved to Denver."}'])
    reports = ingest_inbox(str(inbox), home=str(home), backend="scripted", enrich=False)
    assert [r["new"] for r in reports] == [1] and (inbox / "done" / "more.jsonl").exists()
    assert "## History" in (home / "users" / "alice" / "facts.md").read_text()


def test_evaluate_flow_publishes_a_scorecard(harness, tmp_path: Path, embedder):
    from flows.evaluate import evaluate, scorecard

    path = write_jsonl(tmp_path / "e.jsonl", [
        '{"user_id": "u1", "timestamp": "2026-01-01T10:00:00Z", "query": "My cat is called Miso."}',
        '{"user_id": "u1", "timestamp": "2026-01-02T10:00:00Z", "query": "What is my cat called?", "expected": "Miso"}',
    ])
    metrics = evaluate("jsonl", str(path), ks=[1, 5], home=str(tmp_path / "home"), backend="scripted")
    assert metrics["items"] == 1 and metrics["f1"] is not None
    card = scorecard(metrics)
    assert "| recall@5 |" in card and "| f1 |" in card and metrics["run_id"] in card


def test_sharded_flow_fans_out_shards_as_ray_tasks(harness, tmp_path: Path, embedder):
    """The deployment's entrypoint, loaded by path as a Prefect worker loads it (flows/turns.py becomes
    module `turns`), on prefect-ray's RayTaskRunner with a real local Ray runtime: one task per shard,
    one reduce; the Ray workers must be able to import what they are sent."""
    pytest.importorskip("prefect_ray")
    import duckdb
    from prefect.flows import load_flow_from_entrypoint

    flow = load_flow_from_entrypoint(str(Path(__file__).resolve().parents[2] / "flows" / "turns.py")
                                     + ":process_turn_file_sharded")
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES)
    summary = flow(str(path), home=str(home), backend="scripted", shards=2)
    assert summary["outcomes"] == {"APPROVE": 4} and len(summary["shards"]) == 2 and not summary["errors"]
    con = duckdb.connect(str(home / "catalog" / "panda.duckdb"), read_only=True)
    try:
        users = {r[0] for r in con.execute("SELECT DISTINCT user_id FROM turn_index").fetchall()}
        merged = con.execute("SELECT data FROM system_events WHERE event_type = 'shards_merged'").fetchall()
    finally:
        con.close()
    assert users == {"alice", "bob"} and len(merged) == 1
    assert not list((home / "catalog" / "shards").glob("*/*"))  # partitions removed after the reduce


def test_sharded_flow_command_line(harness, tmp_path: Path, embedder):
    from flows.turns import main

    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:2])
    assert main([str(path), "--home", str(home), "--backend", "scripted", "--executor", "ray", "--shards", "2"]) == 0
    assert (home / "users" / "bob" / "turns" / "turn_000001" / "metadata.json").exists()


def test_flows_give_the_ephemeral_server_longer_to_start():
    """A loaded 2-core machine timed out at Prefect's default (20 s): importing the flows raises it, unless the
    operator set it."""
    import os
    import subprocess
    import sys

    code = ("import flows; from prefect.settings import get_current_settings; "
            "print(get_current_settings().server.ephemeral.startup_timeout_seconds)")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "120"
    env["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "45"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "45"
