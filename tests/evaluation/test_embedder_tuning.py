"""The tuned embedder: training pairs, the tuning run itself, and which model a home may be searched with."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from panda.cli import main
from panda.config import Settings
from panda.conversations.ingest import ingest_messages
from panda.conversations.locomo import load_samples, observation_queries
from panda.conversations.messages import MessageInput
from panda.errors import ConfigError
from panda.evaluation.embedder_tuning import (
    HARD_NEGATIVES,
    TUNED_LEXICAL_MIX,
    TUNED_SPEAKER_WEIGHT,
    TrainingPair,
    TuningSettings,
    batch_documents,
    collect_pairs,
    learning_rate_at,
    pairs_for_question,
    tune_embedder,
    tuning_queries,
)
from panda.memory import embeddings
from panda.memory.embeddings import BASE_IDENTITY, MANIFEST, SentenceEmbedder, resolve_model
from panda.memory.search import SearchRequest
from panda.runtime import open_home
from tests.conftest import SHARED_DATA

LOCOMO = SHARED_DATA / "locomo" / "locomo_conv0-7.json"


def test_a_pair_per_found_evidence_turn_with_the_best_non_evidence_turns_as_negatives() -> None:
    texts = {f"D1:{i}": f"turn {i}" for i in range(1, 10)}
    pairs = pairs_for_question("q?", ["D1:3", "D1:3", "D1:5", "D9:9"], ["D1:3", "D1:7", "D1:5", "D1:1", "D8:1", "D1:2",
                                                                          "D1:4", "D1:6", "D1:8"], texts)
    assert [p.evidence for p in pairs] == ["turn 3", "turn 5"]  # duplicate and unknown evidence dropped
    assert pairs[0].negatives == ("turn 7", "turn 1", "turn 2", "turn 4", "turn 6")[:HARD_NEGATIVES]
    assert all("turn 3" not in p.negatives and "turn 5" not in p.negatives for p in pairs)
    assert pairs_for_question("q?", ["D7:1"], [], texts) == []


def test_the_learning_rate_warms_up_then_decays_to_zero() -> None:
    steps = 100
    rates = [learning_rate_at(s, steps) for s in range(steps)]
    assert rates[0] == pytest.approx(0.1) and rates[9] == pytest.approx(0.91)
    assert max(rates) == rates[9] and rates[-1] == pytest.approx(0.01)
    assert all(a >= b for a, b in zip(rates[9:], rates[10:], strict=False))


def test_the_settings_recorded_with_a_model_are_checked_when_chosen() -> None:
    assert TuningSettings(lexical_mix=0.0, speaker_weight=0.0).speaker_weight == 0.0
    with pytest.raises(ValueError, match="lexical mix must be between 0 and 1, got 1.5"):
        TuningSettings(lexical_mix=1.5)
    with pytest.raises(ValueError, match="speaker weight must be 0 or more, got -1"):
        TuningSettings(speaker_weight=-1.0)
    with pytest.raises(ValueError, match=f"hard negatives per pair must be between 0 and {HARD_NEGATIVES}, got 6"):
        TuningSettings(hard_negatives=HARD_NEGATIVES + 1)


def test_a_batch_holds_every_evidence_then_each_pairs_own_hard_negatives() -> None:
    batch = [TrainingPair("q1", "e1", ("a1", "a2", "a3")), TrainingPair("q2", "e2", ("b1",)),
             TrainingPair("q3", "e3", ())]
    documents = batch_documents(batch, 2, random.Random(0))
    assert documents[:3] == ["e1", "e2", "e3"]  # the i-th question's target is the i-th document
    assert len(documents) == 6 and documents[5] == "b1"  # two of q1's, the one q2 has, none for q3
    assert len(set(documents[3:5])) == 2 and set(documents[3:5]) <= {"a1", "a2", "a3"}
    assert batch_documents(batch, 0, random.Random(0)) == ["e1", "e2", "e3"]
    one = [batch_documents(batch, 1, random.Random(seed))[3] for seed in range(40)]
    assert set(one) == {"a1", "a2", "a3"}  # drawn afresh, not always the first
    many = [TrainingPair(f"q{i}", f"e{i}", tuple(f"n{i}.{j}" for j in range(i % 6))) for i in range(300)]
    before, now = random.Random(3), random.Random(3)  # one negative: exactly the draws of the one-negative recipe
    assert batch_documents(many, 1, now) == [p.evidence for p in many] + [before.choice(p.negatives) for p in many
                                                                          if p.negatives]


def test_observation_statements_become_queries_with_their_evidence_turns_and_session_time() -> None:
    sample = {"conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_2_date_time": "9:00 am on 1 June, 2023"},
              "observation": {"session_1_observation": {"Ann": [["Ann adopted a greyhound.", "D1:3"],
                                                                ["Ann moved twice.", ["D1:4", "D1:9"]],
                                                                ["No evidence here.", ""]]},
                              "session_2_observation": {"Bo": [["Bo plays violin.", "D2:1; D2:5"]]},
                              "session_2_summary": {"Bo": [["not an observation", "D2:1"]]}}}
    queries = observation_queries(sample)
    assert [(text, ids) for text, ids, _ in queries] == [("Ann adopted a greyhound.", ["D1:3"]),
                                                         ("Ann moved twice.", ["D1:4", "D1:9"]),
                                                         ("Bo plays violin.", ["D2:1", "D2:5"])]
    assert queries[0][2] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC) and queries[2][2].month == 6
    assert observation_queries({"conversation": {}}) == []
    odd = {"conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023"},
           "observation": {"session_1_observation": {"Ann": ["a bare string", [], ["Ann sings.", "D1:2"]], "Bo": None}}}
    assert [text for text, _, _ in observation_queries(odd)] == ["Ann sings."]
    with pytest.raises(ValueError, match="conv-x: observation.session_3_observation has no conversation.session_3_date_time"):
        observation_queries({"sample_id": "conv-x", "conversation": {}, "observation": {"session_3_observation": {}}})


@pytest.mark.skipif(not LOCOMO.exists(), reason="needs ../shared/data/locomo")
def test_tuning_queries_add_the_tuning_conversations_observations_and_no_others() -> None:
    bench, questions = tuning_queries("locomo", LOCOMO, ["conv-30"], observations=False)
    _, both = tuning_queries("locomo", LOCOMO, ["conv-30"], observations=True)
    assert len(questions) == sum(1 for q in bench.questions if q.evidence) and both[:len(questions)] == questions
    added = both[len(questions):]
    assert len(added) > 100 and {user for user, *_ in added} == {"conv-30"}
    turn_ids = {m.external_id for m in bench.messages}
    assert all(set(evidence) <= turn_ids for _, _, evidence, _ in added)
    other = {text for text, _, _ in observation_queries(load_samples(LOCOMO, ["conv-26"])[0])}
    assert not other & {query for _, query, _, _ in added}
    asked = {q.asked_at for q in bench.questions}
    assert all(when < min(asked) for *_, when in added)  # asked in its session, before the questions


@pytest.mark.skipif(not LOCOMO.exists(), reason="needs ../shared/data/locomo")
def test_tuning_on_one_conversation_pulls_its_questions_towards_their_evidence(tmp_path: Path,
                                                                             embedder: SentenceEmbedder) -> None:
    base = SentenceEmbedder("base")
    pairs = collect_pairs("locomo", LOCOMO, ["conv-30"], tmp_path, base)
    assert len(pairs) > 100 and all(p.negatives for p in pairs)
    out = tmp_path / "tuned"
    report = tune_embedder([("locomo", LOCOMO, ["conv-30"])], out, TuningSettings(epochs=1, observations=False),
                           work_dir=tmp_path)
    manifest = json.loads((out / MANIFEST).read_text())
    assert report.pairs == manifest["pairs"] == len(pairs)
    assert manifest["speaker_weight"] == TUNED_SPEAKER_WEIGHT
    assert manifest["lexical_mix"] == TUNED_LEXICAL_MIX and manifest["sources"] == ["locomo:locomo_conv0-7.json (conv-30)"]
    tuned = SentenceEmbedder(str(out))
    assert tuned.lexical_mix == TUNED_LEXICAL_MIX and tuned.speaker_weight == TUNED_SPEAKER_WEIGHT
    assert tuned.identity.startswith("tuned@")
    assert base.identity == BASE_IDENTITY and base.lexical_mix is None and base.speaker_weight is None

    def margin(model: SentenceEmbedder) -> float:  # cosine to the evidence minus cosine to the first negative
        q = model.embed([p.question for p in pairs])
        e = model.embed([p.evidence for p in pairs])
        n = model.embed([p.negatives[0] for p in pairs])
        return float(np.mean((q * e).sum(1) - (q * n).sum(1)))

    assert margin(tuned) > margin(base) + 0.05
    assert not list(tmp_path.glob(".tuned-*")) and not list(tmp_path.glob("panda-tune-*"))  # no staging left


def test_a_tuned_model_is_used_only_when_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANDA_MODEL_CACHE", str(tmp_path))
    assert resolve_model("minilm") == resolve_model("base") == embeddings.default_model_path()
    tuned = tmp_path / embeddings.TUNED_FOLDER
    tuned.mkdir()
    (tuned / MANIFEST).write_text(json.dumps({"lexical_mix": 0.3, "speaker_weight": 0.25, "created_at": "2026-11-22T23:00:00+00:00"}))
    (tuned / "config.json").write_text(json.dumps({"hidden_size": 384}))
    assert resolve_model("base") == embeddings.default_model_path()  # a built tuned model never replaces a profile
    assert resolve_model(str(tuned)) == str(tuned)
    described = SentenceEmbedder(str(tuned))  # the weights are not loaded until a text is embedded
    assert described.identity == "embedder-tuned@2026-11-22T23:00:00+00:00" and described.lexical_mix == 0.3
    assert described.speaker_weight == 0.25


class Relabelled:
    """The real embedder under another identity: what a home sees when the configured model changes."""

    def __init__(self, inner: SentenceEmbedder, identity: str, lexical_mix: float | None = None,
                 speaker_weight: float | None = None) -> None:
        self.inner, self.identity, self.lexical_mix, self.dim = inner, identity, lexical_mix, inner.dim
        self.speaker_weight = speaker_weight

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed(texts)


def _one_message(home: Path, embedder: object) -> None:
    ctx = open_home(Settings(home=home, backend="scripted"), embedder=embedder)  # type: ignore[arg-type]
    try:
        ingest_messages(ctx, [MessageInput(user_id="dana", thread_id="t", timestamp=datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
                                           role="user", content="I adopted a greyhound called Pixel")])
    finally:
        ctx.catalog.close()


def test_a_home_is_searched_only_with_the_embedder_that_made_its_vectors(tmp_path: Path,
                                                                        embedder: SentenceEmbedder) -> None:
    home = tmp_path / "home"
    first, second = Relabelled(embedder, "model-one"), Relabelled(embedder, "model-two", 0.3, 0.25)
    _one_message(home, first)
    with pytest.raises(ConfigError, match="model-one.*model-two.*panda reindex"):
        open_home(Settings(home=home), embedder=second)  # type: ignore[arg-type]
    from panda.jobs.reindex import reindex

    ctx = open_home(Settings(home=home), embedder=second, reembedding=True)  # type: ignore[arg-type]
    try:
        report = reindex(ctx)
        assert report.messages == 1
        assert ctx.catalog.setting(embeddings.EMBEDDER_SETTING) == "model-two"
        assert ctx.memory.lexical_mix() == 0.3  # the embedder's own mix, the policy setting none
        assert ctx.memory.speaker_weight() == 0.25
        retrieval = ctx.memory.policy.retrieval.model_copy(update={"speaker_weight": 2.0, "lexical_mix": 0.5})
        ctx.memory.policy = ctx.memory.policy.model_copy(update={"retrieval": retrieval})
        assert ctx.memory.speaker_weight() == 2.0 and ctx.memory.lexical_mix() == 0.5  # the policy's, when set
        assert ctx.memory.search(SearchRequest("greyhound", user_id="dana"))[0].snippet.count("Pixel")
    finally:
        ctx.catalog.close()
    with pytest.raises(ConfigError, match="model-two"):
        open_home(Settings(home=home), embedder=first)  # type: ignore[arg-type]
    open_home(Settings(home=home), embedder=second).catalog.close()  # type: ignore[arg-type]


def test_a_home_older_than_the_record_belongs_to_the_base_model(tmp_path: Path, embedder: SentenceEmbedder) -> None:
    home = tmp_path / "home"
    _one_message(home, Relabelled(embedder, BASE_IDENTITY))
    ctx = open_home(Settings(home=home), embedder=Relabelled(embedder, BASE_IDENTITY))  # type: ignore[arg-type]
    ctx.catalog.con.execute("DELETE FROM catalog_settings")  # as a catalog from before stop 23 has it
    ctx.catalog.close()
    with pytest.raises(ConfigError, match="all-MiniLM-L6-v2"):
        open_home(Settings(home=home), embedder=Relabelled(embedder, "tuned@x"))  # type: ignore[arg-type]
    ctx = open_home(Settings(home=home), embedder=Relabelled(embedder, BASE_IDENTITY))  # type: ignore[arg-type]
    assert ctx.memory.lexical_mix() == 0.65  # neither policy nor embedder sets one: the base model's
    assert ctx.memory.speaker_weight() == 1.0
    ctx.catalog.close()


def test_an_interrupted_reindex_leaves_a_home_no_model_may_search(tmp_path: Path, embedder: SentenceEmbedder,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    _one_message(home, Relabelled(embedder, "model-one"))
    from panda.jobs import reindex as reindex_module

    def crash(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("panda.conversations.ingest.index_transcripts", crash)
    ctx = open_home(Settings(home=home), embedder=Relabelled(embedder, "model-two"), reembedding=True)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        reindex_module.reindex(ctx)
    ctx.catalog.close()
    for identity in ("model-one", "model-two"):
        with pytest.raises(ConfigError, match="reindex-incomplete"):
            open_home(Settings(home=home), embedder=Relabelled(embedder, identity))  # type: ignore[arg-type]


def test_tune_embedder_needs_a_source(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tune-embedder", "--out", str(tmp_path / "m")]) == 2
    assert "--locomo FILE" in capsys.readouterr().err
    assert main(["tune-embedder", "--locomo", str(tmp_path / "missing.json")]) == 2
    assert "missing.json does not exist" in capsys.readouterr().err


def test_the_cli_takes_the_recipe_defaults_for_what_it_is_not_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from panda.evaluation import embedder_tuning

    chosen: list[TuningSettings] = []

    def record(sources: object, output: Path, settings: TuningSettings) -> object:
        chosen.append(settings)
        raise ValueError("stopped before tuning")

    monkeypatch.setattr(embedder_tuning, "tune_embedder", record)
    data = tmp_path / "locomo.json"
    data.write_text("[]")
    assert main(["tune-embedder", "--locomo", str(data), "--out", str(tmp_path / "m"), "--learning-rate", "3e-5"]) == 2
    assert chosen == [TuningSettings(learning_rate=3e-5)]
    assert main(["tune-embedder", "--locomo", str(data), "--out", str(tmp_path / "m"), "--no-observations"]) == 2
    assert chosen[1] == TuningSettings(observations=False)
    assert main(["tune-embedder", "--locomo", str(data), "--out", str(tmp_path / "m"), "--hard-negatives", "2"]) == 2
    assert chosen[2] == TuningSettings(hard_negatives=2) and chosen[2] != TuningSettings()
    capsys.readouterr()
    assert main(["tune-embedder", "--locomo", str(data), "--out", str(tmp_path / "m"), "--hard-negatives", "9"]) == 2
    assert len(chosen) == 3 and "hard negatives per pair must be between 0 and 5, got 9" in capsys.readouterr().err


def test_a_manifest_from_before_a_setting_was_recorded_reads_as_built_with_it(tmp_path: Path) -> None:
    tuned = tmp_path / embeddings.TUNED_FOLDER
    tuned.mkdir()
    today = asdict(TuningSettings())
    older = {k: v for k, v in today.items() if k not in ("speaker_weight", "hard_negatives")} | {"learning_rate": 2e-5}
    (tuned / MANIFEST).write_text(json.dumps(older))
    assert embeddings.read_manifest(str(tuned))["hard_negatives"] == 1
    (tuned / MANIFEST).write_text("{}")
    assert embeddings.read_manifest(str(tuned)) == {}  # an empty record fills in nothing: no tuned model is made of it
