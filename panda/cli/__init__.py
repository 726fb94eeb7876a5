"""The `panda` command line: run turn files, search memory, rebuild the catalog.

parser.py declares the commands; batch.py, memory.py and upkeep.py run them over the library; options.py holds
what they share.

Only this package (and flows/) formats errors for people; the library raises. Exit codes: 0 success,
1 some turns failed or lines were skipped, 2 bad usage or configuration, 130 or 143 stopped by SIGINT or
SIGTERM (what finished is saved; the engine's processes are stopped on the way out).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any

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
    previous_term = _stop_on(signal.SIGTERM)
    try:
        return int(args.func(args))
    except PandaError as exc:
        print(f"panda {args.command}: {exc}", file=sys.stderr)
        return 2
    except (Stopped, KeyboardInterrupt) as exc:  # the `with` blocks on the way out stopped the engine, closed the home
        name = exc.signal_name if isinstance(exc, Stopped) else "SIGINT"
        print(f"panda {args.command}: stopped by {name}; what finished is saved - run the same command again to "
              "resume", file=sys.stderr)
        return 128 + (exc.number if isinstance(exc, Stopped) else signal.SIGINT)
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)


class Stopped(BaseException):
    """SIGTERM, raised in the main thread: unwinds every `with` and `finally` (the vLLM engine's processes are stopped,
    the home's lock released) like Ctrl-C does. A BaseException, so no `except Exception` along the way swallows it."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number, self.signal_name = number, signal.Signals(number).name


def _stop_on(number: int) -> Any:
    """Turn signal `number` into Stopped for this command (main thread only; elsewhere leave it as it is)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(received: int, _frame: Any) -> None:
        raise Stopped(received)

    return signal.signal(number, stop)
