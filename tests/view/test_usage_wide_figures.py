"""A number is never cut (docs/reading.md, "A number never is cut"): ``asz usage``'s figure columns widen to fit their
largest value, its marks kept, on a terminal of any width and in a pipe (trial 38b F1: ``5,000,889…`` and
``$125,260.3…`` on every terminal, the ``*`` of an unpriced model cut with the cents).

Real input: the corpus's hello-world transcript (de3b8b19, four Claude model calls) with one call's output made
5,000,000,000 tokens (the trial's edge session) and another call's input 7,000,000,001 tokens under a model the price
table does not hold (the cost gets its ``*``), collected by the real ``asz collect --once``. The figures expected are
made here straight from the transcript's lines; the terminal is a real pseudo-terminal."""

from __future__ import annotations

import json
import re
import sys
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

from claude_lines import collect_claude, edited_lines, priced
from cli_helpers import asz_in_process, asz_on_a_terminal

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SOURCE = f"-home-user-claude-reliability/{SID}.jsonl"
UNPRICED = "claude-future-9-20270101"
#: (line index, the bytes written, what they become)
EDITS = ((4, b'"output_tokens":25', b'"output_tokens":5000000000'),
         (8, b'"input_tokens":1,', b'"input_tokens":7000000001,'),
         (8, b'"model":"claude-opus-4-5-20251101"', b'"model":"' + UNPRICED.encode() + b'"'))
FIELDS = {"input_tokens": "INPUT", "output_tokens": "OUTPUT", "cache_creation_input_tokens": "CACHE WRITE",
          "cache_read_input_tokens": "CACHE READ"}
VIEWS = (("monthly",), ("daily", "--breakdown"), ("weekly",), ("session",), ("model",), ("blocks",))


def _money(exact: Decimal, mark: str = "") -> str:
    return f"${exact.quantize(Decimal('0.01'), ROUND_HALF_EVEN):,}{mark}"


def source_figures(lines: list[bytes]) -> tuple[dict, dict]:
    """``(total, by_model)`` straight from the transcript: one usage per message id + request id, its last line's;
    each a header -> the cell the table should print (CALLS, the four token kinds, TOTAL, COST: the priced calls'
    exact cost to the cent, ``*`` on the total since one model is unpriced; ``unpriced`` for that model's line)."""
    last: dict = {}
    for raw in lines:
        d = json.loads(raw)
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            last[(m.get("id"), d.get("requestId"))] = (m["model"], m["usage"])

    def cells(calls: list) -> dict:
        tokens = {h: sum(u.get(k, 0) for _, u in calls) for k, h in FIELDS.items()}
        cost = sum((priced(mod, u) for mod, u in calls if mod != UNPRICED), Decimal(0))
        unpriced = any(mod == UNPRICED for mod, _ in calls)
        money = "unpriced" if all(mod == UNPRICED for mod, _ in calls) else _money(cost, "*" if unpriced else "")
        return {"CALLS": f"{len(calls):,}", **{h: f"{v:,}" for h, v in tokens.items()},
                "TOTAL": f"{sum(tokens.values()):,}", "COST": money}

    calls = list(last.values())
    return cells(calls), {mod: cells([c for c in calls if c[0] == mod]) for mod in {mod for mod, _ in calls}}


@pytest.fixture(scope="module")
def landed(corpus_dir, tmp_path_factory):
    lines = edited_lines(corpus_dir / "claude-code" / "projects" / SOURCE, EDITS)
    return collect_claude(tmp_path_factory.mktemp("usage-wide"), {SID: lines}), source_figures(lines)


def _by_header(header: str, line: str) -> dict:
    """The cells of a table ``line`` by the header above each, matched from the right (a breakdown line's key cell
    is blank)."""
    heads, cells = re.split(r"\s{2,}", header.strip()), re.split(r"\s{2,}", line.strip())
    return dict(zip(reversed(heads), reversed(cells)))


def _check(lines: list[str], total: dict, by_model: dict, view: str) -> None:
    header = next(ln for ln in lines if re.match(r"(MONTH|DATE|WEEK|CONVERSATION|MODEL|BLOCK)\b", ln))
    table = lines[lines.index(header):]
    shown = [h for h in re.split(r"\s{2,}", header.strip()) if h in total]
    assert {"CALLS", "TOTAL", "COST"} <= set(shown), header
    last = next(ln for ln in table if ln.startswith("total"))
    for line in table[1:table.index(last) + 1]:  # no figure cut, on any line (a title may be)
        if not re.match(r"\s*(total )?cost by kind", line):
            assert not any("…" in _by_header(header, line)[h] for h in shown), (view, line)
    got = _by_header(header, last)
    assert {h: got[h] for h in shown} == {h: total[h] for h in shown}, (view, last)
    if view in ("model", "daily"):  # a model's own row (model) or its breakdown line (daily --breakdown)
        for model, want in by_model.items():
            short = model.removeprefix("claude-").rsplit("-", 1)[0]
            line = next(ln for ln in table if re.match(rf"\s*(└ )?({model}|{short})\s", ln))
            got = _by_header(header, line)
            assert {h: got[h] for h in shown} == {h: want[h] for h in shown}, (view, line)


def test_the_figures_expected_are_wide(landed):
    _, (total, by_model) = landed
    assert total["OUTPUT"] == "5,000,000,004" and total["INPUT"] == "7,000,000,003"
    assert total["COST"].startswith("$125,000.") and total["COST"].endswith("*") and len(total["COST"]) == 12
    assert by_model[UNPRICED]["COST"] == "unpriced"


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v[0])
def test_a_pipe_gets_every_figure_whole(landed, view):
    root, (total, by_model) = landed
    p = asz_in_process("usage", *view, "--tz", "UTC", "--root", str(root))
    assert p.returncode == 0, p.stderr
    _check(p.stdout.splitlines(), total, by_model, view[0])
    header = p.stdout.splitlines()[0]
    assert all(h in header for h in ("INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ")), header


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="opens a pseudo-terminal (Linux)")
@pytest.mark.parametrize("columns", (80, 300))  # the narrowest and room for all; a pipe is the widest
@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v[0])
def test_a_terminal_of_any_width_gets_every_figure_it_shows_whole(landed, view, columns):
    root, (total, by_model) = landed
    lines, _ = asz_on_a_terminal("usage", *view, "--tz", "UTC", "--root", str(root), columns=columns)
    _check(lines, total, by_model, view[0])
    if columns == 300:  # room for every column
        assert all(h in "".join(lines) for h in ("INPUT", "OUTPUT", "CACHE WRITE", "CACHE READ"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="opens a pseudo-terminal (Linux)")
@pytest.mark.parametrize("columns", (80, 300))  # the narrowest and room for all; a pipe is the widest
def test_asz_ls_keeps_tokens_and_cost_whole(landed, columns):
    root, (total, _) = landed
    lines, _ = asz_on_a_terminal("ls", "--root", str(root), columns=columns)
    row = next(ln for ln in lines if ln.startswith(SID[:8]))
    assert f" {total['COST']}  " in row, row
    if "TOKENS" in lines[0]:  # a narrow terminal leaves TOKENS out (asz ls's NARROW), never cuts it
        assert f" {total['TOTAL']}  " in row, row
    assert "…" not in "".join(_by_header(lines[0], row).get(h, "") for h in ("TOKENS", "COST"))
    piped = asz_in_process("ls", "--root", str(root)).stdout
    assert f" {total['TOTAL']}  " in piped and f" {total['COST']} " in piped
