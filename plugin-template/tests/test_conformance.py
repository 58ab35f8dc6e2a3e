"""The asz conformance kit, pulled in with three lines."""

from pathlib import Path

from asz_core.testing import AdapterConformance

from asz_adapter_example.plugin import ExampleCodexAdapter


class TestExampleCodexConformance(AdapterConformance):
    adapter_class = ExampleCodexAdapter
    samples = Path(__file__).resolve().parents[1] / "samples"
