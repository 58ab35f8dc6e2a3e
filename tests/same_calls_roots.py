"""Claude Code sources holding one provider call in two sessions, made from corpus transcripts, and the figures
counted straight from the source files (docs/view.md, One provider call, one count; trial 35a F5, review36 item 2).

- a fork: the corpus's cb2e607c (ORIGINAL) and its lines from the 151st on under FORK, a session id sorting before it,
  and another cwd (FORK_CWD): every call of the fork is one of the original's;
- a copy: the corpus's 326189cf (A) and every line of it under B, with new record uuids (neither continues the other
  nor shares a record id), keeping each assistant line's ``message.id`` and ``requestId``.

The figures: one provider call per (``message.id``, ``requestId``) of an ``assistant`` line carrying usage whose model
is not ``<synthetic>``, its usage from its last such line in file order (reader-anchors.md, Token counts), over every
transcript given at once: a call two transcripts hold is one."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from pathlib import Path

ORIGINAL_DIR = "-Users-alex-workspace-coderabbit-review-helper"
ORIGINAL = "cb2e607c-c758-415a-8b45-c49e4631906a"
ORIGINAL_CWD = "/Users/alex/workspace/coderabbit-review-helper"
FORK = "0a000000-0000-4000-8000-0000000000f1"  # sorts before ORIGINAL
FORK_CWD = "/home/dev/fork"
COPIED_DIR = "-Users-alex-workspace-claude-code-log-sample"
A = "326189cf-5676-4237-8cde-1ce80aae4a9f"
B = "9b9b9b9b-0000-4000-8000-00000000000b"

#: An Anthropic usage count and the asz usage key it is counted under (reader-anchors.md, Token counts).
KEYS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
        "cache_creation_input_tokens": "cache_write"}


def forked(lines: list[str], start: int = 150, session: str = FORK, cwd: str = FORK_CWD) -> list[str]:
    """``lines`` from index ``start`` on, under ``session`` and ``cwd`` (nothing else changed)."""
    out = []
    for ln in lines[start:]:
        d = json.loads(ln)
        d.update({k: v for k, v in (("sessionId", session), ("cwd", cwd)) if k in d})
        out.append(json.dumps(d, ensure_ascii=False))
    return out


def copied(lines: list[str], session: str = B) -> list[str]:
    """Every line of ``lines`` under ``session``, each record uuid (and the uuids naming one) replaced by a new one."""
    renamed: dict[str, str] = {}

    def new(u):
        return renamed.setdefault(u, str(uuid.uuid5(uuid.NAMESPACE_URL, u))) if isinstance(u, str) else u

    out = []
    for ln in lines:
        d = json.loads(ln)
        if "sessionId" in d:
            d["sessionId"] = session
        for k in ("uuid", "parentUuid", "leafUuid", "logicalParentUuid"):
            if k in d:
                d[k] = new(d[k])
        out.append(json.dumps(d, ensure_ascii=False))
    return out


def write_sources(projects: Path, to: Path, *, fork: bool = True, copy: bool = False) -> dict[str, list[str]]:
    """Write, under ``to`` (a Claude Code ``projects`` folder), ORIGINAL and its FORK (``fork``) and A and its copy B
    (``copy``), read from the corpus's ``projects``; returns each session's lines."""
    out: dict[str, list[str]] = {}
    if fork:
        lines = (projects / ORIGINAL_DIR / f"{ORIGINAL}.jsonl").read_text(encoding="utf-8").splitlines()
        out[ORIGINAL], out[FORK] = lines, forked(lines)
        _write(to / ORIGINAL_DIR / f"{ORIGINAL}.jsonl", out[ORIGINAL])
        _write(to / "-home-dev-fork" / f"{FORK}.jsonl", out[FORK])
    if copy:
        lines = (projects / COPIED_DIR / f"{A}.jsonl").read_text(encoding="utf-8").splitlines()
        out[A], out[B] = lines, copied(lines)
        _write(to / COPIED_DIR / f"{A}.jsonl", out[A])
        _write(to / COPIED_DIR / f"{B}.jsonl", out[B])
    return out


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def calls_of(*transcripts: list[str]) -> dict[tuple, tuple[str, dict]]:
    """``(message id, request id) -> (model, usage)`` over every transcript given, each call once: its usage from its
    last line in file order carrying one (``usage`` in asz's keys, with ``cache_write_1h`` where the line gives
    ``cache_creation.ephemeral_1h_input_tokens``)."""
    out: dict[tuple, tuple[str, dict]] = {}
    for lines in transcripts:
        for ln in lines:
            d = json.loads(ln)
            m = d.get("message")
            if d.get("type") != "assistant" or not isinstance(m, dict) or m.get("model") == "<synthetic>":
                continue
            u = m.get("usage")
            if not isinstance(u, dict) or not m.get("id"):
                continue
            got = {k: u.get(f) or 0 for f, k in KEYS.items()}
            h = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens")
            if h:
                got["cache_write_1h"] = h
            out[(m["id"], d.get("requestId"))] = (m.get("model") or "", got)
    return out


def figures(*transcripts: list[str]) -> tuple[int, dict[str, int], Decimal]:
    """``(calls, the four token counts, the exact cost in USD)`` of :func:`calls_of`: the cost of each call at the
    shipped price table's rates for its model (the call's own tokens, so a call above 200K input is priced at its
    model's long-context rates), added exactly."""
    from asz_core.view.prices import cost_of
    from asz_core.view.usage import add_call, zero_usage

    calls = calls_of(*transcripts)
    tokens = {k: sum(u[k] for _, u in calls.values()) for k in KEYS.values()}
    cost = sum((Decimal(cost_of({model: add_call(zero_usage(), u)})["usd_exact"]) for model, u in calls.values()),
               Decimal(0))
    return len(calls), tokens, cost
