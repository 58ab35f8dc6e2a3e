"""``asz usage --project/--model`` narrow every view by asz ls's rule (trial 17b, F12: ``asz usage daily --project
deep`` was "No such option"). Expected calls and tokens are counted from the corpus's source transcripts
(tests/source_calls.py), never from asz's own output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_helpers import asz_in_process  # noqa: E402
from source_calls import source_calls  # noqa: E402

VIEWS = ("daily", "weekly", "monthly", "blocks", "session", "project", "model")


def _expected(corpus_source: Path, project: str, model: str) -> tuple[int, int]:
    calls, cwd = source_calls(corpus_source)
    kept = [c for c in calls if project.lower() in cwd.get(c["session"], "").lower() and model.lower() in c["model"].lower()]
    return len(kept), sum(c["tokens"] for c in kept)


@pytest.mark.parametrize("project,model", [("SPOTTER", ""), ("spotter", "opus"), ("deep-manifest", ""), ("", "haiku")])
def test_every_view_counts_only_the_project_and_model_asked(corpus_root, corpus_source, project, model):
    calls, tokens = _expected(corpus_source, project, model)
    assert calls  # the premise: the corpus has such calls (spotter: 158, of which opus 145)
    everything = _expected(corpus_source, "", "")
    assert calls < everything[0]
    for view in VIEWS:
        args = ["usage", view, "--root", str(corpus_root), "--json", "--tz", "UTC"]
        args += ["--project", project] if project else []
        args += ["--model", model] if model else []
        r = asz_in_process(*args)
        assert r.returncode == 0, (view, r.stderr)
        rows = json.loads(r.stdout)
        total = rows[0]["total"]
        assert (total["calls"], sum(total["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))) == (calls, tokens), view
        assert sum(row["calls"] for row in rows) == calls, view
        if view == "model":
            assert all(model in row["model"] for row in rows)
        if view == "project":
            assert all(project.lower() in row["project"].lower() for row in rows)


def test_a_filter_nothing_matches_counts_nothing(corpus_root):
    r = asz_in_process("usage", "project", "--root", str(corpus_root), "--json", "--project", "no-such-project")
    assert r.returncode == 1 and json.loads(r.stdout) == []  # exit 1, as asz ls and export for a filter matching nothing
    # said, so a mistyped filter does not read as no usage (trial 17c); a filter that matches says nothing
    assert f"no model call in {corpus_root} matches --project 'no-such-project' (asz ls lists" in r.stderr
    r = asz_in_process("usage", "--root", str(corpus_root), "--project", "spotter", "--model", "nope")
    assert r.returncode == 1 and "matches --project 'spotter' and --model 'nope'" in r.stderr
    r = asz_in_process("usage", "--root", str(corpus_root), "--project", "spotter")
    assert r.returncode == 0 and "matches" not in r.stderr
