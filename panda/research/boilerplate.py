"""What Panda removes from trafilatura's main text, by structure, and the page lead it adds back (pure).

trafilatura's extraction is the base: its tree is kept element for element, so nothing it keeps is lost to a
rendering step. Rules 1-5 remove a top-level block of that tree only on structural evidence (rule 6 puts
back blocks trafilatura's fallback dropped), and each was kept because, on 950 pages of trafilatura's own
evaluation set that no Panda rule was written against (the 40 shared pages left out; each page's "with" and
"without" phrases), it removed boilerplate phrases or added expected ones, and lost none of the phrases
trafilatura keeps (benchmarks/boilerplate_folds.py; figures in RESULTS.md).

1. **Teaser** — a paragraph that is one link of 3-25 words after a lead-in of at most four words ending
   in ":" or "»" (the "read also" line a news site puts between paragraphs):
   `<p>Read more: <ref>Looted colonial art: Germany to set up new contact office</ref></p>`.
   Tested and not kept: any link-dense paragraph — whole paragraphs of prose are sometimes one link
   (45-154 words lost on 12 pages).
2. **Trailing headlines** — from the end of the body backwards, paragraphs that are one link of 4-20 words
   covering the paragraph, without sentence punctuation at the end (a "more from us" run):
   `…<p><ref>Herbstlicher Wochenend-Ausflug in die Südoststeiermark</ref></p>` as the last blocks.
3. **Author box and byline** — in the last two blocks, one of at most 60 words that begins with the page
   author's name (from the page's metadata): `<quote>Inga Buller ist Head of Social & Community bei CHIP…`;
   or, in the first or last two blocks, one of at most 12 words naming the author: `<p>Von Jan Kupitz</p>`.
   Tested and not kept: any short block naming the author near an edge (9 phrases of content lost).
4. **Legal notice** — a block of at most 60 words with a copyright sign, "all rights reserved", an
   affiliate or advertiser disclosure or a newsletter call: `<p>© 2020 ®/TM General Mills All Rights
   Reserved</p>`.
5. **Script text** — a block (not a code block) with JavaScript idioms and a high share of code
   punctuation: `<p>(function() { document.addEventListener('load', f); })();</p>`.
6. **What the fallback dropped** — trafilatura replaces its own extraction by readability's or jusText's when
   its own looks short or table-dominated, and the replacement can lose what its own had: a Stack Exchange
   question (its own extraction: the question, 53 words; readability's: the site's network menu and the
   answers, 573) or a wiki's gift table. The blocks of its own extraction that the chosen one lacks come back
   in reading order, when they are tables or end a sentence (`restore`). It only adds, so no phrase
   trafilatura keeps is lost; on the 950 pages it added 10 expected phrases and 7 boilerplate ones.

The comments section gets rules 1, 2, 4 and 5. Not used: blocks repeated across a site's pages (a cache
may hold one page per site), and trafilatura's own settings other than its defaults: `favor_precision`,
`favor_recall`, `no_fallback` and markdown output each lost phrases the default keeps (measured beside it).

**Lead** — the page's own description (its meta/JSON-LD standfirst, 10-60 words) goes before the text when
the text does not already hold its first eight words: trafilatura reads the article body and leaves out the
dek above it ("We're about to get 20 terabyte hard drives, but the path looks clear to scale up to 80TB.").
On the 950 pages it added 52 expected phrases and no boilerplate one. A description the site cut short
("…") is kept up to its last whole sentence, when that has 10 words (one more phrase, none of boilerplate).
"""

from __future__ import annotations

import re
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

