"""The asz conformance kit over a synthetic staged inbox (samples/, written by make_samples.py)."""

from pathlib import Path

from asz_core.testing import AdapterConformance

from asz_adapters_langchain.plugin import LangsmithIngest


class TestLangsmithIngestConformance(AdapterConformance):
    adapter_class = LangsmithIngest
    samples = Path(__file__).resolve().parent / "samples"
    unaccounted_members = {
        "run.dotted_order": "an identifier (the run's ancestry of start times and ids), which parent_run_id and "
                            "trace_id carry",
    }
