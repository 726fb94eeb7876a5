"""Commands that keep the home healthy: `reindex`, `check` (the doctor), `jobs`, `research`, `tune-embedder`."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.cli.options import existing_file, settings_of, time_arg
from panda.errors import ConfigError, MissingInputError

log = logging.getLogger("panda")


def cmd_reindex(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from panda.jobs.reindex import reindex
    from panda.runtime import open_home

    with open_home(settings_of(args), reembedding=not args.dry_run) as ctx:
        with tqdm(total=0, unit="doc", desc="reindex", file=sys.stderr, disable=args.dry_run) as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            report = reindex(ctx, dry_run=args.dry_run, progress=progress)
    print(json.dumps(report.as_dict()))
    return 0


def cmd_tune_embedder(args: argparse.Namespace) -> int:
    from panda.evaluation.embedder_tuning import TuningSettings, tune_embedder
    from panda.memory.embeddings import tuned_model_path

    sources = [(name, existing_file(getattr(args, name), f"--{name}"), args.only)
               for name in ("locomo", "longmemeval") if getattr(args, name)]
    if not sources:
        print("panda tune-embedder: give --locomo FILE and/or --longmemeval FILE", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else tuned_model_path()
    try:
        # the options given; the rest are the recipe's defaults, kept in one place (TuningSettings)
        options = ("epochs", "learning_rate", "seed", "lexical_mix", "speaker_weight", "hard_negatives")
        given = {name: getattr(args, name) for name in options if getattr(args, name) is not None}
        chosen = TuningSettings(observations=not args.no_observations, **given)
        report = tune_embedder(sources, out, chosen)
    except ValueError as exc:
        print(f"panda tune-embedder: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.as_dict()))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """The vault doctor (panda/doctor.py). Takes the writer lock so vault and catalog hold still."""
    from panda.doctor import check_home
    from panda.runtime import open_home

    with open_home(settings_of(args)) as ctx:
        report = check_home(ctx, compare_catalog=not args.skip_catalog)
    print(json.dumps(report.as_dict(), ensure_ascii=False) if args.json else report.markdown(limit=args.show))
    return 0 if report.ok else 1


def cmd_jobs(args: argparse.Namespace) -> int:
    from datetime import UTC

    from panda.jobs.registry import run_job
    from panda.runtime import make_backend, open_home

    settings = settings_of(args)
    options: dict[str, Any] = {}
    if args.name == "delete-user":
        if not args.user:
            raise ConfigError("delete-user needs the user id: panda jobs delete-user USER --confirm")
        options = {"user": args.user, "confirm": args.confirm}
    with open_home(settings) as ctx:
        report = run_job(args.name, ctx, time_arg(args.now) or datetime.now(UTC), dry_run=args.dry_run,
                         backend_factory=lambda: make_backend(settings), **options)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        print(report.markdown(limit=args.show))
    return 0


def cmd_research(args: argparse.Namespace) -> int:
    from datetime import UTC

    from panda.runtime import open_home

    now = time_arg(args.now) or datetime.now(UTC)
    with open_home(settings_of(args)) as ctx:
        if args.action == "ingest":
            from panda.research.corpus import ingest_corpus

            folder = Path(args.target)
            if not folder.is_dir():
                raise MissingInputError(f"{folder} is not a folder of saved HTML pages")
            report = ingest_corpus(ctx, folder, now)
            for skipped in report.skipped:
                print(f"{skipped['file']}: skipped: {skipped['reason']}", file=sys.stderr)
            if args.json:
                print(json.dumps(report.as_dict()))
            else:
                print(f"{report.pages} pages: {report.indexed} indexed, {report.unchanged} unchanged, "
                      f"{len(report.skipped)} skipped; languages {dict(report.languages)}; {report.seconds} s")
            return 0
        from panda.research.search import research_search

        found = research_search(ctx, args.target, args.user, now, limit=args.limit)
        if args.json:
            print(json.dumps({"query_sent": found.query_sent, "removed": found.removed,
                              "results": [r.as_dict() for r in found.results]}, default=str))
        else:
            print(f"query sent: {found.query_sent!r}" + (f" (removed {found.removed})" if found.removed else ""))
            for rank, r in enumerate(found.results, 1):
                print(f"{rank:>2}. {r.score:.3f}  {r.title[:80]}  {r.doc_path}")
        return 0
