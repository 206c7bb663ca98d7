"""The README's quickstarts run as written: every shell line of the CLI quickstart and of the
`preview` section, then the Python quickstart, in order, in a fresh workspace.

A new user's machine: an empty HOME (so `~/uac-work` is new), no UAC_* variables, and the `uac`
of this environment on PATH. Every file a line reads is made by an earlier line of the README
itself, and every id by an earlier command's output. A line fails the test when it exits
non-zero, when a `uac` command prints nothing, or when it says it found nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

# What the CLI prints when a read finds nothing (runtime/cli): a quickstart line that prints
# one of these shows the reader nothing, which is a defect of the README.
NOTHING = re.compile(
    r"^(nothing found|nothing refused|no facts for|no inputs for|no subjects in|no open alerts"
    r"|no open questions)|: no change",
    re.MULTILINE,
)
MARK = "@@uac-readme-line@@"


def fenced(section: str, language: str) -> str:
    """The first fenced block of `language` under the README heading `section`."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{section}\n")
    fence = text.index(f"```{language}\n", start) + len(f"```{language}\n")
    return text[fence : text.index("```\n", fence)]


def commands(block: str) -> list[str]:
    """The block's commands, one per logical line (backslash continuations joined), comments
    and blank lines kept inside the command they follow so the shell sees the block as is."""
    out: list[str] = []
    continued = False
    for line in block.splitlines():
        if continued or not line.strip() or line.lstrip().startswith("#"):
            if out:
                out[-1] += "\n" + line
            continued = continued and line.rstrip().endswith("\\")
            continue
        out.append(line)
        continued = line.rstrip().endswith("\\")
    return out


def runs_uac(command: str) -> bool:
    first = command.split("\n", 1)[0]
    return bool(re.match(r"\s*uac\s", first) or re.search(r"\|\s*uac\s", first))


@pytest.fixture
def reader(tmp_path: Path) -> dict[str, str]:
    """A new user's environment: an empty HOME and working directory, this environment's `uac`."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UAC_", "XDG_DATA"))}
    env["HOME"] = str(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # The frames' example vectors are a cache (not the workspace): keep the machine's.
    env.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    return env


def run_shell(block: str, env: dict[str, str], cwd: str) -> list[tuple[str, str]]:
    """Run the block's lines in one bash (so `export` and variables carry), stopping at the
    first failing line; return each line with what it printed on stdout."""
    lines = commands(block)
    script = ["set -e -o pipefail"]
    for n, command in enumerate(lines):
        script += [f"printf '\\n{MARK} {n}\\n'", f"printf '\\n{MARK} {n}\\n' >&2", command]
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    outs = re.split(rf"^{MARK} \d+\n", done.stdout, flags=re.MULTILINE)[1:]
    if done.returncode != 0:
        failed = lines[len(outs) - 1] if outs else "(before the first line)"
        err = done.stderr.rsplit(MARK, 1)[-1]
        pytest.fail(f"README line failed (exit {done.returncode}): {failed}\n{err}")
    assert len(outs) == len(lines), done.stdout
    return list(zip(lines, outs, strict=True))


def check_found(ran: list[tuple[str, str]]) -> None:
    for command, out in ran:
        if runs_uac(command):
            assert out.strip(), f"README line printed nothing: {command}"
        assert not NOTHING.search(out), f"README line found nothing: {command}\n{out}"


def test_commands_are_read_as_the_shell_reads_them() -> None:
    block = "a 1\n  # a comment\nb \\\n  --x\n\nuac c | uac d\necho x | uac e -\n"
    assert commands(block) == [
        "a 1\n  # a comment",
        "b \\\n  --x\n",
        "uac c | uac d",
        "echo x | uac e -",
    ]
    assert [runs_uac(c) for c in commands(block)] == [False, False, True, True]
    assert NOTHING.search("nothing found for 'x'")
    assert NOTHING.search("alice: v7 -> v8: no change(s)")
    assert not NOTHING.search("412.10")


@pytest.mark.slow
def test_the_quickstarts_run_as_written(reader: dict[str, str]) -> None:
    cwd = reader["HOME"]
    # One terminal, read top to bottom: the preview section goes on from the quickstart.
    shell = fenced("## CLI quickstart", "bash") + fenced(
        "## Check a plan before acting: `preview`", "bash"
    )
    ran = run_shell(shell, reader, cwd)
    check_found(ran)
    said = dict(ran)
    assert "412.10" in next(out for c, out in said.items() if c.startswith("uac query"))
    assert "window seat" in next(out for c, out in said.items() if c.startswith("uac search"))
    assert "books" in next(out for c, out in said.items() if c.startswith("uac diff"))
    preview = [out for c, out in ran if c.startswith("uac preview")]
    assert len(preview) == 2 and "1 would be raised" in preview[0]
    assert "0 would be raised" in preview[1]

    program = Path(cwd) / "quickstart.py"
    program.write_text(fenced("## Python API quickstart", "python"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(program)], env=reader, cwd=cwd, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert printed[0] == "412.10"  # the total, an exact Decimal
    assert any(line.startswith("# user:alice") for line in printed)  # the manifest
    assert "f_" in printed[-1]  # why: the facts behind the passport's date
