"""The learned relevance (memory/relevance_model.py) under the 2-fold discipline (issue 12), and the packaged
models it writes.

For each report half H (A = conv-26/30/41/42, B = conv-43/44/47/48), the other half T is the tuning half:
1. `--embedder fold` (the default): H is searched with the embedder tuned on T (as benchmarks/locomo_folds.py
   does), and T's labelled searches (evaluation/relevance_training.py) come from two inner embedders, each
   tuned on one pair of T's conversations and searching the other pair: every feature is what an embedder
   shows on a conversation it never saw, as the deployed one meets new conversations. `--embedder gemma` or
   `minilm` (`base` is minilm's old name): that pretrained profile throughout (nothing tuned: it never saw any
   of these conversations, so the inner searches and the report half's all come from the same model).
2. The L2 strength is chosen by an inner 2-fold over T's pairs (fit on one pair's searches, recall@10 over
   categories 1-4 on the other pair's, the mean both ways), beside the hand-set relevance there.
3. The model fitted on all of T's searches with that strength scores H through `panda eval locomo
   --retrieval-only` in process, beside the same run with the hand-set relevance: the reported figures.
`--write`: the packaged model (panda/memory/relevance_models/{gemma,base,tuned}.json), fitted on all eight
conversations' searches, each searched by an embedder that never saw it (a report half by the fold embedder,
its tuning half by the inner embedders; one half run covers all eight, both give each conversation twice),
with the strength the inner folds chose (the better inner mean if they differ).
Tuned embedders are kept in `--models` and reused (~20 min per fold embedder, ~10 per inner one, on 2 cores).
Usage: python benchmarks/relevance_model_folds.py [--embedder fold|gemma|minilm] [--models DIR] [--write] [--halves A,B]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import statistics
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from panda.catalog.conversations import Conversations
from panda.config import Settings
from panda.conversations.ingest import ingest_messages
from panda.evaluation.embedder_tuning import TuningSettings, tune_embedder
from panda.evaluation.relevance_training import LabelledSearch, labelled_searches, recall_at
from panda.evaluation.runner import LOADERS, Benchmark, run_eval, summarise
from panda.memory import embedder_profiles, relevance_model
from panda.memory.embeddings import SentenceEmbedder
from panda.runtime import open_home

HALVES = {"A": ["conv-26", "conv-30", "conv-41", "conv-42"], "B": ["conv-43", "conv-44", "conv-47", "conv-48"]}
# The fold embedders' tuning, as benchmarks/locomo_folds.py chose it (its lexical mix per tuning half).
FOLD_TUNING = {"A": TuningSettings(epochs=3, lexical_mix=0.3), "B": TuningSettings(epochs=3, lexical_mix=0.4)}
STRENGTHS = (0.1, 1.0)
CATEGORIES = (1, 2, 3, 4)  # the headline's; adversarial questions (5) ask after the other speaker
KS = [1, 5, 10, 25]
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_conv0-7.json"


_PROFILE_EMBEDDERS: dict[str, Any] = {}


def embedder_for(models: Path, name: str, convs: list[str], tuning: TuningSettings, data: Path,
                 profile: str | None) -> Any:
    """A pretrained profile's model (`profile`: gemma, minilm; loaded once), or the model tuned on `convs` kept in
    models/name (tuned now if missing)."""
    if profile is not None:
        if profile not in _PROFILE_EMBEDDERS:
            _PROFILE_EMBEDDERS[profile] = SentenceEmbedder(profile)
        return _PROFILE_EMBEDDERS[profile]
    folder = models / name
    if not (folder / "panda_embedder.json").is_file():
        tune_embedder([("locomo", data, convs)], folder, tuning, work_dir=models)
    return SentenceEmbedder(str(folder))


def searches_of(embedder: Any, data: Path, convs: list[str], work: Path, cache: Path) -> list[LabelledSearch]:
    """The labelled searches of `convs`, their messages embedded by `embedder` in a fresh home (kept in `cache`,
    a pickle of this script's own, named by the embedder, the conversations, the features and the evidence
    as the loader reads it)."""
    bench = LOADERS["locomo"](data, convs, None)
    evidence = [(q.item_id, q.evidence) for q in bench.questions]
    key = hashlib.sha256(repr((embedder.identity, convs, relevance_model.FEATURES, evidence)).encode()).hexdigest()[:16]
    kept = cache / f"searches-{key}.pkl"
    if kept.is_file():
        with kept.open("rb") as f:
            return pickle.load(f)  # noqa: S301 - written by this script into its own folder
    searches = labelled(embedder, bench, work)
    with kept.open("wb") as f:
        pickle.dump(searches, f)
    return searches


def labelled(embedder: Any, bench: Benchmark, work: Path) -> list[LabelledSearch]:
    ctx = open_home(Settings(home=Path(tempfile.mkdtemp(dir=work))), embedder=embedder)
    try:
        ingest_messages(ctx, bench.messages)
        return labelled_searches(ctx.memory, Conversations(ctx.catalog), bench.questions)
    finally:
        ctx.catalog.close()


def fitted(searches: list[LabelledSearch], strength: float, name: str) -> relevance_model.RelevanceModel:
    kept = [s for s in searches if s.category in CATEGORIES]
    return relevance_model.fit([s.features for s in kept], [s.labels for s in kept], strength, name)


def hand_scores(searches: list[LabelledSearch]) -> list[np.ndarray]:
    adjusted = relevance_model.FEATURES.index("adjusted")
    return [s.features[:, adjusted] for s in searches]


def inner_choice(pairs: list[list[LabelledSearch]]) -> dict[str, float]:
    """Recall@10 cat 1-4 of each strength (and of the hand-set relevance, `hand`) by the inner 2-fold."""
    table = {"hand": statistics.mean(recall_at(p, hand_scores(p)) for p in pairs)}
    for strength in STRENGTHS:
        models = [fitted(pairs[i], strength, "inner") for i in (0, 1)]
        table[str(strength)] = statistics.mean(
            recall_at(pairs[1 - i], [models[i].logit(s.features) for s in pairs[1 - i]]) for i in (0, 1))
    return {k: round(v, 4) for k, v in table.items()}


def eval_half(data: Path, convs: list[str], embedder: Any, model: relevance_model.RelevanceModel | None,
              work: Path) -> dict[str, Any]:
    embedder.relevance_model = model
    run = run_eval("locomo", data, ks=KS, retrieval_only=True, settings=Settings(home=work / "results"),
                   backend=None, embedder=embedder, only=convs, work_dir=work)
    metrics = summarise(run["items"], KS, {})
    return {**{f"recall@{k}_cat1_4": metrics[f"recall@{k}_cat1_4"] for k in KS},
            "recall@10_by_category": {metrics["category_names"][c]: v["10"] for c, v in metrics["recall_by_category"].items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", choices=["fold", "gemma", "minilm", "base"], default="fold")
    parser.add_argument("--models", default=str(Path.home() / ".cache" / "panda" / "relevance-folds"))
    parser.add_argument("--halves", default="A,B", help="report halves to score (the packaged model needs both)")
    parser.add_argument("--write", action="store_true", help="write the packaged model (every conversation is searched "
                        "by an embedder that never saw it once one half is done: its tuning half by the inner embedders)")
    parser.add_argument("--no-report", action="store_true", help="skip the report half's eval runs (with --write)")
    parser.add_argument("--learned-only", action="store_true", help="report the learned relevance only (not also the "
                                                                     "hand-set one)")
    args = parser.parse_args()
    data, models = Path(args.file), Path(args.models)
    profile = embedder_profiles.profile_name(args.embedder) if args.embedder != "fold" else None
    models.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"embedder": args.embedder}
    chosen: dict[str, tuple[str, float]] = {}
    unseen: list[LabelledSearch] = []  # every conversation searched by an embedder that never saw it
    with tempfile.TemporaryDirectory(dir=models) as tmp:
        work = Path(tmp)
        for half in args.halves.split(","):
            tuning_half = next(h for h in HALVES if h != half)
            convs = HALVES[tuning_half]
            pairs = [convs[:2], convs[2:]]
            inner = [searches_of(embedder_for(models, f"inner-{'-'.join(c[5:] for c in pairs[1 - i])}", pairs[1 - i],
                                              FOLD_TUNING[tuning_half], data, profile), data, pairs[i], work, models)
                     for i in (0, 1)]
            table = inner_choice(inner)
            strength = max(STRENGTHS, key=lambda s: table[str(s)])
            chosen[half] = (str(strength), table[str(strength)])
            model = fitted(inner[0] + inner[1], strength, f"locomo {','.join(convs)} (inner embedders)")
            fold = embedder_for(models, f"tuned-on-{tuning_half}", convs, FOLD_TUNING[tuning_half], data, profile)
            out[half] = {"tuned_on": convs, "inner": table, "strength": strength}
            if not args.no_report:
                out[half].update(learned=eval_half(data, HALVES[half], fold, model, work))
                if not args.learned_only:
                    out[half].update(hand_set=eval_half(data, HALVES[half], fold, None, work))
            print(json.dumps({half: out[half]}), flush=True)
            if args.write:
                unseen += inner[0] + inner[1] + searches_of(fold, data, HALVES[half], work, models)
    if len(out) == 3 and not args.no_report:
        out["mean_recall@10_cat1_4"] = {kind: round(statistics.mean(out[h][kind]["recall@10_cat1_4"] for h in HALVES), 4)
                                        for kind in ("learned", "hand_set") if kind in out["A"]}
    print(json.dumps(out, indent=2))
    if args.write:
        strength = float(max(chosen.values(), key=lambda c: c[1])[0])
        name = "tuned" if profile is None else profile
        model = fitted(unseen, strength, f"locomo conv0-7, each searched by an embedder that never saw it ({name})")
        recipe = None if profile else {k: v for k, v in asdict(TuningSettings()).items()
                                       if k in relevance_model.RECIPE_FIELDS}
        packaged = embedder_profiles.PROFILES[profile].relevance_file if profile else "tuned.json"
        target = relevance_model.PACKAGED / str(packaged)
        target.parent.mkdir(exist_ok=True)
        target.write_text(relevance_model.packaged_file(model, name, recipe, {"strength": strength, "inner": chosen}),
                          encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