# Notices every site carries, whatever its layout: copyright lines and paid-link disclosures. Generic wording
# only (no site's own phrasing); they cut only short blocks, so article text is never lost.
LEGAL_NOTICE = re.compile(
    r"©|\(c\) \d{4}|all rights reserved|affiliate (?:links?|commission)|advertiser disclosure"
    r"|may (?:receive|earn) (?:a )?(?:compensation|commission)"
    r"|(?:sign up|subscribe) (?:for|to) (?:our|the) newsletter",
    re.I,
)
MAX_NOTICE_WORDS = 60
# What script text looks like (a <script> body that reached the main text): JavaScript's own idioms.
_SCRIPT_TOKENS = re.compile(r"\bfunction\s*\(|=>|\b(?:document|window)\.\w+|addEventListener|JSON\.(?:parse|stringify)"
                            r"|\bdataLayer\b|\bgtag\(|\bvar\s+\w+\s*=")
# A teaser's lead-in: up to four words ending in ':' or '»' ("Read more:", "Czytaj też:", "À lire aussi »").
_LEAD_IN = re.compile(r"^(?:»|>>|(?:[^\W\d_]+\s+){0,3}[^\W\d_]+\s*(?::|»|>>))$")
_SENTENCE_END = re.compile(r"[.!?…]$")
_CLOSED_SENTENCE = re.compile(r"[.!?…][\"'”’»)\]]*$")  # a sentence end, then any closing quotes or brackets
_TITLES = r"(?:(?:Dr|Prof|Mr|Mrs|Ms)\.?\s+)*"
LEAD_WORDS = (10, 60)
RESTORE_MIN_WORDS = 6


@dataclass(frozen=True)
class Links:
    """What a block's links are, read from trafilatura's tree with links kept (the same blocks, by their text)."""

    linked_chars: int
    chars: int
    count: int
    linked_words: int
    lead_in: str  # text before the first link
    after: str  # text after the last link


def text_of(element: Any) -> str:
    return " ".join("".join(element.itertext()).split())


def code_like(block: str) -> bool:
    """Script text, not prose (pure): JavaScript idioms and a high share of code punctuation.

    Example: "(function() { document.addEventListener('x', f); })();" -> True; 'Bake for 30 min; cool.' -> False.
    """
    if not _SCRIPT_TOKENS.search(block):
        return False
    return sum(block.count(c) for c in "{}();=") / max(1, len(block)) >= 0.03


def link_map(*trees: Any) -> dict[str, Links]:
    """Each block's links, keyed by the block's text, from trees extracted with links kept."""
    out: dict[str, Links] = {}
    for tree in trees:
        if tree is None:
            continue
        for element in tree.iter("p", "item", "head", "quote", "cell", "list"):
            refs = list(element.iter("ref"))
            texts = [text_of(r) for r in refs]
            text = text_of(element)
            out.setdefault(text, Links(
                linked_chars=sum(len(t) for t in texts), chars=len(text), count=len(refs),
                linked_words=sum(len(t.split()) for t in texts),
                lead_in=" ".join((element.text or "").split()) if element.tag == "p" else "",
                after=" ".join((refs[-1].tail or "").split()) if refs else ""))
    return out


def paragraph_links(element: Any, text: str, links: dict[str, Links]) -> Links | None:
    """The links of a paragraph block (rules 1 and 2 look at paragraphs only), None for other blocks."""
    return links.get(text) if element.tag == "p" else None


def teaser(info: Links | None) -> bool:
    """Rule 1. Example: <p>Read more: <ref>Looted colonial art: Germany to set up new contact office</ref></p>."""
    return (info is not None and info.count == 1 and 3 <= info.linked_words <= 25
            and bool(_LEAD_IN.match(info.lead_in)) and len(info.after) <= 3)


def headline_link(info: Links | None, text: str) -> bool:
    """Rule 2's block: one link of 4-20 words covering the paragraph, no sentence end."""
    return (info is not None and info.count == 1 and info.linked_chars >= 0.9 * info.chars
            and 4 <= info.linked_words <= 20 and not _SENTENCE_END.search(text))


def byline(text: str, position: int, blocks: int, authors: list[str]) -> bool:
    """Rule 3. Example: byline('Von Jan Kupitz', 0, 9, ['Jan Kupitz']) -> True."""
    words = len(text.split())
    if position >= blocks - 2 and words <= 60 and any(re.match(_TITLES + re.escape(a) + r"\b", text) for a in authors):
        return True
    return (position < 2 or position >= blocks - 2) and words <= 12 and any(a in text for a in authors)


