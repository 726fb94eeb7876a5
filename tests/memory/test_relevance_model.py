"""The learned relevance: its features, its scaling, which model goes with which embedder, and fitting."""

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from panda.memory import relevance_model
from panda.memory.conversation_signals import SignalWeights
from panda.memory.relevance_model import FEATURES, RelevanceModel, features, fit, for_embedder

AT = datetime(2023, 5, 8, tzinfo=UTC)
NOW = datetime(2023, 12, 1, tzinfo=UTC)


def message(doc_id: str, author: str, turn: int, text: str, cosine: float, session: str = "s1") -> dict:
    return {"id": doc_id, "kind": "message", "keywords": [author], "session_id": session, "turn_number": turn,
            "created_at": AT, "title": "t", "search_text": f"t\n{author}: {text}", "cosine": cosine}


def rows() -> list[dict]:
    return [
        message("m1", "Melanie", 1, "I painted a sunrise last week", 0.6),
        message("m2", "Caroline", 2, "Wow, what inspired it?", 0.5),
        message("m3", "Melanie", 3, "The lake at dawn", 0.2),
        {"id": "n1", "kind": "note", "keywords": ["Melanie"], "session_id": None, "turn_number": None,
         "created_at": AT, "title": "Painting notes", "search_text": "Painting notes\nabout painting", "cosine": 0.4},
    ]


def column(matrix: np.ndarray, name: str) -> list[float]:
    return [round(float(v), 6) for v in matrix[:, FEATURES.index(name)]]


def test_features_read_the_speaker_the_neighbours_the_session_and_the_legs():
    x = features(rows(), {"m1": 4.0, "n1": 2.0}, "What did Melanie paint?", NOW, 0.5, SignalWeights(0.25, 0.4, 1.0))
    assert x.shape == (4, len(FEATURES))
    assert column(x, "cosine") == [0.6, 0.5, 0.2, 0.4]
    assert column(x, "bm25") == [1.0, 0.0, 0.0, 0.5]
    assert column(x, "speaker") == [1.0, 0.0, 1.0, 0.0]  # a note's keyword is no speaker
    assert column(x, "other_speaker") == [0.0, 1.0, 0.0, 0.0]
    # hybrid (mix 0.5): m1 0.5*1 + 0.5*1 = 1 (best), m2 0.5*0.75 = 0.375, m3 0, n1 0.25 + 0.25 = 0.5
    assert column(x, "hybrid") == [1.0, 0.375, 0.0, 0.5]
    assert column(x, "next_turns") == [round((0.375 + 0.0) / 2, 6), 0.0, 0.0, 0.0]
    assert column(x, "previous_turns") == [0.0, 0.5, round((0.375 + 1.0) / 2, 6), 0.0]
    assert column(x, "session_best") == [1.0, 1.0, 1.0, 0.5]  # a note is a session of its own
    assert column(x, "session_size") == [round(float(np.log1p(3)), 6)] * 3 + [round(float(np.log1p(1)), 6)]
    assert column(x, "length")[:3] == [round(float(np.log1p(n)), 6) for n in (7, 5, 5)]  # "Author: text" words
    assert column(x, "length")[3] == round(float(np.log1p(relevance_model.MEDIAN_MESSAGE_WORDS)), 6)
    assert column(x, "cosine_rank") == [0.0, round(float(np.log1p(1)), 6), round(float(np.log1p(3)), 6),
                                        round(float(np.log1p(2)), 6)]
    assert column(x, "date") == [0.0] * 4  # the question names no time
    dated = features(rows(), {}, "What did Melanie do in May 2023?", NOW, 0.5, SignalWeights())
    assert column(dated, "date") == [1.0, 1.0, 1.0, 1.0]


