"""The conformance kit fails an adapter that breaks the contract, with a message naming what (issue 19).

Each case is a real adapter (the plugin template's, changed in one way) run
through the real kit in its own pytest process, as a third party runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"

CASE = '''
from pathlib import Path

from asz_core.testing import AdapterConformance

from asz_adapter_example.plugin import ExampleCodexAdapter

{body}

class TestCase(AdapterConformance):
    adapter_class = Changed
    samples = Path({samples!r})
'''


def _run_kit(tmp_path: Path, body: str, *select: str) -> subprocess.CompletedProcess:
    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    test = tmp_path / "test_changed_adapter.py"
    test.write_text(CASE.format(body=textwrap.dedent(body), samples=str(TEMPLATE / "samples")))
    env = dict(os.environ, PYTHONPATH=str(TEMPLATE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", str(test)]
    for name in select:
        args += ["-k", name]
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)


def test_a_plugin_that_lands_from_assistant_fails_naming_the_field(tmp_path):
    proc = _run_kit(tmp_path, '''
        class Changed(ExampleCodexAdapter):
            def convert_line(self, source, line, ord, off):
                rec = super().convert_line(source, line, ord, off)
                if rec.from_ == "agent":
                    rec.from_ = "assistant"
                return rec
    ''', "session_data_values or every_file_verifies")
    assert proc.returncode == 1, proc.stdout
    out = proc.stdout
    # the kit's own check names the source line and the field
    assert "rollout-2026-11-20T10-00-00-0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl:5: from: record ord 5: " \
           "'assistant' is not a Session Data value (one of agent, external, runtime)" in out
    # and a real collect refuses to land it: the pass reports the line and the field
    assert "wrote line 5 outside the vocabulary: from: record ord 5: 'assistant' is not a Session Data value" in out
    assert "1 failed" in out and "1 error" in out  # the check, and the collected root the other checks need


def test_a_plugin_with_an_unknown_part_kind_fails_naming_the_part(tmp_path):
    proc = _run_kit(tmp_path, '''
        class Changed(ExampleCodexAdapter):
            def convert_line(self, source, line, ord, off):
                rec = super().convert_line(source, line, ord, off)
                for p in rec.parts:
                    if p.k == "media":
                        p.k = "image"
                return rec
    ''', "session_data_values")
    assert proc.returncode == 1, proc.stdout
    assert ":4: parts[1].k: record ord 4: 'image' is not a Session Data value (one of text, reasoning, call, result, media, data, unknown)" in proc.stdout


def test_a_plugin_whose_records_say_nothing_fails(tmp_path):
    proc = _run_kit(tmp_path, '''
        from asz_core import Record, source_sha

        class Changed(ExampleCodexAdapter):
            def convert_line(self, source, line, ord, off):
                rec = super().convert_line(source, line, ord, off)
                if b'"event_msg"' in line:  # drops the line's content and says nothing about it
                    return Record(ord=ord, off=off, bytes=len(line), sha=source_sha(line))
                return rec
    ''', "unaccounted")
    assert proc.returncode == 1, proc.stdout
    assert "records that say nothing of their line" in proc.stdout
    assert "sessions/2026/11/20/rollout-2026-11-20T10-00-00-0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl:8 (" in proc.stdout


def test_a_plugin_whose_document_leaves_text_undrawn_fails(tmp_path):
    proc = _run_kit(tmp_path, '''
        class Changed(ExampleCodexAdapter):
            def convert_line(self, source, line, ord, off):
                rec = super().convert_line(source, line, ord, off)
                if any(p.k == "reasoning" for p in rec.parts):
                    rec.from_ = "runtime"  # reasoning said to come from the runtime: no rule draws it
                return rec
    ''', "cite_every_record")
    assert proc.returncode == 1, proc.stdout
    assert ("0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b: the document cites 9 of 10 records with text: ['not drawn: "
            in proc.stdout), proc.stdout[-2000:]


def test_the_template_itself_passes_the_kit(tmp_path):
    proc = _run_kit(tmp_path, '''
        class Changed(ExampleCodexAdapter):
            pass
    ''')
    assert proc.returncode == 0, proc.stdout[-3000:]
