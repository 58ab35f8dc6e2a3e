"""The asz conformance kit, pulled in with three lines."""

from pathlib import Path

from asz_core.testing import AdapterConformance

from asz_adapter_codex.plugin import CodexAdapter


class TestCodexConformance(AdapterConformance):
    adapter_class = CodexAdapter
    samples = Path(__file__).resolve().parents[1] / "samples"