def authors_of(author: str | None) -> list[str]:
    """Full names (two words or more) in trafilatura's author field. Example: 'Ann Lee; Bo' -> ['Ann Lee']."""
    return [a.strip() for a in re.split(r";|,|\band\b", author or "") if len(a.strip().split()) >= 2]


def clean(tree: Any, links: dict[str, Links], author: str | None = None) -> list[str]:
    """Remove the boilerplate blocks from a trafilatura body (in place); returns what was removed, by rule."""
    if tree is None:
        return []
    blocks = list(tree)
    texts = [text_of(element) for element in blocks]
    infos = [paragraph_links(element, text, links) for element, text in zip(blocks, texts, strict=True)]
    authors = authors_of(author)
    removed: dict[int, str] = {}
    for i, (element, text) in enumerate(zip(blocks, texts, strict=True)):
        if teaser(infos[i]):
            removed[i] = "teaser"
        elif authors and byline(text, i, len(blocks), authors):
            removed[i] = "byline"
        elif LEGAL_NOTICE.search(text) and len(text.split()) <= MAX_NOTICE_WORDS:
            removed[i] = "legal notice"
        elif element.tag != "code" and code_like(text):
            removed[i] = "script"
    for i in range(len(blocks) - 1, -1, -1):
        if i in removed:
            continue
        if not headline_link(infos[i], texts[i]):
            break
        removed[i] = "trailing headline"
    for i in sorted(removed, reverse=True):
        _remove(blocks[i])
    return [f"{removed[i]}: {texts[i][:80]}" for i in sorted(removed)]


def _remove(element: Any) -> None:
    parent = element.getparent()
    if element.tail and element.tail.strip():  # text after the block belongs to what comes before it
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def lead(description: str | None, text: str) -> str | None:
    """The page's description when it is a standfirst the text lacks (pure). A description the site cut
    short ("…") is kept up to its last whole sentence, when that still has 10 words.

    Example: lead("We're about to get 20 terabyte hard drives, but the path looks clear to scale up to 80TB.",
    'Seagate said …') -> that sentence; None when the text already holds its first eight words.
    """
    words = (description or "").split()
    if words and words[-1].endswith(("...", "…")):
        whole = re.match(r"^(.*[.!?])\s", " ".join(words))
        words = whole.group(1).split() if whole else []
    if not LEAD_WORDS[0] <= len(words) <= LEAD_WORDS[1]:
        return None
    return None if " ".join(words[:8]) in " ".join(text.split()) else " ".join(words)


def restore(body: Any, own: Any, min_words: int = RESTORE_MIN_WORDS) -> list[str]:
    """Rule 6: put back, in place, the blocks of trafilatura's own extraction (`own`, its `no_fallback` tree)
    that the fallback it chose instead (readability or jusText, `body`) lacks; returns their texts.

    A block of `own` comes back when it has at least `min_words` words, is a table or ends a sentence (a menu or
    a row of links does neither), and `body` does not hold its text. It goes in after the block of `body` that
    holds the last block of `own` before it (at the start when none does). Example: a wiki page whose own
    extraction has more tables than paragraphs goes to readability, which drops a gift table
    (`<row><cell>Mead</cell><cell>A fermented beverage made from honey. …</cell></row>`): the table comes back.
    """
    if own is None or body is None:
        return []
    texts = [text_of(element) for element in body]
    whole = " ".join(texts)
    anchor, added = -1, []
    for element in list(own):
        text = text_of(element)
        if not text:
            continue
        if text in whole:
            anchor = next((i for i, t in enumerate(texts) if text in t), anchor)
            continue
        if len(text.split()) < min_words or not (element.tag == "table" or _CLOSED_SENTENCE.search(text)):
            continue
        copy = deepcopy(element)
        copy.tail = None
        body.insert(anchor + 1, copy)
        texts.insert(anchor + 1, text)
        anchor += 1
        added.append(text)
    return added
