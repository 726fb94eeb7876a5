"""API tokens: which user a request to `panda serve` acts as.

A token is `pnd_` + 43 random URL-safe characters (256 bits), shown once when created; the home keeps only its
SHA-256 (a random 256-bit secret needs no slow hash: there is nothing to guess). Tokens live in
`catalog/api_tokens.json` beside the catalog (outside the vault Obsidian shows), written atomically under their own
lock, so creating or revoking one never waits for a running batch, and two `panda tokens` at once lose nothing.
`TokenStore.user_for` reads the file again only when it changed, so a revocation (or a user's deletion, which
revokes every token of the user: jobs/deletion.py) holds from the next request on.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panda.documents.atomic import atomic_write_text
from panda.documents.paths import validate_name

PREFIX = "pnd_"
FILE = "api_tokens.json"
MAX_TOKEN_CHARS = 200  # anything longer is not one of ours: refused before hashing


def tokens_path(home: Path) -> Path:
    return home / "catalog" / FILE


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenInfo:
    id: str
    user_id: str
    label: str
    created_at: str
    revoked_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    data = json.loads(path.read_text(encoding="utf-8") or "[]")
    return data if isinstance(data, list) else []


@contextmanager
def _locked(home: Path) -> Iterator[list[dict[str, Any]]]:
    """The token records under the tokens' own lock; what the block leaves in the list is written back."""
    path = tokens_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        records = _read(path)
        before = json.dumps(records)
        yield records
        if json.dumps(records) != before:
            atomic_write_text(path, json.dumps(records, indent=1) + "\n")
            os.chmod(path, 0o600)
    finally:
        os.close(fd)


def create_token(home: Path, user_id: str, label: str = "", now: datetime | None = None) -> tuple[TokenInfo, str]:
    """A new token for `user_id`: its record and the token itself (shown once, never stored)."""
    validate_name(user_id, "user_id")
    token = PREFIX + secrets.token_urlsafe(32)
    record = {"id": "tok_" + secrets.token_hex(6), "user_id": user_id, "label": " ".join(label.split())[:80],
              "sha256": token_hash(token), "created_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
              "revoked_at": None}
    with _locked(home) as records:
        records.append(record)
    return _info(record), token


def revoke(home: Path, token_id: str | None = None, user_id: str | None = None,
           now: datetime | None = None) -> list[TokenInfo]:
    """Revoke one token by id, or every token of `user_id`. Returns the tokens revoked now."""
    stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    done = []
    with _locked(home) as records:
        for record in records:
            if record["revoked_at"] is None and (record["id"] == token_id or (user_id and record["user_id"] == user_id)):
                record["revoked_at"] = stamp
                done.append(_info(record))
    return done


def list_tokens(home: Path, user_id: str | None = None) -> list[TokenInfo]:
    return [_info(r) for r in _read(tokens_path(home)) if user_id is None or r["user_id"] == user_id]


def _info(record: dict[str, Any]) -> TokenInfo:
    return TokenInfo(record["id"], record["user_id"], record.get("label", ""), record["created_at"],
                     record.get("revoked_at"))


class TokenStore:
    """Token -> user for a running server; re-reads the file when it changes (revocations hold at once)."""

    def __init__(self, home: Path) -> None:
        self.path = tokens_path(home)
        self._stamp: tuple[int, int, int] | None = None
        self._users: dict[str, str] = {}
        self._guard = threading.Lock()

    def user_for(self, token: str | None) -> str | None:
        """The user a live token acts as; None for no token, an unknown or revoked one, or anything malformed."""
        if not token or len(token) > MAX_TOKEN_CHARS or not token.startswith(PREFIX):
            return None
        with self._guard:
            self._refresh()
            return self._users.get(token_hash(token))

    def _refresh(self) -> None:
        try:
            st = self.path.stat()
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            self._stamp, self._users = None, {}
            return
        if stamp != self._stamp:
            self._users = {r["sha256"]: r["user_id"] for r in _read(self.path) if r.get("revoked_at") is None}
            self._stamp = stamp
