"""A `uac serve` started on a workspace whose search index was built by another embedder (an
upgrade) embeds the missing vectors in the background at start, on the job board, so no
search has to; and it stops that work between steps when the server stops."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import T0
from test_search import Counting
from test_serve import _admin, serving

from uac import Memory
from uac.fact_log.addressing import Address
from uac.fact_log.store import Batch, NewInput
from uac.runtime.search.embedders import HashingEmbedder, default_embedder
from uac.runtime.search.index import SearchIndex

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

TURNS = [f"turn {i}: the boat trailer needs new tyres before trip {i}" for i in range(30)]


def test_a_server_embeds_an_upgraded_index_at_start_without_a_search(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    with Memory(home, create=True, react=False) as mem:
        batch = Batch(Address("default", "user", "alice"), T0, "test")
        batch.inputs += [NewInput("message", t, "user_message") for t in TURNS]
        mem.store.append(batch)
        SearchIndex(mem.store, HashingEmbedder(48)).sync()  # another embedder than the default
    with serving(home) as info:
        admin = _admin(info)
        deadline, jobs = time.monotonic() + 180, []
        while time.monotonic() < deadline:
            jobs = [
                j
                for j in admin.request("GET", "/v1/jobs/progress")
                if j["kind"] == "search vectors"
            ]
            if jobs and jobs[0]["finished_at"]:
                break
            time.sleep(0.2)
        (job,) = jobs
        assert job["finished_at"] and job["error"] is None, job
    with Memory(home, react=False) as mem:
        counting = Counting(default_embedder())
        index = SearchIndex(mem.store, counting)
        assert counting.texts == []  # the server embedded every turn: nothing left to do
        assert index.stats()["vectors_pending"] == 0
        assert index.stats()["vectors"] == len(TURNS)
