"""Helpers for view tests over small real-shaped Claude Code transcripts: collect them with ``asz collect``, walk a document's nodes."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import yaml

from cli_helpers import asz_in_process

#: the shipped price table, read as data (never through asz's own reader)
PRICES_YAML = Path(__file__).resolve().parents[2] / "asz_core" / "view" / "prices.yaml"


def _jsonl(lines: list) -> bytes:
    return b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines)


def priced(model: str, usage: dict) -> Decimal:
    """The exact cost in USD of one Claude Code message ``usage`` (``input_tokens``, ``output_tokens``,
    ``cache_read_input_tokens``, ``cache_creation_input_tokens`` and its ``cache_creation.ephemeral_1h_input_tokens``)
    at prices.yaml's rates, per million tokens, of the longest entry ``model`` starts with (1-hour cache writes at
    ``cache_write_1h``, twice input without one). Below 200K input tokens only (asserted: no long-context rates here).
    StopIteration when no entry prices the model."""
    models = yaml.safe_load(PRICES_YAML.read_text())["models"]
    rates = next(v for k, v in sorted(models.items(), key=lambda kv: -len(kv[0]))
                 if isinstance(v, dict) and "input" in v and model.startswith(k))
    rate = {k: Decimal(str(v)) for k, v in rates.items() if not isinstance(v, dict)}
    h1 = (usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0)
    i, o = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    r, w = usage.get("cache_read_input_tokens", 0), usage.get("cache_creation_input_tokens", 0)
    assert i + r + w <= 200_000
    return (i * rate["input"] + o * rate["output"] + r * rate["cache_read"] + (w - h1) * rate["cache_write"]
            + h1 * rate.get("cache_write_1h", 2 * rate["input"])) / 1_000_000


def collect_claude(base: Path, sessions: dict[str, list], *flags: str, files: dict[str, list] | None = None) -> Path:
    """Write each session's lines to ``<base>/projects/-home-dev-app/<id>.jsonl`` (a ``bytes`` line as it is, a dict as
    JSON), and ``files`` (path under the project directory → lines), collect them into ``<base>/root`` and return the root."""
    projects = base / "projects" / "-home-dev-app"
    projects.mkdir(parents=True)
    for sid, lines in sessions.items():
        (projects / f"{sid}.jsonl").write_bytes(_jsonl(lines))
    for rel, lines in (files or {}).items():
        (projects / rel).parent.mkdir(parents=True, exist_ok=True)
        (projects / rel).write_bytes(_jsonl(lines))
    root = base / "root"
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", *flags, "--source", str(base / "projects"), "--root", str(root))
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return root


def walk_nodes(doc: dict):
    """Every node of a document's talks and loose list, children included."""
    stack = list(doc["talks"]) + list(doc["loose"])
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.get("children", ()))


def assert_titled(root: Path, want: dict[str, str], word: str) -> None:
    """Each conversation of ``root`` has the title ``want`` gives it in its document, in ``asz ls --json``, and on
    every ``asz search word`` hit (at least one)."""
    from asz_core.view import build_view

    for sid, title in want.items():
        assert build_view(root, sid)["summary"]["title"] == title, sid
    p = asz_in_process("ls", "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert {r["id"]: r["title"] for r in json.loads(p.stdout)} == want
    p = asz_in_process("search", word, "--json", "--root", str(root))
    assert p.returncode == 0, p.stderr
    hits = json.loads(p.stdout)
    assert hits and all(h["title"] == want[h["conversation"]] for h in hits), hits


def edited_lines(transcript: Path, edits) -> list[bytes]:
    """The lines of the corpus ``transcript`` with each ``(line index, was, now)`` of ``edits`` made, each ``was``
    found exactly once on its line (the test's edit lands where it says, or the test fails)."""
    lines = transcript.read_bytes().splitlines()
    for i, was, now in edits:
        assert lines[i].count(was) == 1, (i, was)
        lines[i] = lines[i].replace(was, now)
    return lines
