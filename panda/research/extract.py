"""Main-text extraction from saved HTML pages with trafilatura (pure: bytes in, an ExtractedPage out).

trafilatura finds the main text (markdown with its links, comments left out) and the page's metadata
(title, author, date, site name, language, canonical URL). Panda then drops the boilerplate blocks
trafilatura keeps by their structure, not by any site's wording (`structural_clean`): blocks whose
words are mostly link text (navigation, "related" and "also on" lists; each list item weighed on its
own), script text that reached the main text (JavaScript idioms with code punctuation, outside code
fences), and short legal notices (copyright, paid-link disclosures, newsletter calls: wording every
site uses). Links are then unwrapped. The link-density threshold was chosen 2-fold on the 40 pages in
../shared/data/webpages (benchmarks/boilerplate_folds.py; figures in the README). Not used: blocks
repeated across a site's pages (the corpus has one page per site).
Raw bytes are passed through (pages are not always UTF-8); a page with no main text is an
`ExtractionError`, never an empty note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlparse

from panda.documents.model import parse_time


class ExtractionError(ValueError):
    """A page that cannot be parsed or has no main text."""


# Notices every site carries, whatever its layout: copyright lines and paid-link disclosures. Generic wording
# only (no site's own phrasing); they cut only short paragraphs, so article text is never lost.
_LEGAL_NOTICE = re.compile(
    r"©|\(c\) \d{4}|all rights reserved|affiliate (?:links?|commission)|advertiser disclosure"
    r"|may (?:receive|earn) (?:a )?(?:compensation|commission)"
    r"|(?:sign up|subscribe) (?:for|to) (?:our|the) newsletter",
    re.I,
)
# What script text looks like (a <script> body that reached the main text): JavaScript's own idioms.
_SCRIPT_TOKENS = re.compile(r"\bfunction\s*\(|=>|\b(?:document|window)\.\w+|addEventListener|JSON\.(?:parse|stringify)"
                            r"|\bdataLayer\b|\bgtag\(|\bvar\s+\w+\s*=")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
LINK_DENSITY = 0.75  # the mean of the two folds' choices (0.7, 0.8): benchmarks/boilerplate_folds.py
MIN_LINKED_WORDS = 2
MAX_BOILERPLATE_WORDS = 60
MIN_WORDS = 15  # less main text than this is a navigation stub or an error page, not content


@dataclass(frozen=True)
class ExtractedPage:
    url: str
    domain: str
    title: str
    author: str | None
    date: str | None
    sitename: str | None
    language: str | None
    markdown: str
    text: str

    @property
    def words(self) -> int:
        return len(self.text.split())


def domain_of(url: str) -> str:
    """Example: domain_of('https://www.pcgamer.com/review/') -> 'pcgamer.com'."""
    host = (urlparse(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True)
class StructuralFilter:
    """What makes a block of trafilatura's markdown boilerplate, by its structure (see `structural_clean`)."""

    link_density: float = LINK_DENSITY  # share of a block's words inside links at which it is navigation
    min_linked_words: int = MIN_LINKED_WORDS  # ... when at least this many words are linked
    max_notice_words: int = MAX_BOILERPLATE_WORDS


def code_like(block: str) -> bool:
    """Script text, not prose (pure): JavaScript idioms and a high share of code punctuation.

    Example: "(function() { document.addEventListener('x', f); })();" -> True; 'Bake for 30 min; cool.' -> False.
    """
    if not _SCRIPT_TOKENS.search(block):
        return False
    return sum(block.count(c) for c in "{}();=") / max(1, len(block)) >= 0.03


def link_density(block: str) -> tuple[float, int]:
    """(share of the block's words inside links, linked words) (pure). Example: '[Home](/) news' -> (0.5, 1)."""
    linked = sum(len(m.group(1).split()) for m in _LINK.finditer(block))
    words = re.sub(r"^\s*(?:[-*+>]|\d+\.|#+)\s", "", _LINK.sub(lambda m: m.group(1), block), flags=re.M)
    total = len(re.sub(r"[|*_`]+", " ", words).split())  # words, not list, heading or table marks
    return (linked / total if total else 1.0), linked


def _blocks(markdown: str) -> list[str]:
    """Paragraphs and whole lists, fenced code kept whole (pure)."""
    out: list[str] = []
    for part in re.split(r"(```.*?```)", markdown, flags=re.S):
        if part.startswith("```"):
            out.append(part)
        else:
            out += [p for p in re.split(r"\n\s*\n", part) if p.strip()]
    return out


