"""`uac query` on a big subject through the CLI: one-shot, then with `uac serve` running.

Run from the repository root with the project's virtualenv, on a workspace whose subject
`alice` holds bench/bigsubject.py's trips (`uac --home WS init`, then
`uac --home WS import alice trips FILE`):

    python bench/cli_serve.py WS               # 7 rounds each
    python bench/cli_serve.py WS --rounds 5

First the one-shot path (no server: the CLI starts a zygote that loads the checkpoint),
then `uac serve --port 0` is started on the workspace, and the same command is a thin
client to it (the CLI finds the server through the workspace's server file). The first
query through the server is reported apart (the server starts its worker for the subject);
the median is over the later ones. Wall from perf_counter, CPU and peak RSS of the CLI
process (and the children it waited for) from os.wait4. Load averages are printed: under
load, wall is several times CPU. The server is stopped (SIGTERM to the process started
here) at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERY = 'sum(1 for t in user.trips if t.purpose == "business")'


def query(uac: str, home: str) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MB, printed result) of one `uac query`."""
    argv = [uac, "--home", home, "query", "alice", QUERY, "--today", "2026-12-01"]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()  # a few lines: no pipe fills up
    _, status, usage = os.wait4(proc.pid, 0)  # not proc.wait(): wait4 gives its usage
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"uac query failed: {err.decode().strip()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.decode().strip()


def side(name: str, runs: list[tuple[float, float, float, str]]) -> dict[str, object]:
    """Print and return one side's medians."""
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    row = {
        "wall_s": round(statistics.median(walls), 3),
        "cpu_s": round(statistics.median(cpus), 3),
        "peak_rss_mb": round(statistics.median(r[2] for r in runs), 1),
        "walls": [round(w, 3) for w in walls],
        "results": sorted({r[3] for r in runs}),
    }
    print(f"{name:<36} wall {row['wall_s']:6.3f} s  CPU {row['cpu_s']:6.3f} s  {row['walls']}")
    return row


def main() -> None:
    """Run both sides and print the numbers (JSON at the end)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    uac = shutil.which("uac") or str(Path(sys.executable).with_name("uac"))
    out: dict[str, object] = {"load_average_start": os.getloadavg()}
    out["one-shot"] = side(
        "uac query, one-shot", [query(uac, args.workspace) for _ in range(args.rounds)]
    )
    server = subprocess.Popen(
        [uac, "--home", args.workspace, "serve", "--port", "0", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        served = Path(args.workspace) / "server.json"
        deadline = time.monotonic() + 60
        while not served.exists():
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("uac serve did not start within 60 s")
            time.sleep(0.2)
        first = query(uac, args.workspace)
        print(f"{'uac query, served: first':<36} wall {first[0]:6.3f} s  CPU {first[1]:6.3f} s")
        out["served_first_wall_s"] = round(first[0], 3)
        out["served"] = side(
            "uac query, served (later ones)",
            [query(uac, args.workspace) for _ in range(args.rounds)],
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
