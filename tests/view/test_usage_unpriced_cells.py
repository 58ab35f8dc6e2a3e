"""A cost none of which had a price never reads as a dollar figure (trial 28a F6: ``acme-internal-llm … $0.00*`` in
``asz usage``, ``usd: 0.0`` in its JSON, read as free by a reader or a spreadsheet): the cell reads ``unpriced`` and
the JSON's ``cost`` keeps its keys and adds ``priced: false``; a price of 0 given in asz.yaml is a priced 0, ``$0.00``
with no ``priced`` key; Kiro's rows, whose calls carry no token counts, have ``priced: false`` too (docs/reading.md).

Real input: the corpus's Claude Code session fe869ecb (every call ``claude-sonnet-4-20250514``, priced, on 2025-06-14
UTC) and a transcript of one call of ``gpt-4o-mini`` (no price in the shipped table: 100 in, 20 out) on 2025-06-20,
collected by the real ``asz collect``; the Kiro corpus collected by ``asz collect --adapter kiro``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


from cli_helpers import asz_in_process

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
from test_usage_unpriced_rows import UNPRICED, UNPRICED_SID, _unpriced_transcript, mixed_root  # noqa: E402,F401 (mixed_root: the root both read)


def _usage(root: Path, *args: str) -> str:
    p = asz_in_process("usage", *args, "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _cells(out: str) -> dict[str, list[str]]:
    return {re.split(r"\s{2,}", ln.strip())[0]: re.split(r"\s{2,}", ln.strip()) for ln in out.splitlines()[1:] if ln.strip()}


def test_an_unpriced_models_cell_reads_unpriced_and_its_json_says_priced_false(mixed_root):
    reply = _unpriced_transcript()[1]["message"]["usage"]
    tokens = reply["input_tokens"] + reply["output_tokens"]  # 120: counted, never costed
    models = _cells(_usage(mixed_root, "model"))
    assert models[UNPRICED][1:] == ["1", "100", "20", "0", "0", f"{tokens:,}", "unpriced"], models
    assert models["claude-sonnet-4-20250514"][-1].startswith("$") and models["total"][-1].endswith("*")
    days = _cells(_usage(mixed_root, "daily", "--breakdown"))
    assert days["2025-06-20"][-1] == "unpriced" and days["2025-06-14"][-1].startswith("$"), days
    assert f"cost by kind: unpriced (no price for {UNPRICED})" in _usage(mixed_root, "daily", "--breakdown")
    rows = {r["model"]: r for r in json.loads(_usage(mixed_root, "model", "--json"))}
    assert rows[UNPRICED]["cost"] == {"usd": None, "usd_exact": None, "unpriced": [UNPRICED], "priced": False}  # 50c F3
    assert "priced" not in rows["claude-sonnet-4-20250514"]["cost"] and "priced" not in rows[UNPRICED]["total"]["cost"]
    ls = _cells(asz_in_process("ls", "--root", str(mixed_root)).stdout)
    assert [r for k, r in ls.items() if k.startswith(UNPRICED_SID[:8])][0][-1] != "$0.00*"
    assert "unpriced" in [r for k, r in ls.items() if k.startswith(UNPRICED_SID[:8])][0]


def test_a_price_of_zero_given_in_asz_yaml_is_a_priced_zero(mixed_root, tmp_path):
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"prices:\n  {UNPRICED}: {{input: 0, output: 0, cache_write: 0, cache_read: 0}}\n")
    models = _cells(_usage(mixed_root, "model", "--config", str(cfg)))
    assert models[UNPRICED][-1] == "$0.00" and not models["total"][-1].endswith("*")
    rows = {r["model"]: r for r in json.loads(_usage(mixed_root, "model", "--json", "--config", str(cfg)))}
    assert rows[UNPRICED]["cost"] == {"usd": 0.0, "usd_exact": "0", "unpriced": []}


def test_kiro_rows_whose_calls_carry_no_tokens_say_priced_false(kiro_root):
    rows = json.loads(_usage(kiro_root, "--json"))
    assert rows and all(r["cost"]["priced"] is False and r["cost"]["usd"] is None for r in rows)  # 50c F3
    assert rows[0]["total"]["cost"]["priced"] is False
