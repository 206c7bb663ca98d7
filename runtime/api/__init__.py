"""The verbs (`Memory`) and the thin surfaces over them: agent tools, CLI, MCP."""
