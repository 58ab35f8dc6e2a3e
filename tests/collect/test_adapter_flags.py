"""``--adapter`` given several times (trial 20: the first was dropped silently, and with it a failing adapter's error)."""

from __future__ import annotations

import orjson

from collect_helpers import ADAPTER_FILE, append, asz, line, mini_args, summary


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



def test_the_sources_table_keeps_its_columns_for_a_prefixed_session_id(tmp_path):
    """Trial 43b F9: a session id longer than the SESSION column (``toyrun-<uuid>``, 43 characters, the prefix the
    adapter docs recommend) pushed its row's KIND, MODE and sizes right of the header's."""
    src = tmp_path / "src"
    for sid in ("toyrun-0123abcd-0000-4000-8000-00000000cafe", "s1"):
        (src / sid).mkdir(parents=True)
        (src / sid / "main.jsonl").write_text('{"a": 1}\n')
    p = asz("sources", *mini_args(src, tmp_path / "root"), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    head = next(x for x in lines if x.startswith("SESSION "))
    rows = [x for x in lines if x.startswith(("toyrun-", "s1 "))]
    assert len(rows) == 2 and all(r.index(" transcript ") + 1 == head.index("KIND") for r in rows), "\n".join(lines)
    assert all(r.index(" append ") + 1 == head.index("MODE") for r in rows), "\n".join(lines)
