"""Reversible escaping of content lines that look like the vault's own structural markers.

A line whose text, after any number of leading 4-space groups, is a marker (a context.md section or
attempt heading, a transcript message heading or comment) gets one more 4-space group on the way
out and loses one on the way in. Every other line is untouched, so ordinary markdown stays as is.

Example: with marker '## §3 Plan', 'x\\n## §3 Plan' -> 'x\\n    ## §3 Plan' -> back to 'x\\n## §3 Plan';
'    ## §3 Plan' -> '        ## §3 Plan' -> back to '    ## §3 Plan'.
"""

from __future__ import annotations

from collections.abc import Callable

INDENT = "    "


def _core(line: str) -> str:
    while line.startswith(INDENT):
        line = line[len(INDENT):]
    return line


def escape(text: str, is_marker: Callable[[str], bool]) -> str:
    return "\n".join(INDENT + line if is_marker(_core(line)) else line for line in text.split("\n"))


def unescape_line(line: str, is_marker: Callable[[str], bool]) -> str:
    return line[len(INDENT):] if line.startswith(INDENT) and is_marker(_core(line)) else line
