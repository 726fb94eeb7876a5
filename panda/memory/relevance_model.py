"""A learned relevance: how likely a search candidate is what the question asks for, from what search knows.

Hand-set, the hybrid relevance is a fixed mix of BM25 and cosine, then three conversation adjustments
(memory/conversation_signals.py), each weight chosen on its own. A logistic model over the same evidence
— the two legs' scores and ranks, the speaker, the next and previous turns, the date match, how the
candidate's session scores, the message's length — weighs them together and
reads their interactions (a named speaker's message that also matches the words). Trained on LoCoMo's
evidence turns under the 2-fold discipline (benchmarks/relevance_model_folds.py): a candidate's features come
from an embedder that never saw its conversation, as a deployed embedder meets a new conversation.

Documents that are not conversation messages get the conversation features' neutral values (no
speaker, no neighbours, a session of their own, the median message length): the
model judges them by their match scores alone.

Which model goes with which embedder (`for_embedder`, the one place that decides): a model recorded in a
tuned embedder's manifest (key `relevance_model`); else, for a tuned embedder, the packaged model for the
packaged tuned recipe (relevance_models/tuned.json: the tuning settings that shape the vectors); else the
packaged model of the embedder's profile (relevance_models/gemma.json for EmbeddingGemma, base.json for
all-MiniLM-L6-v2); else none, and search keeps the hand-set relevance. `retrieval.learned_relevance: false` in the
policy turns it off.

Pure: `features` turns one search's candidates into a matrix; `RelevanceModel.relevance` is a dot product,
min-max scaled per search (best 1, worst 0, as the hand-set relevance is). `fit` (scikit-learn, at training
time only) makes a model from labelled candidates.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from panda.memory import conversation_signals as signals
from panda.memory import scoring

FEATURES = (
    "cosine", "bm25", "hybrid", "adjusted", "speaker", "other_speaker", "next_turns", "previous_turns", "date",
    "session_best", "session_mean", "session_size", "length", "cosine_gap", "cosine_rank", "bm25_rank",
    "below_session_best", "speaker_cosine", "other_speaker_cosine", "cosine_squared", "bm25_squared", "cosine_bm25",
    "cosine_top10", "bm25_top10", "query_length_bm25",
)
# What shapes a tuned embedder's vectors (embedder_tuning.TuningSettings minus the search settings it records).
RECIPE_FIELDS = ("epochs", "learning_rate", "batch_size", "seed", "observations", "hard_negatives")
PACKAGED = Path(__file__).with_name("relevance_models")
MEDIAN_MESSAGE_WORDS = 20  # a non-message document's `length` (LoCoMo's 4,805 messages: median 20 words)


def features(rows: list[dict[str, Any]], lexical: dict[str, float], query: str, now: datetime, lexical_mix: float,
             weights: signals.SignalWeights) -> np.ndarray:
    """One row of FEATURES per candidate row (rows: what search ranks, with `cosine`; lexical: BM25 by id).

    Example: two messages, one by the speaker the question names and also BM25's best, give that row
    speaker 1, bm25 1, bm25_rank log(1) = 0, and the other row other_speaker 1 when it is by the other person.
    """
    ids = [row["id"] for row in rows]
    cosine = {row["id"]: float(row["cosine"] or 0.0) for row in rows}
    matches = signals.date_matches(rows, query, now, weights.date_scale_days)
    hybrid, adjusted = hand_set_relevance(rows, lexical, query, now, lexical_mix, weights, matches)
    authors = [signals.author_of(row) for row in rows]
    speaker = signals.named_speaker(query, {a for a in authors if a})
    is_message = [row.get("kind") == "message" and row.get("turn_number") is not None for row in rows]
    at = {(row.get("session_id"), int(row["turn_number"])): row["id"] for row, m in zip(rows, is_message, strict=True) if m}
    sessions: dict[Any, list[float]] = {}
    for row, m in zip(rows, is_message, strict=True):
        if m:
            sessions.setdefault(row.get("session_id"), []).append(hybrid[row["id"]])
    session_stats = {key: (max(v), sum(v) / len(v), len(v)) for key, v in sessions.items()}
    columns: dict[str, list[float]] = {name: [] for name in (
        "next_turns", "previous_turns", "session_best", "session_mean", "session_size", "length")}
    for row, m in zip(rows, is_message, strict=True):
        if m:
            session, turn = row.get("session_id"), int(row["turn_number"])
            ahead = [at.get((session, turn + 1)), at.get((session, turn + 2))]
            behind = [at.get((session, turn - 1)), at.get((session, turn - 2))]
            best, mean, size = session_stats[session]
            own = signals.own_text(row)
            values = (sum(hybrid[i] for i in ahead if i) / 2, sum(hybrid[i] for i in behind if i) / 2, best, mean,
                      size, len(own.split()))
        else:  # not a conversation message: the neutral values (module docstring)
            values = (0.0, 0.0, hybrid[row["id"]], hybrid[row["id"]], 1, MEDIAN_MESSAGE_WORDS)
        for name, value in zip(columns, values, strict=True):
            columns[name].append(value)
    c = np.array([cosine[i] for i in ids])
    b = np.array([lexical.get(i, 0.0) for i in ids]) / (max(lexical.values(), default=0.0) or 1.0)
    h = np.array([hybrid[i] for i in ids])
    spoken = np.array([float(speaker is not None and a == speaker) for a in authors])
    other = np.array([float(speaker is not None and a is not None and a != speaker) for a in authors])
    cosine_rank = np.empty(len(ids))
    cosine_rank[np.argsort(-c, kind="stable")] = np.arange(len(ids))
    lexical_order = {i: n for n, i in enumerate(sorted(lexical, key=lambda i: -lexical[i]))}
    bm25_rank = np.array([lexical_order.get(i, len(ids)) for i in ids], dtype=np.float64)
    session_best = np.array(columns["session_best"])
    out = np.column_stack([
        c, b, h, [adjusted[i] for i in ids], spoken, other, columns["next_turns"], columns["previous_turns"],
        [matches.get(i, 0.0) for i in ids], session_best, columns["session_mean"], np.log1p(columns["session_size"]),
        np.log1p(columns["length"]), (c.max() if len(ids) else 0.0) - c, np.log1p(cosine_rank),
        np.log1p(bm25_rank), h - session_best, spoken * c, other * c, c * c, b * b, c * b, cosine_rank < 10,
        bm25_rank < 10, math.log(max(len(query.split()), 1)) * b,
    ]) if ids else np.zeros((0, len(FEATURES)))
    return out.astype(np.float64)


def hand_set_relevance(rows: list[dict[str, Any]], lexical: dict[str, float], query: str, now: datetime,
                       lexical_mix: float, weights: signals.SignalWeights,
                       matches: dict[str, float] | None = None) -> tuple[dict[str, float], dict[str, float]]:
    """The hand-set relevance by id, as (hybrid, adjusted): the fixed BM25/cosine mix (scoring.relevance), then
    that after the conversation adjustments, rescaled so the best is 1 again. Search ranks by `adjusted` when no
    learned model goes with the embedder; the model reads both as features. `matches`: the rows' date matches
    when the caller has them (conversation_signals.date_matches)."""
    cosine = {row["id"]: float(row["cosine"] or 0.0) for row in rows}
    hybrid = scoring.relevance(lexical, cosine, lexical_mix)
    return hybrid, scoring.rescaled(signals.adjust(hybrid, rows, query, now, weights, matches))


@dataclass(frozen=True)
class RelevanceModel:
    """Standardised features → logistic probability. `names` must equal FEATURES (a model trained on other
    features is refused when loaded)."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    trained_on: str = ""

    def logit(self, matrix: np.ndarray) -> np.ndarray:
        """The log-odds that each row is evidence."""
        z = (matrix - np.asarray(self.mean)) / np.asarray(self.scale)
        return np.asarray(z @ np.asarray(self.weights) + self.bias)

    def relevance(self, ids: list[str], matrix: np.ndarray) -> dict[str, float]:
        """Relevance by id, the log-odds min-max scaled over this search's candidates (best 1, worst 0), so seed
        001's factors act on it inside the relevance band as on the hand-set relevance (scoring.combine).
        Example: log-odds [2, 0, -2] -> [1.0, 0.5, 0.0]; one candidate -> 1.0."""
        if not ids:
            return {}
        logit = self.logit(matrix)
        low, span = float(logit.min()), float(np.ptp(logit))
        return {i: (float(v) - low) / span if span > 0 else 1.0 for i, v in zip(ids, logit, strict=True)}

    def as_dict(self) -> dict[str, Any]:
        return {"names": list(self.names), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "trained_on": self.trained_on}

    @classmethod
    def load(cls, path: Path) -> RelevanceModel:
        return cls.from_dict(packaged_data(path).get("model") or {}, str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "relevance model") -> RelevanceModel:
        names = tuple(data.get("names") or ())
        if names != FEATURES:
            raise ValueError(f"{source}: trained on features {list(names)}, this Panda computes {list(FEATURES)}")
        sizes = {len(data.get(k) or ()) for k in ("mean", "scale", "weights")}
        if sizes != {len(FEATURES)}:
            raise ValueError(f"{source}: mean, scale and weights must each have {len(FEATURES)} values")
        return cls(names, tuple(map(float, data["mean"])), tuple(float(s) or 1.0 for s in data["scale"]),
                   tuple(map(float, data["weights"])), float(data["bias"]), str(data.get("trained_on", "")))


