"""The Knowledge vault (seed 003): Knowledge/Research and Knowledge/Products notes, Meta indexes, change log.

Write protocol, per research turn: (1) look for the note on the same topic (products: same product
name); (2) if it exists, append a dated update section and merge sources, tags and links — never
overwrite; a product's price history table grows a row per price seen; (3) otherwise create it from
the template in Meta/Templates (documents/templates.py: seed 003's sections, editable by the user);
(4) rebuild Meta/Indexes/{topic,product,tag,recent}_index.md from the notes'
frontmatter; (5) append a line to Logs/Changes/YYYY-MM-DD.md. Notes are `Document`s (kind 'note')
whose frontmatter carries the template's fields (artifact_type, topic, subtopic, created, modified,
source, source_urls, confidence, status, tags, related, expires), so they are indexed and rebuilt by
reindex; an expired note is still found, marked "may be outdated" (research 180 d, products 90 d).
Links are [[wiki-links]] to note names. Notes are global, so they are written from public data only
(privacy/provenance.py): scrubbed text and an opaque provenance hash, never a link into users/.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import frontmatter

from panda.config import Policy
from panda.conversations.emotion import risk_of, sentiment_of, urgency_of
from panda.documents.atomic import atomic_write_text
from panda.documents.change_log import append_entry, body_diff
from panda.documents.model import Document, iso
from panda.documents.paths import slugify
from panda.documents.templates import load_template, render
from panda.documents.vault import Vault
from panda.memory.scoring import vehemence_score
from panda.privacy.neutral import topic_words
from panda.privacy.pii import without_placeholders

RECENT = 50


@dataclass(frozen=True)
class NoteChange:
    path: str
    action: str  # created | updated | unchanged
    kind: str  # research | product | context
    diff: str = ""  # the note body's unified diff (documents/change_log.py)


def note_importance(query: str) -> float:
    """A note's seed 001 vehemence, from the (scrubbed) question that researched it: urgency, sentiment and
    risk of its words (conversations/emotion.py), instead of the constant default. Examples: "best pineapple cake
    recipe" -> 0.3 (default urgency 0.3*0.5 + the sentiment of "best" 0.5*0.3); "urgent: is this laptop
    deal a scam? I need help immediately" -> 0.57."""
    return round(vehemence_score(urgency_of(query), sentiment_of(query), risk_of(query)), 4)


def write_note(vault: Vault, doc: Document, path: Path, action: str, kind: str) -> NoteChange:
    """Write a global note and say what changed in it, for the change log."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    vault.write_document(doc, path)
    return NoteChange(vault.layout.relative(path), action, kind, body_diff(before, path.read_text(encoding="utf-8"), path.name))


def _tags(*values: str) -> list[str]:
    out: list[str] = []
    for value in values:
        for word in re.split(r"[^a-z0-9]+", value.lower()):
            if len(word) > 2 and word not in out and word not in ("the", "and", "for", "with", "general"):
                out.append(word)
    return out[:8]


def _titles(data: dict[str, Any]) -> list[str]:
    """The (scrubbed) titles of the pages a turn read: public words for a note's tags."""
    return [str(p.get("title") or "") for p in data["pages"]]


def _public_tags(data: dict[str, Any], *values: str) -> list[str]:
    """Tags from public text only: placeholders and the words the scrubber found private are left out."""
    private = set(data.get("private_words", []))
    return [t for t in _tags(*(without_placeholders(v) for v in values)) if t not in private]


def _load(path: Path) -> Document | None:
    return Document.from_markdown(path.read_text(encoding="utf-8")) if path.exists() else None


def research_note_path(vault: Vault, topic: str) -> Path:
    return vault.home / "Knowledge" / "Research" / f"{slugify((topic or 'general').replace('.', ' '), 60)}.md"


def product_note_path(vault: Vault, name: str) -> Path:
    return vault.home / "Knowledge" / "Products" / f"{slugify(name.strip(), 60)}.md"


