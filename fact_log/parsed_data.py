"""The package's own data files (TOML, JSON Lines) parsed once per machine, not per process.

A one-message `uac add` reads about ten of the data files that ship inside the package (the
catalog, the frames and their examples, the reference vocabularies, places and drugs):
`tomllib` and `json` parse them in pure Python, ~30 ms of every such process for data that
only changes when the package does. `load_toml` and `load_jsonl` return exactly what
`tomllib.loads(path.read_text())` and `json.loads` of each non-blank line return, and for a
file inside the package keep that result in the user's cache directory
(`$XDG_CACHE_HOME/uac`, else `~/.cache/uac`) as `marshal` data, keyed by a digest of the
file's text and of the Python that parsed it: a later process loads it in a fraction of a
millisecond, an edited file or another Python version is parsed again under a new key.

Derived only from shipped text, never downloaded. Safe under concurrent processes and a
kill mid-write: an entry is written whole to a file of its own and renamed into place, and
one that does not load or does not carry its own key is ignored and parsed again. Nothing
is written when the directory cannot be (a read-only home), and a file outside the package
(a workspace's own catalog) is always parsed, never kept. Values `marshal` cannot hold (a
TOML date) make the file's result uncached, still correct.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import sys
import threading
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parents[1]  # the `uac` package's folder
# The parser's identity: a new Python (its tomllib, json or marshal) is a new key.
_PARSER = f"{sys.implementation.cache_tag}:{sys.version}:{marshal.version}".encode()


def cache_dir() -> Path:
    """Where parsed data files are kept: `$XDG_CACHE_HOME/uac`, else `~/.cache/uac`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "uac"


def load_toml(path: Path) -> dict[str, Any]:
    """`tomllib.loads(path.read_text(encoding="utf-8"))`, kept between processes for a file
    that ships with the package. Raises what that raises (OSError, UnicodeDecodeError,
    tomllib.TOMLDecodeError)."""
    return _parsed(path, "toml", tomllib.loads)


def load_jsonl(path: Path) -> list[Any]:
    """`json.loads` of each non-blank line of the file, in order, kept between processes for
    a file that ships with the package. Raises what reading and parsing raise."""
    return _parsed(path, "jsonl", _jsonl)


def _jsonl(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _parsed(path: Path, kind: str, parse: Callable[[str], Any]) -> Any:
    text = path.read_text(encoding="utf-8")
    if not _shipped(path):
        return parse(text)
    digest = hashlib.sha256(_PARSER + b"\0" + kind.encode() + b"\0" + text.encode()).hexdigest()
    entry = cache_dir() / f"{kind}-{path.stem}-{digest[:24]}.marshal"
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
        key, value = marshal.loads(entry.read_bytes())
        if key == digest:
            return value
    value = parse(text)
    try:
        data = marshal.dumps((digest, value))
    except ValueError:  # a value marshal cannot hold (a TOML date): parsed each time
        return value
    store_whole(entry, data)
    return value


def _shipped(path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(_PACKAGE)
    except OSError:
        return False


def store_whole(entry: Path, data: bytes) -> None:
    """Write one cache entry whole (a file of this process and thread, renamed into place);
    a read-only or full disk keeps none."""
    part = entry.with_name(f"{entry.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        os.replace(part, entry)
    except OSError:  # a read-only or full disk: the next process parses the file again
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
