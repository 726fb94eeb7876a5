"""`panda run`, `panda search`, `panda reindex` from the command line over a temporary home."""

import json
import shutil
from pathlib import Path

import pytest

from panda import cli
from panda.cli.options import settings_of
from panda.memory.search import SearchRequest
from tests.conftest import write_jsonl
from tests.pipeline.test_scheduler import LINES


@pytest.fixture
def cli_embedder(monkeypatch, embedder):
    # Reuse the session's loaded model: the CLI builds its own SentenceEmbedder, which shares the cache.
    return embedder


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_search_rerun_and_reindex_give_the_same_results(tmp_path: Path, capsys, cli_embedder):
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES + ['{"user_id": "carol", "query": "no time"}'])
    code, out, err = run_cli(capsys, "run", str(path), "--home", str(home), "--backend", "scripted", "--quiet")
    assert code == 1  # one malformed line
    assert "APPROVE 4" in out and f"{path}:5: field 'timestamp': is required" in err

    code, out, _ = run_cli(capsys, "search", "hamster Biscuit", "--user", "alice", "--home", str(home), "--json",
                           "--no-record", "--now", "2026-03-05T00:00:00Z")
    before = json.loads(out)
    # the turn that named Biscuit, beside the pet fact it taught ("pet: Syrian hamster named Biscuit")
    assert "users/alice/turns/turn_000001/context.md" in [r["doc_path"] for r in before[:3]]
    assert any(r["title"].startswith("pet: ") and "Biscuit" in r["title"] for r in before[:3])
    # seed 003's priority tier of each result is reported, and a score out of order is explained in the listing
    assert all(r["factors"]["priority_tier"] in (0, 1, 2, 3) for r in before if r["kind"] not in ("fact", "preference"))
    code, listing, _ = run_cli(capsys, "search", "hamster Biscuit", "--user", "alice", "--home", str(home),
                               "--no-record", "--now", "2026-03-05T00:00:00Z")
    shown = [float(line.split()[1]) for line in listing.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert shown and (("priority first" in listing) == any(a < b for a, b in zip(shown, shown[1:], strict=False)))

    code, out, _ = run_cli(capsys, "run", str(path), "--home", str(home), "--backend", "scripted", "--quiet", "--json")
    summary = json.loads(out)
    assert summary["skipped"] == 4 and summary["outcomes"] == {} and summary["turns_in_catalog"] == 4

    shutil.rmtree(home / "catalog")
    code, out, _ = run_cli(capsys, "reindex", "--home", str(home))
    assert code == 0 and json.loads(out)["turns"] == 4
    code, out, _ = run_cli(capsys, "search", "hamster Biscuit", "--user", "alice", "--home", str(home), "--json",
                           "--no-record", "--now", "2026-03-05T00:00:00Z")
    after = json.loads(out)
    # Same ranking; scores equal up to float noise (reindex re-embeds in other batch sizes).
    assert [r["id"] for r in after] == [r["id"] for r in before]
    assert [r["score"] for r in after] == pytest.approx([r["score"] for r in before], abs=1e-4)


def test_bad_policy_is_reported_not_raised(tmp_path: Path, capsys):
    home = tmp_path / "home"
    (home / "Meta" / "Config").mkdir(parents=True)
    (home / "Meta" / "Config" / "memory_config.yaml").write_text("retrieval:\n  wieghts: {}\n")
    code, _, err = run_cli(capsys, "reindex", "--home", str(home))
    assert code == 2 and "retrieval.wieghts" in err


def test_role_model_overrides_are_validated(tmp_path: Path, capsys):
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:1])
    code, _, err = run_cli(capsys, "run", str(path), "--home", str(tmp_path / "h"), "--backend", "scripted",
                           "--role-model", "EYES=x")
    assert code == 2 and "ROLE=MODEL" in err
    args = cli.build_parser().parse_args(["run", "f", "--role-model", "voice=/m/big", "--model", "/m/small"])
    settings = settings_of(args)
    assert settings.role_models == {"VOICE": "/m/big"} and settings.model == "/m/small"


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in ("run", "search", "reindex"):
        assert command in out


