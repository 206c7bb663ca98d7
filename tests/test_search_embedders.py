"""Embedders: hashing (default), OpenAI-compatible over a real local HTTP server, local MiniLM."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from uac import Memory
from uac.fact_log.addressing import Address
from uac.runtime.search.embedders import (
    EmbedderError,
    HashingEmbedder,
    LocalEmbedder,
    OpenAIEmbedder,
    local_model_dir,
)
from uac.runtime.search.index import SearchIndex

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("embedders alone: no log")

ALICE = Address("default", "user", "alice")
TODAY = dt.date(2026, 2, 1)
T0 = dt.datetime(2026, 1, 10)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@NO_LOG
def test_hashing_embedder_is_deterministic_normalised_and_typo_tolerant() -> None:
    emb = HashingEmbedder(128)
    a, b, c, empty = emb.embed(
        ["Flight to Lisbon in March", "flihgt to Lisbn in march", "boiler pressure valve", "the"]
    )
    assert emb.embed(["Flight to Lisbon in March"])[0] == a
    assert math.isclose(math.sqrt(sum(x * x for x in a)), 1.0)
    assert cosine(a, b) > 0.3 > cosine(a, c)
    assert not any(empty) and len(a) == emb.dim == 128
    assert emb.name == "hashing-v1-128"


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """Speaks POST /v1/embeddings; vectors come from a hashing embedder."""

    requests: list[dict[str, Any]]
    embedder = HashingEmbedder(48)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"path": self.path, "auth": self.headers["Authorization"], **body})
        if body["model"] != "test-embed":
            self._reply(400, {"error": {"message": "unknown model", "type": "invalid_request"}})
            return
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.embedder.embed(texts)
        data = [
            {"object": "embedding", "index": i, "embedding": [2 * x for x in v]}
            for i, v in reversed(list(enumerate(vectors)))  # order must come from "index"
        ]
        self._reply(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            },
        )

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    requests: list[dict[str, Any]] = []
    handler = type("Handler", (_EmbeddingsHandler,), {"requests": requests})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_openai_embedder_against_a_local_server(
    server: tuple[str, list[dict[str, Any]]], mem: Memory
) -> None:
    url, requests = server
    emb = OpenAIEmbedder(url, "test-embed", "sk-test", batch_size=3)
    assert emb.dim == 48  # probed from the server
    vectors = emb.embed(["one", "two", "three", "four"])
    assert len(vectors) == 4 and len(requests) == 3  # probe + two batches
    assert vectors[1] == pytest.approx(HashingEmbedder(48).embed(["two"])[0], abs=1e-9)
    assert requests[-1]["path"] == "/v1/embeddings"
    assert requests[-1]["auth"] == "Bearer sk-test"
    assert requests[-1]["encoding_format"] == "float"
    mem.add_note("alice", "Booked a flight to Lisbon for March", now=T0)
    mem.add_note("alice", "The boiler needs a new valve", now=T0)
    index = SearchIndex(mem.store, emb)
    hits = index.search(ALICE, "flig Lisb", today=TODAY)  # too short to spell-correct
    assert hits[0].text.startswith("Booked") and hits[0].bm25_rank is None
    assert index.stats()["vectors"] == 2


@NO_LOG
def test_openai_embedder_errors_are_clear(server: tuple[str, list[dict[str, Any]]]) -> None:
    url, _ = server
    with pytest.raises(EmbedderError, match="model nope"):
        OpenAIEmbedder(url, "nope", "k").embed(["x"])


def test_local_minilm_embedder_finds_paraphrases(mem: Memory) -> None:
    if local_model_dir() is None or importlib.util.find_spec("sentence_transformers") is None:
        # the weights alone ship with the default install (the extraction encoder's); this
        # embedder runs them through sentence-transformers, the optional extra
        pytest.skip("optional local-embeddings extra (sentence-transformers) is not installed")
    emb = LocalEmbedder()
    assert emb.dim == 384
    dog = mem.add_note("alice", "My dog is allergic to chicken", now=T0).id
    mem.add_note("alice", "I bought a new car last week", now=T0)
    mem.add_note("alice", "Booked a table at the Italian place", now=T0)
    hits = SearchIndex(mem.store, emb).search(ALICE, "puppy cannot eat poultry", today=TODAY)
    assert hits[0].id == dog and hits[0].bm25_rank is None
