"""Sessions of ``asz hook`` records alone have their records' time on the page as in ``asz ls`` (trial 27a F7: the
page's rows had ``from``/``to`` null, the list showed "—", and ``?since=`` left them out saying "no usable round, so
no times" while ``asz ls --since`` listed them).

Real input: every corpus probe payload (``hooks/…mcp-hooks-2.1.282.jsonl``) fed to the real ``asz hook``, collected
with adapter ``changes``; the times expected are read from the ``execution/1`` files ``asz hook`` wrote (each record's
``time``), a real ``asz view`` on loopback.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from view_server_helpers import asz, counted_rows, parse

from test_mcp_executions_read import hook

#: eight real asz hook processes, a collect and a server (about 20 s on a loaded machine)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hooked(corpus_dir, tmp_path_factory) -> tuple[Path, dict[str, tuple[int, int]]]:
    """The root, and each hook-only session's (earliest, latest) record time in unix ms, read from the files asz
    hook wrote."""
    base = tmp_path_factory.mktemp("hooked")
    data, root = base / "hookdata", base / "root"
    for line in next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines():
        hook(line, data)  # a real asz hook process, forked
    asz("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    times: dict[str, list[int]] = {}
    for f in (data / "output").glob("*/*.execution.jsonl"):
        for raw in f.read_bytes().splitlines():
            d = json.loads(raw)
            at = dt.datetime.fromisoformat(d["time"][:26] + "+00:00")  # nanoseconds cut to micro, as ms need
            times.setdefault(d["session"], []).append(int(at.timestamp() * 1000))
    return root, {s: (min(v), max(v)) for s, v in times.items()}


def test_the_page_rows_have_the_records_times_as_asz_ls_does(hooked, serve):
    root, times = hooked
    assert len(times) == 8
    ls = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    s = serve(root)
    rows = {r["id"]: r for r in counted_rows(s)}
    assert set(rows) == set(ls) == set(times)
    for sid, (first, last) in times.items():
        assert (rows[sid]["from"], rows[sid]["to"]) == (ls[sid]["from"], ls[sid]["to"]) == (first, last), sid
    # the date filter places them by those times, as asz ls --since does
    day = dt.datetime.fromtimestamp(min(f for f, _ in times.values()) / 1000, dt.timezone.utc).date()
    after = (day + dt.timedelta(days=1)).isoformat()
    got = s.get(f"/api/conversations?since={day.isoformat()}&tz=UTC").json()
    assert got["total"] == 8 and "not placed" not in got["note"]
    ls_since = json.loads(asz("ls", "--json", "--since", day.isoformat(), "--root", str(root), "--tz", "UTC").stdout)
    assert {r["id"] for r in ls_since} == set(times)
    last_day = dt.datetime.fromtimestamp(max(t for _, t in times.values()) / 1000, dt.timezone.utc).date()
    if last_day < day + dt.timedelta(days=1):  # all on one day: the next day holds none, and says no false reason
        got = s.get(f"/api/conversations?since={after}&tz=UTC").json()
        assert got["total"] == 0 and "not placed" not in got["note"]
