"""A refused ``hide`` answers the code docs/view.md's Errors table gives the mistake (review36 of 8cfa8b47, trial 36a
F5): ``bad_query`` is the query string that does not parse, yet a ``hide`` naming no withholdable flag, a key spelling
``hide`` another way (``Hide``, ``hide[]``) and ``hide`` where ``view.hide_override`` is off all answered
``bad_query``. Now: a flag that does not read is ``bad_parameter``; a key the route does not take, and ``hide`` while
the override is off, is ``unknown_parameter``; a query that does not parse stays ``bad_query``. Real ``asz view``
processes over the canary root, read over HTTP."""

from __future__ import annotations

import pytest

from view_server_helpers import CANARY_SESSION

V = f"/api/c/{CANARY_SESSION}"


@pytest.mark.parametrize("override, query, code", [
    (True, "hide=bogus", "bad_parameter"),
    (True, "hide=system_prompt,bogus", "bad_parameter"),
    (True, "Hide=system_prompt", "unknown_parameter"),
    (True, "hide[]=", "unknown_parameter"),
    (True, "hide=%E9", "bad_query"),
    (False, "hide=system_prompt", "unknown_parameter"),
    (False, "hide=", "unknown_parameter"),
])
def test_a_refused_hide_has_the_code_of_its_mistake(canary_root, serve, override, query, code):
    s = serve(canary_root, hide=["system_prompt"], override=override)
    for path in (f"{V}/view", f"{V}/record/1/1", "/api/conversations"):
        r = s.get(path + ("&" if "?" in path else "?") + query)
        assert r.status == 400 and r.json()["code"] == code, (path, query, r.json())
