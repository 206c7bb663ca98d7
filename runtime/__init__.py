"""What agents and operators talk to, in rooms that say what they hold.

- `cli/`: the `uac` command, a thin layer of commands over the verbs (by family)
- `api/`: the verbs (`Memory`) and their surfaces: agent tools (OpenAI schemas), MCP server
- `search/`: the notes/inputs index, embedders, context assembly and soft preferences
- `sandbox/`: running agent-written query programs against typed state
- `examples/`: the `uac demo` walk-through

The public entry point is `uac.Memory`; nothing here is imported by `import uac`.
"""