def planned_notes(vault: Vault, data: dict[str, Any]) -> list[str]:
    """The notes `research_note` and `product_notes` will write for public research `data`, in order (pure)."""
    names = [p["name"].strip() for page in data["pages"] for p in page["products"] if p.get("name", "").strip()]
    paths = [research_note_path(vault, data["topic"]), *(product_note_path(vault, n) for n in dict.fromkeys(names))]
    return [vault.layout.relative(p) for p in paths]


def _note_id(prefix: str, key: str) -> str:
    return f"{prefix}_{hashlib.sha1(key.encode()).hexdigest()[:16]}"


def research_note(vault: Vault, policy: Policy, data: dict[str, Any], now: datetime,
                  product_names: list[str]) -> NoteChange:
    """`data` is public (privacy/provenance.py): scrubbed text, `turn_id` an opaque provenance hash."""
    topic = data["topic"] or "general"
    path = research_note_path(vault, topic)
    existing = _load(path)
    origin = data["turn_id"]
    urls = [p["url"] for p in data["pages"]]
    related = [f"[[{slugify(n, 60)}]]" for n in product_names]
    findings = [f"- {c['text']} ([source]({c['url']}))" for p in data["pages"] for c in p["claims"]] or \
        [f"- {p['summary']} ([source]({p['url']}))" for p in data["pages"] if p["summary"]]
    sources = [f"| [{p['domain'] or p['url']}]({p['url']}) | {now.date().isoformat()} | {p['title'][:60]} |"
               for p in data["pages"]]
    expires = now + timedelta(days=policy.expiration.research_days)
    if existing is None:
        body = render(load_template(vault, "research_note"), {
            "title": topic.replace(".", " ").title(),
            "summary": " ".join(p["summary"] for p in data["pages"] if p["summary"])[:600] or "_No summary yet._",
            "findings": "\n".join(findings), "sources": "\n".join(sources),
            "related": "\n".join([f"- {r}" for r in related] or ["- (none yet)"]), "provenance": f"_Provenance: `{origin}`._"})
        doc = Document(id=_note_id("note", topic), kind="note", title=topic.replace(".", " ").title(), primary_topic=topic,
                       keywords=_public_tags(data, topic, *_titles(data)), intent=data["intent"] or "informational",
                       content_types=["research"] + (["pricing"] if data["decay"] == "time-sensitive" else []),
                       scope="global", quality=float(data["quality"]["overall"]), created_at=now, modified_at=now,
                       source_urls=urls, body=body, extra={}, importance=note_importance(data["query"]))
        action = "created"
    elif origin in existing.body:
        return NoteChange(vault.layout.relative(path), "unchanged", "research")  # a resumed turn: already appended
    else:
        doc = existing
        update = [f"## Update {now.date().isoformat()} · `{origin}`", "",  # no asking text: what was found
                  f"**Pages read:** {len(data['pages'])}", "", *findings, "", *sources]
        doc.body = doc.body.rstrip() + "\n\n" + "\n".join(update)
        doc.importance = max(doc.importance, note_importance(data["query"]))
        doc.source_urls = list(dict.fromkeys([*doc.source_urls, *urls]))
        doc.keywords = list(dict.fromkeys([*doc.keywords, *_public_tags(data, *_titles(data))]))[:12]
        doc.quality = max(doc.quality, float(data["quality"]["overall"]))
        doc.modified_at = now
        related = list(dict.fromkeys([*doc.extra.get("related", []), *related]))
        action = "updated"
    doc.extra.update({
        "artifact_type": "research", "topic": topic.replace(".", " "),
        # From the topic, never from the asking turn's text (privacy/neutral.py: shared notes carry no user sentence).
        "subtopic": topic_words(topic)[:80],
        "created": iso(doc.created_at), "modified": iso(now), "source": "internet_research",
        "confidence": round(doc.quality, 2), "status": "active", "tags": sorted(set(doc.keywords)),
        "related": related, "expires": expires.date().isoformat()})
    doc.expires_at = expires  # still found when expired, marked "may be outdated"
    return write_note(vault, doc, path, action, "research")


