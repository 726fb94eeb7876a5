"""Links between vault files (pure): resolve, follow moves, repair only what is broken."""

from __future__ import annotations

from panda.documents.vault_links import link_between, markdown_links, moved_path, relink, resolve, wiki_targets

OLD = "users/ann/turns/turn_000003"
NEW = "archive/2026-03/ann/turn_000003"


def test_markdown_links_skip_urls_anchors_images_and_absolute_paths():
    text = "[a](x.md#s) [w](https://e.com/a.md) [m](mailto:a@b.c) [h](#top) ![i](pic.png) [r](/etc/passwd) [j](d/m.json)"
    assert [(k.text, k.target, k.fragment) for k in markdown_links(text)] == [("a", "x.md", "#s"), ("j", "d/m.json", "")]
    assert wiki_targets("see [[note_a]] and [[note_b#Head|alias]]") == ["note_a", "note_b"]


def test_resolve_and_link_between_are_inverse():
    assert resolve(f"{OLD}/context.md", "../../preferences.md") == "users/ann/preferences.md"
    assert resolve("Knowledge/x.md", "../../etc/passwd") is None  # out of the vault
    link = link_between(f"{NEW}/context.md", "users/ann/preferences.md")
    assert link == "../../../../users/ann/preferences.md"
    assert resolve(f"{NEW}/context.md", link) == "users/ann/preferences.md"


def test_moved_path_takes_the_longest_prefix_and_not_a_sibling_with_the_same_start():
    moves = {OLD: NEW, "users/ann": "elsewhere"}
    assert moved_path(f"{OLD}/research.md", moves) == f"{NEW}/research.md"
    assert moved_path("users/ann/turns/turn_0000031/context.md", {OLD: NEW}) is None
    assert moved_path("users/annie/facts.md", moves) is None


def test_a_moved_file_repairs_its_own_links_and_others_follow_it():
    files = {f"{NEW}/context.md", f"{NEW}/research.md", "users/ann/preferences.md", "users/ann/turns/turn_000004/context.md"}
    exists = files.__contains__
    moved = "[prefs](../../preferences.md#p1) [r](research.md) [web](https://x.org/a.md)"
    text, changed = relink(moved, f"{NEW}/context.md", {OLD: NEW}, exists, old_source=f"{OLD}/context.md")
    assert changed == 1  # research.md moved with it and still resolves
    assert "[prefs](../../../../users/ann/preferences.md#p1)" in text and "[r](research.md)" in text
    other = "earlier: [turn 3](../turn_000003/context.md)"
    text, changed = relink(other, "users/ann/turns/turn_000004/context.md", {OLD: NEW}, exists)
    assert changed == 1 and resolve("users/ann/turns/turn_000004/context.md", markdown_links(text)[0].target) == f"{NEW}/context.md"
    again, changed = relink(text, "users/ann/turns/turn_000004/context.md", {OLD: NEW}, exists)
    assert changed == 0 and again == text  # idempotent


def test_links_to_removed_or_unreadable_targets_become_plain_text_and_unknown_breaks_stay():
    exists = {"Knowledge/Facts/n.md"}.__contains__
    text, changed = relink("[gone](../users/bob/turns/turn_000001/context.md) [x](missing.md)", "Knowledge/n2.md", {},
                           exists, removed=lambda p: p.startswith("users/bob/"))
    assert text == "gone [x](missing.md)" and changed == 1  # an unexplained break is left for panda check
    moves = {"Knowledge/Facts/n.md": "users/ann/memories/n.md"}  # demoted into ann's folder: bob may not follow
    text, changed = relink("[n](../../../../Knowledge/Facts/n.md)", "users/bob/turns/turn_000001/context.md", moves,
                           lambda p: False)
    assert text == "n" and changed == 1
