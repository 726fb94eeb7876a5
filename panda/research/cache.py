"""The per-turn webpage cache (seed 002 §5): turn_NNNNNN/webpage_cache/{url_slug}/.

Each visited page leaves three files: manifest.json (what was captured, when, a content summary,
the questions the page can answer, whether its content is volatile), page_content.md (the page's
main text) and extracted_data.json (claims and products from Page Intelligence, each with the URL it
came from). `find_cached` is the cache-first lookup: the newest entry for a URL among the user's
turns, unless it is stale — volatile content (prices, stock) after the time-sensitive half-life
(7 days), static content after the research expiry (180 days).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import frontmatter

from panda.config import Policy
from panda.documents.atomic import atomic_write_json, atomic_write_text
from panda.documents.model import iso, parse_time
from panda.documents.paths import slugify, validate_name
from panda.documents.vault import Vault
from panda.privacy.visibility import may_read_path

VOLATILE_TYPES = ("pricing", "availability", "stock", "deal")


def url_slug(url: str) -> str:
    """Example: url_slug('https://www.pcgamer.com/review/') -> 'pcgamer_com_review_<8 hex>'."""
    parsed = urlparse(url)
    host = (parsed.hostname or "page").removeprefix("www.")
    return f"{slugify(host + ' ' + parsed.path, 50)}_{hashlib.sha1(url.encode()).hexdigest()[:8]}"


def content_types(findings: dict[str, Any] | None) -> list[str]:
    """Pages with prices are time-sensitive ('pricing'); everything else is evergreen."""
    products = (findings or {}).get("products") or []
    return ["webpage", "pricing"] if any(p.get("price") for p in products) else ["webpage"]


def is_stale(manifest: dict[str, Any], now: datetime, policy: Policy) -> bool:
    """Stale: the page's text is older than research_days, or its prices (volatile content) older than the
    time-sensitive half-life — prices count from their last refresh (`prices_at`)."""
    captured = parse_time(manifest.get("captured_at"))
    if captured is None:
        return True
    if now - captured >= timedelta(days=policy.expiration.research_days):
        return True
    volatile = any(t in VOLATILE_TYPES for t in manifest.get("content_types", []))
    priced = parse_time(manifest.get("prices_at")) or captured
    return volatile and now - priced >= timedelta(days=policy.freshness.time_sensitive_half_life_days)


def prices_only_stale(manifest: dict[str, Any], now: datetime, policy: Policy) -> bool:
    """Stale only because of its prices: the text is still fresh (seed 002's selective refresh)."""
    captured = parse_time(manifest.get("captured_at"))
    return bool(captured and manifest.get("extracted") and now - captured < timedelta(days=policy.expiration.research_days)
                and is_stale(manifest, now, policy))


def refresh_prices(turn_path: Path, stale: Path, vault: Vault, products: list[dict[str, Any]], now: datetime) -> Path:
    """This turn's copy of a price-stale entry with its products replaced by freshly read ones; text,
    summary and claims stay as captured. The manifest records `prices_at` and where it came from."""
    folder = reuse_entry(turn_path, stale, vault)
    data = json.loads((folder / "extracted_data.json").read_text(encoding="utf-8"))
    url = data.get("url")
    data["products"] = [{**p, "url": url} for p in products]
    atomic_write_json(folder / "extracted_data.json", data)
    manifest = read_manifest(folder)
    manifest.update({"prices_at": iso(now), "reused_from": None, "refreshed_from": vault.layout.relative(stale),
                     "refresh": "prices"})
    atomic_write_json(folder / "manifest.json", manifest)
    return folder


def write_entry(turn_path: Path, url: str, title: str, domain: str, markdown: str, findings: dict[str, Any] | None,
                now: datetime, source: dict[str, str], prompt_version: str | None) -> Path:
    folder = turn_path / "webpage_cache" / validate_name(url_slug(url), "url_slug")
    folder.mkdir(parents=True, exist_ok=True)
    page = frontmatter.Post(f"# {title}\n\n{markdown}", artifact_type="webpage_cache", url=url, domain=domain,
                            title=title, captured_at=iso(now))
    atomic_write_text(folder / "page_content.md", frontmatter.dumps(page, sort_keys=False) + "\n")
    data = {"url": url, "prompt": prompt_version,
            "claims": [{"text": c, "url": url} for c in (findings or {}).get("claims", [])],
            "products": [{**p, "url": url} for p in (findings or {}).get("products", [])]}
    atomic_write_json(folder / "extracted_data.json", data)
    manifest = {"url": url, "domain": domain, "title": title, "captured_at": iso(now),
                "content_hash": hashlib.sha256(markdown.encode()).hexdigest()[:16],
                "summary": (findings or {}).get("summary") or " ".join(markdown.split()[:60]),
                "answerable_questions": (findings or {}).get("answerable_questions", []),
                "content_types": content_types(findings), "extracted": findings is not None,
                "words": len(markdown.split()), "source": source, "reused_from": None,
                "files": ["manifest.json", "page_content.md", "extracted_data.json"]}
    atomic_write_json(folder / "manifest.json", manifest)  # last: an entry without it is incomplete
    return folder


def reuse_entry(turn_path: Path, cached: Path, vault: Vault) -> Path:
    """Copy a fresh cached entry into this turn's cache, recording where it came from."""
    folder = turn_path / "webpage_cache" / cached.name
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(cached, folder)
    manifest = read_manifest(folder)
    manifest["reused_from"] = vault.layout.relative(cached)
    atomic_write_json(folder / "manifest.json", manifest)
    return folder


def read_manifest(folder: Path) -> dict[str, Any]:
    data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def read_extracted(folder: Path) -> dict[str, Any]:
    path = folder / "extracted_data.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return data if isinstance(data, dict) else {}


def find_cached(vault: Vault, user_id: str, url: str, now: datetime, policy: Policy,
                exclude: Path | None = None, prices_only: bool = False) -> Path | None:
    """The newest fresh, complete cache entry for `url` in the user's complete turns (cache-first); with
    `prices_only`, the newest one whose text is fresh and only its prices stale."""
    slug = url_slug(url)
    candidates = []
    for manifest in vault.home.glob(f"users/{validate_name(user_id, 'user_id')}/turns/turn_*/webpage_cache/{slug}/manifest.json"):
        folder = manifest.parent
        if not may_read_path(user_id, vault.layout.relative(folder)):
            continue  # only the user's own cache is reused (privacy/visibility.py)
        if exclude is not None and folder.parent.parent == exclude:
            continue
        if not (folder.parent.parent / "metadata.json").exists():
            continue  # the turn that wrote it never finished
        data = read_manifest(folder)
        fresh = bool(data.get("extracted")) and not is_stale(data, now, policy)
        usable = prices_only_stale(data, now, policy) if prices_only else fresh
        if usable:
            candidates.append((data.get("prices_at") or data.get("captured_at", ""), folder))
    return max(candidates)[1] if candidates else None
