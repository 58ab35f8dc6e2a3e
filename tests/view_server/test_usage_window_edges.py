"""A conversation straddling a ``--since``/``--until`` window's edge is counted in ``asz usage`` and ``/api/usage`` alike
by the calls inside the window (fix41b): its calls whose usage is incomplete (``usage_incomplete``), the notes of its
records whose time does not read (``untimed``: such records belong to no day, so only a window holding its whole
recorded range names them; the total without a window does), and the undescribed line of the week and month tables in
their own words (``periods_undescribed_said``).

Real input: the corpus transcript b25638d7 (18 model calls over 97 s), its times moved here so that midnight UTC falls
between its 8th and 9th call (every ``timestamp`` moved by the same amount, nothing else), the output count of two
calls before midnight and of two after written negative (one of them its input too: counted 0, the call's usage
incomplete), one user line's time made ``yesterday`` (it does not read) and a line that is not JSON added at its end
(a record the dialect cannot read); collected by the real ``asz collect --once``, served by a real ``asz view``. Every
expected count is made here from the source lines (one call per message id + request id, the time and counts of its
last line carrying usage), never from asz's output.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from cli_helpers import asz_in_process, collect_transcript
from view_server_helpers import whole_usage

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
PROJECT = "-Users-alex-workspace-personal-site-next"
#: source line index -> the usage counts written negative there (each the last line of its call carrying usage)
NEGATIVE = {5: ("output_tokens",), 19: ("output_tokens",), 26: ("output_tokens",), 43: ("output_tokens", "input_tokens")}
UNTIMED_LINE = 9  # a user line: its time made one that does not read
KINDS = {"input_tokens": "in", "output_tokens": "out", "cache_read_input_tokens": "cache_read",
         "cache_creation_input_tokens": "cache_write"}
BEFORE, AFTER = "2025-09-29", "2025-09-30"  # UTC days: midnight between the 8th and 9th call


def _at(ts: str) -> dt.datetime:
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _moved(lines: list[bytes]) -> list[bytes]:
    """Every line's ``timestamp`` moved so that midnight UTC falls halfway between the 8th call's last line and the
    9th's (the bytes of the time string replaced, nothing else), then the edits of the module docstring."""
    last = _calls(lines)
    ends = sorted(_at(t) for t, _ in last.values())
    shift = dt.datetime.fromisoformat(f"{AFTER}T00:00:00+00:00") - (ends[7] + (ends[8] - ends[7]) / 2)
    out = []
    for i, raw in enumerate(lines):
        d = json.loads(raw)
        was = d["timestamp"]
        now = "yesterday" if i == UNTIMED_LINE else (_at(was) + shift).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        assert raw.count(f'"timestamp":"{was}"'.encode()) == 1, i
        raw = raw.replace(f'"timestamp":"{was}"'.encode(), f'"timestamp":"{now}"'.encode())
        for key in NEGATIVE.get(i, ()):
            n = d["message"]["usage"][key]
            assert raw.count(f'"{key}":{n}'.encode()) == 1 and n > 0, (i, key)
            raw = raw.replace(f'"{key}":{n}'.encode(), f'"{key}":{-n}'.encode())
        out.append(raw)
    return out + [b"not json at all"]


def _calls(lines: list[bytes]) -> dict[tuple, tuple[str, dict]]:
    """(message id, request id) -> (the time, the usage) of its last line carrying usage: one usage per call."""
    last: dict[tuple, tuple[str, dict]] = {}
    for raw in lines:
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            last[(m.get("id"), d.get("requestId"))] = (d["timestamp"], m["usage"])
    return last


