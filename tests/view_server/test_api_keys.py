"""Every key of each ``/api/`` answer is listed in ``/api/keys`` (:data:`asz_core.view.api_keys.API_KEYS`) and in
docs/view.md's table, and every key listed as always there is in the answer (trial 36a F7: keys in prose alone; F4:
``asz ls --json`` rows lacked ``project_label``, which reading.md says they carry as ``/api/conversations`` rows do).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect`` (tests/conftest.py), a real
``asz view`` on loopback and the real ``asz ls --json``.
"""

from __future__ import annotations

import json
import re

from view_server_helpers import REPO, asz, counted_rows, whole_usage


def _check(name: str, answer: dict, listed: dict) -> None:
    got, keys, when = set(answer), set(listed["keys"]), set(listed["when"])
    assert not got - keys - when, f"{name}: keys not listed: {sorted(got - keys - when)}"
    assert not keys - got, f"{name}: listed keys absent: {sorted(keys - got)}"


def test_every_answer_key_is_listed_and_every_listed_key_answered(corpus_root, serve):
    s = serve(corpus_root)
    rows = counted_rows(s)
    listed = s.get("/api/keys").json()
    assert listed["api_version"] == 1
    routes = listed["routes"]
    status = s.get("/api/status").json()
    assert (status["product"], status["api_version"]) == ("asz", 1) and re.fullmatch(r"\d+\.\d+\.\d+.*", status["version"])
    answers = {
        "/api/status": status,
        "/api/conversations": s.get("/api/conversations?limit=2").json(),
        "/api/usage": whole_usage(s),
        "/api/usage/blocks": s.get("/api/usage/blocks").json(),
        "/api/tools": s.get("/api/tools").json(),
        "/api/search?held_back=1": s.get("/api/search?q=the&held_back=1").json(),
        "/api/glossary": s.get("/api/glossary").json(),
        "/api/c/{id}/headings": s.get(f"/api/c/{rows[0]['id']}/headings").json(),
        "error": s.get("/api/c/ffffffff-dead/view").json(),
    }
    for name, answer in answers.items():
        _check(name, answer, routes[name])
    for row in rows:
        _check("/api/conversations row", row, routes["/api/conversations row"])
    # each one-case key is met in its case
    _check("/api/conversations", s.get(f"/api/conversations?limit=1&snapshot={answers['/api/conversations']['snapshot']}").json(),
           routes["/api/conversations"])
    assert {"periods"} <= set(s.get("/api/usage?by=week").json())
    # docs/view.md's table is the same
    doc = (REPO / "docs" / "view.md").read_text(encoding="utf-8").split("### Keys of each answer", 1)[1].split("\n### ", 1)[0]
    for name, d in routes.items():
        (line,) = [x for x in doc.splitlines() if x.startswith(f"| `{name}` |")]
        assert re.findall(r"`([a-z_0-9]+)`", line.split(" | ")[1]) == d["keys"], name
        assert [k for k in d["when"] if f"`{k}`:" not in line] == [], name


def test_ls_json_rows_carry_the_api_rows_keys(corpus_root, serve):
    """``asz ls --json`` rows have every key of an ``/api/conversations`` row (project_label among them, the same
    label), besides ``senders`` (reading.md)."""
    rows = {r["id"]: r for r in counted_rows(serve(corpus_root))}
    ls = json.loads(asz("ls", "--json", "--root", str(corpus_root)).stdout)
    assert {r["id"] for r in ls} == set(rows)
    for r in ls:
        api = rows[r["id"]]
        assert set(api) - set(r) == set(), (r["id"], set(api) - set(r))
        assert r.get("project_label") == api.get("project_label")
    assert any("project_label" in r for r in ls)


def test_every_row_has_the_flat_keys_beside_usage(corpus_root, corpus_dir, serve):
    """Session 40: ``usage`` holds ``cache_write_1h`` only on rows with some, so every ``asz ls --json`` and
    ``/api/conversations`` row carries ``cache_write_1h`` and ``calls_long_context`` beside it, 0 for none: each
    conversation's 1-hour cache writes and calls above 200K input tokens counted here from its transcripts (one call per
    message id and request id, its last line carrying usage, sub-agents' files included)."""
    last: dict[tuple, dict] = {}
    for f in sorted((corpus_dir / "claude-code" / "projects").rglob("*.jsonl")):
        for ln in f.read_text(encoding="utf-8").splitlines():
            d = json.loads(ln) if ln.startswith("{") else None
            m = d.get("message") if isinstance(d, dict) else None
            if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and m.get("model") != "<synthetic>":
                last[(d["sessionId"], m.get("id"), d.get("requestId"))] = m["usage"]
    hour: dict[str, int] = {}
    above: dict[str, int] = {}
    for (sid, _, _), u in last.items():
        hour[sid] = hour.get(sid, 0) + ((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0)
        inp = sum(u.get(k) or 0 for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
        above[sid] = above.get(sid, 0) + (inp > 200_000)
    assert len(hour) == 11 and 0 < sum(1 for v in hour.values() if v) < 11  # some rows have 1-hour writes, some none
    api = counted_rows(serve(corpus_root))
    ls = json.loads(asz("ls", "--json", "--root", str(corpus_root)).stdout)
    for rows in (api, ls):
        assert {r["id"]: (r["cache_write_1h"], r["calls_long_context"]) for r in rows} == {
            sid: (hour[sid], above[sid]) for sid in hour}
        assert all(r["usage"].get("cache_write_1h", 0) == r["cache_write_1h"] and "cache_write_1h" not in r["usage"]
                   for r in rows if r["cache_write_1h"] == 0)  # inside usage only where some, as before
