"""`panda check`: the vault doctor. Finds what would make a home untrustworthy, changes nothing.

Five checks, each a list of findings ("problem: where — what"):
- frontmatter: every markdown file that opens with `---` has a YAML mapping there; every document
  file parses as a Panda document; every turn's metadata.json is a JSON object;
- links: every relative markdown link resolves to a file, every [[wiki-link]] to a note; no link
  points where its file's owner may not read (privacy/visibility.py: another user's folder, or a
  global note linking into users/);
- catalog: the live catalog equals what `panda reindex` would build from the vault — documents
  (paths, counters, scopes, search text), turn index, references, sessions, messages, threads. The
  rebuild goes into an in-memory catalog without vectors (rows are compared, embeddings are not);
- orphans: atomic-write temp files, turn folders without metadata.json (an unfinished turn: re-run
  its input), session notes whose transcript is gone;
- privacy: global files (Knowledge/, Meta/, Logs/Changes/, site_knowledge/, Context/) must not
  name a known user — their id or the name in their facts — nor hold a path into users/ or archive/; and a
  shared note's title, subtopic or headings must not repeat a sentence a user wrote about themselves.
Web/ pages are left out of the privacy check: they are third-party text that may name anyone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import frontmatter
import numpy as np

from panda.catalog.store import DOC_COLUMNS, Catalog
from panda.documents.model import Document
from panda.documents.vault_links import markdown_links, resolve, wiki_targets
from panda.errors import VaultFileError
from panda.home import Home
from panda.jobs.link_repair import vault_files
from panda.memory.search import MemoryStore
from panda.privacy.neutral import personal_sentences, repeats_sentence
from panda.privacy.visibility import path_owner

GLOBAL_TEXT_ROOTS = ("Knowledge/", "Meta/", "Logs/Changes/", "site_knowledge/", "Context/")
DOCUMENT_PATTERNS = (re.compile(r"^users/[^/]+/memories/[^/]+\.md$"), re.compile(r"^(Knowledge|Web)/.+\.md$"))
TEMP_FILE = re.compile(r"(^|/)\.[^/]+\.tmp$|\.tmp$|\.partial$")
# Rows compared between the live catalog and a rebuild; each table keyed by its first column.
COMPARED = {
    "documents": ", ".join([*DOC_COLUMNS, "search_text"]),
    "turn_index": "*",
    "turn_uses": "turn_id, user_id, doc_id",
    "turn_references": "turn_id, user_id, doc_id",
    "sessions": "*",
    "threads": "*",
    "messages": "*",
}
# Columns that record when the catalog did something, not what the vault says (kept out of the diff).
RECORD_TIME_COLUMNS = {"indexed_at", "recorded_at", "enriched_at"}


@dataclass
class CheckReport:
    home: str
    findings: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, check: str, finding: str) -> None:
        self.findings.setdefault(check, []).append(finding)

    @property
    def ok(self) -> bool:
        return not any(self.findings.values())

    def as_dict(self) -> dict[str, Any]:
        return {"home": self.home, "ok": self.ok, "counts": self.counts,
                "findings": {k: v for k, v in self.findings.items() if v}}

    def markdown(self, limit: int = 40) -> str:
        lines = [f"# panda check · {self.home}", "", "- result: " + ("clean" if self.ok else "PROBLEMS FOUND"), ""]
        lines += [f"- {k}: {v}" for k, v in sorted(self.counts.items())]
        for check, items in sorted(self.findings.items()):
            if items:
                lines += ["", f"## {check} ({len(items)})", ""] + [f"- {i}" for i in items[:limit]]
                if len(items) > limit:
                    lines.append(f"- … and {len(items) - limit} more")
        return "\n".join(lines)


def check_home(ctx: Home, compare_catalog: bool = True) -> CheckReport:
    home = ctx.vault.home
    report = CheckReport(str(home))
    files = vault_files(home)
    report.counts["files"] = len(files)
    texts, undecodable = _markdown_texts(home, files)  # read once, used by three checks
    for rel in undecodable:
        report.add("frontmatter", f"{rel}: not UTF-8")
    _check_frontmatter(home, files, {r: t for r, t in texts.items() if r not in undecodable}, report)
    _check_links(files, texts, report)
    _check_orphans(home, files, report)
    _check_private_data(ctx, home, files, texts, report)
    _check_user_sentences(ctx, files, texts, report)
    if compare_catalog:
        _check_catalog(ctx, report)
    return report


def _markdown_texts(home: Path, files: set[str]) -> tuple[dict[str, str], list[str]]:
    """Every markdown file's text (undecodable bytes replaced), and the files that are not UTF-8."""
    texts, undecodable = {}, []
    for rel in sorted(f for f in files if f.endswith(".md")):
        data = (home / rel).read_bytes()
        try:
            texts[rel] = data.decode("utf-8")
        except UnicodeDecodeError:
            texts[rel] = data.decode("utf-8", errors="replace")
            undecodable.append(rel)
    return texts, undecodable