def _expected(lines: list[bytes], days: set[str]) -> tuple[int, int, list[str]]:
    """(calls, of them those with a count below 0, the fields they lack sorted) of the calls whose last usage line's
    UTC day is in ``days``, from the source lines."""
    calls = short = 0
    fields: set[str] = set()
    for ts, u in _calls(lines).values():
        if ts[:10] not in days:
            continue
        calls += 1
        below = {f"usage.{KINDS[k]}={v}" for k, v in u.items() if k in KINDS and type(v) is int and v < 0}
        short += bool(below)
        fields |= below
    return calls, short, sorted(fields)


@pytest.fixture(scope="module")
def straddling(corpus_dir, tmp_path_factory):
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    lines = _moved(f.read_bytes().splitlines())
    assert len(_calls(lines)) == 18 and {t[:10] for t, _ in _calls(lines).values()} == {BEFORE, AFTER}  # the premise
    root = collect_transcript(tmp_path_factory.mktemp("window-edges"), PROJECT, SID, b"\n".join(lines) + b"\n")
    return root, lines


def _cli(root, *flags: str, matched: bool = True) -> tuple[dict, list[str]]:
    """``asz usage --json --total-once --tz UTC``'s total and its ``note:`` lines about records whose time does not
    read; exit 0, or 1 where no call is in the window (``matched`` False: docs/reading.md, a filter matching nothing)."""
    p = asz_in_process("usage", "--json", "--total-once", "--tz", "UTC", "--root", str(root), *flags)
    assert p.returncode == (0 if matched else 1), p.stderr
    return json.loads(p.stdout)["total"], [ln for ln in p.stderr.splitlines() if "time does not read" in ln]


@pytest.mark.parametrize("days", [(), (BEFORE,), (AFTER,), (BEFORE, AFTER), ("2025-10-03",)])
def test_a_window_counts_the_incomplete_calls_and_untimed_notes_inside_it(straddling, serve, days):
    root, lines = straddling
    s = serve(root)
    whole = whole_usage(s)  # every conversation counted: the windowed answers below are complete too
    flags = ("--since", days[0], "--until", days[-1]) if days else ()
    u = s.get(f"/api/usage?since={days[0]}&until={days[-1]}&tz=UTC").json() if days else whole
    calls, short, fields = _expected(lines, set(days) or {BEFORE, AFTER})
    total, notes = _cli(root, *flags, matched=bool(calls))
    assert total["calls"] == u["total"]["calls"] == calls
    want = [{"conversation": SID, "calls": short, "fields": fields}] if short else []
    assert total.get("usage_incomplete", []) == want  # asz usage: only the calls in the window
    assert [{k: e[k] for k in ("conversation", "calls", "fields")} for e in u["usage_incomplete"]] == want  # the page too
    # records whose time does not read: named without a window and in one holding the whole range, in no other
    placed = not days or set(days) == {BEFORE, AFTER}
    assert len(notes) == int(placed) and len(u["untimed"]) == int(placed), (notes, u["untimed"])
    if placed:
        name, note = notes[0][len("asz usage: note: "):].split(": ", 1)
        assert u["untimed"] == [{"conversation": SID, "name": name, "note": note}] and f"line {UNTIMED_LINE + 2}: 'yesterday'" in note


@pytest.mark.parametrize("by, view", [("week", "weekly"), ("month", "monthly")])
def test_the_week_and_month_tables_get_their_own_undescribed_line(straddling, serve, by, view):
    root, _ = straddling
    s = serve(root)
    whole_usage(s)
    u = s.get(f"/api/usage?by={by}&tz=UTC").json()
    assert [{k: e[k] for k in ("conversation", "records")} for e in u["undescribed"]] == [{"conversation": SID, "records": 1}]

    def said(v: str) -> list[str]:
        out = asz_in_process("usage", v, "--tz", "UTC", "--root", str(root)).stdout.splitlines()
        return [ln for ln in out if ln.startswith("! undescribed")]

    assert [u["periods_undescribed_said"]] == said(view) and f"in no {by}'s row" in u["periods_undescribed_said"]
    assert [u["undescribed_said"]] == said("daily") != said(view)  # the day table's line stays the day's
