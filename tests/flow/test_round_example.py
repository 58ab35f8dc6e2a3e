"""The original's example round, reproduced: the ``fixture`` scenario's round 1 (conformance/fixtures/asz-view-example.yaml).

The example lists the round's commit digest, input digest, line count and size,
and the four landed files' digests. Our landed files differ from the
original's (so our input digest differs), but every other byte of the round
must be the original's: with the example's input digest put in its place, the
round's commit digest and the whole file's digest must be the example's.
"""

from __future__ import annotations

import hashlib
import re

import pytest
import yaml

pytest.importorskip("asz_core.testing.scenario.build")
pytest.importorskip("asz_core.flow.assemble")

from asz_core.flow.chain import Chain  # noqa: E402
from asz_core.flow.round import decode_round, input_digest  # noqa: E402
from asz_core.testing.scenario.build import build  # noqa: E402
from asz_core.testing.scenario.model import load_scenario  # noqa: E402


def test_fixture_round_is_the_originals(shared_dir, tmp_path):
    doc = yaml.safe_load((shared_dir / "conformance/fixtures/asz-view-example.yaml").read_text())
    want = doc["rounds"][0]
    sf = next(f for f in doc["files"] if f["format"] == "sf")
    sc = load_scenario(shared_dir / "conformance/scenarios/fixture.yaml")
    build(sc, "claude-code", tmp_path / "out", at="2026-01-01T00:00:00Z", stepwise=False)
    chain = Chain(tmp_path / "out", doc["conversation"])
    files = chain.round_files()
    assert len(files) == 1
    data = files[0].path.read_bytes()
    ours = decode_round(data)
    assert (ours.header.from_seq, ours.header.through_seq) == (want["from_seq"], want["through_seq"])
    assert data.count(b"\n") == sf["lines"] and len(data) == sf["bytes"]
    # the example's own input digest, from its four file digests
    digests = [f["digest"] for f in doc["files"] if f["format"] == "sd"]
    assert input_digest("", digests) == want["input_digest"]
    theirs = re.sub(rb'"input_digest":"[0-9a-f]{64}"', b'"input_digest":"' + want["input_digest"].encode() + b'"', data, count=1)
    body = theirs[: theirs.rindex(b'{"t":"commit"')]
    digest = hashlib.sha256(body).hexdigest()
    assert digest == want["digest"] == doc["head"]["digest"]
    whole = body + b'{"t":"commit","digest":"' + digest.encode() + theirs[theirs.rindex(b'","counts"'):]
    assert hashlib.sha256(whole).hexdigest() == sf["digest"]
    assert f"rounds/r000001-{digest[:12]}.sf" in sf["file"]
