"""`bench/extraction.py --llm` scores a set with the LLM extractor of the UAC_LLM_* settings.

Run as a user would (a subprocess, settings from the environment) against the local
chat-completions server of test_extraction_llm: one call per user message, each after the
session's earlier messages, and the bench says which model it measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from test_extraction_llm import FakeServer, Reply, facts_reply
from test_extraction_llm import server as server

ROOT = Path(__file__).resolve().parents[1]


def test_the_extraction_bench_measures_the_llm_path(server: FakeServer) -> None:
    server.replies = [Reply(facts_reply())]  # a model that finds nothing: the rules' numbers
    rows = [json.loads(line) for line in (ROOT / "bench/extraction_data/fresh.jsonl").open()]
    # The set's first three sessions (by name): the path is the same for every message, and
    # the whole set (168 messages, each an `add`) cost ~12 s of CPU more.
    kept = sorted({r["session"] for r in rows})[:3]
    rows = [r for r in rows if r["session"] in kept]
    env = {**os.environ, "UAC_LLM_BASE_URL": server.base_url, "UAC_LLM_MODEL": "test-model"}
    out = subprocess.run(
        [sys.executable, "bench/extraction.py", "--set", "fresh", "--llm", "--sessions", "3"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert f"LLM extractor: test-model at {server.base_url}" in out
    assert "| **overall** |" in out and "throughput" not in out  # the rules' speed is not this
    users = [r for r in rows if r.get("role", "user") == "user"]
    assert len(users) > len(kept) and len(server.requests) == len(users)
    prompts = [m["content"] for r in server.requests for m in r["messages"] if m["role"] == "user"]
    shown = sum("Earlier messages" in p for p in prompts)
    firsts = len(Counter(r["session"] for r in users))  # a session's first message has none
    assert shown == len(users) - firsts


def test_the_llm_flag_needs_an_endpoint() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_LLM_")}
    for script in ("bench/extraction.py", "bench/active.py"):
        done = subprocess.run(
            [sys.executable, script, "--llm"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 2 and "UAC_LLM_BASE_URL" in done.stderr, script
