"""Import sibling bench scripts by path, and keep bench/ off `sys.path`.

`python bench/x.py` puts bench/ first on `sys.path`, where a script named like a standard
library module would shadow it (bench/secrets.py once broke the key ring's `import secrets`;
it is now bench/secret_filter.py). A script imports this module first (`import benchpath`
still resolves), which takes bench/ off the path, and loads its siblings with
`benchpath.sibling("query")`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def sibling(name: str) -> ModuleType:
    """The bench script `name` (without .py), imported by path under `bench_<name>`."""
    module_name = f"bench_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def add_llm_option(parser: argparse.ArgumentParser) -> None:
    """The `--llm` switch shared by the extraction and active-checks benches."""
    parser.add_argument(
        "--llm",
        action="store_true",
        help="extract with the LLM set by UAC_LLM_BASE_URL / UAC_LLM_MODEL (and "
        "UAC_LLM_API_KEY), the rules adding what it misses (docs/extraction.md)",
    )


def llm_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """The LLM settings `--llm` asks for (None without it); a parser error when unset."""
    if not args.llm:
        return None
    from uac.fact_log.extraction.llm import LLMSettings

    llm = LLMSettings.from_env(daily_token_budget=10**9)
    if not llm.enabled:
        parser.error("--llm needs UAC_LLM_BASE_URL and UAC_LLM_MODEL (docs/extraction.md)")
    print(f"LLM extractor: {llm.model} at {llm.base_url}, the rules adding what it missed")
    return llm
