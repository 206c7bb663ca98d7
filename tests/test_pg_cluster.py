"""The throwaway PostgreSQL cluster of the tests leaves nothing behind when its starter dies."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pg_cluster import HOW_TO_ENABLE, find_bin

_STARTER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from pg_cluster import Cluster, find_bin
cluster = Cluster.start(find_bin())
print(cluster.root, cluster.port, flush=True)
time.sleep(300)
"""


def _accepts(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_a_cluster_whose_starter_is_killed_is_stopped_and_removed() -> None:
    if find_bin() is None:
        if os.environ.get("CI") == "true":
            pytest.fail(HOW_TO_ENABLE)
        pytest.skip(HOW_TO_ENABLE)
    tests = str(Path(__file__).parent)
    starter = subprocess.Popen(
        [sys.executable, "-c", _STARTER, tests], stdout=subprocess.PIPE, text=True
    )
    try:
        root, port = starter.stdout.readline().split()  # type: ignore[union-attr]
        assert Path(root, "data").is_dir() and _accepts(int(port))
    finally:
        starter.send_signal(signal.SIGKILL)  # no cleanup code of the starter runs
        starter.wait()
    deadline = time.monotonic() + 60
    while Path(root).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(root).exists()
    assert not _accepts(int(port))
