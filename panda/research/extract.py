"""Main-text extraction from saved HTML pages with trafilatura (bytes in, an ExtractedPage out).

trafilatura finds the main text and the page's metadata (title, author, date, site name, language,
description) with its default settings, comments included, so Panda's text is never worse than the
library it wraps. Panda then removes, on trafilatura's own tree, the blocks that are boilerplate by
structure (teasers, trailing headline links, the author box, legal notices, script text) and puts the
page's standfirst before the text when trafilatura left it out: panda/research/boilerplate.py has each
rule with a worked example; benchmarks/boilerplate_folds.py measures them beside trafilatura alone.
Raw bytes are passed through (pages are not always UTF-8); a page with no main text is an
`ExtractionError`, never an empty note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from panda.documents.model import parse_time
from panda.research import boilerplate


class ExtractionError(ValueError):
    """A page that cannot be parsed or has no main text."""


MIN_WORDS = 15  # less main text than this is a navigation stub or an error page, not content
# Chinese, Japanese and Korean scripts write no spaces between words: each character counts as one.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words of a text in any script (pure). Example: word_count('Hello world') -> 2; word_count('子どもへ') -> 4."""
    return sum(max(1, len(_CJK.findall(token))) for token in text.split())


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
        return word_count(self.text)


def domain_of(url: str) -> str:
    """Example: domain_of('https://www.pcgamer.com/review/') -> 'pcgamer.com'."""
    host = (urlparse(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


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


def trafilatura_trees(raw: bytes, url: str | None = None) -> tuple[Any, Any, Any]:
    """trafilatura's document with its default settings (comments and tables kept, metadata read); the same
    page extracted with links kept, which tells which blocks are links; and the body of trafilatura's own
    extraction before any fallback (`no_fallback`; None when it has none), which rule 6 reads when the default
    chose a fallback's."""
    from trafilatura import bare_extraction

    if not raw.strip():
        raise ExtractionError("empty file")
    try:
        document = bare_extraction(raw, url=url, with_metadata=True)
        linked = bare_extraction(raw, url=url, include_links=True) if document is not None else None
        own = bare_extraction(raw, url=url, no_fallback=True) if document is not None else None
    except Exception as exc:  # noqa: BLE001 - lxml/trafilatura raise many kinds on broken markup
        raise ExtractionError(f"unparseable HTML: {type(exc).__name__}: {exc}") from exc
    if document is None or isinstance(document, dict) or document.body is None or not len(document.body):
        raise ExtractionError("no main text found")
    return document, linked, own.body if own is not None and not isinstance(own, dict) else None


def render(document: Any, formatting: bool = False) -> str:
    """trafilatura's own rendering of its tree, what `trafilatura.extract` returns: the body, then comments."""
    from trafilatura.utils import normalize_unicode
    from trafilatura.xml import xmltotxt

    out = xmltotxt(document.body, formatting)
    if document.commentsbody is not None and len(document.commentsbody):
        out = f"{out}\n{xmltotxt(document.commentsbody, formatting)}".strip()
    return normalize_unicode(out)


def extract_page(raw: bytes, url: str | None = None) -> ExtractedPage:
    document, linked, own_body = trafilatura_trees(raw, url)
    # Panda's rules on trafilatura's tree, in place (boilerplate.py), then trafilatura's own rendering
    boilerplate.restore(document.body, own_body)
    links = boilerplate.link_map(*((linked.body, linked.commentsbody) if linked is not None else ()))
    boilerplate.clean(document.body, links, document.author)
    boilerplate.clean(document.commentsbody, links)
    text, markdown = render(document), render(document, formatting=True)
    standfirst = boilerplate.lead(document.description, text)
    if standfirst:
        text, markdown = f"{standfirst}\n{text}", f"{standfirst}\n\n{markdown}"
    text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
    if not text:
        raise ExtractionError("only boilerplate found")
    if (words := word_count(text)) < MIN_WORDS:
        raise ExtractionError(f"main text too short ({words} words)")
    page_url = url or document.url or ""
    published = parse_time(document.date) if document.date else None
    return ExtractedPage(
        url=page_url, domain=domain_of(page_url) if page_url else "local",
        title=document.title or text.split("\n", 1)[0][:120],
        author=document.author, date=published.date().isoformat() if published else None,
        sitename=document.sitename, language=_language(document.language, raw),
        markdown=markdown, text=text)


def _language(declared: str | None, raw: bytes) -> str | None:
    if declared:
        return declared.split("-")[0].lower()
    match = re.search(rb"<html[^>]*\blang=[\"']?([a-zA-Z]{2})", raw[:5000])
    return match.group(1).decode().lower() if match else None
