"""``asz usage`` on a terminal narrower than its table (trial 17b, F10: ``asz usage session`` printed 164-cell
lines): MODELS, INPUT, OUTPUT, CACHE WRITE and CACHE READ are left out in turn until a line fits, said once on
stderr; the key, CALLS, TOTAL and COST stay, with the same figures a pipe gets. A ``--breakdown`` line names its model
in the key's cell once MODELS is gone. The terminal is a real pseudo-terminal."""

from __future__ import annotations

import re
import sys

import pytest
from cli_helpers import asz_in_process, asz_on_a_terminal
from rich.cells import cell_len

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="opens a pseudo-terminal (Linux)")


def _cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_usage_session_on_80_columns_keeps_calls_total_and_cost(corpus_root):
    lines, err = asz_on_a_terminal("usage", "session", "--tz", "UTC", "--root", str(corpus_root), columns=80)
    head = lines.index(next(ln for ln in lines if ln.startswith("CONVERSATION")))
    assert _cells(lines[head]) == ["CONVERSATION", "CALLS", "TOTAL", "COST"]
    total = next(ln for ln in lines if ln.startswith("total"))
    assert max(cell_len(ln) for ln in lines[head:lines.index(total) + 1]) <= 80
    assert err == ("asz usage: a narrow terminal: MODELS, INPUT, OUTPUT, CACHE WRITE, CACHE READ left out "
                   "(a wider one, or --json, shows every column)\n")
    piped = asz_in_process("usage", "session", "--tz", "UTC", "--root", str(corpus_root)).stdout.splitlines()
    whole = _cells(next(ln for ln in piped if ln.startswith("total")))  # total, MODELS (-), CALLS, INPUT … TOTAL, COST
    assert whole[1] == "-" and _cells(total) == [whole[0], whole[2], whole[-2], whole[-1]]


def test_a_breakdown_line_names_its_model_when_models_is_left_out(corpus_root):
    lines, err = asz_on_a_terminal("usage", "daily", "--breakdown", "--tz", "UTC", "--root", str(corpus_root), columns=100)
    assert err.startswith("asz usage: a narrow terminal: MODELS left out")
    assert "└ sonnet-4       34         279       2,201        83,966      1,164,952      1,251,398        $0.70" in lines
