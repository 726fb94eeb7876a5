"""site_knowledge/{domain}.json (seed 000): what Panda has learned about each site it reads.

Updated by every research turn for each page it read: pages and visits seen, Page Intelligence
successes, content types (does the site carry prices?), mean main-text length, when it was last seen
and the turns that taught it as provenance hashes (the last 50; a resumed turn is not counted twice; the
file is global, so no turn id or user id is written: privacy/provenance.py). The calibration
job's source reliability is copied in when known.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from panda.documents.atomic import atomic_write_json
from panda.documents.model import iso
from panda.documents.paths import validate_name
from panda.documents.vault import Vault


def learn(current: dict[str, Any], domain: str, page: dict[str, Any], turn_id: str, when: datetime,
          reliability: float | None) -> dict[str, Any]:
    """The domain's knowledge after one more page visit (pure). A turn already counted changes nothing."""
    data = {"domain": domain, "visits": 0, "extractions": 0, "successes": 0, "pages": [], "content_types": [],
            "mean_words": 0.0, "first_seen": iso(when), "turns": [], **current}
    if turn_id in data["turns"] and page["url"] in data["pages"]:
        return data
    manifest = page["manifest"]
    data["visits"] += 1
    if not page["reused"]:
        data["extractions"] += 1
        data["successes"] += int(bool(manifest.get("extracted")))
    words = int(manifest.get("words", 0))
    data["mean_words"] = round((data["mean_words"] * (data["visits"] - 1) + words) / data["visits"], 1)
    data["pages"] = list(dict.fromkeys([*data["pages"], page["url"]]))[-100:]
    data["content_types"] = sorted(set(data["content_types"]) | set(manifest.get("content_types", [])))
    data["turns"] = list(dict.fromkeys([*data["turns"], turn_id]))[-50:]
    data["last_seen"] = iso(when)
    data["has_prices"] = "pricing" in data["content_types"]
    if reliability is not None:
        data["reliability"] = reliability
    return data


def update(vault: Vault, pages: list[dict[str, Any]], turn_id: str, when: datetime,
           reliability: dict[str, float]) -> list[str]:
    written = []
    for page in pages:
        domain = page["domain"] or "local"
        path = vault.layout.inside(vault.home / "site_knowledge" / f"{validate_name(domain, 'domain')}.json")
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        atomic_write_json(path, learn(current, domain, page, turn_id, when, reliability.get(domain)))
        written.append(vault.layout.relative(path))
    return written
