"""Entry point of a zygote: starts it without running `runtime/__init__.py`.

The `runtime` package's `__init__` imports `Memory`, which pulls in DuckDB, pyarrow and
pydantic (~110 MB resident). A zygote needs none of it, and every megabyte it holds makes
each per-query fork slower, so the package is registered as a bare namespace instead.
"""

import sys
import types
from pathlib import Path

if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    sys.path[0] = str(root)  # the script's own directory must not shadow anything
    package = types.ModuleType("runtime")
    package.__path__ = [str(root / "runtime")]
    sys.modules["runtime"] = package
    from uac.runtime.sandbox.zygote import main

    main()
