"""``--adapter`` given several times (trial 20: the first was dropped silently, and with it a failing adapter's error)."""

from __future__ import annotations

import orjson

from collect_helpers import ADAPTER_FILE, append, asz, line, summary


def test_a_repeated_adapter_flag_collects_each(tmp_path):
    src, kiro = tmp_path / "src", tmp_path / "kiro-home"
    append(src / "s1" / "main.jsonl", line(0), line(1))
    kiro.mkdir()
    (tmp_path / "asz.yaml").write_text(
        "storage: {root: ./d}\nadapters:\n  - name: mini-jsonl\n    source_root: ./src\n  - name: kiro\n    source_root: ./kiro-home\n")
    p = asz("collect", "--once", "--adapter", "mini-jsonl", "--adapter", "kiro", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (summary(p.stdout)["sessions"], summary(p.stdout)["records"]) == ("1", "2")
    p = asz("sources", "--json", "--adapter", "mini-jsonl", "--adapter", "kiro", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert [a["adapter"] for a in orjson.loads(p.stdout)["adapters"]] == ["mini-jsonl", "kiro"]


def test_every_repeated_adapter_is_checked(tmp_path):
    append(tmp_path / "src" / "s1" / "main.jsonl", line(0))
    p = asz("collect", "--once", "--adapter", "no-such-adapter", "--adapter", "mini-jsonl", "--adapter-file", str(ADAPTER_FILE),
            "--root", str(tmp_path / "d"), cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "no adapter named 'no-such-adapter' is installed" in p.stderr
    p = asz("sources", "--adapter", "no-such-adapter", "--adapter", "mini-jsonl", "--adapter-file", str(ADAPTER_FILE),
            "--root", str(tmp_path / "d"), cwd=tmp_path)
    assert p.returncode == 2 and "no-such-adapter" in p.stderr


def test_source_with_two_adapters_is_refused(tmp_path):
    p = asz("collect", "--once", "--adapter", "mini-jsonl", "--adapter", "kiro", "--adapter-file", str(ADAPTER_FILE),
            "--source", str(tmp_path), "--root", str(tmp_path / "d"), cwd=tmp_path)
    assert p.returncode == 2
    assert "--source is one adapter's folder: give it with one --adapter, not 2 (mini-jsonl, kiro)" in p.stderr

