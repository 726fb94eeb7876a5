"""Shared-notes repair job (issue 44): take users' sentences out of notes an older Panda wrote.

Before, a research note's `subtopic` and its update sections (`**Query:** …`) were the asking turn's scrubbed
question, a public lesson in Context/Turns/ was titled with it, and the change log repeated both. This job, on
every global note of Knowledge/Research/ and Context/Turns/:
- sets a research note's subtopic to its topic's words, drops its `**Query:**` lines and re-derives its tags from
  the topic and the titles of the pages it cites;
- re-titles a lesson with its task in neutral words (privacy/neutral.py), or removes the lesson (and its catalog
  row) when no neutral wording is left;
- drops every line of Logs/Changes/ that repeats a sentence a user wrote about themselves (the same test as
  `panda check`'s privacy finding).
Rewritten notes are indexed again in the same run. Idempotent: a second run changes nothing. `--dry-run` lists.
"""

from __future__ import annotations

import re

from panda.documents.atomic import atomic_write_text
from panda.documents.model import Document
from panda.jobs.common import JobReport, JobRun
from panda.privacy.forget import source_titles, tags_of
from panda.privacy.neutral import neutral_task, personal_sentences, repeats_sentence, topic_words

_QUERY_LINE = re.compile(r"^\*\*Query:\*\* .*\n?", re.MULTILINE)


def repaired_research(doc: Document) -> Document | None:
    """The research note without its askers' words, or None when it has none (pure)."""
    topic = str(doc.extra.get("topic") or doc.primary_topic.replace(".", " "))
    body = _QUERY_LINE.sub("", doc.body)
    subtopic = topic_words(topic)[:80]
    tags = sorted(set(tags_of(topic, *source_titles(body))))
    if body == doc.body and doc.extra.get("subtopic") == subtopic:
        return None
    return doc.model_copy(update={"body": body, "keywords": tags[:12],
                                  "extra": {**doc.extra, "subtopic": subtopic, "tags": tags[:12]}})


def repaired_lesson(doc: Document) -> Document | None:
    """The lesson re-titled with its task in neutral words; the same document when it already is; None when the
    task cannot be stated without something personal (the lesson goes)."""
    task = neutral_task(doc.title, doc.primary_topic)
    if task is None:
        return None
    if task == doc.title:
        return doc
    heading = re.compile(r"^# .*$", re.MULTILINE)
    return doc.model_copy(update={"title": task, "body": heading.sub(f"# {task}", doc.body, count=1)})


def run(job: JobRun) -> JobReport:
    ctx = job.ctx
    report = JobReport("shared_notes", job.now, job.dry_run)
    home, layout = ctx.vault.home, ctx.vault.layout
    to_index: list[Document] = []
    for path in sorted(home.glob("Knowledge/Research/*.md")):
        report.count("research_notes_checked")
        rel = layout.relative(path)
        fixed = repaired_research(ctx.vault.read_document(rel))
        if fixed is not None:
            report.change("research_notes_repaired", f"{rel}: subtopic and query lines from the topic, not the askers")
            if not job.dry_run:
                to_index.append(ctx.vault.write_document(fixed, path))
    for path in sorted(home.glob("Context/Turns/*.md")):
        report.count("lessons_checked")
        rel = layout.relative(path)
        doc = ctx.vault.read_document(rel)
        fixed = repaired_lesson(doc)
        if fixed is doc:
            continue
        if fixed is None:
            report.change("lessons_removed", f"{rel}: its task cannot be stated without something personal")
            if not job.dry_run:
                with ctx.catalog.transaction():
                    ctx.catalog.delete_document(doc.id)
                path.unlink()
        else:
            report.change("lessons_retitled", f"{rel}: titled with its task in neutral words")
            if not job.dry_run:
                to_index.append(ctx.vault.write_document(fixed, path))
    sentences = [s for meta, _ in ctx.vault.iter_turn_records() for s in personal_sentences(str(meta.get("query") or ""))]
    for path in sorted(home.glob("Logs/Changes/*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if not any(repeats_sentence(line, s) for s in sentences)]
        if len(kept) != len(lines):
            report.change("change_log_lines_dropped", f"{layout.relative(path)}: {len(lines) - len(kept)} line(s)")
            if not job.dry_run:
                atomic_write_text(path, "\n".join(kept) + "\n")
    if to_index:
        with ctx.catalog.transaction():
            ctx.memory.index(to_index)
    return report.finish(ctx)