def test_reindex_reproduces_every_score_after_mixed_validation_outcomes(ctx, tmp_path: Path):
    from panda.jobs.reindex import reindex
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
    from panda.pipeline.scheduler import run_batch
    from panda.pipeline.turn_input import read_turns

    verdicts = iter(["RETRY", "FAIL"] * 20)

    def mixed(request):
        if request.phase == "validate" and request.user_id == "alice":
            return {"decision": next(verdicts), "quality": 0.3, "issues": "x", "goals": []}
        return schema_responder(request)

    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", LINES + [
        '{"user_id": "alice", "turn_id": "a3", "timestamp": "2026-03-04T09:00:00Z", "query": "I live in Boston; what about Biscuit?"}']))
    run_batch(turns, ctx, ScriptedBackend(responder=mixed))

    def snapshot():
        return [ctx.memory.search(SearchRequest(q, user_id=u, record=False, now=turns[-1].timestamp))
                for q, u in (("hamster Biscuit", "alice"), ("Boston", "alice"), ("laptop GPU", "bob"))]

    before = snapshot()
    docs_before = ctx.catalog.con.execute(
        "SELECT id, usage_count, reference_count, validation_count, validation_success FROM documents ORDER BY id").fetchall()
    assert any(row[3] > row[4] for row in docs_before)  # some trust went down
    reindex(ctx)
    assert ctx.catalog.con.execute(
        "SELECT id, usage_count, reference_count, validation_count, validation_success FROM documents ORDER BY id").fetchall() == docs_before
    after = snapshot()
    assert [[r.id for r in rs] for rs in after] == [[r.id for r in rs] for rs in before]
    assert [r.score for rs in after for r in rs] == pytest.approx([r.score for rs in before for r in rs], abs=1e-4)


def test_panda_jobs_from_the_command_line(tmp_path: Path, capsys, cli_embedder):
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES)
    run_cli(capsys, "run", str(path), "--home", str(home), "--backend", "scripted", "--quiet")
    code, out, _ = run_cli(capsys, "jobs", "archival", "--home", str(home), "--now", "2026-04-10T00:00:00Z",
                           "--dry-run", "--json")
    report = json.loads(out)
    assert code == 0 and report["dry_run"] and report["counts"]["turns_archived"] == 4
    assert (home / "users" / "alice" / "turns" / "turn_000001").exists()  # a dry run writes nothing
    code, out, _ = run_cli(capsys, "jobs", "archival", "--home", str(home), "--now", "2026-04-10T00:00:00Z")
    assert code == 0 and "turns_archived: 4" in out and (home / "archive" / "2026-03" / "alice").exists()

    code, _, err = run_cli(capsys, "jobs", "delete-user", "alice", "--home", str(home))
    assert code == 2 and "--confirm" in err and (home / "archive" / "2026-03" / "alice").exists()
    code, _, err = run_cli(capsys, "jobs", "archival", "--home", str(home), "--now", "next tuesday")
    assert code == 2 and "ISO 8601" in err
    code, out, _ = run_cli(capsys, "jobs", "delete-user", "alice", "--home", str(home), "--confirm", "--json")
    assert code == 0 and json.loads(out)["changed"] > 0 and not (home / "archive" / "2026-03" / "alice").exists()


def test_run_enrich_enriches_the_turns_messages_like_ingested_ones(tmp_path: Path, capsys, cli_embedder):
    """Seed 004: a turn's messages get the same write-time enrichment as an ingested conversation's."""
    import duckdb

    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", LINES[:2])
    code, out, _ = run_cli(capsys, "run", str(path), "--home", str(home), "--backend", "scripted", "--quiet", "--json",
                           "--enrich")
    summary = json.loads(out)
    assert code == 0 and summary["enrichment"]["completed"] == 4  # query and reply of two turns
    con = duckdb.connect(str(home / "catalog" / "panda.duckdb"), read_only=True)
    rows = con.execute("SELECT role, enrichment_status, metadata FROM messages ORDER BY created_at, role").fetchall()
    con.close()
    assert len(rows) == 4 and {r[1] for r in rows} == {"completed"}
    assert all(json.loads(r[2]).get("topics") is not None and "should_summarize" in json.loads(r[2]) for r in rows)
