"""``/api/conversations`` takes ``asz ls``'s filters, order and a page, and every ``/api/`` route refuses a parameter it
does not know (trial 26b, F3: the list answered all 238 rows whatever ``?project=``/``?limit=`` said, and
``/api/c/{id}/view?foo=1`` answered 200, while ``/api/usage`` refused ``limit`` with 400). A real server on loopback
over the corpus root; the expected rows counted from the source transcripts (cwd, models, timestamps, tokens)."""

from __future__ import annotations

import collections
import datetime as dt
import json
from pathlib import Path

import pytest

from view_server_helpers import counted_rows

PROJECTS = ("claude-code", "projects")


def _sources(corpus_dir: Path) -> dict[str, dict]:
    """Per sessionId, straight from the transcripts: the cwd, the models named, the first and last timestamp (ms)
    and the tokens of its calls (the last snapshot of each (message.id, requestId))."""
    cwd: dict[str, str] = {}
    models = collections.defaultdict(set)
    times = collections.defaultdict(list)
    calls: dict[str, dict] = collections.defaultdict(dict)
    for path in sorted(corpus_dir.joinpath(*PROJECTS).rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                o = json.loads(line)
            except ValueError:
                continue
            sid = o.get("sessionId") if isinstance(o, dict) else None
            if not sid:
                continue
            cwd.setdefault(sid, o.get("cwd") or "") if o.get("cwd") else None
            if o.get("timestamp"):
                times[sid].append(int(dt.datetime.fromisoformat(o["timestamp"].replace("Z", "+00:00")).timestamp() * 1000))
            m = o.get("message") if o.get("type") == "assistant" else None
            if isinstance(m, dict) and m.get("id"):
                if m.get("model") and m["model"] != "<synthetic>":
                    models[sid].add(m["model"])
                u = m.get("usage") or {}
                calls[sid][(m["id"], o.get("requestId"))] = sum(u.get(k) or 0 for k in (
                    "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
    return {sid: {"cwd": cwd.get(sid, ""), "models": models[sid], "from": min(times[sid]), "to": max(times[sid]),
                  "tokens": sum(calls[sid].values())} for sid in times}


@pytest.fixture(scope="module")
def listed(corpus_root, corpus_dir, serve):
    s = serve(corpus_root)
    rows = counted_rows(s)  # every row counted: a project or model filter judges them all
    return s, rows, _sources(corpus_dir)


def _ids(s, query: str) -> tuple[list[str], dict]:
    r = s.get("/api/conversations" + query)
    assert r.status == 200, (query, r.status, r.text if hasattr(r, "text") else "")
    body = r.json()
    return [x["id"] for x in body["conversations"]], body


def test_filters_are_asz_ls_filters(listed):
    s, rows, src = listed
    assert sorted(r["id"] for r in rows) == sorted(src)  # 11 conversations, one per session of the corpus
    ids, body = _ids(s, "?project=SPOTTER")  # a part of the project, any case, as asz ls --project
    want = {sid for sid, x in src.items() if "spotter" in x["cwd"].lower()}
    assert len(want) == 2 and set(ids) == want and body["total"] == 2 and body["of"] == len(src)
    assert body["filters"] == {"project": "SPOTTER"}
    ids, body = _ids(s, "?model=opus")
    want = {sid for sid, x in src.items() if any("opus" in m for m in x["models"])}
    assert want and set(ids) == want and body["total"] == len(want)
    ids, _ = _ids(s, "?dialect=claude-code")
    assert set(ids) == set(src)
    assert _ids(s, "?dialect=kiro")[0] == []
    # a window of one UTC day: the conversations whose first-to-last record meets it
    day = dt.datetime.fromtimestamp(src["fe869ecb-c176-478f-9734-7e4b8ef12cff"]["to"] / 1000, dt.timezone.utc).date()
    lo = int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp() * 1000)
    want = {sid for sid, x in src.items() if x["to"] >= lo and x["from"] <= lo + 86_400_000 - 1}
    ids, body = _ids(s, f"?since={day}&until={day}&tz=UTC")
    assert want and set(ids) == want and body["filters"] == {"since": str(day), "until": str(day), "tz": "UTC"}


def test_sort_and_page(listed):
    s, rows, src = listed
    ids, body = _ids(s, "")  # the default order is asz ls's: last activity, newest first
    assert ids == sorted(src, key=lambda sid: -src[sid]["to"]) and body["sort"] == "last"
    by_tokens = sorted(src, key=lambda sid: -src[sid]["tokens"])
    ids, body = _ids(s, "?sort=tokens&limit=3&offset=2")
    assert ids == by_tokens[2:5] and body["total"] == len(src) and (body["limit"], body["offset"]) == (3, 2)
    assert _ids(s, f"?sort=tokens&offset={len(src)}")[0] == []  # past the end: an empty page, the total still said
    ids, body = _ids(s, "?project=spotter&sort=tokens&limit=1")
    assert ids == [sid for sid in by_tokens if "spotter" in src[sid]["cwd"]][:1] and body["total"] == 2


def test_a_filter_matching_nothing_is_said(listed, corpus_root):
    s, rows, src = listed
    ids, body = _ids(s, "?project=nope&sort=cost&limit=1&offset=5")
    assert ids == [] and body["total"] == 0
    assert f"no conversation matched project=nope (of {len(src)} in {corpus_root})" in body["note"]


@pytest.mark.parametrize("path, query, known", [
    ("/api/conversations", "page=2", "project, model, dialect, since, until, tz, exact, sort, limit, offset, runtime, instance, snapshot"),
    ("/api/c/{id}/view", "foo=1", "none"),
    ("/api/c/{id}/headings", "foo=1", "none"),
    ("/api/status", "x=1", "none"),
    ("/api/glossary", "lang=en", "dialect"),
    ("/api/usage", "limit=2", "project, model, dialect, instance, by, since, until, exact, tz"),
])
def test_every_route_refuses_an_unknown_parameter(listed, path, query, known):
    s, rows, _ = listed
    r = s.get(path.replace("{id}", rows[0]["id"]) + "?" + query)
    name = query.split("=")[0]
    assert r.status == 400 and r.json() == {"error": f"unknown parameter {name!r} (known: {known})", "code": "unknown_parameter"}


@pytest.mark.parametrize("query, said", [
    ("sort=bogus", "sort 'bogus' is not an order"), ("limit=-1", "limit is a whole number"), ("offset=x", "offset is a whole number"),
    ("project=a&project=b", "give project at most once"), ("since=2026-02-01&until=2026-01-01", "nothing can match"),
    ("tz=Nowhere/Else", "tz:"), ("exact=2", "exact is 0 or 1"), ("since=soon", "since/until:"),
])
def test_a_query_that_does_not_read_is_refused(listed, query, said):
    s, _, _ = listed
    r = s.get("/api/conversations?" + query)
    assert r.status == 400 and said in r.json()["error"]


def test_the_pages_own_requests_pass(listed):
    """app.js asks /api/conversations and /api/status bare and a conversation's view and headings bare (withheld names
    only as hide, which this server does not take)."""
    s, rows, _ = listed
    for path in ("/api/conversations", "/api/status", f"/api/c/{rows[0]['id']}/view", f"/api/c/{rows[0]['id']}/headings",
                 "/api/glossary"):
        assert s.get(path).status == 200, path
