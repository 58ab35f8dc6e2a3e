"""The ``changes`` adapter (dialect asz-changes/1): discovery, conversion, a real collect, and the conformance kit (issue 8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from asz_core import RawJSON, Source
from asz_core.plugins import get_plugin_manager
from asz_core.collect.second_source import refuse_seconds
from asz_core.testing import AdapterConformance, collect_once, landed_records

from asz_adapters_claude import observer_plugin
from asz_adapters_claude.observer_adapter import DIALECT, ClaudeCodeObserver

SAMPLES = Path(__file__).resolve().parent / "samples"
DATA_ID = "file-changes-skywalking-ai-sessionizer"


class TestObserverConformance(AdapterConformance):
    """The conformance kit over samples written by the real hook (corpus payloads) and one derived change record."""

    adapter_class = ClaudeCodeObserver
    samples = SAMPLES


def test_registered_through_its_entry_point() -> None:
    """Entry point ``changes`` loads the adapter by name, and the plugin module registers it."""
    reg = get_plugin_manager()
    a = reg.get("changes")
    assert isinstance(a, ClaudeCodeObserver) and a.dialects == (DIALECT,) and a.kinds == ("execution", "changes")
    assert observer_plugin.asz_register_adapters() == [ClaudeCodeObserver]


def test_discovery_from_plugins_data_or_one_data_dir(tmp_path: Path) -> None:
    """A plugins/data directory and a single data directory give the same sources; streams come from file names."""
    a = ClaudeCodeObserver()
    whole = a.discover(SAMPLES)
    one = a.discover(SAMPLES / DATA_ID)
    got = sorted((s.session, s.kind, s.stream) for s in whole.sources)
    assert got == sorted((s.session, s.kind, s.stream) for s in one.sources)
    assert ("ba183925-5bf0-407b-946c-583bea4a1d57", "execution", "ad1f9feae632355a5") in got
    assert ("df3365d7-7d1b-466a-a9b2-86d883ff07a3", "changes", "main") in got
    assert all(s.mode == "append" and s.dialect == DIALECT and "\\" not in s.src for s in whole.sources)
    assert whole.errors == []


def test_discovery_noise_conflicts_and_filters(tmp_path: Path) -> None:
    """Other files are skipped with a reason; the same stream from a second data dir is a conflict; filters apply."""
    root = tmp_path / "data"
    shutil.copytree(SAMPLES, root)
    out = root / DATA_ID / "output"
    (out / "README.txt").write_text("x")
    (out / "86cb6fec-8454-476f-9cf1-4d625d1869b7" / "notes.md").write_text("x")
    twin = root / "asz-inline" / "output" / "86cb6fec-8454-476f-9cf1-4d625d1869b7"
    twin.mkdir(parents=True)
    shutil.copy(out / "86cb6fec-8454-476f-9cf1-4d625d1869b7" / "main.execution.jsonl", twin)
    a = ClaudeCodeObserver()
    d = a.discover(root)
    reasons = dict(d.skipped)
    assert "not a session directory" in reasons[f"{DATA_ID}/output/README.txt"]
    assert "not an observer output file" in reasons[f"{DATA_ID}/output/86cb6fec-8454-476f-9cf1-4d625d1869b7/notes.md"]
    assert d.errors == [] and d.conflicts == []
    refuse_seconds(tmp_path / "store", d)  # the collector refuses the second, counted as a conflict
    assert d.conflicts == [(str(out / "86cb6fec-8454-476f-9cf1-4d625d1869b7" / "main.execution.jsonl"),  # asz-inline sorts first
                            "execution of stream 'main' in session 86cb6fec-8454-476f-9cf1-4d625d1869b7 already comes from "
                            "asz-inline/output/86cb6fec-8454-476f-9cf1-4d625d1869b7/main.execution.jsonl; the second source is refused: "
                            "move it out of its source folder (a stray copy), or move asz-inline/output/86cb6fec-8454-476f-9cf1-4d625d1869b7/"
                            "main.execution.jsonl away to land this one instead (the cursor follows a source that holds what landed); "
                            "asz sources lists both")]
    only = a.discover(root / DATA_ID, include=["/work/echo"])
    assert {s.session for s in only.sources} == {"86cb6fec-8454-476f-9cf1-4d625d1869b7"}
    below = a.discover(root / DATA_ID, include=["/work/**"], exclude=["a815fa95-*"])
    # the change record's root is the corpus project, not /work: that file is filtered out on its own
    assert sorted((s.session[:8], s.kind) for s in below.sources) == [
        ("86cb6fec", "execution"), ("ba183925", "execution"), ("df3365d7", "execution")]


def test_lines_convert_to_one_data_part_holding_the_line() -> None:
    """id, tool and time are lifted; the data part is the line's bytes; no from, no flags; junk is unknown."""
    a = ClaudeCodeObserver()
    n = 0
    for s in a.discover(SAMPLES).sources:
        off = 0
        for i, line in enumerate(s.path.read_bytes().split(b"\n")[:-1], 1):
            obj = json.loads(line)
            rec = a.convert_line(s, line, i, off)
            assert (rec.ord, rec.off, rec.bytes) == (i, off, len(line))
            assert (rec.id, rec.tool, rec.time) == (obj["id"], obj["tool"], obj["time"])
            assert rec.from_ == "" and rec.flags == [] and len(rec.parts) == 1
            (p,) = rec.parts
            assert p.k == "data" and isinstance(p.data, RawJSON) and p.data.raw == line and p.bytes == len(line)
            off += len(line) + 1
            n += 1
    assert n == 6
    src = Source(session="s", kind="execution", path=Path("x"), src="x", dialect=DIALECT, stream="main")
    junk = a.convert_line(src, b"{half a rec", 7, 70)
    assert junk.parts[0].k == "unknown" and junk.parts[0].raw() == b"{half a rec"
    spaced = a.convert_line(src, b'{"id": "x", "tool": "t", "time": "2026-01-01T00:00:00Z", "a": [1, 2]}', 1, 0)
    assert spaced.parts[0].data.raw == b'{"id":"x","tool":"t","time":"2026-01-01T00:00:00Z","a":[1,2]}'


