"""The web corpus: a folder of saved HTML pages (a crawl snapshot) → Web/{domain}/ notes, indexed.

`panda research ingest DIR` extracts every *.html / *.htm page with trafilatura (research/extract.py),
writes Web/{domain}/{slug}.md (frontmatter: source URL, domain, title, author, date, site, language,
content hash; body: the page's main text as markdown) and indexes it as a global `webpage` document
that memory.search and research.search find. The page's URL comes from a manifest.json beside the
pages (`pages: [{filename, source_url}]`, the format of ../shared/data/webpages), else from the
page's canonical URL, else from its file name. A page that cannot be parsed, is empty or holds only
boilerplate is reported and skipped; the batch goes on. Every extraction is logged per domain in
source_extractions (success, confidence), which the calibration job rolls up into reliability.
Re-ingesting an unchanged page changes nothing (same id from the URL, same content hash).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from panda.catalog.maintenance import Maintenance
from panda.documents.model import Document, parse_time
from panda.documents.paths import slugify, validate_name
from panda.home import Home
from panda.research.extract import ExtractedPage, ExtractionError, extract_page

BATCH = 32
PAGE_SUFFIXES = (".html", ".htm")


@dataclass
class CorpusReport:
    pages: int = 0
    indexed: int = 0
    unchanged: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    languages: Counter[str] = field(default_factory=Counter)
    words: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"pages": self.pages, "indexed": self.indexed, "unchanged": self.unchanged, "skipped": self.skipped,
                "languages": dict(self.languages), "words": self.words, "seconds": self.seconds}


def read_manifest(folder: Path) -> dict[str, str]:
    """filename -> source URL from a manifest.json beside the pages (missing or foreign: empty)."""
    path = folder / "manifest.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    pages = data.get("pages", []) if isinstance(data, dict) else data
    return {str(p["filename"]): str(p["source_url"]) for p in pages if isinstance(p, dict)
            and p.get("filename") and p.get("source_url")}


def page_id(url: str) -> str:
    return "web_" + hashlib.sha1(url.encode()).hexdigest()[:16]


def extraction_confidence(page: ExtractedPage) -> float:
    """How much to trust an extraction: length of the main text and whether metadata came with it.

    Example: 300+ words with a title and a date -> 1.0; 60 words, title only -> 0.5 + 0.3*0.2 + 0.1 = 0.66.
    """
    length = min(1.0, page.words / 300)
    return round(0.5 + 0.3 * length + 0.1 * bool(page.title) + 0.1 * bool(page.date), 3)


def page_document(page: ExtractedPage, content_hash: str, source_file: str, now: datetime) -> Document:
    created = parse_time(page.date) or now
    return Document(
        id=page_id(page.url or source_file), kind="webpage", title=page.title[:200], primary_topic="web.page",
        keywords=[k for k in (page.domain, page.sitename) if k][:2], intent="informational",
        content_types=["webpage"], scope="global", quality=round(0.4 + 0.5 * min(1.0, page.words / 300), 3),
        owner_user=None, created_at=created, modified_at=now, source_urls=[page.url] if page.url else [],
        body=page.markdown,
        extra={"domain": page.domain, "author": page.author, "published": page.date, "sitename": page.sitename,
               "language": page.language, "content_hash": content_hash, "source_file": source_file,
               "words": page.words},
    )


def page_path(ctx: Home, page: ExtractedPage, doc_id: str) -> Path:
    domain = validate_name(page.domain.replace(":", "_") or "local", "domain")
    return ctx.vault.layout.inside(ctx.vault.home / "Web" / domain / f"{slugify(page.title, 50)}_{doc_id[4:12]}.md")


def ingest_corpus(ctx: Home, folder: Path, now: datetime) -> CorpusReport:
    started = time.perf_counter()
    report = CorpusReport()
    urls = read_manifest(folder)
    maintenance = Maintenance(ctx.catalog)
    pending: list[Document] = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix.lower() in PAGE_SUFFIXES and p.is_file()):
        report.pages += 1
        rel = path.relative_to(folder).as_posix()
        url = urls.get(path.name) or urls.get(rel)
        raw = path.read_bytes()
        try:
            page = extract_page(raw, url)
        except ExtractionError as exc:
            report.skipped.append({"file": str(path), "reason": str(exc)})
            maintenance.record_extraction(_domain(url), url, "page_text", False, 0.0, None, now)
            continue
        if not page.url:
            page = ExtractedPage(**{**page.__dict__, "url": f"file:{rel}"})
        report.languages[page.language or "unknown"] += 1
        report.words += page.words
        content_hash = hashlib.sha256(page.markdown.encode()).hexdigest()[:16]
        doc = page_document(page, content_hash, rel, now)
        known = ctx.catalog.get_document(doc.id)
        if known is not None and ctx.vault.layout.resolve_relative(known["doc_path"]).exists() and \
                ctx.vault.read_document(known["doc_path"]).extra.get("content_hash") == content_hash:
            report.unchanged += 1
            continue
        ctx.vault.write_document(doc, page_path(ctx, page, doc.id))
        pending.append(doc)
        maintenance.record_extraction(page.domain, page.url, "page_text", True, extraction_confidence(page), None, now)
        if len(pending) >= BATCH:
            report.indexed += _flush(ctx, pending)
    report.indexed += _flush(ctx, pending)
    report.seconds = round(time.perf_counter() - started, 3)
    ctx.catalog.record_event("research_ingest", "corpus", str(folder), {k: v for k, v in report.as_dict().items()
                                                                         if k != "skipped"}, now)
    return report


def _flush(ctx: Home, docs: list[Document]) -> int:
    count = len(docs)
    with ctx.catalog.transaction():
        ctx.memory.index(docs)
    docs.clear()
    return count


def _domain(url: str | None) -> str:
    from panda.research.extract import domain_of

    return domain_of(url) if url else "local"
