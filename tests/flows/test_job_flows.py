"""Every maintenance job's flow runs under Prefect's test harness and publishes its two artifacts."""

import asyncio
from datetime import UTC, datetime, timedelta

from tests.conftest import write_jsonl
from tests.pipeline.test_scheduler import LINES


async def _latest_artifacts() -> dict[str, dict]:
    from prefect.client.orchestration import get_client

    async with get_client() as client:  # explicit body: this server build rejects the nulls read_artifacts() sends
        response = await client._client.post("/artifacts/latest/filter",
                                             json={"limit": 100, "offset": 0, "sort": "CREATED_DESC"})
        response.raise_for_status()
        return {a["key"]: a for a in response.json()}


def test_every_job_flow_runs_and_publishes_artifacts(harness, tmp_path, embedder):
    from flows import jobs
    from flows.turns import process_turn_file

    home = str(tmp_path / "home")
    process_turn_file(str(write_jsonl(tmp_path / "t.jsonl", LINES)), home=home, backend="scripted")
    later = (datetime(2026, 3, 2, tzinfo=UTC) + timedelta(days=45)).isoformat()
    results = {
        "archival": jobs.archival(home=home, now=later),
        "aging": jobs.aging(home=home, now=later, backend="scripted"),
        "promotion": jobs.promotion(home=home, now=later),
        "calibration": jobs.calibration(home=home, now=later),
        "summarisation": jobs.summarisation(home=home, now=later, backend="scripted"),
        "preference-decay": jobs.preference_decay(home=home, now=later),
        "delete-user": jobs.delete_user(user="bob", confirm=True, home=home, now=later),
        "reindex": jobs.reindex(home=home, now=later, dry_run=True),
    }
    assert results["archival"]["counts"]["turns_archived"] == 4
    assert results["summarisation"]["counts"]["session_summaries"] == 4  # 2 users x 2 days of turns
    assert results["delete-user"]["counts"]["folders_removed"] >= 2
    assert results["reindex"]["dry_run"] and results["reindex"]["counts"]["turns"] == 2  # alice's two, archived
    artifacts = asyncio.run(_latest_artifacts())
    for name in results:
        assert {f"panda-job-{name}-counts", f"panda-job-{name}-summary"} <= set(artifacts), name
    assert "turns_archived" in str(artifacts["panda-job-archival-counts"]["data"])
    assert "# Panda job `archival`" in artifacts["panda-job-archival-summary"]["data"]
