"""Commands that serve memory to assistants: `serve` (MCP over stdio, or HTTP API + MCP over HTTP) and `tokens`."""

from __future__ import annotations

import argparse
import json
import sys

from panda.cli.options import settings_of

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def cmd_serve(args: argparse.Namespace) -> int:
    from panda.documents.paths import validate_name
    from panda.serve.service import MemoryService

    settings = settings_of(args)
    service = MemoryService(settings)
    if args.mcp and not args.http:  # stdio: the local process acts as the one user it was started for
        from panda.serve.mcp_server import build_mcp

        if not args.user:
            print("panda serve: --mcp over stdio needs --user (the user this assistant acts for); for remote "
                  "assistants use --http, where each request's token names its user", file=sys.stderr)
            return 2
        user = validate_name(args.user, "user_id")
        service.embedder()  # load the model before the client's first call, not during it
        try:
            build_mcp(service, lambda: user).run("stdio")
        finally:
            service.close()
        return 0
    import uvicorn

    from panda.privacy.tokens import TokenStore, list_tokens
    from panda.serve.http import create_app

    if args.host not in LOOPBACK and not args.allow_remote:
        print(f"panda serve: --host {args.host} would accept connections from other machines; add --allow-remote "
              "if that is what you want (put TLS in front of it)", file=sys.stderr)
        return 2
    if not any(t.revoked_at is None for t in list_tokens(settings.home)):
        print("panda serve: no API token yet: every request would be refused. Create one with "
              f"`panda tokens create --user U --home {settings.home}`", file=sys.stderr)
    service.embedder()
    app = create_app(service, TokenStore(settings.home), base_url=f"http://{args.host}:{args.port}")
    print(f"panda serve: HTTP API on http://{args.host}:{args.port}/v1 (docs /docs), MCP on /mcp; home "
          f"{settings.home}", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from panda.privacy import tokens

    home = settings_of(args).home
    if args.action == "create":
        if not args.user:
            print("panda tokens create: --user is required", file=sys.stderr)
            return 2
        info, token = tokens.create_token(home, args.user, args.label or "")
        print(json.dumps({**info.as_dict(), "token": token}) if args.json else
              f"token {info.id} for {info.user_id} (shown once; keep it secret):\n{token}")
        return 0
    if args.action == "revoke":
        if not (args.id or args.user):
            print("panda tokens revoke: name a token id or --user", file=sys.stderr)
            return 2
        done = tokens.revoke(home, token_id=args.id, user_id=args.user)
        print(json.dumps([d.as_dict() for d in done]) if args.json else f"revoked {len(done)} token(s)")
        return 0 if done else 1
    found = tokens.list_tokens(home, args.user)
    if args.json:
        print(json.dumps([t.as_dict() for t in found]))
    for t in [] if args.json else found:
        print(f"{t.id}  {t.user_id}  {t.label or '-'}  created {t.created_at}"
              + (f"  revoked {t.revoked_at}" if t.revoked_at else ""))
    return 0
