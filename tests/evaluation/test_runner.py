"""`panda eval` over real benchmark files (small slices), with the scripted backend for answers."""

import json
from pathlib import Path

import pandera.errors
import pytest

from panda import cli
from panda.evaluation.results import load_items, store_run
from panda.evaluation.runner import run_eval
from panda.llm.scripted import ScriptedBackend
from panda.llm.scripted_replies import schema_responder
from tests.conftest import SHARED_DATA, write_jsonl

LOCOMO = SHARED_DATA / "locomo" / "locomo_conv0-7.json"
LME = SHARED_DATA / "longmemeval" / "longmemeval_oracle_subset60.json"
pytestmark = pytest.mark.skipif(not LOCOMO.exists(), reason="../shared/data is not beside the checkout")


def test_locomo_retrieval_only_scores_and_stores_the_run(ctx, embedder, tmp_path: Path):
    run = run_eval("locomo", LOCOMO, ks=[1, 5, 10], retrieval_only=True, settings=ctx.settings, backend=None,
                   embedder=embedder, only=["conv-30"], limit=25, results_catalog=ctx.catalog, work_dir=tmp_path)
    m = run["metrics"]
    assert m["items"] == 25 and m["mode"] == "retrieval" and m["messages_ingested"] == 369
    assert 0.0 <= m["recall@1"] <= m["recall@5"] <= m["recall@10"] <= 1.0
    assert m["recall@10"] >= 0.5  # real retrieval: plain chance would be ~10/369
    assert m["f1"] is None and set(m["recall_by_category"]) <= {"1", "2", "3", "4", "5"}
    assert m["embedder"] == embedder.identity and m["lexical_mix"] == (embedder.lexical_mix or 0.65)
    stored = load_items(ctx.catalog, run["run_id"])  # validated again on the way out
    assert stored.height == 25 and set(stored["conversation"].to_list()) == {"conv-30"}
    assert json.loads(stored["recall"][0]).keys() == {"1", "5", "10"}


def test_longmemeval_answers_through_the_pipeline_without_touching_memory(ctx, embedder, tmp_path: Path):
    backend = ScriptedBackend(responder=schema_responder)
    run = run_eval("longmemeval", LME, ks=[1, 5], retrieval_only=False, settings=ctx.settings, backend=backend,
                   embedder=embedder, limit=6, results_catalog=ctx.catalog, work_dir=tmp_path)
    m = run["metrics"]
    items = run["items"]
    assert m["items"] == 6 and all(i["prediction"] for i in items)
    assert m["f1"] is not None and 0.0 <= m["f1"] <= 1.0 and set(m["latency_ms_by_phase"]) >= {"analyze", "synthesize"}
    assert any(i["abstention_expected"] for i in items) and m["abstention_accuracy"] is not None
    assert all(i["context_tokens"] is not None for i in items)
    # the six questions' first phase went out as one batch; probes added nothing searchable
    assert len(backend.history[0]) == 6 and {r.phase for r in backend.history[0]} == {"analyze"}
    from panda.catalog.store import Catalog
    eval_catalog = Catalog(Path(m["eval_home"]) / "catalog" / "panda.duckdb")
    kinds = dict(eval_catalog.con.execute("SELECT kind, count(*) FROM documents GROUP BY kind").fetchall())
    assert "context" not in kinds and "memory" not in kinds  # history gave messages (+ facts), questions nothing
    assert kinds["message"] > 0
    assert eval_catalog.table_count("turn_index") == 6
    paths = [r[0] for r in eval_catalog.con.execute("SELECT doc_path FROM turn_index").fetchall()]
    eval_catalog.close()
    section0 = (Path(m["eval_home"]) / paths[0]).read_text().split("## §1")[0]
    assert "**Mode:** probe" in section0  # §0 says what kind of run this was


def test_jsonl_eval_and_cli_json(tmp_path: Path, capsys):
    path = write_jsonl(tmp_path / "e.jsonl", [
        '{"user_id": "u1", "timestamp": "2026-01-01T10:00:00Z", "query": "My cat is called Miso."}',
        '{"user_id": "u1", "timestamp": "2026-01-02T10:00:00Z", "query": "What is my cat called?", "expected": "Miso"}',
    ])
    code = cli.main(["eval", "jsonl", str(path), "--home", str(tmp_path / "home"), "--backend", "scripted",
                     "--k", "1,5", "--json"])
    metrics = json.loads(capsys.readouterr().out)
    assert code == 0 and metrics["items"] == 1 and "f1_by_category" in metrics and "recall@5" in metrics
    assert cli.main(["eval", "jsonl", str(path), "--home", str(tmp_path / "home"), "--k", "x"]) == 2


def test_bad_rows_never_reach_the_results_tables(ctx):
    row = {"run_id": "r", "item_id": "a", "conversation": "c", "category": "4", "question": "q", "gold": "g",
           "prediction": "p", "f1": 1.5, "em": 0.0, "abstention_expected": False, "abstained": False,
           "recall": '{"10": 1.0}', "context_tokens": 3, "latency_ms": 1.0}
    run = {"run_id": "r", "dataset": "jsonl", "source": "x", "mode": "answers", "backend": "scripted", "model": None,
           "started_at": None, "finished_at": None, "items": 1, "metrics": {}}
    with pytest.raises(pandera.errors.SchemaError):
        store_run(ctx.catalog, run, [row])
    assert ctx.catalog.con.execute("SELECT count(*) FROM eval_runs").fetchone()[0] == 0
    store_run(ctx.catalog, run, [{**row, "f1": 1.0, "em": 1.0}])
    assert load_items(ctx.catalog, "r").height == 1




def test_judge_labels_answers_and_stores_label_and_reason(tmp_path: Path, capsys):
    """LoCoMo's J through the CLI: every item with a gold answer gets CORRECT/WRONG and a reason, stored."""
    from panda.catalog.store import Catalog
    from panda.evaluation.results import load_items

    path = write_jsonl(tmp_path / "e.jsonl", [
        '{"user_id": "u1", "timestamp": "2026-01-01T10:00:00Z", "query": "My cat is called Miso."}',
        '{"user_id": "u1", "timestamp": "2026-01-02T10:00:00Z", "query": "What is my cat called?", "expected": "Miso"}',
        '{"user_id": "u1", "timestamp": "2026-01-02T10:05:00Z", "query": "Where was I born?", "expected": "Reykjavik"}',
    ])
    home = tmp_path / "home"
    code = cli.main(["eval", "jsonl", str(path), "--home", str(home), "--backend", "scripted", "--judge", "--json"])
    metrics = json.loads(capsys.readouterr().out)
    assert code == 0 and metrics["judged"] == 2 and metrics["judge_unparsed"] == 0
    assert metrics["J"] == 0.5  # Miso found by the scripted pipeline; nobody said where they were born
    catalog = Catalog(home / "catalog" / "panda.duckdb")
    items = load_items(catalog, metrics["run_id"])
    catalog.close()
    labels = dict(zip(items["gold"].to_list(), items["judge_label"].to_list(), strict=True))
    assert labels == {"Miso": "CORRECT", "Reykjavik": "WRONG"} and all(items["judge_reason"].to_list())
    assert cli.main(["eval", "jsonl", str(path), "--home", str(home), "--retrieval-only", "--judge"]) == 2
