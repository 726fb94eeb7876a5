"""Cache-first context (seed 002 §5): what the user's webpage cache already says, before any tool runs.

When gather finds the user's earlier research turns, the pages those turns visited are in their
`webpage_cache/` folders. The seed's priority order decides what of them goes into §2, within a token
budget:

| priority | source | answers |
|---|---|---|
| 1 | manifest.json's summary and answerable questions | simple facts about the page |
| 2 | extracted_data.json: products (price, vendor, specs) and claims | structured data |
| 3 | page_content.md: the passage most similar to the query | full-text questions |
| 4 | navigate again | volatile data gone stale: the entry is marked, the planner's research.search re-reads it |
| 5 | search | no prior visit: nothing here, the planner searches |

So the budget goes to every page's manifest first, then to extracted data, then to passages; within a
level, the pages most similar to the query come first. Volatile extracted data (prices, stock) older
than the time-sensitive half-life is still shown, marked stale with the date it was read, so the
answer does not pass an old price off as today's. Only the user's own cache is read (one rule:
privacy/visibility.may_read_path); a page visited by several turns is read from its newest entry.

Worked example: a follow-up "what did the RTX 3080 cost at that shop?" two days after a research turn
→ §2 gets "cached summary (tomshardware.com): …", then "cached data: RTX 3080 — $699 (Newegg) …"; a
month later the same line reads "… — $699 (Newegg) [read 2026-03-02; prices may have changed]".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import frontmatter

from panda.config import Policy
from panda.documents.budgets import estimate_tokens
from panda.documents.model import parse_time
from panda.documents.paths import VaultLayout
from panda.privacy.visibility import may_read_path
from panda.research.cache import is_stale
from panda.research.extract import markdown_to_text

LEVELS = ("summary", "data", "passage")  # the seed's priorities 1-3
PASSAGE_WORDS = 60
MAX_PAGES = 12  # cache entries read per gather


@dataclass(frozen=True)
class CachedItem:
    folder: str  # vault-relative cache folder
    url: str
    domain: str
    level: str  # one of LEVELS
    text: str
    stale: bool = False  # volatile data past its freshness: re-read the page for current values (priority 4)

    @property
    def source_file(self) -> str:
        return {"summary": "manifest.json", "data": "extracted_data.json", "passage": "page_content.md"}[self.level]

    def line(self) -> str:
        return f"cached {self.level} ({self.domain}): {self.text}"


def turn_folder(doc_path: str) -> str | None:
    """The turn folder a gathered document lives in, if it is a turn's file (pure).

    Example: 'users/dave/turns/turn_000001/research.md' -> 'users/dave/turns/turn_000001';
    'archive/2026-01/dave/turn_000001/context.md#s2' -> 'archive/2026-01/dave/turn_000001'; 'Web/a/b.md' -> None."""
    parts = PurePosixPath(doc_path.split("#", 1)[0]).parts
    for i, part in enumerate(parts[:-1]):
        if re.fullmatch(r"turn_\d{6}", part):
            return "/".join(parts[:i + 1])
    return None


def cache_entries(layout: VaultLayout, doc_paths: list[str], user_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(folder, manifest) of the complete cache entries of the turns behind `doc_paths` that `user_id` may
    read; one per URL, the newest capture."""
    by_url: dict[str, tuple[str, dict[str, Any]]] = {}
    turns = list(dict.fromkeys(t for p in doc_paths if (t := turn_folder(p)) and may_read_path(user_id, t)))
    for turn in turns:
        root = layout.resolve_relative(turn) / "webpage_cache"
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            manifest_path = folder / "manifest.json"
            if not manifest_path.is_file():
                continue  # no manifest: an incomplete entry
            try:
                manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            url = str(manifest.get("url") or "")
            captured = parse_time(manifest.get("captured_at"))
            kept = by_url.get(url)
            if captured is None or (kept and (parse_time(kept[1].get("captured_at")) or captured) >= captured):
                continue
            by_url[url] = (layout.relative(folder), manifest)
    return list(by_url.values())[:MAX_PAGES]


