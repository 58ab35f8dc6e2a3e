"""A root collected before asz looked at a call's rate (main at 7a8464b^, which called itself claude-code-local 0.2.0)
holds no ``usage rate`` entry: a fast-mode call's record reads as a standard one, and landed files are write-once. The
readers tell it from the file header's adapter version (``Adapter.rates_stated``: claude-code-local before 0.3.0 did
not look) and count such calls ``rate_not_checked``: priced at standard rates as before, marked ``?`` with a line under
``asz usage`` and ``asz ls``, ``cost.rate_not_checked_calls`` in --json; never priced otherwise. The corpus transcript
edited to run two calls in fast mode (``fast_case``'s), collected by an archive of that commit in a child process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from claude_lines import collect_claude
from cli_helpers import asz_in_process, code_at
from test_rate_not_priced import SID, _usage, call_of, edited, fast_case

BEFORE = "7a8464b^"  # the commit before the adapter listed a call's rate under dropped


def _collect_before(code: Path, base: Path, lines: list[bytes]) -> Path:
    projects = base / "projects" / "-home-dev-app"
    projects.mkdir(parents=True)
    (projects / f"{SID}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    env = {**os.environ, "PYTHONPATH": str(code), "CLAUDE_CONFIG_DIR": str(base / "claude-home")}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "claude-code-local",
                        "--source", str(base / "projects"), "--root", str(base / "root")],
                       capture_output=True, text=True, env=env, cwd=base, timeout=600)
    assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
    return base / "root"


@pytest.fixture(scope="module")
def before(corpus_dir, tmp_path_factory):
    lines, _ = fast_case(corpus_dir, tmp_path_factory.mktemp("rate-now"))  # skips when the corpus is absent
    base = tmp_path_factory.mktemp("rate-before")
    return lines, _collect_before(code_at(BEFORE, base), base, lines)


def _calls_with_usage(lines: list[bytes]) -> set:
    """The calls (message id, request id) of the assistant lines that carry usage, the runtime's own notices
    (model ``<synthetic>``) left out, as every count of calls leaves them out."""
    return {call_of(x) for x in lines if call_of(x) and _usage(x) and json.loads(x)["message"].get("model") != "<synthetic>"}


def test_the_archive_is_the_code_before(before):
    _, root = before
    heads = [json.loads(sd.read_bytes().split(b"\n", 1)[0]) for sd in (root / SID / "streams" / "main").glob("*.sd")]
    assert heads and {h["adapter"] for h in heads} == {"claude-code-local/0.2.0"}
    assert b"usage rate " not in b"".join(sd.read_bytes() for sd in (root / SID).rglob("*.sd"))  # the fast calls unlisted


def test_every_call_of_a_root_collected_before_reads_not_checked(before):
    lines, root = before
    want = len(_calls_with_usage(lines))
    assert want > len({call_of(x) for x in lines if _usage(x).get("speed") == "fast"}) == 2
    u = asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC")
    assert u.returncode == 0, u.stderr
    [row] = json.loads(u.stdout)
    assert row["cost"].get("rate_not_checked_calls") == want == row["calls_with_usage"]
    assert "rate_not_priced_calls" not in row["cost"] and row["cost"]["usd"] > 0  # priced at standard rates, not guessed
    t = asz_in_process("usage", "daily", "--root", str(root), "--tz", "UTC")
    assert re.search(r"\$[\d,.]+\?", t.stdout), t.stdout
    # the consequence first (trial 33c F3): how much may be under-counted and that only a new root puts it right, then why
    # every record of this 0.2.0 root holds its call's 1-hour part: no 1-hour clause (trial 37c F1, decided per record)
    assert (f"? {want} call(s) in 1 of 1 row(s) may have cost more than shown, which only a new root puts right: by "
            "whatever fast mode, a priority or batch tier or a data-residency region added (not known)") in t.stdout
    assert "1-hour" not in t.stdout.split("? ", 1)[1] and "hour_not_kept_calls" not in row["cost"]
    assert "They landed before asz looked at a call's rate (claude-code-local before 0.3.0" in t.stdout
    ls = asz_in_process("ls", "--json", "--root", str(root))
    assert [r["cost"].get("rate_not_checked_calls") for r in json.loads(ls.stdout)] == [want]
    text = asz_in_process("ls", "--root", str(root))
    assert re.search(r"\$[\d,.]+\?", text.stdout) and f"? {want} call(s) may have cost more than shown" in text.stdout, text.stdout
    c = asz_in_process("conversation", SID, "--root", str(root))
    assert f"({want} call(s) whose rate was not checked when they landed, priced at standard rates)" in c.stdout


def test_the_same_source_collected_now_is_checked(before, tmp_path):
    lines, _ = before
    root = collect_claude(tmp_path, {SID: lines})
    [row] = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert row["cost"].get("rate_not_priced_calls") == 2 and "rate_not_checked_calls" not in row["cost"]
    t = asz_in_process("usage", "session", "--root", str(root), "--tz", "UTC").stdout
    assert "?" not in t and "landed before asz looked" not in t


def test_usage_says_it_once_and_what_can_check_them(before):
    """trial 20 (upgrade): every row of a root collected before read ``$…?`` for ever. The landed records keep a call's
    token counts only (no ``speed``, ``service_tier`` or ``inference_geo``, no ``dropped`` entry), so no reader can
    check them: ``asz usage`` marks its total only, its line says in how many rows they are and that collecting the
    same sources into a new root checks them; ``asz ls`` (a list of conversations) still marks each."""
    lines, root = before
    records = [json.loads(x) for sd in (root / SID).rglob("*.sd") for x in sd.read_bytes().split(b"\n")[1:-2]]
    usages = [r["usage"] for r in records if r.get("usage")]
    assert usages and {k for u in usages for k in u} <= {"in", "out", "cache_read", "cache_write", "cache_write_1h"}
    assert not [d for r in records for d in r.get("dropped") or () if "usage" in d["what"]]  # nothing to check them by
    for view in ("session", "daily"):
        t = asz_in_process("usage", view, "--breakdown", "--root", str(root), "--tz", "UTC").stdout.splitlines()
        costs = [x.rstrip() for x in t if re.search(r"\$[\d,.]+\??$", x.rstrip())]
        total = next(x for x in costs if x.startswith("total"))
        assert total.endswith("?") and not [x for x in costs if x.endswith("?") and x != total], t
        assert [x for x in t if "cost by kind" in x and "?" in x] == [next(x for x in t if "total cost by kind" in x)]
        (line,) = [x for x in t if x.startswith("? ")]
        assert line.startswith(f"? {len(_calls_with_usage(lines))} call(s) in 1 of 1 row(s) may have cost more than shown, "
                               "which only a new root puts right")
        assert ("To price them as billed, collect the same sources into a new root (asz collect --once --root NEW, while "
                "the runtime still keeps them): this root cannot (its landed files are written once)") in line
    assert re.search(r"\$[\d,.]+\?", asz_in_process("ls", "--root", str(root)).stdout)


def test_a_models_usage_holds_tokens_only_and_its_cost_the_calls(before):
    """trial 31a F3: ``usage_by_model`` entries carried ``rate_not_checked: N`` (a count of calls) beside the tokens, so
    a script adding a model's usage added calls to tokens. Each model's entry now holds token counts only; the calls are
    in its ``cost_by_model`` (``rate_not_checked_calls``), and the row's ``usage`` keeps the count where docs/view.md
    documents it."""
    lines, root = before
    want = len(_calls_with_usage(lines))
    tokens = {"in", "out", "cache_read", "cache_write", "cache_write_1h", "long_context"}
    for args in (("usage", "session", "--json"), ("usage", "instance", "--json"), ("usage", "daily", "--json", "--total-once")):
        got = json.loads(asz_in_process(*args, "--root", str(root), "--tz", "UTC").stdout)
        rows = got["rows"] + [got["total"]] if isinstance(got, dict) else got + [got[0]["total"]]
        for row in rows + [i for r in rows for i in r.get("instances") or ()]:
            for u in (row.get("usage_by_model") or {}).values():
                assert set(u) <= tokens, (args, u)
        for row in rows:
            assert row["usage"].get("rate_not_checked") == want  # documented: kept
            assert row["cost"].get("rate_not_checked_calls") == want
            if "cost_by_model" in row:  # a row's models, each priced alone
                assert sum(c.get("rate_not_checked_calls", 0) for c in row["cost_by_model"].values()) == want
