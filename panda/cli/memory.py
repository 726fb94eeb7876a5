"""Commands that read memory: `search`, `facts`, `stats`, and `eval` (the benchmarks)."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from datetime import datetime

from panda.cli.options import input_file, settings_of, sharding_executor, time_arg
from panda.memory.search import SearchRequest

log = logging.getLogger("panda")


def cmd_stats(args: argparse.Namespace) -> int:
    from datetime import UTC, timedelta

    from panda.catalog.conversations import Conversations
    from panda.runtime import open_home

    until = time_arg(args.until) or datetime.now(UTC)
    since = time_arg(args.since) or until - timedelta(hours=args.hours)
    with open_home(settings_of(args), read_only=True) as ctx:
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
    from panda.language.facts import holding
    from panda.runtime import open_home

    when = time_arg(args.as_of)
    out = {}
    with open_home(settings_of(args), read_only=True) as ctx:
        for kind in ("fact", "preference"):
            entries = ctx.vault.memory_file(args.user, kind).entries
            out[kind] = entries if args.history and not when else holding(entries, when)
    for kind, entries in out.items():
        print(f"{kind}s" + (f" true at {when.isoformat()}" if when else "") + ":")
        for e in entries:
            span = f" (until {e.invalid_at.date()})" if e.invalid_at else ""
            since = e.learned_at.date() if e.learned_at else "?"
            print(f"  - {e.key + ': ' if e.key else ''}{e.value}  [since {since}{span}; source {e.source}]")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from panda.errors import HomeBusyError
    from panda.runtime import open_home

    settings = settings_of(args)
    # A search writes only its retrieval record: it takes the home lock if it is free at that moment, else
    # it reads the snapshot and journals the record for the next writer (catalog/journal.py). It never
    # waits: asking "is it free?" and then taking it could lose the lock to a writer in between and wait
    # for that writer's whole batch (seen in benchmarks/load_test.py).
    with contextlib.ExitStack() as stack:
        try:
            ctx = stack.enter_context(open_home(settings, read_only=args.no_record, lock_timeout=0))
        except HomeBusyError:
            ctx = stack.enter_context(open_home(settings, read_only=True))
        results = ctx.memory.search(SearchRequest(
            args.query, user_id=args.user, limit=args.limit, topic_filter=args.topic,
            content_types=args.content_type or None, scope=args.scope, include_expired=args.include_expired,
            min_quality=args.min_quality, record=not args.no_record, now=time_arg(args.now),
            as_of=time_arg(args.as_of) if args.as_of else None, time_range=args.time_range,
        ))
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2, default=str))
        return 0
    if not results:
        print("no results")
    tiers = {0: "  [topic]", 1: "  [tag]", 2: "  [name]"}
    for rank, r in enumerate(results, 1):
        marks = "  [may be outdated]" if r.possibly_outdated else ""
        marks += tiers.get(int(r.factors.get("priority_tier", 3)), "")
        if r.superseded:
            span = f" {r.valid_at:%Y-%m-%d}→{r.invalid_at:%Y-%m-%d}" if r.valid_at and r.invalid_at else ""
            marks += f"  [superseded{span}]"
        print(f"{rank:>2}. {r.score:.3f}  {r.kind:<10} {r.primary_topic:<24} {r.doc_path}{marks}")
        print(f"    {r.title[:100]}")
    if any(a.score < b.score for a, b in zip(results, results[1:], strict=False)):
        print("(results within a band of comparable scores go by seed 003's priority first: topic, tag, name; "
              "policy retrieval.priority_band)")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from panda.evaluation.runner import run_eval
    from panda.runtime import make_backend, open_home

    path = input_file(args)
    try:
        ks = sorted({int(k) for k in args.k.split(",")})
    except ValueError:
        print(f"panda eval: --k expects numbers like 1,5,10,25, got {args.k!r}", file=sys.stderr)
        return 2
    settings = settings_of(args)
    if args.judge and args.retrieval_only:
        print("panda eval: --judge labels answers; it cannot be used with --retrieval-only", file=sys.stderr)
        return 2
    executor, shards = sharding_executor(args) if args.executor or args.shards else (None, 2)
    # Sharded, each shard makes its own answering backend; this process needs one only to judge.
    backend = None if args.retrieval_only or (executor is not None and not args.judge) else make_backend(settings)
    judge = None
    if args.judge:  # the answering backend itself unless another backend or model is asked for
        judge_settings = settings_of(args, **{k: v for k, v in (("backend", args.judge_backend),
                                                                 ("model", args.judge_model)) if v})
        same = (judge_settings.backend, judge_settings.model) == (settings.backend, settings.model)
        judge = backend if same else make_backend(judge_settings)
    try:
        with open_home(settings) as results:
            run = run_eval(args.dataset, path, ks=ks, retrieval_only=args.retrieval_only, settings=settings,
                           backend=backend, only=args.only, limit=args.limit, results_catalog=results.catalog,
                           judge=judge, executor=executor, shards=shards)
    except ValueError as exc:
        print(f"panda eval: {exc}", file=sys.stderr)
        return 2
    finally:
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
