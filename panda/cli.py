"""The `panda` command line: run turn files, search memory, rebuild the catalog.

Only this module (and flows/) formats errors for people; the library raises. Exit codes: 0 success,
1 some turns failed or lines were skipped, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.config import Settings
from panda.documents.model import parse_time
from panda.errors import ConfigError, MissingInputError, PandaError
from panda.llm.roles import ROLES
from panda.memory.search import SearchRequest

log = logging.getLogger("panda")


def role_models(items: list[str] | None) -> dict[str, str]:
    """`--role-model VOICE=M` values as {role: model} (pure). Example: ['voice=/m'] -> {'VOICE': '/m'}."""
    out = {}
    for item in items or []:
        role, sep, model = item.partition("=")
        if not sep or role.upper() not in ROLES or not model:
            raise ConfigError(f"--role-model expects ROLE=MODEL with ROLE one of {', '.join(ROLES)}, got {item!r}")
        out[role.upper()] = model
    return out


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    """The home, backend and model options (home_arg, engine_args) as settings_for's keyword arguments: the
    one reading of them, for `panda` and `python -m flows.turns` alike."""
    return {"home": getattr(args, "home", None), "backend": getattr(args, "backend", None),
            "model": getattr(args, "model", None), "base_url": getattr(args, "base_url", None),
            "role_models": role_models(getattr(args, "role_model", None)) or None,
            "embedding_model": getattr(args, "embedding_model", None),
            "embedding_dim": getattr(args, "embedding_dim", None)}


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    from panda.runtime import settings_for

    return settings_for(**{**engine_options(args), **overrides})


def home_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="data home (default $PANDA_HOME or data/home/)")
    p.add_argument("--embedding-model", help="embedder: gemma (EmbeddingGemma-300M; Gemma Terms of Use), minilm "
                                             "(all-MiniLM-L6-v2, Apache-2.0, faster) or a sentence-transformers folder "
                                             "(default $PANDA_EMBEDDING_MODEL, else the one the home was made with, "
                                             "else gemma on a CPU with native bfloat16 and minilm on others)")
    p.add_argument("--embedding-dim", type=int, help="truncate the vectors (Matryoshka; gemma: 512, 256 or 128; "
                                                     "default $PANDA_EMBEDDING_DIM, else the model's full width)")


def engine_args(p: argparse.ArgumentParser) -> None:
    """The LLM options, declared once for every command that may call a model (`panda run`, ingest and enrich,
    eval, jobs; `python -m flows.turns`)."""
    p.add_argument("--backend", choices=["vllm", "openai", "scripted"], help="LLM backend (default vllm)")
    p.add_argument("--model", help="a profile (small = Qwen2.5-Coder-0.5B, the default; tiny = SmolLM2-135M; "
                                   "base = Qwen2.5-Coder-1.5B), a local HF folder or a model name")
    p.add_argument("--role-model", action="append", metavar="ROLE=MODEL",
                   help="serve one role with another model, e.g. VOICE=/models/bigger (repeatable)")
    p.add_argument("--base-url", help="OpenAI-compatible server URL for --backend openai")


def _now(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ConfigError(f"--now expects an ISO 8601 time, got {value!r}") from exc


def _input_file(args: argparse.Namespace) -> Path:
    return _existing_file(args.file)


def _existing_file(name: str, option: str = "") -> Path:
    path = Path(name)
    if not path.exists():  # main() prints "panda CMD: ..." and exits 2
        raise MissingInputError(f"{option + ' ' if option else ''}{path} does not exist")
    return path


def cmd_run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from panda.conversations.enrich import enrich_turn_messages
    from panda.pipeline.scheduler import run_batch
    from panda.pipeline.turn_input import read_turns
    from panda.runtime import make_backend, open_home

    path = _input_file(args)
    settings = _settings(args)
    turns, errors = read_turns(path)
    report_errors(errors)
    if args.shards or args.executor:
        summary = _run_sharded(args, turns, settings)
        if args.enrich:  # after the reduce, in this process
            backend = make_backend(settings)
            try:
                with open_home(settings, backend=backend) as ctx:
                    summary["enrichment"] = enrich_turn_messages(ctx, backend, turns)
            finally:
                backend.close()
    else:
        backend = make_backend(settings)
        try:
            with open_home(settings, backend=backend) as ctx, \
                    tqdm(total=len(turns), desc="turns", unit="turn", disable=args.quiet) as bar:
                report = run_batch(turns, ctx, backend, settings.max_active_users,
                                   on_turn_done=lambda state, outcome: bar.update(1))
                bar.update(report.skipped)
                summary = report.summary()
                if args.enrich:
                    summary["enrichment"] = enrich_turn_messages(ctx, backend, turns)
                summary["turns_in_catalog"] = ctx.catalog.table_count("turn_index")
        finally:
            backend.close()
    summary["malformed_lines"] = len(errors)
    summary["home"] = str(settings.home)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items())) or "none run"
        print(f"turns by outcome: {outcomes}; skipped (already done) {summary['skipped']}; "
              f"malformed lines {len(errors)}; recovered {summary['recovered']}")
        quality = summary["answers"]
        if quality["with_expected"]:
            print(f"answers: {quality['correct']} of {quality['with_expected']} correct (expected answer in the reply), "
                  f"mean token F1 {quality['mean_f1']}")
        print(f"LLM: {summary['llm_requests']} requests in {summary['llm_batches']} batches "
              f"(largest {summary['largest_batch']}), {summary['completion_tokens']} completion tokens")
        for shard in summary.get("shards", []):
            where = f"failed: {shard['failed']}" if "failed" in shard else \
                f"on {shard['host']} (pid {shard['pid']}) in {shard['seconds']} s"
            print(f"shard {shard['shard']}: {shard['turns']} turns {where}")
        print(f"vault: {settings.home}")
    return 1 if (errors or summary["errors"]) else 0


def _executor(args: argparse.Namespace) -> tuple[Any, int]:
    """The executor and shard count of `--executor`/`--shards`/`--ray-address` (ray and 2 by default)."""
    from panda.sharding.executors import make_executor

    return make_executor(args.executor or "ray", args.ray_address), args.shards or 2


def _run_sharded(args: argparse.Namespace, turns: list[Any], settings: Settings, **ingest: Any) -> dict[str, Any]:
    """`--executor ray --shards N`: the batch (turns, or an ingest's messages) sharded by user (sharding.py)."""
    from panda.sharding.shards import run_sharded

    executor, shards = _executor(args)
    with contextlib.redirect_stdout(sys.stderr):  # Ray prints worker deaths on stdout; --json owns stdout
        summary = run_sharded(turns, settings, shards, executor, **ingest)
    if not getattr(args, "quiet", False):
        hosts = sorted({s.get("host", "?") for s in summary["shards"]})
        print(f"{len(summary['shards'])} shards (of {shards} planned; empty ones skipped) ran on {executor.name}: "
              f"hosts {', '.join(hosts)}; reduce {summary['reduce']['seconds']} s", file=sys.stderr)
    return summary


def report_errors(errors: list[Any], shown: int = 20) -> None:
    for error in errors[:shown]:
        print(f"skipped {error}", file=sys.stderr)
    if len(errors) > shown:
        print(f"... and {len(errors) - shown} more malformed lines", file=sys.stderr)


def cmd_ingest(args: argparse.Namespace) -> int:
    from panda.conversations.enrich import enrich_pending
    from panda.conversations.ingest import ingest_messages
    from panda.conversations.sources import load_ingest_input
    from panda.runtime import make_backend, open_home

    path = _input_file(args)
    settings = _settings(args)
    try:
        messages, errors = load_ingest_input(path, args.format, args.only)
    except (ValueError, KeyError) as exc:
        print(f"panda ingest: {exc}", file=sys.stderr)
        return 2
    report_errors(errors)
    if args.shards or args.executor:
        summary = _run_sharded(args, [], settings, messages=messages, enrich=args.enrich, enrich_limit=args.enrich_limit)
        summary["malformed_lines"] = len(errors)
        print(json.dumps(summary, indent=2, default=str) if args.json else
              f"messages: {summary['new']} new, {summary['already_known']} already known, {summary['recovered']} "
              f"recovered, {len(errors)} malformed lines; sessions touched {summary['sessions_touched']}; facts/preferences "
              f"recorded {summary['facts_recorded']}; enrichment {summary['enrichment'] or 'off'}; "
              f"{len(summary['shards'])} shards")
        return 1 if errors or summary["errors"] else 0
    backend = make_backend(settings) if args.enrich else None
    try:
        with open_home(settings, backend=backend) as ctx:
            report = ingest_messages(ctx, messages)
            report.malformed_lines = len(errors)
            if backend is not None:
                report.enrichment = enrich_pending(ctx, backend, limit=args.enrich_limit)
    finally:
        if backend is not None:
            backend.close()
    print(json.dumps(report.as_dict(), indent=2) if args.json else
          f"messages: {report.new} new, {report.already_known} already known, {report.recovered} recovered, "
          f"{report.malformed_lines} malformed lines; sessions touched {report.sessions_touched}; "
          f"facts/preferences recorded {report.facts_recorded}; enrichment {report.enrichment or 'off'}")
    return 1 if errors else 0


def cmd_enrich(args: argparse.Namespace) -> int:
    from panda.conversations.enrich import enrich_pending
    from panda.runtime import make_backend, open_home

    settings = _settings(args)
    backend = make_backend(settings)
    try:
        with open_home(settings, backend=backend) as ctx:
            counts = enrich_pending(ctx, backend, user_id=args.user, limit=args.limit)
    finally:
        backend.close()
    print(json.dumps(counts))
    return 0 if not counts["failed"] else 1


def cmd_stats(args: argparse.Namespace) -> int:
    from datetime import UTC, timedelta

    from panda.catalog.conversations import Conversations
    from panda.runtime import open_home

    until = _now(args.until) or datetime.now(UTC)
    since = _now(args.since) or until - timedelta(hours=args.hours)
    with open_home(_settings(args), read_only=True) as ctx:
        stats = Conversations(ctx.catalog).usage_stats(since, until, args.user, args.clock)
    if args.json:
        print(json.dumps(stats, indent=2, default=str))
        return 0
    print(f"usage from {stats['since']} to {stats['until']}" + (f" for {args.user}" if args.user else ""))
    llm, retrieval = stats["totals"]["llm"], stats["totals"]["retrieval"]
    print(f"totals: {llm['total_calls']} LLM calls, {llm['total_input_tokens']} in / {llm['total_output_tokens']} out "
          f"tokens, ${llm['total_cost_usd']:.4f}, {llm['error_count']} errors; {retrieval['total_retrievals']} "
          f"retrievals, session cache hit rate {stats['totals']['cache_hit_rate']:.0%}")
    for title, rows in (("LLM calls", stats["llm"]), ("retrievals", stats["retrieval"]),
                        ("messages", stats["messages"]),
                        ("topics suggested outside the vocabulary", stats["suggested_topics"]), ("events", stats["events"])):
        print(f"\n{title}:")
        for row in rows or [{"-": "none"}]:
            print("  " + "  ".join(f"{k}={v}" for k, v in row.items()))
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    from panda.language.facts import true_at
    from panda.runtime import open_home

    when = _now(args.as_of)
    out = {}
    with open_home(_settings(args), read_only=True) as ctx:
        for kind in ("fact", "preference"):
            entries = ctx.vault.memory_file(args.user, kind).entries
            out[kind] = true_at(entries, when) if when else entries if args.history else [e for e in entries if not e.invalid_at]
    for kind, entries in out.items():
        print(f"{kind}s" + (f" true at {when.isoformat()}" if when else "") + ":")
        for e in entries:
            span = f" (until {e.invalid_at.date()})" if e.invalid_at else ""
            since = e.learned_at.date() if e.learned_at else "?"
            print(f"  - {e.key + ': ' if e.key else ''}{e.value}  [since {since}{span}; source {e.source}]")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from panda.evaluation.runner import run_eval
    from panda.runtime import make_backend, open_home

    path = _input_file(args)
    try:
        ks = sorted({int(k) for k in args.k.split(",")})
    except ValueError:
        print(f"panda eval: --k expects numbers like 1,5,10,25, got {args.k!r}", file=sys.stderr)
        return 2
    settings = _settings(args)
    if args.judge and args.retrieval_only:
        print("panda eval: --judge labels answers; it cannot be used with --retrieval-only", file=sys.stderr)
        return 2
    executor, shards = _executor(args) if args.executor or args.shards else (None, 2)
    # Sharded, each shard makes its own answering backend; this process needs one only to judge.
    backend = None if args.retrieval_only or (executor is not None and not args.judge) else make_backend(settings)
    judge = None
    if args.judge:  # the answering backend itself unless another backend or model is asked for
        judge_settings = _settings(args, **{k: v for k, v in (("backend", args.judge_backend),
                                                                 ("model", args.judge_model)) if v})
        same = (judge_settings.backend, judge_settings.model) == (settings.backend, settings.model)
        judge = backend if same else make_backend(judge_settings)
    results = open_home(settings)
    try:
        run = run_eval(args.dataset, path, ks=ks, retrieval_only=args.retrieval_only, settings=settings,
                       backend=backend, only=args.only, limit=args.limit, results_catalog=results.catalog,
                       judge=judge, executor=executor, shards=shards)
    except ValueError as exc:
        print(f"panda eval: {exc}", file=sys.stderr)
        return 2
    finally:
        results.catalog.close()
        for used in {id(b): b for b in (backend, judge) if b is not None}.values():
            used.close()
    metrics = run["metrics"]
    for error in metrics["evidence_errors"]:
        print(f"panda eval: {error}", file=sys.stderr)
    if args.json:
        print(json.dumps(metrics, indent=2))
        return 0
    print(f"{metrics['dataset']} {metrics['mode']} run {metrics['run_id']}: {metrics['items']} questions, "
          f"{metrics['seconds']} s; embedder {metrics['embedder']} (lexical mix {metrics['lexical_mix']}, "
          f"speaker weight {metrics['speaker_weight']}); relevance {metrics.get('relevance', '?')}")
    for k in ks:
        print(f"  recall@{k}: {metrics[f'recall@{k}']}")
    for key in ("f1", "exact_match", "J", "abstention_accuracy", "context_tokens_mean"):
        if metrics.get(key) is not None:
            print(f"  {key}: {metrics[key]}")
    for category, value in metrics["f1_by_category"].items():
        if value is not None:
            print(f"  f1[{category}]: {value}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from panda.runtime import open_home

    settings = _settings(args)
    # A search writes only its retrieval record: it takes the home lock if free, else it reads the
    # snapshot and journals the record for the next writer (catalog/journal.py). It never waits.
    with open_home(settings, read_only=args.no_record or home_busy(settings)) as ctx:
        results = ctx.memory.search(SearchRequest(
            args.query, user_id=args.user, limit=args.limit, topic_filter=args.topic,
            content_types=args.content_type or None, scope=args.scope, include_expired=args.include_expired,
            min_quality=args.min_quality, record=not args.no_record, now=_now(args.now),
            as_of=_now(args.as_of) if args.as_of else None, time_range=args.time_range,
        ))
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2, default=str))
        return 0
    if not results:
        print("no results")
    for rank, r in enumerate(results, 1):
        outdated = "  [may be outdated]" if r.possibly_outdated else ""
        if r.superseded:
            span = f" {r.valid_at:%Y-%m-%d}→{r.invalid_at:%Y-%m-%d}" if r.valid_at and r.invalid_at else ""
            outdated += f"  [superseded{span}]"
        print(f"{rank:>2}. {r.score:.3f}  {r.kind:<10} {r.primary_topic:<24} {r.doc_path}{outdated}")
        print(f"    {r.title[:100]}")
    return 0


