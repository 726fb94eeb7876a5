"""The `panda` argument parser: every command, its flags and the function that runs it."""

from __future__ import annotations

import argparse

from panda.cli.batch import cmd_enrich, cmd_import, cmd_ingest, cmd_run
from panda.cli.memory import cmd_eval, cmd_facts, cmd_search, cmd_stats
from panda.cli.options import engine_args, home_arg
from panda.cli.serving import cmd_serve, cmd_tokens
from panda.cli.upkeep import cmd_check, cmd_jobs, cmd_reindex, cmd_research, cmd_tune_embedder


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

    imports = sub.add_parser("import", help="import a ChatGPT or Claude export (conversations.json or the zip) or an "
                                            "OpenAI-style JSONL file into one user's memory")
    imports.add_argument("kind", choices=["chatgpt", "claude", "openai"])
    imports.add_argument("file", help="conversations.json, the export zip as downloaded, or a .jsonl file")
    imports.add_argument("--user", required=True, help="whose memory the conversations become")
    imports.add_argument("--only", action="append", help="a conversation's title or id (repeatable)")
    home_arg(imports)
    imports.add_argument("--enrich", action=argparse.BooleanOptionalAction, default=True,
                         help="write-time enrichment through the LLM backend after the import (default on)")
    imports.add_argument("--enrich-limit", type=int, help="enrich at most this many pending messages now")
    engine_args(imports)
    imports.add_argument("--json", action="store_true")
    imports.set_defaults(func=cmd_import)

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

    serve = sub.add_parser("serve", help="serve memory to assistants: MCP over stdio (--mcp --user U), or the HTTP "
                                         "API with MCP at /mcp (--http), each request acting as its token's user")
    home_arg(serve)
    serve.add_argument("--mcp", action="store_true", help="MCP over stdio for a local assistant (with --user)")
    serve.add_argument("--http", action="store_true", help="the HTTP API and MCP over streamable HTTP (the default)")
    serve.add_argument("--user", help="with --mcp: the user the local assistant acts for")
    serve.add_argument("--host", default="127.0.0.1", help="bind address (default loopback)")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--allow-remote", action="store_true", help="allow a --host other machines can reach")
    serve.set_defaults(func=cmd_serve)

    tokens = sub.add_parser("tokens", help="API tokens for `panda serve`: create (shown once), list, revoke")
    tokens.add_argument("action", choices=["create", "list", "revoke"])
    tokens.add_argument("id", nargs="?", help="revoke: the token id (tok_...)")
    tokens.add_argument("--user", help="create: whose token; list/revoke: only this user's")
    tokens.add_argument("--label", help="create: what the token is for")
    home_arg(tokens)
    tokens.add_argument("--json", action="store_true")
    tokens.set_defaults(func=cmd_tokens)

    check = sub.add_parser("check", help="the vault doctor: frontmatter, links, catalog == reindex, orphans, "
                                         "private data in global files (exit 1 with the list)")
    home_arg(check)
    check.add_argument("--json", action="store_true")
    check.add_argument("--skip-catalog", action="store_true", help="leave out the catalog == reindex comparison")
    check.add_argument("--show", type=int, default=40, help="findings shown per check (text output)")
    check.set_defaults(func=cmd_check)
    return parser