def _check_frontmatter(home: Path, files: set[str], texts: dict[str, str], report: CheckReport) -> None:
    for rel in sorted(files):
        if rel.endswith("/metadata.json") and "/turn_" in rel:
            try:
                if not isinstance(json.loads((home / rel).read_text(encoding="utf-8")), dict):
                    report.add("frontmatter", f"{rel}: not a JSON object")
            except (ValueError, UnicodeDecodeError) as exc:
                report.add("frontmatter", f"{rel}: invalid JSON ({exc})")
    for rel, text in texts.items():
        if text.startswith("---"):
            try:
                post = frontmatter.loads(text)
            except Exception as exc:  # yaml.YAMLError and friends: report, never stop the check
                report.add("frontmatter", f"{rel}: frontmatter does not parse ({type(exc).__name__}: {exc})")
                continue
            if not isinstance(post.metadata, dict):
                report.add("frontmatter", f"{rel}: frontmatter is not a mapping")
                continue
        if any(p.match(rel) for p in DOCUMENT_PATTERNS):
            try:
                Document.from_markdown(text, doc_path=rel)
            except Exception as exc:  # pydantic ValidationError, missing fields
                first = str(exc).splitlines()[0:3]
                report.add("frontmatter", f"{rel}: not a valid Panda document ({' '.join(first)})")


def _check_links(files: set[str], texts: dict[str, str], report: CheckReport) -> None:
    stems = {Path(f).stem for f in files if f.endswith(".md")}
    checked = 0
    for rel, text in texts.items():
        owner = path_owner(rel)
        for link in markdown_links(text):
            checked += 1
            target = resolve(rel, link.target)
            if target is None or target not in files:
                report.add("links", f"{rel}: broken link [{link.text}]({link.target})")
            elif path_owner(target) is not None and path_owner(target) != owner:
                report.add("links", f"{rel}: links into {path_owner(target)}'s private folder ({link.target})")
        for name in wiki_targets(text):
            checked += 1
            if name not in stems:
                report.add("links", f"{rel}: wiki-link [[{name}]] names no note")
    report.counts["links_checked"] = checked


def _check_orphans(home: Path, files: set[str], report: CheckReport) -> None:
    for rel in sorted(files):
        if TEMP_FILE.search(rel):
            report.add("orphans", f"{rel}: temporary file left by an interrupted write")
    turn_dirs = {m.group(1) for f in files if (m := re.match(r"^((?:users/[^/]+/turns|archive/[^/]+/[^/]+)/turn_\d+)/", f))}
    for folder in sorted(turn_dirs):
        if f"{folder}/metadata.json" not in files:
            report.add("orphans", f"{folder}/: unfinished turn (no metadata.json); re-run its input to finish it")
    transcripts = {(Path(f).parts[-4] if f.startswith("archive/") else Path(f).parts[1], Path(f).parts[-2], Path(f).name)
                   for f in files if re.match(r"^(users/[^/]+|archive/[^/]+/[^/]+)/threads/[^/]+/session_[^/]+\.md$", f)}
    for rel in sorted(files):
        m = re.match(r"^Logs/Sessions/([^/]+)/([^/]+)/(session_[^/]+\.md)$", rel)
        if m and (m.group(1), m.group(2), m.group(3)) not in transcripts:
            report.add("orphans", f"{rel}: session note whose transcript is gone")