def home_busy(settings: Settings) -> bool:
    """True when another process holds the home's writer lock right now (no waiting)."""
    from panda.catalog.home_lock import acquire_writer, release_writer
    from panda.errors import HomeBusyError

    try:
        acquire_writer(settings.catalog_path.parent, timeout=0)
    except HomeBusyError:
        return True
    release_writer(settings.catalog_path.parent, None)
    return False


def cmd_reindex(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from panda.jobs.reindex import reindex
    from panda.runtime import open_home

    ctx = open_home(_settings(args), reembedding=not args.dry_run)
    try:
        with tqdm(total=0, unit="doc", desc="reindex", file=sys.stderr, disable=args.dry_run) as bar:
            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            report = reindex(ctx, dry_run=args.dry_run, progress=progress)
    finally:
        ctx.catalog.close()
    print(json.dumps(report.as_dict()))
    return 0


def cmd_tune_embedder(args: argparse.Namespace) -> int:
    from panda.evaluation.embedder_tuning import TuningSettings, tune_embedder
    from panda.memory.embeddings import tuned_model_path

    sources = [(name, _existing_file(getattr(args, name), f"--{name}"), args.only)
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

    ctx = open_home(_settings(args))
    try:
        report = check_home(ctx, compare_catalog=not args.skip_catalog)
    finally:
        ctx.catalog.close()
    print(json.dumps(report.as_dict(), ensure_ascii=False) if args.json else report.markdown(limit=args.show))
    return 0 if report.ok else 1


def cmd_jobs(args: argparse.Namespace) -> int:
    from datetime import UTC

    from panda.jobs.registry import run_job
    from panda.runtime import make_backend, open_home

    settings = _settings(args)
    options: dict[str, Any] = {}
    if args.name == "delete-user":
        if not args.user:
            raise ConfigError("delete-user needs the user id: panda jobs delete-user USER --confirm")
        options = {"user": args.user, "confirm": args.confirm}
    with open_home(settings) as ctx:
        report = run_job(args.name, ctx, _now(args.now) or datetime.now(UTC), dry_run=args.dry_run,
                         backend_factory=lambda: make_backend(settings), **options)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        print(report.markdown(limit=args.show))
    return 0


def cmd_research(args: argparse.Namespace) -> int:
    from datetime import UTC

    from panda.runtime import open_home

    ctx = open_home(_settings(args))
    now = _now(args.now) or datetime.now(UTC)
    try:
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
    finally:
        ctx.catalog.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="panda", description="Batch research-and-memory processor for AI assistants.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    def shard_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--executor", choices=["ray", "serial"],
                       help="shard the work by user: ray (a local Ray runtime, or --ray-address) or serial (this process)")
        p.add_argument("--shards", type=int, help="number of user shards (with --executor; default 2)")
        p.add_argument("--ray-address", help="join this Ray cluster (e.g. ray://head:10001 or auto) instead of starting one")

    run = sub.add_parser("run", help="run every turn of a JSONL file through the pipeline")
    run.add_argument("file")
    home_arg(run)
    engine_args(run)
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--enrich", action="store_true",
                     help="after the batch, enrich its turns' messages as ingested ones are (seed 004; one more LLM batch)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    shard_args(run)
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
    search.add_argument("--time-range", choices=["today", "week", "recent", "month", "all"],
                        help="seed 001: only documents written in that window (recent = 30 days)")
    search.add_argument("--as-of", help="search memory as it was at this ISO 8601 time: later documents left out, "
                                        "the facts true then")
    search.add_argument("--json", action="store_true")
    search.set_defaults(func=cmd_search)

    ingest = sub.add_parser("ingest", help="store logged conversations (JSONL, LoCoMo or MemoryBank) as memory")
    ingest.add_argument("file")
    home_arg(ingest)
    ingest.add_argument("--format", choices=["auto", "jsonl", "locomo", "memorybank"], default="auto")
    ingest.add_argument("--only", action="append", help="LoCoMo sample id or MemoryBank user name (repeatable)")
    ingest.add_argument("--enrich", action=argparse.BooleanOptionalAction, default=True,
                        help="write-time enrichment through the LLM backend (default on)")
    ingest.add_argument("--enrich-limit", type=int, help="enrich at most this many pending messages now")
    engine_args(ingest)
    ingest.add_argument("--json", action="store_true")
    shard_args(ingest)
    ingest.set_defaults(func=cmd_ingest)

    enrich = sub.add_parser("enrich", help="enrich pending or failed messages")
    home_arg(enrich)
    enrich.add_argument("--user")
    enrich.add_argument("--limit", type=int)
    engine_args(enrich)
    enrich.set_defaults(func=cmd_enrich)

    stats = sub.add_parser("stats", help="usage for a time window: LLM calls, retrievals, messages, events")
    home_arg(stats)
    stats.add_argument("--hours", type=float, default=24.0, help="window length when --since is not given")
    stats.add_argument("--since")
    stats.add_argument("--until")
    stats.add_argument("--user")
    stats.add_argument("--clock", choices=("event", "recorded"), default="event",
                       help="window by when things happened (input time, a job's --now) or by when Panda wrote them")
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(func=cmd_stats)

    facts = sub.add_parser("facts", help="a user's facts and preferences, now or as of a time")
    facts.add_argument("--user", required=True)
    home_arg(facts)
    facts.add_argument("--as-of", help="what was true at this ISO 8601 time")
    facts.add_argument("--history", action="store_true", help="include invalidated entries")
    facts.set_defaults(func=cmd_facts)

    evaluate = sub.add_parser("eval", help="evaluate memory on LoCoMo, LongMemEval or a JSONL with expected answers")
    evaluate.add_argument("dataset", choices=["locomo", "longmemeval", "jsonl"])
    evaluate.add_argument("file")
    home_arg(evaluate)
    evaluate.add_argument("--retrieval-only", action="store_true", help="score memory.search only; no answers")
    evaluate.add_argument("--k", default="1,5,10,25", help="recall cut-offs (default 1,5,10,25)")
    evaluate.add_argument("--only", action="append", help="LoCoMo sample id / LongMemEval question type / user")
    evaluate.add_argument("--limit", type=int, help="questions per conversation (LoCoMo) or in all")
    engine_args(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print one JSON object with every metric")
    evaluate.add_argument("--judge", action="store_true",
                          help="LoCoMo's J: an LLM labels each answer CORRECT/WRONG against the gold (stored per item)")
    evaluate.add_argument("--judge-backend", choices=["vllm", "openai", "scripted"], help="default: --backend")
    evaluate.add_argument("--judge-model", help="default: the answering model (a profile, HF folder or name)")
    shard_args(evaluate)
    evaluate.set_defaults(func=cmd_eval)

    from panda.jobs.registry import JOBS

    jobs = sub.add_parser("jobs", help="run one maintenance job now (what the scheduled deployments run)",
                          description="Jobs: " + ", ".join(JOBS) + ". Every job has --dry-run and --now.")
    jobs.add_argument("name", choices=list(JOBS))
    jobs.add_argument("user", nargs="?", help="delete-user: the user to delete")
    home_arg(jobs)
    jobs.add_argument("--now", help="the job's clock, ISO 8601 (default: now) - simulate months ahead")
    jobs.add_argument("--dry-run", action="store_true", help="report exactly what would change; write nothing")
    jobs.add_argument("--confirm", action="store_true", help="delete-user: required to actually delete")
    engine_args(jobs)
    jobs.add_argument("--show", type=int, default=50, help="changes listed in the printed summary (default 50)")
    jobs.add_argument("--json", action="store_true", help="print the report as JSON (every change)")
    jobs.set_defaults(func=cmd_jobs)

    research = sub.add_parser("research", help="the web corpus: ingest saved HTML pages, research.search over them")
    research.add_argument("action", choices=["ingest", "search"])
    research.add_argument("target", help="ingest: a folder of *.html pages; search: the query")
    home_arg(research)
    research.add_argument("--user", help="search: whose identifying facts are scrubbed from the query too")
    research.add_argument("--limit", type=int, default=5)
    research.add_argument("--now", help="the clock, ISO 8601 (default: now)")
    research.add_argument("--json", action="store_true")
    research.set_defaults(func=cmd_research)

    reindex = sub.add_parser("reindex", help="rebuild the catalog from the vault")
    home_arg(reindex)
    reindex.add_argument("--dry-run", action="store_true")
    reindex.set_defaults(func=cmd_reindex)

    tune = sub.add_parser("tune-embedder", help="opt-in: fine-tune all-MiniLM-L6-v2 on your own labelled conversations "
                                                "(questions and their evidence turns); use it with --embedding-model DIR")
    tune.add_argument("--locomo", help="a LoCoMo JSON file")
    tune.add_argument("--longmemeval", help="a LongMemEval JSON file")
    tune.add_argument("--only", action="append", help="LoCoMo sample id / LongMemEval question type (repeatable)")
    tune.add_argument("--out", help="model folder to write (default: embedder-tuned in the model cache)")
    tune.add_argument("--epochs", type=int, help="default: the recipe's (TuningSettings)")
    tune.add_argument("--learning-rate", type=float, help="default: the recipe's")
    tune.add_argument("--seed", type=int, help="default: the recipe's")
    tune.add_argument("--hard-negatives", type=int, help="near misses per question in each batch (default: the recipe's)")
    tune.add_argument("--no-observations", action="store_true",
                      help="tune on the questions only, not also on LoCoMo's observation statements")
    tune.add_argument("--lexical-mix", type=float, help="BM25's share of relevance to record for this model "
                                                        "(default: the one chosen in the tuning experiments)")
    tune.add_argument("--speaker-weight", type=float, help="the named speaker's lift to record for this model "
                                                           "(default: the one chosen in the tuning experiments)")
    tune.set_defaults(func=cmd_tune_embedder)

    check = sub.add_parser("check", help="the vault doctor: frontmatter, links, catalog == reindex, orphans, "
                                         "private data in global files (exit 1 with the list)")
    home_arg(check)
    check.add_argument("--json", action="store_true")
    check.add_argument("--skip-catalog", action="store_true", help="leave out the catalog == reindex comparison")
    check.add_argument("--show", type=int, default=40, help="findings shown per check (text output)")
    check.set_defaults(func=cmd_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A handler for this command only: called in-process (tests, notebooks) main() leaves logging as it was.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO if args.verbose else logging.WARNING)
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    if args.verbose:
        root.setLevel(logging.INFO)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return int(args.func(args))
    except PandaError as exc:
        print(f"panda {args.command}: {exc}", file=sys.stderr)
        return 2
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)


if __name__ == "__main__":
    sys.exit(main())