def summary_text(manifest: dict[str, Any]) -> str:
    """Priority 1 (pure). Example: {'title': 'T', 'summary': 'S.', 'answerable_questions': ['Q?']} ->
    'T: S. Answers: Q?'."""
    questions = "; ".join(str(q) for q in manifest.get("answerable_questions", [])[:3])
    text = f"{manifest.get('title') or manifest.get('url', '')}: {' '.join(str(manifest.get('summary', '')).split())}"
    return text + (f" Answers: {questions}" if questions else "")


def data_text(extracted: dict[str, Any], stale_since: datetime | None) -> str:
    """Priority 2 (pure): products with price, vendor and specs, then claims; stale prices say so.

    Example: products [{'name': 'RTX 3080', 'price': '$699', 'vendor': 'Newegg', 'specs': ['10 GB']}] ->
    'RTX 3080 — $699 (Newegg), 10 GB'."""
    products = []
    for p in extracted.get("products", [])[:4]:
        item = str(p.get("name", ""))
        if p.get("price"):
            item += f" — {p['price']}" + (f" ({p['vendor']})" if p.get("vendor") else "")
        if p.get("specs"):
            item += ", " + ", ".join(str(s) for s in p["specs"][:3])
        products.append(item)
    claims = [str(c.get("text", "")) for c in extracted.get("claims", [])[:3] if c.get("text")]
    text = "; ".join(products + claims)
    if text and stale_since is not None and products:
        text += f" [read {stale_since.date().isoformat()}; prices may have changed]"
    return text


def best_passage(text: str, relevance: Callable[[list[str]], list[float]], words: int = PASSAGE_WORDS) -> str:
    """Priority 3: the window of `words` words (half-overlapping) the query is most similar to."""
    tokens = text.split()
    if len(tokens) <= words:
        return " ".join(tokens)
    windows = [" ".join(tokens[i:i + words]) for i in range(0, len(tokens) - words // 2, words // 2)][:40]
    scores = relevance(windows)
    return windows[max(range(len(windows)), key=lambda i: scores[i])]


def page_passage(layout: VaultLayout, folder: str, relevance: Callable[[list[str]], list[float]]) -> str:
    path = layout.resolve_relative(folder) / "page_content.md"
    if not path.is_file():
        return ""
    return best_passage(markdown_to_text(frontmatter.loads(path.read_text(encoding="utf-8")).content), relevance)


def cached_items(layout: VaultLayout, doc_paths: list[str], user_id: str, now: datetime, policy: Policy,
                 budget_tokens: int, relevance: Callable[[list[str]], list[float]]) -> list[CachedItem]:
    """The cache's answer to a query in the seed's priority order, within `budget_tokens`."""
    entries = cache_entries(layout, doc_paths, user_id)
    if not entries or budget_tokens <= 0:
        return []
    order = relevance([summary_text(m) for _, m in entries])
    entries = [e for _, e in sorted(zip(order, entries, strict=True), key=lambda pair: -pair[0])]
    out: list[CachedItem] = []
    spent = 0
    for level in LEVELS:
        for folder, manifest in entries:
            url, domain = str(manifest.get("url", "")), str(manifest.get("domain") or "local")
            stale = is_stale(manifest, now, policy)
            if level == "summary":
                text = summary_text(manifest)
            elif level == "data":
                extracted = _json(layout.resolve_relative(folder) / "extracted_data.json")
                read = parse_time(manifest.get("prices_at")) or parse_time(manifest.get("captured_at"))
                text = data_text(extracted, read if stale else None)
            elif budget_tokens - spent < PASSAGE_WORDS:
                break  # no room for a passage: do not embed the pages' windows for nothing
            else:
                text = page_passage(layout, folder, relevance)
            cost = estimate_tokens(text)
            if not text.strip() or spent + cost > budget_tokens:
                continue
            spent += cost
            out.append(CachedItem(folder, url, domain, level, text, stale and level == "data"))
    return out


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