def _check_private_data(ctx: Home, home: Path, files: set[str], texts: dict[str, str],
                        report: CheckReport) -> None:
    users = {Path(f).parts[1] for f in files if f.startswith("users/") and len(Path(f).parts) > 2}
    users |= {Path(f).parts[2] for f in files if f.startswith("archive/") and len(Path(f).parts) > 3}
    names: dict[str, str] = {}
    for user in sorted(users):
        names[user.lower()] = user
        # Names only: a residence or employer is an ordinary public word in a global note.
        for entry in ctx.vault.memory_file(user, "fact").entries if (home / "users" / user).exists() else []:
            if entry.attribute == "name" and len(entry.value) > 2:
                names[entry.value.lower()] = user
    if not names:
        return
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?![\w-])|\b(?:users|archive/\d{4}-\d{2})/[\w.-]+/", re.IGNORECASE)
    for rel in sorted(files):
        if not rel.startswith(GLOBAL_TEXT_ROOTS) or not rel.endswith((".md", ".json", ".jsonl", ".csv", ".txt")):
            continue
        text = texts.get(rel) or (home / rel).read_text(encoding="utf-8", errors="replace")
        for m in pattern.finditer(text):
            found = m.group(1)
            what = f"names user {names[found.lower()]!r}" if found else f"holds a private path {m.group(0)!r}"
            report.add("privacy", f"{rel}: {what}")
            break


SHARED_NOTE_ROOTS = ("Knowledge/", "Context/")


def _check_user_sentences(ctx: Home, files: set[str], texts: dict[str, str], report: CheckReport) -> None:
    """A shared note's title, subtopic and headings must not repeat a sentence a user wrote about themselves
    (privacy/neutral.py): five words in a row of one of the users' personal sentences is a finding."""
    sentences = [(str(meta.get("user_id")), s) for meta, _ in ctx.vault.iter_turn_records()
                 for s in personal_sentences(str(meta.get("query") or ""))]
    if not sentences:
        return
    for rel in sorted(f for f in files if f.startswith(SHARED_NOTE_ROOTS) and f.endswith(".md")):
        text = texts.get(rel)
        if text is None:
            continue
        try:
            post = frontmatter.loads(text)
        except Exception:  # noqa: BLE001 - a broken frontmatter is the frontmatter check's finding
            continue
        heads = [str(post.metadata.get(k) or "") for k in ("title", "subtopic")]
        heads += [line.lstrip("# ") for line in post.content.splitlines() if line.startswith("#")]
        hit = next((user for user, s in sentences for h in heads if repeats_sentence(h, s)), None)
        if hit is not None:
            report.add("privacy", f"{rel}: its title, subtopic or a heading repeats what user {hit!r} wrote")


class _NoVectors:
    """Embedder for the throw-away rebuild: the check compares rows, so no model is loaded."""

    dim = 8  # any width: the throw-away catalog's vectors are never searched

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dim), dtype=np.float32)


def _check_catalog(ctx: Home, report: CheckReport) -> None:
    from panda.jobs.reindex import reindex

    rebuilt = Catalog(None)
    try:
        memory = MemoryStore(ctx.vault, rebuilt, _NoVectors(), ctx.policy)
        memory.search_index = None
        shadow = Home(settings=ctx.settings, policy=ctx.policy, vault=ctx.vault, catalog=rebuilt,
                                 memory=memory, model_for=ctx.model_for)
        try:
            reindex(shadow)
        except VaultFileError as exc:
            report.add("catalog", f"not compared: reindex cannot read the vault ({exc.path}, see frontmatter)")
            return
        for table, columns in COMPARED.items():
            live = _rows(ctx.catalog, table, columns)
            fresh = _rows(rebuilt, table, columns)
            report.counts[f"catalog_{table}"] = len(live)
            for key in sorted(set(live) | set(fresh)):
                if key not in fresh:
                    report.add("catalog", f"{table} {key}: in the catalog, not in the vault (reindex would drop it)")
                elif key not in live:
                    report.add("catalog", f"{table} {key}: in the vault, missing from the catalog")
                elif live[key] != fresh[key]:
                    diff = {c: (live[key].get(c), fresh[key].get(c)) for c in live[key] if live[key].get(c) != fresh[key].get(c)}
                    shown = ", ".join(f"{c}: catalog {a!r} vs vault {b!r}" for c, (a, b) in list(diff.items())[:3])
                    report.add("catalog", f"{table} {key}: differs from the vault ({shown[:300]})")
    finally:
        rebuilt.close()


def _rows(catalog: Catalog, table: str, columns: str) -> dict[str, dict[str, Any]]:
    rows = catalog.table_rows(table, columns)
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        values = {k: _normal(v) for k, v in row.items() if k not in RECORD_TIME_COLUMNS}
        key = "|".join(str(v) for v in list(row.values())[: 3 if table in ("turn_uses", "turn_references") else 1])
        out[key] = values
    return out


def _normal(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value
