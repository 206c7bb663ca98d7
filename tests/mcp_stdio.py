"""Where an MCP stdio server started by a test writes its stderr.

The SDK's `stdio_client(params)` defaults `errlog` to the `sys.stderr` of the moment `mcp`
was first imported in the process: when a `capsys` test imported it first, that is a capture
object without a file descriptor, and every later stdio session in the process fails to
start (`io.UnsupportedOperation: fileno`). Tests name the stream on each call instead: the
process's own stderr, which pytest's descriptor capture still shows on a failure.
"""

from __future__ import annotations

import sys
from typing import TextIO


def server_stderr() -> TextIO:
    """The process's real stderr (never a capture object swapped in by a test)."""
    stream = sys.__stderr__
    assert stream is not None  # a pytest process always has one
    return stream
