"""The body endpoint: a call's provider request and response rebuilt byte for byte for the page (issue 10)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from view_server_helpers import REPO


@pytest.fixture(scope="module")
def bodies_scenario_root(tmp_path_factory) -> Path:
    scenario = REPO.parent / "shared" / "conformance" / "scenarios" / "provider-bodies-errors.yaml"
    if not scenario.is_file():
        pytest.skip(f"{scenario} is absent")
    from asz_core.testing.scenario.build import build
    from asz_core.testing.scenario.model import load_scenario

    root = tmp_path_factory.mktemp("bodies-scenario") / "root"
    build(load_scenario(scenario), "claude-code", root, at="2026-01-01T00:00:00Z", stepwise=False)
    return root


def _calls_with_bodies(doc: dict) -> list[dict]:
    out, stack = [], list(doc["talks"]) + list(doc["loose"])
    while stack:
        n = stack.pop()
        if n.get("provider_bodies"):
            out.append(n)
        stack.extend(n.get("children", ()))
    return out


def test_body_endpoint_rebuilds_what_the_runtime_sent(bodies_scenario_root, serve):
    from asz_core.view import list_conversations

    [conv] = list_conversations(bodies_scenario_root)
    s = serve(bodies_scenario_root)
    doc = s.get(f"/api/c/{conv}/view").json()
    calls = _calls_with_bodies(doc)
    assert calls, "the scenario joins bodies to calls"
    roles = set()
    for call in calls:
        for b in call["provider_bodies"]:
            r = s.get(f"/api/c/{conv}/body/{b['ref']['seq']}/{b['ref']['row']}")
            assert r.status == 200, r.body
            got = r.json()
            assert got["role"] == b["role"]
            roles.add(got["role"])
            # the sha256 the manifest states is the sha256 of the rebuilt bytes
            rec = orjson.loads(s.get(f"/api/c/{conv}/record/{b['ref']['seq']}/{b['ref']['row']}").body)
            manifest = rec["parts"][-1]["data"]
            assert got["sha256"] == manifest["sha256"] and got["bytes"] == manifest["bytes"]
            assert isinstance(got["body"], dict)
    assert roles == {"request", "response"}
    transcript_seq = next(f["seq"] for f in doc["files"] if f.get("kind") == "transcript")
    assert s.get(f"/api/c/{conv}/body/{transcript_seq}/1").status == 400
    assert s.get(f"/api/c/{conv}/body/x/1").status == 400
    assert s.get(f"/api/c/{conv}/body/9999/1").status == 404


def test_body_endpoint_refuses_while_anything_is_withheld(bodies_scenario_root, serve):
    from asz_core.view import list_conversations

    [conv] = list_conversations(bodies_scenario_root)
    s = serve(bodies_scenario_root, hide=["system_prompt"])
    doc = s.get(f"/api/c/{conv}/view").json()
    seq = next(f["seq"] for f in doc["files"] if f.get("kind") == "provider_body")
    assert s.get(f"/api/c/{conv}/body/{seq}/1").status == 403
