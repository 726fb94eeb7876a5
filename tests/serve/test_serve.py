"""`panda serve` for real: the server started as a process on 127.0.0.1, the HTTP API through httpx, MCP through the
official SDK's client (streamable HTTP with tokens, and stdio). Two users' tokens; an import writing meanwhile; a
deleted user's token refused; hostile input answered with a 4xx, never a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from panda.config import Settings
from panda.conversations.importer import import_export
from panda.privacy.tokens import create_token
from panda.runtime import open_home

FIXTURES = Path(__file__).parents[1] / "conversations" / "fixtures"


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PANDA_HOME": str(home), "PANDA_EMBEDDING_MODEL": os.environ.get("PANDA_EMBEDDING_MODEL",
                                                                                           "minilm")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory, embedder):
    """A home with alice (a ChatGPT export) and bob (a Claude export), a token each, and the server running."""
    home = tmp_path_factory.mktemp("serve") / "home"
    with open_home(Settings(home=home), embedder=embedder) as ctx:
        import_export(ctx, FIXTURES / "chatgpt_conversations.json", "chatgpt", "alice")
        import_export(ctx, FIXTURES / "claude_conversations.json", "claude", "bob")
    tokens = {user: create_token(home, user, "tests")[1] for user in ("alice", "bob")}
    port = _free_port()
    log = (home.parent / "serve.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "panda.cli", "serve", "--http", "--home", str(home), "--port",
                                str(port)], env=_env(home), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert process.poll() is None and time.monotonic() < deadline, (home.parent / "serve.log").read_text()
        time.sleep(0.5)
    yield {"home": home, "base": base, "tokens": tokens, "process": process}
    process.terminate()
    process.wait(timeout=30)
    log.close()
    assert "Traceback" not in (home.parent / "serve.log").read_text()  # every failure answered, none crashed


def _get(served, path: str, user: str | None, **kwargs):
    headers = {"Authorization": f"Bearer {served['tokens'][user] if user in served['tokens'] else user}"} if user else {}
    return httpx.get(served["base"] + path, headers=headers, timeout=60, **kwargs)


def _post(served, path: str, user: str | None, body, **kwargs):
    headers = {"Authorization": f"Bearer {served['tokens'].get(user, user)}"} if user else {}
    return httpx.post(served["base"] + path, headers=headers, json=body, timeout=120, **kwargs)


def _ids(response) -> list[str]:
    return [r["id"] for r in response.json()["results"]]


def test_each_token_reads_its_own_users_memory_and_nothing_of_the_other(served):
    alice = _post(served, "/v1/search", "alice", {"query": "where do I live", "limit": 5})
    assert alice.status_code == 200 and alice.json()["results"][0]["title"] == "residence: Lisbon"
    bob = _post(served, "/v1/search", "bob", {"query": "Lisbon cat Miso dentist", "limit": 50})
    assert bob.status_code == 200
    assert all(not r["doc_path"].startswith("users/alice/") for r in bob.json()["results"])
    facts = _get(served, "/v1/facts", "alice").json()["facts"]
    assert {(f["key"], f["value"]) for f in facts} >= {("residence", "Lisbon"), ("pet", "cat named Miso")}
    assert {f["value"] for f in _get(served, "/v1/facts", "bob").json()["facts"]} >= {"Porto"}
    assert "hiking in the mountains" in {p["value"] for p in _get(served, "/v1/preferences", "alice").json()["preferences"]}
    as_then = _get(served, "/v1/facts", "alice", params={"as_of": "2024-05-15T00:00:00Z"}).json()["facts"]
    assert ("job", "nurse") not in {(f["key"], f["value"]) for f in as_then}  # said on 2024-06-01


def test_another_users_document_is_not_found_exactly_like_a_missing_one(served):
    hit = next(r for r in _post(served, "/v1/search", "alice", {"query": "Lisbon neighbourhoods"}).json()["results"]
               if r["kind"] == "message")
    mine = _get(served, f"/v1/documents/{hit['id']}", "alice")
    assert mine.status_code == 200 and mine.json()["body"].startswith("I live in Lisbon now.")
    theirs = _get(served, f"/v1/documents/{hit['id']}", "bob")
    missing = _get(served, "/v1/documents/msg_0000000000000000", "bob")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json()["detail"].replace(hit["id"], "X") == missing.json()["detail"].replace("msg_0000000000000000", "X")


@pytest.mark.parametrize("token", [None, "pnd_not-a-real-token", "Basic YWxpY2U6eA==", "x" * 5000])
def test_no_token_or_a_wrong_one_is_401_everywhere(served, token):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for method, path in [("POST", "/v1/search"), ("GET", "/v1/facts"), ("GET", "/v1/preferences"),
                         ("GET", "/v1/documents/msg_1"), ("GET", "/v1/turns/recent"), ("POST", "/v1/remember")]:
        response = httpx.request(method, served["base"] + path, headers=headers, json={"query": "x", "text": "x"}
                                 if method == "POST" else None, timeout=30)
        assert response.status_code == 401, (path, response.text)


def test_bad_input_gets_a_clear_4xx(served):
    assert _post(served, "/v1/search", "alice", {"query": "x" * 2001}).status_code == 422
    assert _post(served, "/v1/search", "alice", {"query": ""}).status_code == 422
    assert _post(served, "/v1/search", "alice", {"query": "x", "limit": 0}).status_code == 422
    assert _post(served, "/v1/search", "alice", {"query": "x", "unknown": 1}).status_code == 422
    bad_time = _post(served, "/v1/search", "alice", {"query": "x", "as_of": "yesterday"})
    assert bad_time.status_code == 400 and "ISO 8601" in bad_time.json()["detail"]
    assert _get(served, "/v1/documents/bad%20id%3B", "alice").status_code == 400
    assert _get(served, "/v1/documents/..%2F..%2Fetc%2Fpasswd", "alice").status_code in (400, 404)
    assert _get(served, "/v1/turns/recent", "alice", params={"limit": 10_000}).status_code == 400
    huge = httpx.post(served["base"] + "/v1/remember", headers={"Authorization": f"Bearer {served['tokens']['alice']}"},
                      content=b'{"text": "' + b"a" * 70_000 + b'"}', timeout=30)
    assert huge.status_code == 413
    schema = httpx.get(served["base"] + "/openapi.json", timeout=30).json()
    assert {"/v1/search", "/v1/facts", "/v1/remember", "/v1/documents/{doc_id}"} <= set(schema["paths"])


def test_mcp_over_http_acts_as_the_tokens_user(served):
    async def session(token: str | None, calls: list[tuple[str, dict]]) -> list:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http, \
                Client(streamable_http_client(served["base"] + "/mcp", http_client=http)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"search_memory", "get_facts", "get_preferences", "read_document", "recent_turns", "remember"}
            return [await client.call_tool(name, args) for name, args in calls]

    found, facts = asyncio.run(session(served["tokens"]["alice"], [("search_memory", {"query": "where do I live"}),
                                                                   ("get_facts", {})]))
    assert not found.is_error and found.structured_content["result"][0]["title"] == "residence: Lisbon"
    assert ("residence", "Lisbon") in {(f["key"], f["value"]) for f in facts.structured_content["result"]}
    message = next(r["id"] for r in found.structured_content["result"] if r["kind"] == "message")
    (refused,) = asyncio.run(session(served["tokens"]["bob"], [("read_document", {"id": message})]))
    assert refused.is_error and "no document" in refused.content[0].text
    (bad,) = asyncio.run(session(served["tokens"]["bob"], [("search_memory", {"query": "x" * 3000})]))
    assert bad.is_error and "longer than 2000" in bad.content[0].text
    for token in (None, "pnd_wrong"):
        with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the 401 as its own error types
            asyncio.run(session(token, []))
        assert httpx.post(served["base"] + "/mcp", headers={"Authorization": f"Bearer {token}"} if token else {},
                          json={}, timeout=30).status_code == 401


def test_mcp_over_stdio_for_a_local_assistant(served):
    params = StdioServerParameters(command=sys.executable, args=["-m", "panda.cli", "serve", "--mcp", "--user", "bob",
                                                                 "--home", str(served["home"])],
                                   env=_env(served["home"]))

    async def run() -> tuple:
        async with Client(params, read_timeout_seconds=120) as client:
            found = await client.call_tool("search_memory", {"query": "where do I live", "limit": 3})
            prefs = await client.call_tool("get_preferences", {})
            return found, prefs

    found, prefs = asyncio.run(run())
    assert found.structured_content["result"][0]["title"] == "residence: Porto"
    assert all(r["doc_path"].startswith("users/bob/") for r in found.structured_content["result"])
    assert not prefs.is_error
    refused = subprocess.run([sys.executable, "-m", "panda.cli", "serve", "--mcp", "--home", str(served["home"])],
                             env=_env(served["home"]), capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "needs --user" in refused.stderr


def test_reads_go_on_while_an_import_writes_and_remember_waits_its_turn(served, tmp_path):
    big = tmp_path / "chats.jsonl"
    with big.open("w", encoding="utf-8") as out:
        for i in range(150):
            out.write(json.dumps({"id": f"c{i}", "created": 1730000000 + i * 3600, "messages": [
                {"role": "user", "content": f"Day {i}: I walked along the river and thought about the garden plan {i}."},
                {"role": "assistant", "content": f"Noted for day {i}; the garden plan sounds good."}]}) + "\n")
    writer = subprocess.Popen([sys.executable, "-m", "panda.cli", "import", "openai", str(big), "--user", "alice",
                               "--home", str(served["home"]), "--no-enrich"], env=_env(served["home"]),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        lock = served["home"] / "catalog" / "writer.lock"
        while not (lock.exists() and lock.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)
        answered = [_post(served, "/v1/search", "alice", {"query": "where do I live"}) for _ in range(3)]
        assert writer.poll() is None, "the import finished before the reads could overlap it"
        assert [r.status_code for r in answered] == [200, 200, 200]
        waiting: list = []
        remembering = threading.Thread(target=lambda: waiting.append(
            _post(served, "/v1/remember", "alice", {"text": "My sister Joana visits every December."})))
        remembering.start()
        time.sleep(1.0)
        meanwhile = _post(served, "/v1/search", "alice", {"query": "where do I live"})
        assert meanwhile.status_code == 200  # a read is answered while remember waits for the writer lock
        assert remembering.is_alive() and writer.poll() is None, "remember did not have to wait"
        remembering.join(timeout=600)
        (saved,) = waiting
        assert saved.status_code == 200 and saved.json()["saved"] is True
        # remember took the writer lock after the import let it go: what the import wrote is already readable
        walks = _post(served, "/v1/search", "alice", {"query": "garden plan river walk", "limit": 5}).json()["results"]
        assert any(r["doc_path"].startswith("users/alice/threads/openai-") for r in walks)
    finally:
        out, err = writer.communicate(timeout=600)
    assert writer.returncode == 0, err
    again = _post(served, "/v1/remember", "alice", {"text": "My sister Joana visits every December."})
    assert again.json()["saved"] is False and again.json()["id"] == saved.json()["id"]
    hits = _post(served, "/v1/search", "alice", {"query": "when does Joana visit", "limit": 3}).json()["results"]
    assert hits[0]["id"] == saved.json()["id"]


def test_a_deleted_users_token_is_refused(served):
    assert _get(served, "/v1/facts", "bob").status_code == 200
    done = subprocess.run([sys.executable, "-m", "panda.cli", "jobs", "delete-user", "bob", "--confirm", "--home",
                           str(served["home"]), "--backend", "scripted"], env=_env(served["home"]),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _get(served, "/v1/facts", "bob").status_code == 401
    assert _post(served, "/v1/search", "alice", {"query": "where do I live"}).status_code == 200
