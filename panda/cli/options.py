"""What every command shares: the home and engine flags (declared once here), time and file arguments,
how line errors and a busy home are reported."""

from __future__ import annotations

import argparse
import logging
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.config import Settings
from panda.documents.model import parse_time
from panda.errors import ConfigError, MissingInputError
from panda.llm.roles import ROLES

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


def settings_of(args: argparse.Namespace, **overrides: Any) -> Settings:
    from panda.runtime import settings_for

    return settings_for(**{**engine_options(args), **overrides})


def home_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", help="data home (default $PANDA_HOME or data/home/)")
    p.add_argument("--embedding-model", help="embedder: minilm (all-MiniLM-L6-v2, Apache-2.0, fast), gemma "
                                             "(EmbeddingGemma-300M: better recall, slower; Gemma Terms of Use) or a "
                                             "sentence-transformers folder (default $PANDA_EMBEDDING_MODEL, else the "
                                             "one the home was made with, else minilm)")
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


def time_arg(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ConfigError(f"--now expects an ISO 8601 time, got {value!r}") from exc


def input_file(args: argparse.Namespace) -> Path:
    return existing_file(args.file)


def existing_file(name: str, option: str = "") -> Path:
    path = Path(name)
    if not path.exists():  # main() prints "panda CMD: ..." and exits 2
        raise MissingInputError(f"{option + ' ' if option else ''}{path} does not exist")
    return path


def report_errors(errors: list[Any], shown: int = 20) -> None:
    for error in errors[:shown]:
        print(f"skipped {error}", file=sys.stderr)
    if len(errors) > shown:
        print(f"... and {len(errors) - shown} more malformed lines", file=sys.stderr)


def sharding_executor(args: argparse.Namespace) -> tuple[Any, int]:
    """The executor and shard count of `--executor`/`--shards`/`--ray-address` (ray and 2 by default)."""
    from panda.sharding.executors import make_executor

    return make_executor(args.executor or "ray", args.ray_address), args.shards or 2
