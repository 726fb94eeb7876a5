"""LoCoMo evidence ids as annotated: malformed entries are read or reported, never silently scored as misses."""

import json
from pathlib import Path

import pytest

from panda import cli
from panda.conversations import locomo
from panda.evaluation.runner import locomo_benchmark
from tests.conftest import SHARED_DATA

KNOWN = {"D1:1", "D1:2", "D8:6", "D9:17", "D11:26"}


@pytest.mark.parametrize(("raw", "found", "unknown"), [
    (["D1:1", "D1:2"], ["D1:1", "D1:2"], []),
    (["D8:6; D9:17"], ["D8:6", "D9:17"], []),  # two ids in one string
    (["D:11:26"], ["D11:26"], []),  # a stray colon
    (["D08:06", "D1:1", "D1:1"], ["D8:6", "D1:1"], []),  # zero-padded, repeated
    (["D"], [], ["D"]),  # no id at all
    (["D10:19", "D1:2"], ["D1:2"], ["D10:19"]),  # past the conversation's turns
    ("D1:2", ["D1:2"], []),  # one string instead of a list
    ([], [], []),
])
def test_evidence_ids_reads_what_the_annotation_names(raw, found, unknown):
    assert locomo.evidence_ids(raw, KNOWN) == (found, unknown)


def test_evidence_ids_without_the_turns_keeps_every_well_formed_id():
    assert locomo.evidence_ids(["D10:19; D:2:3", "D"], None) == (["D10:19", "D2:3"], ["D"])


def sample(evidence: list[list[str]]) -> dict:
    turns = [{"speaker": "Ana" if i % 2 else "Ben", "dia_id": f"D1:{i}", "text": f"line {i} about hiking"}
             for i in range(1, 5)]
    return {"sample_id": "conv-x",
            "conversation": {"speaker_a": "Ana", "speaker_b": "Ben", "session_1_date_time": "1:56 pm on 8 May, 2023",
                             "session_1": turns},
            "qa": [{"question": f"What did Ana say {i}?", "answer": "hiking", "evidence": ev, "category": 4}
                   for i, ev in enumerate(evidence)]}


def test_loader_keeps_the_ids_that_name_turns_and_reports_the_rest(tmp_path: Path):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample([["D1:1; D1:3"], ["D:1:2", "D"], ["D7:1"]])]))
    bench = locomo_benchmark(path, None, None)
    assert [q.evidence for q in bench.questions] == [["D1:1", "D1:3"], ["D1:2"], []]
    assert bench.data_errors == [
        f"{path}: sample conv-x qa[1].evidence: 'D' names no turn of the conversation (left out of the question's evidence)",
        f"{path}: sample conv-x qa[2].evidence: 'D7:1' names no turn of the conversation (left out of the question's evidence)",
    ]


def test_eval_names_the_bad_evidence_and_scores_the_rest(tmp_path: Path, capsys):
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample([["D1:1; D1:3"], ["D"]])]))
    code = cli.main(["eval", "locomo", str(path), "--home", str(tmp_path / "home"), "--retrieval-only", "--k", "1,5",
                     "--json"])
    out = capsys.readouterr()
    metrics = json.loads(out.out)
    assert code == 0 and metrics["items"] == 2
    assert metrics["recall@5"] == 1.0  # the question whose evidence names no turn has none to score
    assert metrics["evidence_errors"] == [f"{path}: sample conv-x qa[1].evidence: 'D' names no turn of the "
                                          "conversation (left out of the question's evidence)"]
    assert f"panda eval: {path}: sample conv-x qa[1].evidence: 'D'" in out.err


@pytest.mark.skipif(not (SHARED_DATA / "locomo").exists(), reason="../shared/data is not beside the checkout")
def test_shared_locomo_malformed_evidence_is_read():
    bench = locomo_benchmark(SHARED_DATA / "locomo" / "locomo_conv0-7.json", None, None)
    painted = next(q for q in bench.questions if q.question == "What did Melanie paint recently?")
    assert painted.evidence == ["D8:6", "D9:17"]
    assert any("conv-42 qa[" in e and "'D'" in e for e in bench.data_errors)
    assert len(bench.data_errors) == 3  # 'D', 'D10:19' (conv-42), 'D4:36' (conv-47): turns that do not exist
