"""The MCP server (official `mcp` SDK, MCPServer): Panda's memory as tools an assistant can call.

Tools: `search_memory(query, limit, as_of)`, `get_facts(as_of)`, `get_preferences()`, `read_document(id)`,
`recent_turns(limit)` and the one write, `remember(text)` (service.py says what each does and refuses). Who the
caller is: over stdio, the user the local process was started for (`panda serve --mcp --user U`, like
`panda search --user U`); over streamable HTTP, the user of the request's bearer token (privacy/tokens.py), checked
by the SDK's own bearer middleware before any tool runs — no token or a wrong one gets 401. Each call runs in a
worker thread so one slow search does not stall the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import AnyHttpUrl

from panda.privacy.tokens import TokenStore
from panda.serve.service import MemoryService, ServeError

INSTRUCTIONS = ("Panda is the user's long-term memory: what they told you in past conversations, their facts and "
                "preferences, and research notes. Search it before answering anything personal; remember what the "
                "user asks you to keep.")


class PandaTokens:
    """The SDK's TokenVerifier over Panda's token file: the access token's client id is the user."""

    def __init__(self, tokens: TokenStore) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        user = self.tokens.user_for(token)
        return AccessToken(token=token, client_id=user, subject=user, scopes=[]) if user else None


def token_user() -> str:
    """The user of the current HTTP request's verified token (the middleware let nobody else in)."""
    access = get_access_token()
    if access is None or not access.client_id:
        raise ToolError("not authenticated")
    return access.client_id


def build_mcp(service: MemoryService, user_of: Callable[[], str], *, tokens: TokenStore | None = None,
              base_url: str = "http://127.0.0.1") -> MCPServer:
    """The MCP server over `service`; `user_of()` names the caller. With `tokens`, bearer auth for HTTP."""
    auth = dict(token_verifier=PandaTokens(tokens), auth=AuthSettings(
        issuer_url=AnyHttpUrl(base_url), resource_server_url=AnyHttpUrl(f"{base_url}/mcp"),
        validate_token_resource=False)) if tokens else {}
    server: MCPServer = MCPServer(name="panda-memory", instructions=INSTRUCTIONS, **auth)  # type: ignore[arg-type]

    async def call(operation: Callable[..., Any], *args: Any) -> Any:
        user = user_of()
        try:
            return await anyio.to_thread.run_sync(operation, user, *args)
        except ServeError as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    async def search_memory(query: str, limit: int = 10, as_of: str | None = None) -> list[dict[str, Any]]:
        """Search the user's memory (their conversations, facts, preferences, notes and shared research) for
        `query`; best first. `as_of` (ISO 8601): the memory as it was then."""
        return await call(service.search_memory, query, limit, as_of)  # type: ignore[no-any-return]

    @server.tool()
    async def get_facts(as_of: str | None = None) -> list[dict[str, Any]]:
        """The user's current facts (residence, job, pets, ...), or those true at `as_of`."""
        return await call(service.get_facts, as_of)  # type: ignore[no-any-return]

    @server.tool()
    async def get_preferences() -> list[dict[str, Any]]:
        """The user's current preferences (likes, dislikes, budgets, ...)."""
        return await call(service.get_preferences)  # type: ignore[no-any-return]

    @server.tool()
    async def read_document(id: str) -> dict[str, Any]:  # noqa: A002 - the tool's parameter name
        """One document of the user's memory by id (from search_memory's results)."""
        return await call(service.read_document, id)  # type: ignore[no-any-return]

    @server.tool()
    async def recent_turns(limit: int = 10) -> list[dict[str, Any]]:
        """The user's most recent processed turns, newest first."""
        return await call(service.recent_turns, limit)  # type: ignore[no-any-return]

    @server.tool()
    async def remember(text: str) -> dict[str, Any]:
        """Keep `text` in the user's memory (not saved twice if the user already has it)."""
        return await call(service.remember, text)  # type: ignore[no-any-return]

    return server
