"""Trial 30b F9: while ``/api/usage`` is ``"complete": false`` (conversations still being counted) its cost is not
known yet and says so, never a real 0: ``total.cost`` null with ``cost_unknown`` saying why and ``cost_so_far`` the
cost of what was counted; the answer's ``priced`` is never false then (it said ``"priced": false`` and a cost of 0.0
before anything was counted, and a script read "$0"). Once complete, the total is the cost priced here from the
transcripts' own token counts and the published prices, as ``asz usage --json --total-once`` gives it.

Real input: the Claude Code corpus collected by the real ``asz collect --once``, a real ``asz view`` on loopback whose
very first answer is ``/api/usage`` (the checker starts 2 s after the first request: nothing is counted yet)."""

from __future__ import annotations

import itertools
import json
import sys
import time
from decimal import Decimal

from view_server_helpers import REPO, Served, asz

sys.path.insert(0, str(REPO / "tests" / "view"))
from test_view_usage import sessions_of, source_cost, transcript_calls  # noqa: E402


def _source_costs(corpus_dir) -> dict[str, Decimal]:
    """Each corpus conversation's exact cost in USD, priced from its transcripts' own counts (no asz code)."""
    return {sid: source_cost(transcript_calls(files))
            for sid, files in sessions_of(corpus_dir / "claude-code" / "projects").items()}


def test_a_partial_usage_answer_says_its_cost_is_not_known_yet(corpus_copy, corpus_dir, tmp_path):
    costs = _source_costs(corpus_dir)
    assert len(costs) == 11
    whole = sum(costs.values())
    root = corpus_copy()
    s = Served(["view", "--root", str(root)], tmp_path, timeout=120, probe="/api/usage")
    try:
        seen, deadline = [s.first.json()], time.monotonic() + 300
        while not seen[-1]["complete"]:
            assert time.monotonic() < deadline, seen[-1]["counted"]
            time.sleep(0.05)
            seen.append(s.get("/api/usage").json())
        first = seen[0]
        assert first["complete"] is False and first["counted"] < 11 and first["conversations"] == 11
        for u in seen[:-1]:
            t = u["total"]
            assert t["cost"] is None and t["cost_exact"] is None, t
            assert t["cost_unknown"].startswith(f"not known yet: {u['counted']} of 11 conversation(s) counted so far"), t
            assert u["priced"] is not False and "priced" not in t, u["priced"]
            # what was counted so far costs what some `counted` of the corpus's conversations cost, from the source
            sums = {sum(c, Decimal(0)) for c in itertools.combinations(costs.values(), u["counted"])}
            assert Decimal(t["cost_exact_so_far"]) in sums, (u["counted"], t["cost_exact_so_far"])
            assert t["cost_so_far"] == float(Decimal(t["cost_exact_so_far"]).quantize(Decimal("0.000001")))
        assert first["total"]["cost_so_far"] == 0.0 or first["counted"] > 0
        last = seen[-1]["total"]
        assert Decimal(last["cost_exact"]) == whole and last["cost"] == float(whole.quantize(Decimal("0.000001")))
        assert "cost_unknown" not in last and "cost_so_far" not in last and seen[-1]["priced"] is True
        cli = json.loads(asz("usage", "--json", "--total-once", "--root", str(root)).stdout)["total"]["cost"]
        assert cli["usd_exact"] == last["cost_exact"] and "priced" not in cli
    finally:
        s.stop()
