"""Link-following for the context gatherer (seed 002 §6): up to 2 levels deep, within a token budget.

From each gathered document that is a file in the vault, relative markdown links to other vault
files (context.md → research.md → webpage_cache/…/manifest.json, notes → turns) are followed
breadth-first; each linked file contributes an excerpt (frontmatter dropped, first words). Links
out of the vault, web URLs, files already seen and files the user may not read (another user's
turns: privacy/visibility.py) are skipped; following stops at the depth limit
or when the excerpts have used the token budget.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import frontmatter

from panda.documents.budgets import estimate_tokens
from panda.documents.paths import VaultLayout
from panda.errors import UnsafePathError
from panda.privacy.visibility import may_read_path

_LINK = re.compile(r"\]\(((?![a-z]+:)[^)#\s]+\.(?:md|json))(?:#[^)]*)?\)")
EXCERPT_WORDS = 60


@dataclass(frozen=True)
class FollowedLink:
    source: str  # vault-relative path of the document holding the link
    target: str  # vault-relative path of the linked file
    depth: int
    excerpt: str


def relative_links(text: str) -> list[str]:
    """Relative links to .md/.json files, in order, without fragments (pure).

    Example: relative_links('[r](research.md) [w](https://x.com/a.md) [c](../t/context.md#s2)') ->
    ['research.md', '../t/context.md'].
    """
    return list(dict.fromkeys(_LINK.findall(text)))


def excerpt(path: Path, words: int = EXCERPT_WORDS) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        if isinstance(data, dict):
            text = " ".join(str(data.get(k, "")) for k in ("title", "summary", "query", "answerable_questions") if data.get(k))
    else:
        text = frontmatter.loads(text).content
    text = re.sub(r"[#*|>`_]+", " ", text)
    return " ".join(text.split()[:words])


def follow_links(layout: VaultLayout, start: list[str], max_depth: int, budget_tokens: int,
                 user_id: str | None) -> list[FollowedLink]:
    """Excerpts of the files linked from `start`, only those `user_id` may read (privacy/visibility.py)."""
    seen = {s.split("#", 1)[0] for s in start}
    frontier = [(s.split("#", 1)[0], 0) for s in start]
    out: list[FollowedLink] = []
    used = 0
    while frontier:
        rel, depth = frontier.pop(0)
        if depth >= max_depth or not may_read_path(user_id, rel):
            continue
        try:
            path = layout.resolve_relative(rel)
        except UnsafePathError:
            continue
        if not path.is_file() or path.suffix != ".md":
            continue
        for link in relative_links(path.read_text(encoding="utf-8")):
            try:
                target = layout.inside(path.parent / link)
            except UnsafePathError:
                continue
            target_rel = layout.relative(target)
            if target_rel in seen or not target.is_file() or not may_read_path(user_id, target_rel):
                continue
            seen.add(target_rel)
            text = excerpt(target)
            cost = estimate_tokens(text)
            if used + cost > budget_tokens:
                return out
            used += cost
            out.append(FollowedLink(rel, target_rel, depth + 1, text))
            frontier.append((target_rel, depth + 1))
    return out