def test_collected_execution_records_keep_the_line_bytes(tmp_path: Path) -> None:
    """After a real collect, each landed execution/changes record's data part is its source line, byte for byte."""
    a = ClaudeCodeObserver()
    root = tmp_path / "root"
    collect_once(root, a, SAMPLES)
    by_src = {s.src: s.path.read_bytes().split(b"\n")[:-1] for s in a.discover(SAMPLES).sources}
    seen = 0
    for path, header, row, rec in landed_records(root):
        assert header.kind in ("execution", "changes") and header.dialect == DIALECT
        line = by_src[header.src][rec.ord - 1]
        landed_line = path.read_bytes().split(b"\n")[row]  # row counts record lines after the header, from 1
        assert b'"parts":[{"k":"data","data":' + line + b"," in landed_line
        assert rec.parts[0].data == json.loads(line)
        assert header.stream == json.loads(line)["stream"]
        seen += 1
    assert seen == 6


def test_the_observer_reads_every_claude_configuration_folder(tmp_path: Path) -> None:
    """The observer records follow the folder list the transcripts do (asz_adapters_claude.roots.config_dirs):
    ``~/.config/claude/plugins/data`` holding records is read after ``~/.claude/plugins/data`` (it read the default
    folder only), by ``default_source_roots`` and so by a plain ``asz collect --adapter changes``."""
    from cli_helpers import asz_in_process

    home = tmp_path / "home"
    shutil.copytree(SAMPLES, home / ".config" / "claude" / "plugins" / "data")
    env = {"HOME": str(home)}
    # the only one there is the default, as for the transcripts' projects folders (roots.default_folder)
    assert ClaudeCodeObserver().default_source_roots(env) == [home / ".config" / "claude" / "plugins" / "data"]
    (home / ".claude" / "plugins" / "data").mkdir(parents=True)  # the default folder, empty: still first, nothing in it
    assert ClaudeCodeObserver().default_source_roots(env)[1:] == [home / ".config" / "claude" / "plugins" / "data"]
    p = asz_in_process("collect", "--once", "--no-parse", "--adapter", "changes", "--root", str(tmp_path / "root"),
                       env={"HOME": str(home), "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None})
    want = sum(1 for f in (SAMPLES).rglob("*.jsonl") for line in f.read_bytes().splitlines() if line.strip())
    fields = dict(x.split("=", 1) for x in p.stdout.split() if "=" in x)
    assert p.returncode == 0 and fields["records"] == str(want), p.stdout + p.stderr
