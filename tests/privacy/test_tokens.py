"""API tokens (privacy/tokens.py): shown once, stored hashed, revocable at once, safe with two writers."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path

import pytest

from panda.errors import UnsafePathError
from panda.privacy.tokens import PREFIX, TokenStore, create_token, list_tokens, revoke, token_hash, tokens_path


def test_a_token_is_stored_only_as_its_hash_and_maps_to_its_user(tmp_path: Path):
    info, token = create_token(tmp_path, "alice", "laptop assistant")
    assert token.startswith(PREFIX) and len(token) > 40
    raw = tokens_path(tmp_path).read_text(encoding="utf-8")
    assert token not in raw and token_hash(token) in raw
    assert stat.S_IMODE(tokens_path(tmp_path).stat().st_mode) == 0o600
    store = TokenStore(tmp_path)
    assert store.user_for(token) == "alice"
    assert [t.id for t in list_tokens(tmp_path, "alice")] == [info.id] and info.label == "laptop assistant"


@pytest.mark.parametrize("bad", [None, "", "pnd_", "Bearer x", "pnd_" + "a" * 500, "x" * 43, "pnd_\x00"])
def test_no_token_or_a_malformed_one_is_nobody(tmp_path: Path, bad):
    create_token(tmp_path, "alice")
    assert TokenStore(tmp_path).user_for(bad) is None


def test_revoking_holds_at_the_next_request_of_a_running_store(tmp_path: Path):
    info, token = create_token(tmp_path, "alice")
    _, other = create_token(tmp_path, "alice")
    _, bobs = create_token(tmp_path, "bob")
    store = TokenStore(tmp_path)
    assert store.user_for(token) == "alice"
    assert [r.id for r in revoke(tmp_path, token_id=info.id)] == [info.id]
    assert store.user_for(token) is None and store.user_for(other) == "alice"
    assert len(revoke(tmp_path, user_id="alice")) == 1  # the other one; the revoked one is not revoked twice
    assert store.user_for(other) is None and store.user_for(bobs) == "bob"


def test_a_user_id_that_is_not_a_safe_name_is_refused(tmp_path: Path):
    with pytest.raises(UnsafePathError):
        create_token(tmp_path, "../bob")


def test_two_writers_at_once_lose_no_token(tmp_path: Path):
    made: list[str] = []

    def make(n: int) -> None:
        for _ in range(n):
            made.append(create_token(tmp_path, "alice")[1])

    threads = [threading.Thread(target=make, args=(15,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = json.loads(tokens_path(tmp_path).read_text(encoding="utf-8"))
    assert len(records) == 60 and all(TokenStore(tmp_path).user_for(t) == "alice" for t in made)
