"""md and html, the exports meant to be shared, mask credentials by default (trial 34c F8: html, md, json and prose
wrote the 3 planted keys whole unless --redact, and teams share exports). ``--no-redact`` keeps them whole; json and
prose (a dataset's forms) keep their default, whole and counted on stderr.

Real input: the corpus's de3b8b19 with the trial's three keys (its bin/mkhostile.py: an Anthropic API key, an AWS
access key id and a GitHub token) planted in the first prompt."""

from __future__ import annotations

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
KEYS = ("sk-ant-api03-" + "A" * 93 + "AA", "AKIAIOSFODNN7EXAMPLE", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] += " keys: " + " ".join(KEYS)


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("share-forms"), TRANSCRIPT, _plant)


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_md_and_html_mask_by_default_and_no_redact_keeps_them_whole(root, tmp_path, fmt):
    out = tmp_path / f"c.{fmt}"
    p = asz_in_process("export", "de3b8b19", "--format", fmt, "--root", str(root), "--out", str(out))
    assert p.returncode == 0, p.stderr
    copy = out.read_text()
    assert [k for k in KEYS if k in copy] == []
    assert "AKIA…MPLE" in copy and f"ghp_…{KEYS[2][-4:]}" in copy
    said = [x for x in p.stderr.splitlines() if "mask credentials by default" in x]
    assert said == ["asz export: md and html mask credentials by default: masked 3 place(s) of 3 credential(s) "
                    "(--no-redact keeps them whole)"]
    checked = asz_in_process("verify", "--export", str(out), "--root", str(root))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    whole = asz_in_process("export", "de3b8b19", "--format", fmt, "--no-redact", "--root", str(root))
    assert all(k in whole.stdout for k in KEYS)
    assert ("asz export: --no-redact: 3 place(s) of 3 credential(s) of a known form written whole (asz secrets lists "
            "them)") in whole.stderr.splitlines()


@pytest.mark.parametrize("fmt", ["json", "prose"])
def test_json_and_prose_keep_their_default(root, fmt):
    p = asz_in_process("export", "de3b8b19", "--format", fmt, "--root", str(root))
    assert p.returncode == 0 and all(k in p.stdout for k in KEYS), p.stderr
    assert any(x.startswith("asz export: note: ") and "written whole" in x and x.endswith("--redact masks them")
               for x in p.stderr.splitlines())
