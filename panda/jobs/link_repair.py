"""Repair the vault's relative links after files moved or were removed (I/O around vault_links.py).

Jobs that move or remove files (archival, aging, promotion, user deletion) call `repair_links` with
what moved; it walks every markdown file of the vault once and rewrites only links that are broken.
A link is redirected only to a file its holder's owner may read (privacy/visibility.py): a note
demoted back into one user's folder is not re-linked from another user's turn — that link, like a
link to a deleted user's turn, becomes plain text. Idempotent: a second call changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from panda.documents.atomic import atomic_write_text
from panda.documents.vault_links import moved_path, relink
from panda.privacy.visibility import may_read_path, path_owner

SKIPPED_ROOTS = ("catalog", ".obsidian", ".trash")


def vault_files(home: Path) -> set[str]:
    """Every file of the vault as a vault-relative posix path (catalog/ and Obsidian's folders left out)."""
    out: set[str] = set()
    for root, dirs, files in os.walk(home):
        rel_root = Path(root).relative_to(home).as_posix()
        if rel_root == ".":
            dirs[:] = [d for d in dirs if d not in SKIPPED_ROOTS]
            rel_root = ""
        out.update(f"{rel_root}/{f}" if rel_root else f for f in files)
    return out


def repair_links(home: Path, moves: Mapping[str, str], removed: Callable[[str], bool] | None = None,
                 files: set[str] | None = None, removed_text: str | None = None) -> dict[str, int]:
    """Rewrite broken relative links in every markdown file; returns {file: links changed}."""
    files = vault_files(home) if files is None else files
    inverse = {new: old for old, new in moves.items()}
    changed: dict[str, int] = {}
    for rel in sorted(f for f in files if f.endswith(".md")):
        path = home / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            continue
        if "](" not in text:
            continue
        owner = path_owner(rel)

        def readable(target: str, owner: str | None = owner) -> bool:
            return target in files and (owner is None and path_owner(target) is None or
                                        owner is not None and may_read_path(owner, target))

        new_text, count = relink(text, rel, moves, readable, old_source=moved_path(rel, inverse), removed=removed,
                                  removed_text=removed_text)
        if count:
            atomic_write_text(path, new_text)
            changed[rel] = count
    return changed
