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
