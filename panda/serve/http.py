"""The HTTP API (FastAPI) and, mounted beside it, the MCP streamable-HTTP endpoint: one server, one port.

Routes (OpenAPI schema at /openapi.json, docs at /docs):
    GET  /health                       no token: {"status": "ok"}
    POST /v1/search                    {"query", "limit"?, "as_of"?}
    GET  /v1/facts?as_of=              GET /v1/preferences
    GET  /v1/documents/{id}            GET /v1/turns/recent?limit=
    POST /v1/remember                  {"text"}
    POST /mcp                          MCP (streamable HTTP), the same operations as tools
Every /v1 and /mcp request carries `Authorization: Bearer <token>` (privacy/tokens.py) and acts as that token's user:
no token or a wrong or revoked one -> 401; another user's document -> 404, like one that does not exist. A body over
64 KB -> 413; bad input -> 400 or 422 with what was wrong; a busy home on remember -> 503; anything unexpected ->
500 "internal error" (the traceback goes to the server's log, never to the client).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from panda.privacy.tokens import TokenStore
from panda.serve.mcp_server import build_mcp, token_user
from panda.serve.service import MAX_LIMIT, MAX_QUERY_CHARS, MAX_TEXT_CHARS, MemoryService, ServeError

log = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 * 1024


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    as_of: str | None = Field(default=None, max_length=40, description="ISO 8601: the memory as it was then")


class RememberBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)


class Unauthorized(Exception):
    pass


bearer = HTTPBearer(auto_error=False)


def request_user(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> str:
    """The user of the request's bearer token, else 401."""
    found = request.app.state.tokens.user_for(credentials.credentials if credentials else None)
    if found is None:
        raise Unauthorized()
    return str(found)


User = Annotated[str, Depends(request_user)]


def create_app(service: MemoryService, tokens: TokenStore, base_url: str = "http://127.0.0.1") -> FastAPI:
    mcp = build_mcp(service, token_user, tokens=tokens, base_url=base_url)
    mcp_app = mcp.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            yield
        service.close()

    app = FastAPI(title="Panda memory", version="1", lifespan=lifespan,
                  description="Memory for assistants: search, facts, preferences, documents, recent turns, remember.")
    app.state.tokens = tokens

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return JSONResponse({"detail": f"request body over {MAX_BODY_BYTES} bytes"}, status_code=413)
        return await call_next(request)

    @app.exception_handler(Unauthorized)
    async def unauthorized(_: Request, __: Unauthorized) -> JSONResponse:
        return JSONResponse({"detail": "a valid bearer token is required"}, status_code=401,
                            headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(ServeError)
    async def refused(_: Request, exc: ServeError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path)
        return JSONResponse({"detail": "internal error"}, status_code=500)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/search")
    def search(body: SearchBody, who: User) -> dict[str, Any]:
        return {"results": service.search_memory(who, body.query, body.limit, body.as_of)}

    @app.get("/v1/facts")
    def facts(who: User, as_of: str | None = None) -> dict[str, Any]:
        return {"facts": service.get_facts(who, as_of)}

    @app.get("/v1/preferences")
    def preferences(who: User) -> dict[str, Any]:
        return {"preferences": service.get_preferences(who)}

    @app.get("/v1/documents/{doc_id}")
    def document(doc_id: str, who: User) -> dict[str, Any]:
        return service.read_document(who, doc_id)

    @app.get("/v1/turns/recent")
    def turns(who: User, limit: int = 10) -> dict[str, Any]:
        return {"turns": service.recent_turns(who, limit)}

    @app.post("/v1/remember")
    def remember(body: RememberBody, who: User) -> dict[str, Any]:
        return service.remember(who, body.text)

    app.mount("/", mcp_app)  # after the routes above: /mcp (and its auth metadata) fall through to it
    return app
