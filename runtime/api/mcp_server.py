"""`uac mcp SUBJECT`: the agent tools over the Model Context Protocol (stdio).

The server is bound to one tenant and subject when it starts; tools take no subject, so a
model connected to it cannot reach anyone else's memory. The manifest is also a resource.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from mcp.server.mcpserver import MCPServer

from uac.runtime.api.memory import Memory
from uac.runtime.api.tools import TOOLS, Tool, dispatch, fresh_checkpoint


def _handler(mem: Memory, subject: str, tool: Tool) -> Any:
    # MCPServer derives a tool's input schema from its signature: give each handler the
    # fields of the tool's argument model as plain keyword parameters.
    params = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=field.annotation,
            default=inspect.Parameter.empty if field.is_required() else field.default,
        )
        for name, field in tool.args.model_fields.items()
    ]

    def run(**kwargs: Any) -> str:
        return json.dumps(dispatch(mem, subject, tool.name, kwargs), ensure_ascii=False)

    run.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    run.__name__ = tool.name
    run.__doc__ = tool.description
    return run


def build_server(mem: Memory, subject: str) -> MCPServer:
    """An MCP server exposing the agent tools and the manifest for one bound subject."""
    addr = mem.address(subject)
    server = MCPServer(
        name="uac",
        instructions=f"Typed memory of {addr} (tenant {addr.tenant}). Read the manifest first; "
        "answer counting and summing questions with the query tool, not from memory.",
    )
    for tool in TOOLS.values():
        server.add_tool(_handler(mem, subject, tool), name=tool.name, description=tool.description)

    @server.resource(
        "uac://manifest",
        name="manifest",
        mime_type="text/markdown",
        description="What uac knows about the user, as typed collections",
    )
    def manifest() -> str:
        fresh_checkpoint(mem, subject)
        return mem.manifest(subject)

    return server


def serve(mem: Memory, subject: str) -> None:
    """Serve MCP over stdio until the client disconnects."""
    build_server(mem, subject).run("stdio")
