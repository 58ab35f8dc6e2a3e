"""ccusage's flags a user brings along (trial 38b F7): ``asz usage --timezone`` is ``--tz``, and ``--order asc|desc``
turns the rows around (oldest or newest first; with ``--sort`` a figure, the smallest or largest first); another
``--order`` is a usage error (exit 2), and the tools view refuses it.

Real input: the corpus's hello-world transcript with its last call moved a month on (two months: 3 calls in 2026-01,
1 in 2026-02, counted here from the lines), collected by the real ``asz collect --once``
(tests/view/test_usage_hour_writes_every_row.py's root)."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process
from test_usage_hour_writes_every_row import landed  # noqa: F401  (the fixture)


def _rows(root, *args):
    p = asz_in_process("usage", "monthly", "--json", *args, "--root", str(root))
    assert p.returncode == 0, p.stderr
    return [(r["month"], r["calls"]) for r in json.loads(p.stdout)]


def test_timezone_is_tz(landed):  # noqa: F811
    root, months = landed
    assert _rows(root, "--timezone", "UTC") == _rows(root, "--tz", "UTC") == [(m, months[m]["calls"]) for m in sorted(months)]
    table = asz_in_process("usage", "monthly", "--timezone", "Asia/Kolkata", "--root", str(root)).stdout
    assert table.startswith("MONTH (Asia/Kolkata)")


def test_order_turns_the_rows_around(landed):  # noqa: F811
    root, months = landed
    oldest = [(m, months[m]["calls"]) for m in sorted(months)]
    assert oldest == [("2026-01", 3), ("2026-02", 1)]
    assert _rows(root, "--tz", "UTC", "--order", "asc") == oldest
    assert _rows(root, "--tz", "UTC", "--order", "desc") == oldest[::-1]
    assert _rows(root, "--tz", "UTC", "--sort", "calls") == [("2026-01", 3), ("2026-02", 1)]  # the largest first
    assert _rows(root, "--tz", "UTC", "--sort", "calls", "--order", "asc") == [("2026-02", 1), ("2026-01", 3)]
    text = asz_in_process("usage", "monthly", "--tz", "UTC", "--order", "desc", "--root", str(root)).stdout.splitlines()
    assert [ln.split()[0] for ln in text[1:4]] == ["2026-02", "2026-01", "total"]


def test_another_order_is_a_usage_error(landed):  # noqa: F811
    root, _ = landed
    p = asz_in_process("usage", "monthly", "--order", "newest", "--root", str(root))
    assert (p.returncode, p.stderr) == (2, "asz usage: --order newest: asc or desc\n")
    t = asz_in_process("usage", "tools", "--order", "asc", "--root", str(root))
    assert t.returncode == 2 and "--order" in t.stderr