def product_notes(vault: Vault, policy: Policy, data: dict[str, Any], research_note_name: str,
                  now: datetime) -> list[NoteChange]:
    changes = []
    seen: dict[str, dict[str, Any]] = {}
    for page in data["pages"]:
        for product in page["products"]:
            seen.setdefault(product["name"].strip(), {"specs": [], "prices": []})
            entry = seen[product["name"].strip()]
            entry["specs"] += [s for s in product.get("specs", []) if s not in entry["specs"]]
            if product.get("price"):
                entry["prices"].append((product.get("vendor") or page["domain"], product["price"], page["url"]))
    for name, info in seen.items():
        if not name:
            continue
        path = product_note_path(vault, name)
        existing = _load(path)
        rows = [f"| {now.date().isoformat()} | {vendor} | {price} | [source]({url}) |" for vendor, price, url in info["prices"]]
        if existing is None:
            said = product_claims(data, name)
            pros = [f"- {text}" for _, text in said if sentiment_of(text) > 0]
            cons = [f"- {text}" for _, text in said if sentiment_of(text) < 0]
            body = render(load_template(vault, "product_note"), {
                "name": name, "overview": f"Seen while researching {data['topic'].replace('.', ' ')}.",
                "specifications": "\n".join(spec_rows(info["specs"]) or ["| (none recorded) | |"]),
                "prices": "\n".join(rows),
                "sentiment": "\n".join([f"- {domain}: {text}" for domain, text in said] or ["- (none recorded)"]),
                "pros": "\n".join(pros or ["- (none recorded)"]), "cons": "\n".join(cons or ["- (none recorded)"]),
                "related": f"- [[{research_note_name}]] - category research",
                "provenance": f"_Provenance: `{data['turn_id']}`._"})
            doc = Document(id=_note_id("prod", name.lower()), kind="note", title=name,
                           primary_topic=f"product.{slugify(name, 30)}",
                           keywords=_tags(name, data["topic"]), intent="transactional",
                           content_types=["product"] + (["pricing"] if rows else []), scope="global", quality=0.7,
                           created_at=now, modified_at=now, source_urls=[u for _, _, u in info["prices"]], body=body,
                           importance=note_importance(data["query"]))
            action = "created"
        elif data["turn_id"] in existing.extra.get("turns", []):
            changes.append(NoteChange(vault.layout.relative(path), "unchanged", "product"))
            continue
        else:
            doc = existing
            doc.body = _append_rows(doc.body, rows)
            if info["specs"]:
                doc.body = doc.body.rstrip() + f"\n\n_Specs seen {now.date().isoformat()}:_ " + ", ".join(info["specs"])
            doc.source_urls = list(dict.fromkeys([*doc.source_urls, *(u for _, _, u in info["prices"])]))
            doc.modified_at = now
            action = "updated"
        doc.extra.update({
            "artifact_type": "product", "product_name": name, "category": data["topic"].replace(".", " "),
            "created": iso(doc.created_at), "modified": iso(now), "source": "internet_research", "confidence": 0.7,
            "status": "active", "tags": sorted(set(doc.keywords)),
            "related": list(dict.fromkeys([*doc.extra.get("related", []), f"[[{research_note_name}]]"])),
            "expires": (now + timedelta(days=policy.expiration.product_days)).date().isoformat(),
            "turns": [*doc.extra.get("turns", []), data["turn_id"]][-20:]})
        doc.expires_at = now + timedelta(days=policy.expiration.product_days)
        changes.append(write_note(vault, doc, path, action, "product"))
    return changes


def spec_rows(specs: list[str]) -> list[str]:
    """Seed 003's two-column specifications table (pure). Example: ['GPU: RTX 4060', '144Hz display'] ->
    ['| GPU | RTX 4060 |', '| Feature | 144Hz display |']."""
    rows = []
    for spec in specs:
        key, sep, value = spec.partition(":")
        rows.append(f"| {key.strip()} | {value.strip()} |" if sep and key.strip() and value.strip()
                    else f"| Feature | {spec.strip()} |")
    return rows


