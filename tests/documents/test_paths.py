from pathlib import Path

import pytest

from panda.documents.paths import VaultLayout, slugify, turn_dir_name, validate_name
from panda.errors import UnsafePathError


@pytest.mark.parametrize("name", ["alice", "user-42", "a.b_c", "x@example.com", "A1"])
def test_valid_names(name):
    assert validate_name(name) == name


@pytest.mark.parametrize("name", ["", "..", "../etc", "a/b", ".hidden", "a\\b", "a" * 200, "a..b", "a b", "/abs"])
def test_unsafe_names_are_rejected(name):
    with pytest.raises(UnsafePathError):
        validate_name(name, "user_id")


def test_layout_never_leaves_the_home(tmp_path: Path):
    layout = VaultLayout(tmp_path)
    assert layout.turn_dir("alice", 7) == (tmp_path / "users" / "alice" / "turns" / "turn_000007").resolve()
    with pytest.raises(UnsafePathError):
        layout.user_dir("../../etc")
    with pytest.raises(UnsafePathError):
        layout.resolve_relative("../outside.md")
    (tmp_path / "link").symlink_to("/tmp")
    with pytest.raises(UnsafePathError):
        layout.inside(tmp_path / "link" / "x.md")


def test_turn_dir_name_and_slugify():
    assert turn_dir_name(1) == "turn_000001"
    with pytest.raises(UnsafePathError):
        turn_dir_name(0)
    assert slugify("Gaming Laptops: RTX 4060!") == "gaming_laptops_rtx_4060"
