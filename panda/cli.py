"""The `panda` command line: run turn files, search memory, rebuild the catalog.

Only this module (and flows/) formats errors for people; the library raises. Exit codes: 0 success,
1 some turns failed or lines were skipped, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.config import Settings
from panda.documents.model import parse_time
from panda.errors import ConfigError, PandaError
from panda.llm.roles import ROLES

log = logging.getLogger("panda")


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    values: dict[str, Any] = {}
    if getattr(args, "home", None):
        values["home"] = Path(args.home)
    if getattr(args, "backend", None):
        values["backend"] = args.backend
    if getattr(args, "model", None):
        values["model"] = args.model
    if getattr(args, "base_url", None):
        values["openai_base_url"] = args.base_url
    role_models = {}
    for item in getattr(args, "role_model", None) or []:
        role, sep, model = item.partition("=")
        if not sep or role.upper() not in ROLES or not model:
            raise ConfigError(f"--role-model expects ROLE=MODEL with ROLE one of {', '.join(ROLES)}, got {item!r}")
        role_models[role.upper()] = model
    if role_models:
        values["role_models"] = role_models
    values.update(overrides)
    return Settings(**values)


def _now(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ConfigError(f"--now expects an ISO 8601 time, got {value!r}") from exc


def cmd_run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from panda.pipeline.scheduler import run_batch
    from panda.pipeline.turn_input import read_turns
    from panda.runtime import make_backend, open_home

    path = Path(args.file)
    if not path.exists():
        print(f"panda run: {path} does not exist", file=sys.stderr)
        return 2
    settings = _settings(args)
    turns, errors = read_turns(path)
    for error in errors:
        print(f"skipped {error}", file=sys.stderr)
    backend = make_backend(settings)
    ctx = open_home(settings, backend=backend)
    with tqdm(total=len(turns), desc="turns", unit="turn", disable=args.quiet) as bar:
        report = run_batch(turns, ctx, backend, settings.max_active_users,
                           on_turn_done=lambda state, outcome: bar.update(1))
        bar.update(report.skipped)
    summary = report.summary()
    summary["malformed_lines"] = len(errors)
    summary["home"] = str(settings.home)
    summary["turns_in_catalog"] = ctx.catalog.table_count("turn_index")
    ctx.catalog.close()
    backend.close()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items())) or "none run"
        print(f"turns by outcome: {outcomes}; skipped (already done) {report.skipped}; "
              f"malformed lines {len(errors)}; recovered {report.recovered}")
        print(f"LLM: {report.llm_requests} requests in {report.llm_batches} batches "
              f"(largest {report.largest_batch}), {report.completion_tokens} completion tokens")
        print(f"vault: {settings.home}")
    return 1 if (errors or report.errors) else 0


def cmd_search(args: argparse.Namespace) -> int:
    from panda.runtime import open_home

    settings = _settings(args)
    ctx = open_home(settings)
    results = ctx.memory.search(
        args.query, user_id=args.user, limit=args.limit, topic_filter=args.topic,
        content_types=args.content_type or None, scope=args.scope, include_expired=args.include_expired,
        min_quality=args.min_quality, record=not args.no_record, now=_now(args.now),
    )
    ctx.catalog.close()
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2, default=str))
        return 0
    if not results:
        print("no results")
    for rank, r in enumerate(results, 1):
        outdated = "  [may be outdated]" if r.possibly_outdated else ""
        print(f"{rank:>2}. {r.score:.3f}  {r.kind:<10} {r.primary_topic:<24} {r.doc_path}{outdated}")
        print(f"    {r.title[:100]}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from panda.jobs.reindex import reindex
    from panda.runtime import open_home

    ctx = open_home(_settings(args))
    report = reindex(ctx, dry_run=args.dry_run)
    ctx.catalog.close()
    print(json.dumps(report.as_dict()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="panda", description="Batch research-and-memory processor for AI assistants.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    def home_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--home", help="data home (default $PANDA_HOME or data/home/)")

    run = sub.add_parser("run", help="run every turn of a JSONL file through the pipeline")
    run.add_argument("file")
    home_arg(run)
    run.add_argument("--backend", choices=["vllm", "openai", "scripted"], help="LLM backend (default vllm)")
    run.add_argument("--model", help="model name or local HF folder (default: bundled SmolLM2-135M-Instruct)")
    run.add_argument("--role-model", action="append", metavar="ROLE=MODEL",
                     help="serve one role with another model, e.g. VOICE=/models/bigger (repeatable)")
    run.add_argument("--base-url", help="OpenAI-compatible server URL for --backend openai")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.set_defaults(func=cmd_run)

    search = sub.add_parser("search", help="memory.search over every document kind")
    search.add_argument("query")
    search.add_argument("--user", help="search as this user (own documents + global ones)")
    home_arg(search)
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--topic", help="topic filter; pet.hamster matches pet.hamster.syrian")
    search.add_argument("--content-type", action="append", help="content type filter (repeatable)")
    search.add_argument("--scope", choices=["new", "user", "global"])
    search.add_argument("--min-quality", type=float, default=0.0)
    search.add_argument("--include-expired", action="store_true", help="also return expired documents, marked")
    search.add_argument("--no-record", action="store_true", help="do not count this search as a retrieval")
    search.add_argument("--now", help="score recency as of this ISO 8601 time (default: the clock)")
    search.add_argument("--json", action="store_true")
    search.set_defaults(func=cmd_search)

    reindex = sub.add_parser("reindex", help="rebuild the catalog from the vault")
    home_arg(reindex)
    reindex.add_argument("--dry-run", action="store_true")
    reindex.set_defaults(func=cmd_reindex)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return int(args.func(args))
    except PandaError as exc:
        print(f"panda {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
