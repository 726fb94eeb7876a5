"""Memory change audit: every change to a note is a line and a diff in a change log, linked to its cause.

- Global notes (Knowledge/, Context/Turns) log to Logs/Changes/YYYY-MM-DD.md (research/knowledge.py):
  the line names the note and the turn's opaque provenance hash, and a diff of the note's body follows.
- A user's preferences.md and facts.md log to users/<id>/Logs/Changes/YYYY-MM-DD.md, the line naming
  the turn, message or job that changed them. Departure: seed 003 logs preference writes to the
  vault's Logs/Changes; that folder is global (doctor.py keeps personal data out of it), so a user's
  log lives in her own folder, and goes with it when she is deleted.

Diffs are unified diffs of the changed lines, cut at `MAX_DIFF_LINES`; a change that moves no line
(only a timestamp) logs nothing. Both logs are written only when the policy's write.log_changes is on.
"""

from __future__ import annotations

import difflib
from datetime import datetime
from pathlib import Path

import frontmatter

from panda.documents.atomic import atomic_write_text

MAX_DIFF_LINES = 40


def body_diff(before: str, after: str, name: str) -> str:
    """The unified diff of two versions' bodies (frontmatter left out), or '' when no line moved (pure).

    Example: body_diff('- a\\n', '- a\\n- b\\n', 'prefs.md') -> '--- prefs.md\\n+++ prefs.md\\n@@ -1 +1,2 @@\\n- a\\n+- b'."""
    old = frontmatter.loads(before).content.splitlines() if before else []
    new = frontmatter.loads(after).content.splitlines()
    lines = list(difflib.unified_diff(old, new, name, name, n=0, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more diff lines"]
    return "\n".join(lines)


def append_entry(log: Path, title: str, line: str, diff: str) -> None:
    """Append '- line' and its diff (a fenced block) to a daily change log, created with frontmatter."""
    if log.exists():
        text = log.read_text(encoding="utf-8").rstrip() + "\n"
    else:
        text = frontmatter.dumps(frontmatter.Post(f"# {title}\n", artifact_type="change_log", date=log.stem),
                                 sort_keys=False) + "\n\n"
    text += f"- {line}\n"
    if diff:
        text += "\n  ```diff\n" + "\n".join(f"  {d}" for d in diff.splitlines()) + "\n  ```\n"
    atomic_write_text(log, text)


def user_log_path(user_dir: Path, when: datetime) -> Path:
    return user_dir / "Logs" / "Changes" / f"{when.date().isoformat()}.md"