def _list_items(block: str) -> list[str] | None:
    lines = [line for line in block.splitlines() if line.strip()]
    return lines if lines and all(re.match(r"\s*(?:[-*+]|\d+\.)\s", line) for line in lines) else None


def structural_clean(markdown: str, config: StructuralFilter = StructuralFilter()) -> str:
    """Drop boilerplate blocks from trafilatura's markdown (with links) by structure, then unwrap links (pure):
    - navigation and related-link lists: most of a block's words are link text (a list as a whole, then
      item by item; headings excepted: they are the page's outline);
    - script text that reached the main text (outside code fences);
    - short legal notices: copyright lines, paid-link disclosures, newsletter calls.

    Example: 'Intro text here.\n\n- [Home](/)\n- [News](/n)\n\n© 2020 Acme' -> 'Intro text here.'
    """
    def navigation(text: str) -> bool:
        density, linked = link_density(text)
        return not text.lstrip().startswith("#") and linked >= config.min_linked_words and density >= config.link_density

    kept = []
    for block in _blocks(markdown):
        if block.startswith("```"):
            kept.append(block)
            continue
        items = _list_items(block)
        if navigation(block):
            continue
        if items is not None:
            block = "\n".join(item for item in items if not navigation(item))
            if not block:
                continue
        if code_like(block):
            continue
        if _LEGAL_NOTICE.search(block) and len(block.split()) <= config.max_notice_words:
            continue
        kept.append(_LINK.sub(lambda m: m.group(1), block))
    return "\n\n".join(kept).strip()


def strip_boilerplate(markdown: str) -> str:
    """Short legal notices and script text out of link-free markdown (pure): `structural_clean`.

    Example: 'Great review.\n\n© 2020 Acme. All Rights Reserved' -> 'Great review.'
    """
    return structural_clean(markdown)


def markdown_to_text(markdown: str) -> str:
    """Plain text of trafilatura's markdown: links and images unwrapped, emphasis and list marks removed.

    Example: '## Tips\\n- **Use** [pots](http://x)' -> 'Tips\\nUse pots'.
    """
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", markdown)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)|`)", "", text)
    text = re.sub(r"^(?:#+ |[-*+] |> |\d+\. )", "", text, flags=re.M)
    text = re.sub(r"^\|?(?:\s*:?-{3,}:?\s*\|)+\s*$", "", text, flags=re.M)
    text = text.replace(" | ", " ").replace("|", " ")
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def raw_markdown(raw: bytes, url: str | None = None) -> str:
    """trafilatura's main text as markdown, links kept (for their density), comments left out."""
    import trafilatura

    if not raw.strip():
        raise ExtractionError("empty file")
    try:
        markdown = trafilatura.extract(raw, url=url, output_format="markdown", include_comments=False,
                                       include_tables=True, include_links=True)
    except Exception as exc:  # noqa: BLE001 - lxml/trafilatura raise many kinds on broken markup
        raise ExtractionError(f"unparseable HTML: {type(exc).__name__}: {exc}") from exc
    if not markdown or not markdown.strip():
        raise ExtractionError("no main text found")
    return markdown


def extract_page(raw: bytes, url: str | None = None) -> ExtractedPage:
    import trafilatura

    markdown = raw_markdown(raw, url)
    try:
        meta = trafilatura.extract_metadata(raw.decode("utf-8", errors="replace"), default_url=url)
    except Exception as exc:  # noqa: BLE001 - lxml/trafilatura raise many kinds on broken markup
        raise ExtractionError(f"unparseable HTML: {type(exc).__name__}: {exc}") from exc
    cleaned = structural_clean(markdown)
    text = markdown_to_text(cleaned)
    if not text:
        raise ExtractionError("only boilerplate found")
    if len(text.split()) < MIN_WORDS:
        raise ExtractionError(f"main text too short ({len(text.split())} words)")
    page_url = url or (meta.url if meta is not None else None) or ""
    published = parse_time(meta.date) if meta is not None and meta.date else None
    return ExtractedPage(
        url=page_url, domain=domain_of(page_url) if page_url else "local",
        title=(meta.title if meta is not None and meta.title else text.split("\n", 1)[0][:120]),
        author=meta.author if meta is not None else None,
        date=published.date().isoformat() if published else None,
        sitename=meta.sitename if meta is not None else None,
        language=_language(meta.language if meta is not None else None, raw),
        markdown=cleaned, text=text)


def _language(declared: str | None, raw: bytes) -> str | None:
    if declared:
        return declared.split("-")[0].lower()
    match = re.search(rb"<html[^>]*\blang=[\"']?([a-zA-Z]{2})", raw[:5000])
    return match.group(1).decode().lower() if match else None
