"""Coverage as an invariant (issue 18): every landed record with content is drawn by a node or listed with a reason.

Over every real conversation of ../shared/corpus (Claude Code, Kiro, LangChain
upload bodies) and every scenario of the original's suite (../shared/conformance/scenarios),
built as Claude Code transcripts and as Session Data: ``summary.coverage``
says cited == records, and no ``not drawn`` problem is reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.testing.scenario.build import build
from asz_core.testing.scenario.fields import scenario_name
from asz_core.testing.scenario.model import load_scenario
from asz_core.view import build_view, list_conversations
from cli_helpers import asz_in_process, stage_upload_bodies

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = (REPO.parent / "shared" / "conformance" / "scenarios").resolve()
NAMES = sorted({scenario_name(p) for p in SCENARIOS.glob("*.yaml")}) if SCENARIOS.is_dir() else []


def _asz(*args: str) -> str:
    p = asz_in_process(*args)
    assert " errors=0 " in p.stdout, p.stdout + p.stderr
    return p.stdout


def _coverage(root: Path) -> dict[str, dict]:
    out = {}
    for conv in list_conversations(root):
        s = build_view(root, conv)["summary"]
        out[conv] = {"coverage": s["coverage"], "gaps": [p for p in s["problems"] if p.startswith("not drawn")]}
    return out


@pytest.fixture(scope="module")
def corpus_roots(corpus, kiro_root, corpus_dir: Path, tmp_path_factory) -> dict[str, Path]:
    """The corpus's three runtimes collected: Claude Code and Kiro the run's roots the view tests share
    (tests/view/conftest.py: the once-collected corpus's copy, ``asz collect --once`` with the default adapter
    claude-code-local, and ``--adapter kiro``; this module collected both again, suite48d), LangChain's here."""
    base = tmp_path_factory.mktemp("coverage")
    roots = {"claude-code": corpus[1], "kiro": kiro_root}
    if stage_upload_bodies(corpus_dir, base / "lc"):
        root = roots["langchain"] = base / "lc"
        _asz("collect", "--once", "--adapter", "langsmith-ingest", "--source", str(root), "--root", str(root))
    return roots


@pytest.mark.slow
def test_every_corpus_conversation_draws_every_record(corpus_roots) -> None:
    seen = {}
    for name, root in corpus_roots.items():
        for conv, c in _coverage(root).items():
            seen[f"{name}/{conv}"] = c["coverage"]
            assert c["gaps"] == [], f"{name}/{conv}: {c['gaps']}"
            assert c["coverage"]["cited"] == c["coverage"]["records"] > 0, f"{name}/{conv}: {c['coverage']}"
    # the corpus as it is today: 11 Claude Code sessions, 2 Kiro, 2 LangChain traces
    assert sum(1 for k in seen if k.startswith("claude-code/")) == 11
    assert sum(1 for k in seen if k.startswith("kiro/")) == 2
    assert sum(1 for k in seen if k.startswith("langchain/")) == 2
    # an older transcript's inline sidechain: its two Task prompts are drawn (53 records with content)
    assert seen["claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7"] == {"cited": 53, "records": 53, "by_node": 53, "listed": 0}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["claude-code", "sd"])
def test_every_scenario_draws_every_record(fmt: str, tmp_path: Path, shared_dir: Path) -> None:
    if not NAMES:
        pytest.skip(f"{SCENARIOS} is absent")
    for name in NAMES:
        path = SCENARIOS / f"{name}.yaml"
        if not path.exists():
            continue
        root = tmp_path / fmt / name
        build(load_scenario(path), fmt, root, at="2026-01-01T00:00:00Z", stepwise=False)
        for conv, c in _coverage(root).items():
            assert c["gaps"] == [], f"{name} [{fmt}] {conv}: {c['gaps']}"
            assert c["coverage"]["cited"] == c["coverage"]["records"], f"{name} [{fmt}] {conv}: {c['coverage']}"


def test_asz_conversation_prints_the_coverage(tmp_path: Path) -> None:
    """The short summary says how many landed records with content the document draws, as its summary.coverage does."""
    root = tmp_path / "root"
    _asz("collect", "--once", "--source", str(REPO / "examples" / "claude-code" / "projects"), "--root", str(root))
    conv = list_conversations(root)[0]
    cov = build_view(root, conv)["summary"]["coverage"]
    assert cov["cited"] == cov["records"] > 0
    out = asz_in_process("conversation", conv, "--root", str(root)).stdout
    assert f"coverage {cov['cited']}/{cov['records']} records with content drawn or listed (0 listed in not_drawn)" in out
