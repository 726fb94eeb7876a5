"""Link-following for the context gatherer (seed 002 §6): up to 2 levels deep, within a token budget.

From each gathered document that is a file in the vault, relative markdown links to other vault
files (context.md → research.md → webpage_cache/…/manifest.json, notes → turns) are followed
breadth-first; each linked file contributes an excerpt (frontmatter dropped, first words). Links
out of the vault, web URLs, files already seen and files the user may not read (another user's
turns: privacy/visibility.py) are skipped; following stops at the depth limit. The token budget goes
to the excerpts most relevant to the query (the gatherer passes cosine similarity), not to whichever
link came first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
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


MAX_CANDIDATES = 40  # linked files read per gather, before the budget picks among them


def follow_links(layout: VaultLayout, start: list[str], max_depth: int, budget_tokens: int,
                 user_id: str | None,
                 relevance: Callable[[list[str]], list[float]] | None = None) -> list[FollowedLink]:
    """Excerpts of the files linked from `start`, only those `user_id` may read (privacy/visibility.py).

    Every readable linked file up to `max_depth` is a candidate (breadth-first discovery, at most
    MAX_CANDIDATES); with `relevance` (excerpts -> scores, e.g. cosine to the query) the budget goes to
    the most relevant excerpts first, else to discovery order. An excerpt that does not fit is skipped
    and a smaller one may still fit.
    """
    seen = {s.split("#", 1)[0] for s in start}
    frontier = [(s.split("#", 1)[0], 0) for s in start]
    candidates: list[FollowedLink] = []
    while frontier and len(candidates) < MAX_CANDIDATES:
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
            candidates.append(FollowedLink(rel, target_rel, depth + 1, excerpt(target)))
            frontier.append((target_rel, depth + 1))
    if sum(estimate_tokens(c.excerpt) for c in candidates) <= budget_tokens:
        return candidates  # everything fits: no need to score (saves embedding the excerpts)
    return within_budget(candidates, budget_tokens, relevance(
        [c.excerpt for c in candidates]) if relevance and candidates else None)


def within_budget(candidates: list[FollowedLink], budget_tokens: int,
                  scores: list[float] | None) -> list[FollowedLink]:
    """The candidates that fit the budget, most relevant first (pure); kept in discovery order.

    Example: excerpts of 30, 30 and 10 tokens scored 0.1, 0.9, 0.5 with budget 45 -> the second and the
    third (breadth-first order would have spent 30 on the least relevant one).
    """
    order = sorted(range(len(candidates)), key=lambda i: -scores[i]) if scores else list(range(len(candidates)))
    chosen, used = set(), 0
    for i in order:
        cost = estimate_tokens(candidates[i].excerpt)
        if used + cost <= budget_tokens:
            chosen.add(i)
            used += cost
    return [c for i, c in enumerate(candidates) if i in chosen]
