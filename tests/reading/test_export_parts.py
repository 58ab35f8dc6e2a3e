"""An audit file over a model's context is said file by file, and ``--split`` writes one conversation in parts that
each fit (trial 27b F5: a 16k-line session's day was one file of 1,162,672 bytes, about 290,668 tokens by bytes ÷ 4,
and stderr gave only the total).

The corpus's Claude Code conversations, exported whole (``--since 2000-01-01``) with a 5,000-token budget so that
several of its real conversations are over it; each part is held to the whole file written without ``--split`` and
to the corpus's own tool_use blocks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

BUDGET = 5_000
PART = re.compile(r"^(\d+) of (\d+): lines ([\d,]+)-([\d,]+) of the ([\d,]+) after the header$")


def _export(root: Path, out: Path, *args: str):
    p = asz_in_process("export", "--root", str(root), "--since", "2000-01-01", "--tz", "UTC", "--max-tokens",
                       str(BUDGET), "--out", f"{out}/", *args)
    assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def whole(corpus_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "audit"
    return out, _export(corpus_root, out, "--audit")


@pytest.fixture(scope="module")
def parts(corpus_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("parts") / "audit"
    return out, _export(corpus_root, out, "--audit", "--split")


def test_each_file_over_the_budget_is_warned_about(whole):
    out, p = whole
    over = sorted(f.name for f in out.glob("*.jsonl") if f.stat().st_size // 4 > BUDGET)
    assert len(over) >= 3  # the corpus's larger conversations
    # one line for them all, the five largest named (trial 48d F8: a folder export printed 25 such lines)
    (line,) = [ln for ln in p.stderr.splitlines() if "over --max-tokens" in ln and "warning" in ln]
    assert line.startswith(f"asz export: warning: {len(over)} file(s) written are over --max-tokens 5,000 (a model's "
                           "context; bytes ÷ 4): "), line
    assert line.endswith(": --split writes it in parts that each fit (docs/reading.md, \"Sizing an audit for a model\")")
    fifth = sorted((out / n).stat().st_size for n in over)[-min(5, len(over))]
    said = re.findall(r"\S+/([0-9a-f-]+\.jsonl) \(([\d,]+) bytes ≈ [\d,]+ tokens\)", line)
    assert len(said) == min(5, len(over)) and all((out / name).stat().st_size >= fifth for name, _ in said)
    assert all(int(size.replace(",", "")) == (out / name).stat().st_size for name, size in said)
    assert (f" and {len(over) - 5} more (each file's bytes: the folder manifest's files)" in line) == (len(over) > 5)


def test_split_parts_fit_keep_every_line_whole_and_in_order(whole, parts, corpus_source):
    out, p = parts
    full, _ = whole
    split = {f.name for f in full.glob("*.jsonl") if f.stat().st_size // 4 > BUDGET}
    for name in sorted(f.name for f in full.glob("*.jsonl")):
        cid = name[:-len(".jsonl")]
        lines = (full / name).read_bytes().splitlines(keepends=True)
        got = sorted(out.glob(f"{cid}.part*.jsonl"), key=lambda f: int(f.name.split(".part")[1].split(".")[0]))
        if name not in split:
            assert not got and (out / name).read_bytes() == (full / name).read_bytes()
            continue
        assert len(got) >= 2 and not (out / name).exists(), name
        body, at = [], 1
        for k, f in enumerate(got, 1):
            data = f.read_bytes()
            assert len(data) // 4 <= BUDGET, f.name  # the corpus holds no line over 20,000 bytes
            part = data.splitlines(keepends=True)
            head = json.loads(part[0])
            m = PART.match(head.pop("part"))
            assert m and (int(m[1]), int(m[2])) == (k, len(got)), head
            first, last, total = (int(m[i].replace(",", "")) for i in (3, 4, 5))
            assert (first, last, total) == (at, at + len(part) - 2, len(lines) - 1)
            assert json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" == lines[0]
            body += part[1:]
            at = last + 1
        assert body == lines[1:]  # every line, whole, in order
        assert f"asz export: {cid[:8]}: over --max-tokens 5,000: written in {len(got)} parts" in p.stderr
    # the tool calls of the parts are the corpus's tool_use blocks of those conversations
    calls = sum(1 for f in out.glob("*.part*.jsonl") for ln in f.read_text().splitlines() if '"kind":"tool_call"' in ln)
    ids = {f.name.split(".part")[0] for f in out.glob("*.part*.jsonl")}
    uses = set()
    for src in corpus_source.rglob("*.jsonl"):
        for raw in src.read_text(encoding="utf-8").splitlines():
            d = json.loads(raw)
            content = (d.get("message") or {}).get("content")
            if d.get("sessionId") in ids and isinstance(content, list):
                uses |= {b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"}
    assert calls == len(uses)


def test_a_part_checks_against_the_root(parts, corpus_root):
    out, _ = parts
    one = sorted(out.glob("*.part2.jsonl"))[0]
    checked = asz_in_process("verify", "--export", str(one), "--root", str(corpus_root))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_text_parts_too_and_split_needs_a_folder(corpus_root, tmp_path):
    out = tmp_path / "text"
    _export(corpus_root, out, "--format", "text", "--split")
    got = sorted(out.glob("*.part1.txt"))
    assert got and all(f.read_text().split("\n")[1].startswith("part: 1 of ") for f in got)
    assert all(f.stat().st_size // 4 <= BUDGET for f in out.glob("*.part*.txt"))
    p = asz_in_process("export", "--root", str(corpus_root), "--since", "2000-01-01", "--audit", "--split")
    assert p.returncode == 2 and "--split writes parts of the audit form" in p.stderr


def test_an_earlier_exports_whole_file_or_parts_never_stay_beside_the_new_ones(corpus_root, tmp_path):
    """Into one folder: whole files, then --split at 5,000 tokens, then at 20,000, then whole again. After each export
    a conversation has either its ID.txt or its parts 1..n as the run's stderr says, never both, and no part past n
    (fix27d's report: a whole ID.EXT of an earlier export stayed beside its parts)."""
    out = tmp_path / "audit"
    for budget, split in ((BUDGET, False), (BUDGET, True), (20_000, True), (BUDGET, False)):
        p = asz_in_process("export", "--root", str(corpus_root), "--since", "2000-01-01", "--tz", "UTC", "--format",
                           "text", "--max-tokens", str(budget), "--out", f"{out}/", *(["--split"] if split else []))
        assert p.returncode == 0, p.stderr
        said = {cid: int(n) for cid, n in re.findall(r"asz export: ([0-9a-f]{8}): over --max-tokens [\d,]+: written "
                                                     r"in (\d+) parts", p.stderr)}
        assert bool(said) is split
        mine: dict[str, list[str]] = {}
        for f in out.glob("*.txt"):
            mine.setdefault(f.name[:8], []).append(f.name.split(".", 1)[1])
        for cid, names in mine.items():
            want = [f"part{k}.txt" for k in range(1, said[cid] + 1)] if cid in said else ["txt"]
            assert sorted(names) == sorted(want), (budget, split, cid, names)
            assert all((out / f"{f.name}.manifest.json").is_file() for f in out.glob(f"{cid}*.txt"))
        assert len(list(out.glob("*.txt.manifest.json"))) == len(list(out.glob("*.txt")))
        assert (out / "export.manifest.json").is_file()  # the folder's own (trial 31b F2)


def test_one_conversations_file_over_the_budget_is_told_the_split_it_can_ask_for(corpus_root, tmp_path):
    """asz export ID --out FILE refuses --split (no window), so its warning names what works, and that works."""
    big = max(corpus_root.glob("*-*-*-*-*/"), key=lambda d: sum(f.stat().st_size for f in d.rglob("*") if f.is_file()))
    cid, file = big.name, tmp_path / "one.txt"
    p = asz_in_process("export", cid, "--format", "text", "--max-tokens", str(BUDGET), "--out", str(file),
                       "--root", str(corpus_root))
    assert p.returncode == 0 and file.stat().st_size // 4 > BUDGET, p.stderr
    assert (f"asz export: warning: {file} is {file.stat().st_size:,} bytes ≈ {file.stat().st_size // 4:,} tokens "
            f"(bytes ÷ 4), over --max-tokens 5,000 (a model's context): --split with --out DIR/ (one conversation: "
            "with --since/--until) writes it in parts that each fit") in p.stderr
    asked = asz_in_process("export", cid, "--since", "2000-01-01", "--tz", "UTC", "--format", "text", "--max-tokens",
                           str(BUDGET), "--split", "--out", f"{tmp_path / 'parts'}/", "--root", str(corpus_root))
    assert asked.returncode == 0, asked.stderr
    assert len(list((tmp_path / "parts").glob(f"{cid}.part*.txt"))) >= 2


def test_the_index_links_every_part(parts):
    """27b: with --split the folder's index.md linked only each conversation's first part."""
    out, _ = parts
    index = (out / "index.md").read_text()
    split: dict[str, list[int]] = {}
    for f in out.glob("*.part*.jsonl"):
        cid, k = f.name.split(".part")[0], int(f.name.split(".part")[1].split(".")[0])
        split.setdefault(cid, []).append(k)
    assert len(split) >= 3
    for cid, ks in split.items():
        (row,) = [ln for ln in index.splitlines() if f"{cid}.part1.jsonl" in ln]
        names = [f"{cid}.part{k}.jsonl" for k in sorted(ks)]
        assert sorted(ks) == list(range(1, len(ks) + 1))
        assert re.findall(r"\[([^\]]+)\]\(([^)]+)\)", row.rsplit("|", 2)[-2]) == [(n, n) for n in names], row


def test_one_conversations_window_in_one_file_is_warned_as_a_file(corpus_root, tmp_path):
    """27b: the per-file warning was said of --out DIR/'s files only; asz export ID --since D --out FILE (one
    conversation's window, one file) got only the total's line, whose remedy (--out DIR/: one file per conversation)
    it already was."""
    big = max(corpus_root.glob("*-*-*-*-*/"), key=lambda d: sum(f.stat().st_size for f in d.rglob("*") if f.is_file()))
    cid, file = big.name, tmp_path / "day.txt"
    p = asz_in_process("export", cid, "--since", "2000-01-01", "--tz", "UTC", "--format", "text", "--max-tokens",
                       str(BUDGET), "--out", str(file), "--root", str(corpus_root))
    assert p.returncode == 0 and file.stat().st_size // 4 > BUDGET, p.stderr
    size = file.stat().st_size
    assert (f"asz export: warning: {file} is {size:,} bytes ≈ {size // 4:,} tokens (bytes ÷ 4), over --max-tokens "
            "5,000 (a model's context): --split with --out DIR/ (one conversation: with --since/--until) writes it in "
            "parts that each fit") in p.stderr
    assert "--out DIR/ writes one file per conversation" not in p.stderr