def fit(matrices: Sequence[np.ndarray], labels: Sequence[np.ndarray], strength: float = 1.0,
        trained_on: str = "") -> RelevanceModel:
    """Fit on labelled searches: one matrix of candidates and one 0/1 label vector per question. A question's
    evidence rows share a weight of 1 (recall counts each question once, however much evidence it has);
    `strength` is the inverse L2 penalty (scikit-learn's C)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack(matrices)
    y = np.concatenate(labels)
    weight = np.concatenate([np.where(lab > 0, 1.0 / max(lab.sum(), 1.0), 1.0) for lab in labels])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=strength, max_iter=5000).fit((x - mean) / scale, y, sample_weight=weight)
    return RelevanceModel(FEATURES, tuple(mean.tolist()), tuple(scale.tolist()), tuple(model.coef_[0].tolist()),
                          float(model.intercept_[0]), trained_on)


def for_embedder(manifest: dict[str, Any], packaged: str | None) -> RelevanceModel | None:
    """The relevance model that goes with an embedder (module docstring): `manifest` is its tuning manifest
    ({} for an untuned model), `packaged` its profile's packaged file (relevance_models/<file>; None: none, e.g.
    a truncated model, whose cosines the packaged model was not fitted on)."""
    if isinstance(manifest.get("relevance_model"), dict):
        return RelevanceModel.from_dict(manifest["relevance_model"], "the embedder manifest's relevance_model")
    if manifest:  # a tuned model: the packaged tuned model, if it was built with that model's recipe
        path = PACKAGED / "tuned.json"
        if not path.is_file():
            return None
        data = packaged_data(path)
        recipe = data.get("recipe") or {}
        if not (recipe and all(manifest.get(k) == recipe.get(k) for k in RECIPE_FIELDS)):
            return None
        return RelevanceModel.from_dict(data.get("model") or {}, str(path))
    if packaged is None or not (PACKAGED / packaged).is_file():
        return None
    return RelevanceModel.from_dict(packaged_data(PACKAGED / packaged).get("model") or {}, str(PACKAGED / packaged))


def search_settings(packaged: str | None) -> dict[str, Any]:
    """The search settings chosen with a packaged model (its "search" object: lexical_mix, speaker_weight), {} if
    none. Example: gemma.json's {"lexical_mix": 0.3} makes memory.search mix BM25 and cosine 0.3 / 0.7."""
    if packaged is None or not (PACKAGED / packaged).is_file():
        return {}
    search = packaged_data(PACKAGED / packaged).get("search")
    return search if isinstance(search, dict) else {}


def packaged_data(path: Path) -> dict[str, Any]:
    """A packaged model file's JSON (packaged_file), read once; a clear error naming the file if unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable relevance model ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a relevance model file must hold a JSON object")
    return data


def packaged_file(model: RelevanceModel, embedder: str, recipe: dict[str, Any] | None, chosen: dict[str, Any],
                  search: dict[str, Any] | None = None) -> str:
    """The JSON of a packaged model: the model, which embedder it goes with, the recipe of a tuned one, how it
    was chosen (benchmarks/relevance_model_folds.py writes it) and the search settings chosen with it."""
    return json.dumps({"embedder": embedder, "recipe": recipe, "chosen": chosen, "search": search or {},
                       "model": model.as_dict()}, indent=1) + "\n"
