"""Entry point of a zygote: starts it with nothing loaded that a zygote does not use.

The host runs `python -S -s boot.py ...`: no `site` (no scan of site-packages, no
editable-install finder: a third of a bare interpreter's start). The packages a zygote
imports from (`uac`, `uac.runtime`, `uac.runtime.sandbox`) are registered here as bare
packages over their directories, so their `__init__` modules do not run: the runtime's
pulls in nothing, but the sandbox package's is the host side (subprocess, threads,
logging), and every megabyte the zygote holds makes each fork slower. Everything else a
zygote imports is the standard library and uac's own modules.
"""

import contextlib
import os
import sys
import types

if __name__ == "__main__":
    # os.path, not pathlib: nothing a zygote runs imports `pathlib` (with `urllib.parse`,
    # `ipaddress` and `fnmatch`, ~4 ms of its start).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    del sys.path[0]  # the script's own directory must not shadow anything
    for name, path in (
        ("uac", root),
        ("uac.runtime", os.path.join(root, "runtime")),
        ("uac.runtime.sandbox", os.path.join(root, "runtime", "sandbox")),
    ):
        package = types.ModuleType(name)
        package.__path__ = [path]
        sys.modules[name] = package
    from uac.runtime.sandbox.zygote import main

    with contextlib.suppress(SystemExit):  # the host's SIGTERM: main has unwound
        main()
    # Served and answered: exit without tearing the loaded state down object by object
    # (a big subject's records), which the host's shutdown would otherwise wait for.
    os._exit(0)