def test_relevance_is_the_log_odds_scaled_over_the_search():
    model = RelevanceModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES),
                           tuple(2.0 if n == "cosine" else 0.0 for n in FEATURES), -1.0)
    x = np.zeros((3, len(FEATURES)))
    x[:, FEATURES.index("cosine")] = [1.0, 0.5, 0.0]
    assert model.relevance(["a", "b", "c"], x) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert model.relevance(["a"], x[:1]) == {"a": 1.0}
    assert model.relevance([], x[:0]) == {}


def test_a_model_for_other_features_is_refused():
    good = RelevanceModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0)
    assert RelevanceModel.from_dict(good.as_dict()) == good
    with pytest.raises(ValueError, match="trained on features"):
        RelevanceModel.from_dict({**good.as_dict(), "names": ["cosine", "bm25"]})
    with pytest.raises(ValueError, match="must each have"):
        RelevanceModel.from_dict({**good.as_dict(), "weights": [1.0]})


def test_which_model_goes_with_which_embedder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    zero = RelevanceModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.5)
    recipe = {"epochs": 3, "learning_rate": 5e-5, "batch_size": 32, "seed": 0, "observations": True}
    (tmp_path / "tuned.json").write_text(relevance_model.packaged_file(zero, "tuned", recipe, {}), encoding="utf-8")
    (tmp_path / "base.json").write_text(relevance_model.packaged_file(zero, "base", None, {}), encoding="utf-8")
    monkeypatch.setattr(relevance_model, "PACKAGED", tmp_path)
    (tmp_path / "gemma.json").write_text(relevance_model.packaged_file(zero, "gemma", None, {}, {"lexical_mix": 0.3}),
                                         encoding="utf-8")
    assert for_embedder({}, "base.json") == zero
    assert for_embedder({**recipe, "lexical_mix": 0.4}, None) == zero  # the search settings do not matter
    assert for_embedder({**recipe, "epochs": 4}, None) is None  # another recipe: other vectors
    assert for_embedder({}, None) is None  # some other sentence-transformers folder, or a truncated profile
    assert for_embedder({}, "missing.json") is None
    own = {**zero.as_dict(), "bias": 2.0}
    assert for_embedder({"relevance_model": own}, None).bias == 2.0  # a manifest's own model first
    assert relevance_model.search_settings("gemma.json") == {"lexical_mix": 0.3}
    assert relevance_model.search_settings("base.json") == {} and relevance_model.search_settings(None) == {}


def test_the_packaged_models_load_and_match_todays_features_and_recipe():
    from dataclasses import asdict

    from panda.evaluation.embedder_tuning import TuningSettings

    for name in ("base", "tuned"):
        path = relevance_model.PACKAGED / f"{name}.json"
        model = RelevanceModel.load(path)
        assert model.names == FEATURES and np.isfinite(model.weights).all()
        data = json.loads(path.read_text(encoding="utf-8"))
        if name == "tuned":  # made for the recipe setup tunes the default with
            recipe = {k: v for k, v in asdict(TuningSettings()).items() if k in relevance_model.RECIPE_FIELDS}
            assert data["recipe"] == recipe
            assert for_embedder(recipe, None) is not None
            assert for_embedder(recipe | {"hard_negatives": 2}, None) is None  # other vectors, no model
    assert for_embedder({}, "base.json") is not None


def test_fit_learns_what_marks_the_evidence():
    rng = np.random.default_rng(0)
    matrices, labels = [], []
    for _ in range(60):
        x = rng.normal(size=(20, len(FEATURES)))
        y = np.zeros(20)
        best = int(np.argmax(x[:, FEATURES.index("cosine")] + 0.1 * rng.normal(size=20)))
        y[best] = 1.0
        matrices.append(x)
        labels.append(y)
    model = fit(matrices, labels, 1.0, "synthetic")
    weights = dict(zip(FEATURES, model.weights, strict=True))
    assert weights["cosine"] == max(weights.values()) and weights["cosine"] > 1.0
    hits = [int(np.argmax(model.logit(x))) == int(np.argmax(y)) for x, y in zip(matrices, labels, strict=True)]
    assert sum(hits) >= 50
