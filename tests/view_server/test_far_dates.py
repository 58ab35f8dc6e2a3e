"""A date at the edge of the calendar (trial 44a F1): ``--until 9999-12-31`` was a traceback (``OverflowError``) and
``9999-12`` a ``ValueError`` (year 10000) in every command, and a 500 on ``/api/usage``, ``/api/usage/blocks``,
``/api/conversations`` and ``/api/tools``. One date range (``asz_core.view.match.time_window``) now serves every
command and route: a date that reads is a window, the last day of 9999 to its last millisecond in the zone; one that
does not is exit 2 or a 400 naming it; a time back from now before year 1 says it reaches too far back (F8).

Real input: the bundled example collected and parsed; a real ``asz view`` on loopback. The expected calls are counted
from the source transcript (one per message id and request id of the assistant lines of its session and sub-agent files).
"""

from __future__ import annotations

import datetime as dt

import orjson
from view_server_helpers import EXAMPLE, EXAMPLE_SESSION, asz


def _source_calls() -> int:
    lines = [line for f in EXAMPLE.rglob("*.jsonl") for line in f.read_bytes().splitlines()]  # the session and its sub-agent
    return len({(d["message"]["id"], d.get("requestId")) for d in map(orjson.loads, lines) if d.get("type") == "assistant"})


def test_the_last_day_of_9999_is_a_window_everywhere(example_root, serve):
    r, calls = str(example_root), _source_calls()
    assert calls > 0
    for tz in ("UTC", "Pacific/Kiritimati", "Etc/GMT+12"):  # +14 h and -12 h: the ends of the world's clocks
        for until in ("9999-12-31", "9999-12", "99991231"):
            p = asz("usage", "--json", "--total-once", "--since", "0001-01-01", "--until", until, "--tz", tz, "--root", r, check=False)
            assert p.returncode == 0 and "Traceback" not in p.stderr, (tz, until, p.stderr)
            assert orjson.loads(p.stdout)["total"]["calls"] == calls
        (row,) = orjson.loads(asz("ls", "--json", "--until", "9999-12", "--tz", tz, "--root", r).stdout)
        assert row["id"] == EXAMPLE_SESSION
    p = asz("usage", "--since", "9999-12", "--until", "9999-12", "--root", r, check=False)  # reads: nothing in it
    assert "Traceback" not in p.stderr and "matches --since '9999-12'" in p.stderr
    for args, says in ((("--until", "10000-01-01"), "'10000-01-01' is not a date"),
                       (("--since", "9999999999d"), "'9999999999d' reaches too far back: before 0001-01-01")):
        p = asz("ls", *args, "--root", r, check=False)
        assert p.returncode == 2 and f"asz ls: --since/--until: {says}" in p.stderr, p.stderr

    s = serve(example_root)
    last_ms = int(dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=dt.timezone.utc).timestamp() * 1000)
    for route in ("/api/usage", "/api/usage/blocks", "/api/conversations", "/api/tools", "/api/search?q=hello&"):
        q = route + ("" if route.endswith("&") else "?")
        for until in ("9999-12-31", "9999-12"):
            got = s.get(f"{q}until={until}&tz=UTC" if "search" not in route else f"{q}until={until}")
            assert got.status == 200, (route, until, got)
        bad = s.get(f"{q}until=10000-01-01")
        assert bad.status == 400 and "since/until: '10000-01-01' is not a date" in bad.json()["error"], (route, bad)
    u = s.get("/api/usage?until=9999-12&tz=UTC").json()
    assert u["filters"]["until"] == last_ms
    # an instant that is no quarter hour's last millisecond: the 400 names the two that are, and the one named works
    # (trial 44d F4: 9999's last millisecond was written from a float, .998, which the API refused in turn)
    bad = s.get("/api/usage?until=9999-12-31T23:59:59Z")
    assert bad.status == 400 and "give 9999-12-31T23:44:59.999Z or 9999-12-31T23:59:59.999Z;" in bad.json()["error"], bad.json()
    good = s.get("/api/usage?until=9999-12-31T23:59:59.999Z")
    assert good.status == 200 and good.json()["filters"]["until"] == last_ms
