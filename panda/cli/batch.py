"""Commands that process input in bulk: `run` (turns through the pipeline, sharded or not), `ingest`
(logged conversations), `enrich` (messages whose enrichment is pending or failed)."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from typing import Any

from panda.cli.options import existing_file, input_file, report_errors, settings_of, sharding_executor
from panda.config import Settings

log = logging.getLogger("panda")


def cmd_run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from panda.pipeline.turn_input import read_turns
    from panda.runtime import enrich_turns, process_turns

    path = input_file(args)
    settings = settings_of(args)
    turns, errors = read_turns(path)
    report_errors(errors)
    if args.shards or args.executor:
        summary = _run_sharded(args, turns, settings)
        if args.enrich:  # after the reduce, in this process
            summary["enrichment"] = enrich_turns(settings, turns)
    else:
        with tqdm(total=len(turns), desc="turns", unit="turn", disable=args.quiet) as bar:
            summary = process_turns(settings, turns, args.enrich, on_turn_done=lambda state, outcome: bar.update(1))
            bar.update(summary["skipped"])  # the turns already done
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
            print(f"answers: {quality['correct']} of {quality['with_expected']} correct (an expected answer in the "
                  f"reply, no stale value, an abstention where nothing was said), mean token F1 {quality['mean_f1']}")
        print(f"LLM: {summary['llm_requests']} requests in {summary['llm_batches']} batches "
              f"(largest {summary['largest_batch']}), {summary['completion_tokens']} completion tokens")
        for shard in summary.get("shards", []):
            where = f"failed: {shard['failed']}" if "failed" in shard else \
                f"on {shard['host']} (pid {shard['pid']}) in {shard['seconds']} s"
            print(f"shard {shard['shard']}: {shard['turns']} turns {where}")
        print(f"vault: {settings.home}")
    return 1 if (errors or summary["errors"]) else 0


def _run_sharded(args: argparse.Namespace, turns: list[Any], settings: Settings, **ingest: Any) -> dict[str, Any]:
    """`--executor ray --shards N`: the batch (turns, or an ingest's messages) sharded by user (sharding.py)."""
    from panda.sharding.shards import run_sharded

    executor, shards = sharding_executor(args)
    with contextlib.redirect_stdout(sys.stderr):  # Ray prints worker deaths on stdout; --json owns stdout
        summary = run_sharded(turns, settings, shards, executor, **ingest)
    if not getattr(args, "quiet", False):
        hosts = sorted({s.get("host", "?") for s in summary["shards"]})
        print(f"{len(summary['shards'])} shards (of {shards} planned; empty ones skipped) ran on {executor.name}: "
              f"hosts {', '.join(hosts)}; reduce {summary['reduce']['seconds']} s", file=sys.stderr)
    return summary


def cmd_ingest(args: argparse.Namespace) -> int:
    from panda.conversations.sources import load_ingest_input
    from panda.runtime import ingest

    path = input_file(args)
    settings = settings_of(args)
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
    report = ingest(settings, messages, args.enrich, args.enrich_limit)
    report.malformed_lines = len(errors)
    print(json.dumps(report.as_dict(), indent=2) if args.json else
          f"messages: {report.new} new, {report.already_known} already known, {report.recovered} recovered, "
          f"{report.malformed_lines} malformed lines; sessions touched {report.sessions_touched}; "
          f"facts/preferences recorded {report.facts_recorded}; enrichment {report.enrichment or 'off'}")
    return 1 if errors else 0


def cmd_enrich(args: argparse.Namespace) -> int:
    from panda.conversations.enrich import enrich_pending
    from panda.runtime import home_with_backend

    with home_with_backend(settings_of(args)) as (ctx, backend):
        counts = enrich_pending(ctx, backend, user_id=args.user, limit=args.limit)
    print(json.dumps(counts))
    return 0 if not counts["failed"] else 1


def cmd_import(args: argparse.Namespace) -> int:
    from panda.conversations.importer import import_export
    from panda.runtime import enrich_users, open_home

    path = existing_file(args.file)
    settings = settings_of(args)
    with open_home(settings) as ctx:
        report = import_export(ctx, path, args.kind, args.user, args.only)
    for error in report.errors[:20]:
        print(f"skipped: {error}", file=sys.stderr)
    if report.stopped:
        print(f"stopped: {report.stopped}", file=sys.stderr)
    summary = report.as_dict()
    if args.enrich and (report.new or report.recovered):
        summary["enrichment"] = enrich_users(settings, [args.user], args.enrich_limit)
    print(json.dumps(summary, indent=2, default=str) if args.json else
          f"{report.conversations} conversations, {report.messages_read} messages ({report.messages_left_out} system, "
          f"tool, hidden or empty left out): {report.new} new, {report.already_known} already known, "
          f"{report.recovered} recovered; sessions touched {report.sessions_touched}; facts/preferences recorded "
          f"{report.facts_recorded}; {report.conversations_skipped} conversations skipped; enrichment "
          f"{summary.get('enrichment') or 'off'}; {report.seconds} s")
    return 1 if report.errors or report.stopped else 0
