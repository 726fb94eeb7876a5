"""The `panda` command line: run turn files, search memory, rebuild the catalog.

parser.py declares the commands; batch.py, memory.py and upkeep.py run them over the library; options.py holds
what they share.

Only this package (and flows/) formats errors for people; the library raises. Exit codes: 0 success,
1 some turns failed or lines were skipped, 2 bad usage or configuration.
"""

from __future__ import annotations

import logging
import os
import sys

from panda.cli.parser import build_parser
from panda.errors import PandaError


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
