"""The token counts of ../shared/spec/reader-anchors.md (Token counts), counted straight from Claude Code transcript
lines: the oracle the reading and export tests compare asz's figures with."""

from __future__ import annotations

import json

#: reader-anchors.md, Token counts: a usage field of an assistant line and the asz usage key it is counted under.
ANCHOR_KEYS = {"input_tokens": "in", "output_tokens": "out", "cache_creation_input_tokens": "cache_write",
               "cache_read_input_tokens": "cache_read"}


def anchor_usage(lines: list[bytes] | list[str]) -> tuple[dict[str, int], int]:
    """``(tokens by asz usage key, calls)`` of Claude Code transcript ``lines`` counted straight from them by the rule
    of ../shared/spec/reader-anchors.md (Token counts): one usage per (``message.id``, ``requestId``), from its last
    line in file order."""
    last: dict[tuple, dict] = {}
    for ln in lines:
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d, dict) and d.get("type") == "assistant" else None
        if isinstance(m, dict) and m.get("id") and isinstance(m.get("usage"), dict):
            last[(m["id"], d.get("requestId"))] = m["usage"]
    return {k: sum(u.get(f) or 0 for u in last.values()) for f, k in ANCHOR_KEYS.items()}, len(last)