def product_claims(data: dict[str, Any], name: str) -> list[tuple[str, str]]:
    """(source domain, claim) for the pages' claims that name the product (its full name or its first two
    words), for Community Sentiment, Pros (positive words) and Cons (negative words: conversations/emotion.py)."""
    words = name.lower().split()
    keys = {name.lower(), " ".join(words[:2])} if len(words) > 1 else {name.lower()}
    out = []
    for page in data["pages"]:
        for claim in page["claims"]:
            text = " ".join(claim["text"].split())
            if any(k and k in text.lower() for k in keys) and (page["domain"], text) not in out:
                out.append((page["domain"] or claim["url"], text))
    return out[:6]


def _append_rows(body: str, rows: list[str]) -> str:
    """Insert price rows at the end of the Price History table (the table grows across turns)."""
    if not rows:
        return body
    lines = body.splitlines()
    try:
        start = lines.index("## Price History")
    except ValueError:
        table = "| Date | Vendor | Price | Source |\n|------|--------|-------|--------|"
        return body.rstrip() + f"\n\n## Price History\n\n{table}\n" + "\n".join(rows)
    last = None
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("|")):
        if lines[i].startswith("|"):
            last = i
        i += 1
    insert_at = last + 1 if last is not None else start + 1
    return "\n".join([*lines[:insert_at], *rows, *lines[insert_at:]])


def rebuild_indexes(vault: Vault, now: datetime) -> list[str]:
    """Meta/Indexes/{topic,product,tag,recent}_index.md from every Knowledge note's frontmatter."""
    notes = []
    for path in sorted((vault.home / "Knowledge").glob("**/*.md")):
        meta = frontmatter.loads(path.read_text(encoding="utf-8")).metadata
        notes.append((path.stem, meta))
    by_topic: dict[str, list[str]] = {}
    by_tag: dict[str, list[str]] = {}
    products = []
    for name, meta in notes:
        if meta.get("artifact_type") == "research":
            by_topic.setdefault(str(meta.get("topic", "general")).title(), []).append(name)
        if meta.get("artifact_type") == "product":
            products.append((str(meta.get("product_name", name)), name))
            by_topic.setdefault(str(meta.get("category", "products")).title(), []).append(name)
        tags = meta.get("tags")
        for tag in tags if isinstance(tags, list) else []:
            by_tag.setdefault(str(tag), []).append(name)
    recent = sorted(notes, key=lambda item: str(item[1].get("modified", "")), reverse=True)[:RECENT]
    written = []
    for kind, sections in (("topic", by_topic), ("tag", by_tag)):
        body = [f"# {kind.title()} Index", ""]
        for key in sorted(sections):
            body += [f"## {key}", *[f"- [[{n}]]" for n in sorted(set(sections[key]))], ""]
        written.append(_write_index(vault, kind, body, sum(len(v) for v in sections.values()), now))
    body = ["# Product Index", "", *[f"- [[{note}]] — {name}" for name, note in sorted(products)]]
    written.append(_write_index(vault, "product", body, len(products), now))
    body = ["# Recently Modified", "", *[f"- [[{n}]] · {m.get('modified', '')}" for n, m in recent]]
    written.append(_write_index(vault, "recent", body, len(recent), now))
    return written


def _write_index(vault: Vault, kind: str, body: list[str], count: int, now: datetime) -> str:
    path = vault.home / "Meta" / "Indexes" / f"{kind}_index.md"
    post = frontmatter.Post("\n".join(body).rstrip() + "\n", artifact_type="index", index_type=kind, modified=iso(now),
                            entry_count=count)
    atomic_write_text(path, frontmatter.dumps(post, sort_keys=False) + "\n")
    return vault.layout.relative(path)


def log_changes(vault: Vault, changes: list[NoteChange], origin: str, now: datetime) -> str:
    """Append one line per note change, with its diff, to Logs/Changes/YYYY-MM-DD.md (documents/change_log.py)."""
    path = vault.home / "Logs" / "Changes" / f"{now.date().isoformat()}.md"
    for change in changes:
        if change.action == "unchanged":
            continue
        note = Path(change.path).stem
        append_entry(path, f"Knowledge changes {now.date().isoformat()}",
                     f"{now.strftime('%H:%M')} {change.action} {change.kind} [[{note}]] (provenance `{origin}`)", change.diff)
    return vault.layout.relative(path)
