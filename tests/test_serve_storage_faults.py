"""A full disk answered plainly: 507 with whether the write was saved, never a 500.

A real `uac serve` keeps its workspace on a small tmpfs (mounted for the test; skipped where
mounting is not permitted). The disk is filled to the last byte by another file, then a
write is sent: the answer is 507 with a JSON body whose `committed` matches what the log
holds once space is back, the `Client` raises `StorageFault` carrying it, `/readyz` says
not ready until the storage takes writes again, and writes succeed after space is freed.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_serve import _admin, _key, _raw, serving

from uac import Memory
from uac.runtime.api.client import Client, StorageFault

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.duckdb_only("the workspace file's own disk fills (PostgreSQL keeps its own)"),
]

PATH = "identity.passport.expiry_date"


@contextlib.contextmanager
def small_disk(where: Path, size: str = "48m") -> Iterator[Path]:
    """A tmpfs of `size` at `where`, unmounted after (the test skips if it cannot mount)."""
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path) -> Path:
    """Fill the disk to its last byte with one file; returns it."""
    filler = disk / "filler"
    with open(filler, "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * (1 << 16))
            fh.flush()
    return filler


def _ready(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_full_disk_answers_507_saying_whether_the_write_was_saved(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        home = disk / "ws"
        with serving(home) as info:
            key = _key(_admin(info), "default")
            client = Client(info["url"], key)
            client.set("bob", PATH, "2031-01-01")
            assert _ready(info["url"])[0] == 200
            filler = _fill(disk)
            body = json.dumps({"text": "Remember this: " + "x " * 25_000}).encode()
            headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
            status, answer = _raw(info["url"], "/v1/subjects/alice/remember", body, headers)
            assert status == 507, answer
            assert answer["code"] == "insufficient_storage"
            assert answer["committed"] in (True, False)
            with pytest.raises(StorageFault) as raised:
                client.call("remember", "carol", text="Remember this: " + "y " * 25_000)
            assert raised.value.committed in (True, False)
            ready, said = _ready(info["url"])
            assert ready == 503 and "full" in said["storage"]
            filler.unlink()
            assert _ready(info["url"])[0] == 200  # the probe write went through
            client.set("dave", PATH, "2032-02-02")  # and so do writes
            log = Path(info["log"].name).read_text()
        # what each answer said was saved is what the log holds
        with Memory(home, read_only=True) as mem:
            saids = (("alice", answer["committed"]), ("carol", raised.value.committed))
            for name, said_saved in saids:
                assert bool(_facts(mem, name)) == said_saved, name
            assert len(_facts(mem, "dave")) == 1
        statuses = [json.loads(line).get("status") for line in log.splitlines() if "status" in line]
        assert 507 in statuses and 500 not in statuses  # said plainly, never as a bug


def _facts(mem: Memory, subject: str) -> list:
    try:
        return mem.facts(subject)
    except Exception:  # a subject never written: NotFound
        return []
