"""`panda serve`: memory for assistants over MCP (stdio or streamable HTTP) and an HTTP API, per-user tokens.

service.py holds the operations and their input rules; http.py the FastAPI app (and the MCP endpoint mounted in
it); mcp_server.py the MCP tools. docs/serve.md tells the whole story.
"""
