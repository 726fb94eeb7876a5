"""Links between vault files: find them, resolve them, and rewrite them when files move (pure).

Two link forms live in the vault. Relative markdown links `[text](../../preferences.md#p1)` are
resolved against the folder of the file that holds them, so they break when either end moves;
[[wiki-links]] name a note by its file stem anywhere in the vault (Obsidian's rule) and break only
when the note is renamed or removed.

Moves are given as a prefix map {old vault path: new vault path} — a turn folder
`users/ann/turns/turn_000003` -> `archive/2026-03/ann/turn_000003`, a note file -> its new file.
`relink` repairs only links that do not resolve where they are now, so it is idempotent and safe to
run again after a crash at any point: a link that already works is never touched.

Worked example: context.md moved from users/ann/turns/turn_000003/ to archive/2026-03/ann/turn_000003/
holds `[prefs](../../preferences.md)`. Now it would resolve to archive/2026-03/preferences.md (missing);
resolved from the old folder it is users/ann/preferences.md (present), so the link becomes
`../../../../users/ann/preferences.md`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

_MARKDOWN_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
_WIKI_LINK = re.compile(r"\[\[([^\]\n]+)\]\]")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    start: int
    end: int
    text: str
    target: str  # without the #fragment
    fragment: str  # '' or '#...'


def is_relative(target: str) -> bool:
    """A link into the vault: not a URL (scheme:), not an anchor, not an absolute path."""
    return bool(target) and not _SCHEME.match(target) and not target.startswith(("#", "/"))


def markdown_links(text: str) -> list[Link]:
    """Relative markdown links in `text`, in order.

    Example: markdown_links('[a](x.md#s) [w](https://e.com)') -> [Link(0, 11, 'a', 'x.md', '#s')].
    """
    out = []
    for m in _MARKDOWN_LINK.finditer(text):
        raw = m.group(2)
        target, sep, fragment = raw.partition("#")
        if is_relative(target):
            out.append(Link(m.start(), m.end(), m.group(1), target, sep + fragment))
    return out


def wiki_targets(text: str) -> list[str]:
    """Note names of [[wiki-links]]: '[[note#head|alias]]' -> 'note'."""
    return [m.group(1).split("|", 1)[0].split("#", 1)[0].strip() for m in _WIKI_LINK.finditer(text)]


def resolve(source: str, target: str) -> str | None:
    """Vault path a link in file `source` points to, or None when it climbs out of the vault.

    Example: resolve('users/ann/turns/turn_000001/context.md', '../../preferences.md') -> 'users/ann/preferences.md'.
    """
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
    return None if joined == ".." or joined.startswith("../") or joined.startswith("/") else joined


def link_between(source: str, target: str) -> str:
    """The relative link from file `source` to vault path `target` (both vault-relative)."""
    return posixpath.relpath(target, posixpath.dirname(source) or ".")


def moved_path(path: str, moves: Mapping[str, str]) -> str | None:
    """Where `path` went under the prefix map `moves` (longest matching prefix), or None.

    Example: moved_path('users/a/turns/turn_000001/context.md', {'users/a/turns/turn_000001': 'archive/2026-03/a/turn_000001'})
    -> 'archive/2026-03/a/turn_000001/context.md'.
    """
    best = None
    for old in moves:
        if (path == old or path.startswith(old + "/")) and (best is None or len(old) > len(best)):
            best = old
    return None if best is None else moves[best] + path[len(best):]


def relink(text: str, source: str, moves: Mapping[str, str], exists: Callable[[str], bool],
           old_source: str | None = None, removed: Callable[[str], bool] | None = None,
           removed_text: str | None = None) -> tuple[str, int]:
    """`text` of the file now at `source` with its broken relative links repaired; returns (text, changed).

    A link that resolves to an existing file is kept. A broken one is looked up where it pointed
    before (from `old_source`, the file's own previous place, if it moved) and through `moves`; the
    first candidate that exists becomes the new link. A broken link whose target `removed` says was
    deliberately deleted, or that moved where this file may not link (`exists` says no), is replaced
    by its plain text (or by `removed_text` when even the link's words must go: a deleted user's titles).
    Anything else is left for `panda check` to report.
    """
    pieces: list[str] = []
    last, changed = 0, 0
    for link in markdown_links(text):
        replacement = _repair(link, source, moves, exists, old_source, removed, removed_text)
        if replacement is None:
            continue
        pieces += [text[last:link.start], replacement]
        last = link.end
        changed += 1
    return "".join(pieces) + text[last:], changed


def _repair(link: Link, source: str, moves: Mapping[str, str], exists: Callable[[str], bool],
            old_source: str | None, removed: Callable[[str], bool] | None, removed_text: str | None) -> str | None:
    here = resolve(source, link.target)
    if here is not None and exists(here):
        return None
    candidates = [here]
    if old_source and old_source != source:
        candidates.append(resolve(old_source, link.target))
    moved_away = False
    for candidate in [c for c in candidates if c is not None]:
        destination = moved_path(candidate, moves)
        moved_away = moved_away or destination is not None
        for path in (destination, candidate):
            if path is not None and path != here and exists(path):
                return f"[{link.text}]({link_between(source, path)}{link.fragment})"
    if removed is not None and any(c is not None and removed(c) for c in candidates):
        return link.text if removed_text is None else removed_text  # gone for good
    if moved_away:
        return link.text  # its target went where this file may not link
    return None
