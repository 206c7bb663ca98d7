"""The verbs (`Memory`) and the thin surfaces over them: agent tools, MCP."""
