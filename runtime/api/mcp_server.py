"""The agent tools over the Model Context Protocol: `uac mcp SUBJECT` (stdio) and `/mcp`.

A tool never takes a subject: each call is bound by `bind`, which the host controls. Over
stdio the server is bound to one subject when it starts; over streamable HTTP (`uac serve`)
`bind` reads the connection's API key (and, for a tenant-wide key, the `X-Uac-Subject`
header the host set when it connected), so a model cannot reach anyone else's memory.
"""

from __future__ import annotations

import contextvars
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from uac.fact_log.errors import UacError
from uac.runtime.api.tools import TOOLS, Tool, ToolHost, dispatch

# Runs one tool call: (the connection's headers or None, tool name, arguments) -> result.
ToolRunner = Callable[[Mapping[str, str] | None, str, dict[str, Any]], dict[str, Any]]
INSTRUCTIONS = (
    "Typed memory of one user. Read the manifest first; answer counting and summing "
    "questions with the query tool, not from memory."
)


def _handler(run_tool: ToolRunner, tool: Tool) -> Any:
    # MCPServer derives a tool's input schema from its signature: give each handler the
    # fields of the tool's argument model as plain keyword parameters, plus the context.
    params = [
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context),
        *(
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=field.annotation,
                default=inspect.Parameter.empty if field.is_required() else field.default,
            )
            for name, field in tool.args.model_fields.items()
        ),
    ]

    async def run(ctx: Context, **kwargs: Any) -> str | CallToolResult:
        def call() -> dict[str, Any]:
            try:
                return run_tool(_headers(ctx), tool.name, kwargs)
            except UacError as exc:
                return {"error": str(exc)}

        # Tools touch the database and compile: never block the event loop with them.
        result = await anyio.to_thread.run_sync(call)
        text = json.dumps(result, ensure_ascii=False)
        if "error" in result and result.get("ok") is not True:  # refused, or a failed query
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        return text

    run.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    run.__name__ = tool.name
    run.__doc__ = tool.description
    return run


def _headers(ctx: Context) -> Mapping[str, str] | None:
    try:
        return ctx.headers
    except ValueError:  # no request context (stdio)
        return None


# The headers of the resource read under way: static resources get no Context from the SDK.
_READING: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "uac_mcp_reading", default=None
)


class _Server(MCPServer):
    """An MCPServer whose resources, like its tools, are bound by the connection's headers."""

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        token = _READING.set(_headers(context) if context is not None else None)
        try:
            return await super().read_resource(uri, context)
        finally:
            _READING.reset(token)


def build_server(run_tool: ToolRunner, instructions: str = INSTRUCTIONS) -> MCPServer:
    """An MCP server exposing the agent tools and the manifest; `run_tool` binds each call."""
    server = _Server(name="uac", instructions=instructions)
    for tool in TOOLS.values():
        server.add_tool(_handler(run_tool, tool), name=tool.name, description=tool.description)

    @server.resource(
        "uac://manifest",
        name="manifest",
        mime_type="text/markdown",
        description="What uac knows about the user, as typed collections",
    )
    async def manifest() -> str:
        headers = _READING.get()

        def call() -> dict[str, Any]:
            try:
                return run_tool(headers, "manifest", {})
            except UacError as exc:
                return {"error": str(exc)}

        out = await anyio.to_thread.run_sync(call)
        return str(out.get("manifest") or out.get("error"))

    return server


def serve(mem: ToolHost, subject: str) -> None:
    """Serve MCP over stdio for one bound subject until the client disconnects."""
    serve_tools(
        lambda name, arguments: dispatch(mem, subject, name, arguments), str(mem.address(subject))
    )


def serve_tools(call: Callable[[str, dict[str, Any]], dict[str, Any]], subject: str) -> None:
    """Serve MCP over stdio where `call(name, arguments)` runs each tool (e.g. on a server)."""
    text = f"Typed memory of {subject}. " + INSTRUCTIONS.split(". ", 1)[1]
    build_server(lambda headers, name, arguments: call(name, arguments), text).run("stdio")
