"""What a dashboard reads from the HTTP API agrees with the command line (trial 29b F2, F3, F4).

- ``/api/usage`` sums quarter-hour buckets: a ``since``/``until`` the buckets answer exactly gives the figures ``asz
  usage`` gives and the source transcripts hold; any other instant is refused with 400 naming the quarter hours
  around it (it was widened or narrowed silently while ``filters`` echoed the instant asked).
- ``/api/usage`` takes ``dialect`` as ``asz usage --dialect`` does.
- A ``dialect`` no installed adapter speaks is a 400 on ``/api/conversations``, ``/api/search`` and ``/api/usage``,
  as the CLI's usage error (exit 2); ``/api/search`` with filters that keep no conversation says so as ``asz
  search`` does (``note``, or the ``X-Asz-Note`` header of the plain list).

Real input: the corpus's Claude Code projects collected by the real ``asz collect`` (the once-collected copy), the
Kiro corpus collected into the same root; a real ``asz view`` on loopback. Expected figures are counted from the
source files (tests/source_calls.py; the Kiro metering in its session documents).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import time
from pathlib import Path
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest

from cli_helpers import asz_in_process
from source_calls import source_calls
from view_server_helpers import REPO, Served, asz

KIRO = REPO.parent / "shared" / "corpus" / "kiro" / "home" / ".kiro"


@pytest.fixture(scope="module")
def mixed(corpus_dir, corpus_copy, tmp_path_factory) -> Path:
    """The collected Claude Code corpus with the Kiro corpus collected into it."""
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("api-cli")
    root = corpus_copy(base / "root")
    shutil.copytree(KIRO, base / "kiro" / ".kiro")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(base / "kiro"), "--root", str(root))
    return root


def _whole(s, query: str) -> dict:
    """``/api/usage?query`` once every conversation is summed (``complete``)."""
    deadline = time.monotonic() + 120
    while True:
        r = s.get("/api/usage" + ("?" + query if query else ""))
        assert r.status == 200, r
        if r.json()["complete"] or time.monotonic() > deadline:
            return r.json()
        time.sleep(0.2)


def _ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def _cli_total(root: Path, *args: str) -> dict:
    p = asz_in_process("usage", "--root", str(root), "--json", "--total-once", "--tz", "UTC", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["total"]


def _tokens(t: dict) -> int:
    return sum(t[k] for k in ("in", "out", "cache_read", "cache_write"))


def test_api_usage_window_is_the_cli_window_or_a_400(mixed, corpus_dir, serve):
    s = serve(mixed)
    calls, _ = source_calls(corpus_dir / "claude-code" / "projects")
    timed = [c for c in calls if c["time"]]
    # a window inside the corpus, its ends on quarter hours: the busiest day's quarter hour of its middle call
    day = max({c["time"][:10] for c in timed}, key=lambda d: sum(c["time"].startswith(d) for c in timed))
    mids = sorted(_ms(c["time"]) for c in timed if c["time"].startswith(day))
    since_ms = mids[len(mids) // 2] // 900_000 * 900_000
    since = dt.datetime.fromtimestamp(since_ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = f"{day}T23:59:59.999Z"
    inside = [c for c in timed if since_ms <= _ms(c["time"]) <= _ms(until)]
    assert 0 < len(inside) < len([c for c in timed if c["time"].startswith(day)])  # the window cuts the day
    api = _whole(s, f"since={since}&until={quote(until)}")
    cli = _cli_total(mixed, "--since", since, "--until", until)
    assert api["total"]["calls"] == cli["calls"] == len(inside)
    assert _tokens(api["total"]) == _tokens(cli["usage"]) == sum(c["tokens"] for c in inside)
    assert (api["filters"]["since"], api["filters"]["until"]) == (since_ms, _ms(until))
    # an instant within a quarter hour: refused, naming the two quarter hours around it (never another window)
    odd = dt.datetime.fromtimestamp((since_ms + 7 * 60_000) / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    r = s.get(f"/api/usage?since={odd}")
    assert r.status == 400
    words = r.json()["error"]
    assert f"since {odd}" in words and "is not the start of a quarter hour" in words
    for at in (since_ms, since_ms + 900_000):
        assert dt.datetime.fromtimestamp(at / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z") in words
    r = s.get(f"/api/usage?until={since}")  # a quarter hour's start is no window's last millisecond
    assert r.status == 400 and "is not the last millisecond of a quarter hour" in r.json()["error"]
    assert s.get("/api/usage?since=7m").status == 400  # a time back from now: an instant of any minute
    r = s.get(f"/api/usage?since={day}")  # a day: its start, in the server's zone, a quarter hour's
    assert r.status == 200


def _kiro_credits() -> float:
    """The credits Kiro metered, from its session files (2.x: the turns' ``metering_usage``; 3.x: each
    ``usage_summary`` payload's ``promptTurnSummaries[].usage``), counting entries whose unit is ``credit``."""
    total = 0.0
    for meta in sorted((KIRO / "sessions" / "cli").glob("*.json")):
        doc = json.loads(meta.read_text(encoding="utf-8"))
        for t in doc["session_state"]["conversation_metadata"]["user_turn_metadatas"]:
            total += sum(m["value"] for m in t.get("metering_usage") or () if m["unit"] == "credit")
    for f in sorted(KIRO.glob("sessions/*/sess_*/messages.jsonl")):
        for ln in f.read_text(encoding="utf-8").splitlines():
            if not ln.strip():
                continue
            payload = json.loads(ln).get("payload") or {}
            if payload.get("type") == "usage_summary":
                total += sum(m["usage"] for m in payload.get("promptTurnSummaries") or () if m.get("unit") == "credit")
    return total


def test_api_usage_takes_dialect_as_asz_usage(mixed, corpus_dir, serve):
    s = serve(mixed)
    calls, _ = source_calls(corpus_dir / "claude-code" / "projects")
    kiro = _whole(s, "dialect=kiro")
    cli = _cli_total(mixed, "--dialect", "kiro")
    assert kiro["filters"]["dialect"] == "kiro"
    assert kiro["total"]["calls"] == cli["calls"] > 0
    assert kiro["total"]["credits"] == cli["credits"] == pytest.approx(_kiro_credits(), abs=1e-6)
    assert cli["credits"] > 0
    claude = _whole(s, "dialect=claude-code/1")
    assert claude["total"]["calls"] == len(calls) and _tokens(claude["total"]) == sum(c["tokens"] for c in calls)
    assert "credits" not in claude["total"]
    whole = _whole(s, "")
    assert whole["total"]["calls"] == len(calls) + kiro["total"]["calls"]


def test_an_unknown_dialect_is_a_400_on_every_api_route_as_the_cli_exits_2(mixed, serve):
    s = serve(mixed)
    for path in ("/api/conversations?dialect=nope", "/api/search?q=hello&dialect=nope", "/api/usage?dialect=nope"):
        r = s.get(path)
        assert r.status == 400, (path, r)
        assert r.json()["error"].startswith("dialect: no installed adapter speaks dialect 'nope'; installed: ")
        assert "claude-code/1" in r.json()["error"] and "kiro/1" in r.json()["error"]
    for cmd in (["ls", "--json"], ["search", "hello", "--json"], ["usage", "--json"]):
        p = asz_in_process(*cmd, "--root", str(mixed), "--dialect", "nope")
        assert p.returncode == 2 and "no installed adapter speaks dialect 'nope'" in p.stderr
    assert s.get("/api/usage?dialect=kiro").status == 200 and s.get("/api/conversations?dialect=kiro/1").status == 200


def test_api_search_says_a_filter_that_keeps_no_conversation(mixed, serve):
    s = serve(mixed)
    n = len([d for d in (mixed / "_conversations").iterdir() if d.is_dir()])
    cli = asz_in_process("search", "hello", "--root", str(mixed), "--json", "--project", "nope")
    assert cli.returncode == 1 and cli.stdout.strip() == "[]"
    said = f"no conversation matched project=nope (of {n} in {mixed})"
    assert f"no conversation matched --project nope (of {n} in {mixed}" in cli.stderr
    r = s.get("/api/search?q=hello&project=nope")
    assert r.status == 200 and r.json() == [] and r.headers.get("x-asz-note") == said
    r = s.get("/api/search?q=hello&project=nope&held_back=1")
    assert r.json()["hits"] == [] and r.json()["note"] == said
    deadline = time.monotonic() + 120  # a row still being counted has no project yet and is kept (docs/view.md)
    while any(r.get("counting") for r in s.get("/api/conversations").json()["conversations"]):
        assert time.monotonic() < deadline, "the rows were not counted in 120 s"
        time.sleep(0.2)
    assert s.get("/api/conversations?project=nope").json()["note"] == said  # the same words as the list's
    r = s.get("/api/search?q=hello")  # a filter that keeps some: no note
    assert r.status == 200 and r.json() and "x-asz-note" not in r.headers
    r = s.get("/api/search?q=zzzznotaword")  # no hit, and no filter: an answer, no note
    assert r.status == 200 and r.json() == [] and "x-asz-note" not in r.headers


def test_the_root_is_answered_absolute(mixed):
    """``asz view --root ROOT`` typed relative: ``/api/status`` and ``/api/conversations`` answer its absolute path
    (trial 29b F11: a dashboard polling several servers could not tell their roots apart)."""
    s = Served(["view", "--root", mixed.name], mixed.parent)
    try:
        assert s.get("/api/status").json()["root"] == str(mixed) == s.get("/api/conversations").json()["root"]
    finally:
        s.stop()


def test_usage_csv_credits_to_6_decimals_and_breakdown_carried(mixed):
    """``asz usage --format csv``: credits to 6 decimals, as ``--json`` and ``/api/usage`` give them (they were
    rounded to 3); ``--breakdown`` with csv or md is carried, never silently ignored (trial 29b F5 refused it, exit 2;
    trial 30b F7: every form carries it): the model lines' credits add up to the total's, each model's as ``--json``
    gives it."""
    import csv
    import io

    p = asz_in_process("usage", "daily", "--root", str(mixed), "--tz", "UTC", "--format", "csv", "--dialect", "kiro")
    assert p.returncode == 0, p.stderr
    total = list(csv.DictReader(io.StringIO(p.stdout)))[-1]
    assert total[next(iter(total))] == "total"
    assert total["credits"] == f"{_cli_total(mixed, '--dialect', 'kiro')['credits']:.6f}"  # --json's figure, whole
    assert float(total["credits"]) == pytest.approx(_kiro_credits(), abs=2e-6)
    p = asz_in_process("usage", "daily", "--root", str(mixed), "--tz", "UTC", "--format", "csv", "--dialect", "kiro", "--breakdown")
    assert p.returncode == 0, p.stderr
    lines = list(csv.DictReader(io.StringIO(p.stdout)))
    by_model: dict[str, float] = {}
    for r in lines[:-1]:
        if r["model"] and r["credits"]:
            by_model[r["model"]] = by_model.get(r["model"], 0.0) + float(r["credits"])
    assert lines[-1]["credits"] == total["credits"] and sum(by_model.values()) == pytest.approx(float(total["credits"]), abs=1e-5)
    assert by_model == pytest.approx(_cli_total(mixed, "--dialect", "kiro")["credits_by_model"], abs=1e-5)
    p = asz_in_process("usage", "--root", str(mixed), "--format", "md", "--breakdown")
    assert p.returncode == 0 and "| model |" in p.stdout.splitlines()[0], p.stderr
    assert asz_in_process("usage", "--root", str(mixed), "--breakdown").returncode == 0


def test_a_method_other_than_get_is_a_405_naming_the_allowed_ones(mixed, serve):
    """Trial 29b F9: a POST, PUT, DELETE, PATCH or OPTIONS got 405 with no ``Allow`` header (RFC 9110 requires one)."""
    import http.client

    s = serve(mixed)
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        for path in ("/api/conversations", "/"):
            c = http.client.HTTPConnection(s.host, s.port, timeout=30)
            try:
                c.request(method, path)
                r = c.getresponse()
                body = r.read()
            finally:
                c.close()
            assert r.status == 405, (method, path, body)
            assert sorted(m.strip() for m in r.getheader("allow").split(",")) == ["GET", "HEAD"], (method, path)
            if path.startswith("/api/"):
                assert json.loads(body)["error"].startswith("method not allowed")


def test_api_usage_reads_a_day_in_tz_as_the_cli_does(mixed, corpus_dir, serve):
    """Trial 30b F1: ``/api/usage?since=DAY&tz=ZONE`` read the day in the server's zone whatever ``tz`` said, so a
    dashboard got another figure than ``asz usage --tz ZONE --since DAY``; now the day is ``tz``'s, as
    ``/api/conversations`` reads it. Two zones 26 hours apart give two different counts, each the source's."""
    s = serve(mixed)
    calls, _ = source_calls(corpus_dir / "claude-code" / "projects")
    timed = [c for c in calls if c["time"]]
    day = max({c["time"][:10] for c in timed}, key=lambda d: sum(c["time"].startswith(d) for c in timed))
    seen = set()
    for zone in ("America/Los_Angeles", "Pacific/Kiritimati"):
        start = int(dt.datetime.fromisoformat(day).replace(tzinfo=ZoneInfo(zone)).timestamp() * 1000)
        after = [c for c in timed if _ms(c["time"]) >= start]
        api = _whole(s, f"since={day}&tz={quote(zone)}&dialect=claude-code")  # the Kiro calls are not the source counted
        p = asz_in_process("usage", "--root", str(mixed), "--json", "--total-once", "--tz", zone, "--since", day,
                           "--dialect", "claude-code")
        assert p.returncode == 0, p.stderr
        cli = json.loads(p.stdout)["total"]
        assert api["total"]["calls"] == cli["calls"] == len(after), zone
        assert _tokens(api["total"]) == _tokens(cli["usage"]) == sum(c["tokens"] for c in after), zone
        assert api["filters"]["since"] == start and api["filters"]["tz"] == zone
        seen.add(len(after))
    assert len(seen) == 2  # the zone moved the window: the test would pass for no reading of tz otherwise
    r = s.get(f"/api/usage?since={day}&until=2020-01-01")
    assert r.status == 400 and "is after until" in r.json()["error"]
