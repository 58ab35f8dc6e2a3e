"""asz's built-in adapters held to the same conformance kit a third-party adapter inherits (issue 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.testing import AdapterConformance

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_adapters_kiro.plugin import KiroAdapter

REPO = Path(__file__).resolve().parents[3]
KIRO_HOME = REPO.parent / "shared" / "corpus" / "kiro" / "home"


class TestClaudeCodeConformance(AdapterConformance):
    """claude-code-local over the bundled example (a main stream, a subagent with its sidecar, an image)."""

    adapter_class = ClaudeCodeLocal
    samples = REPO / "examples" / "claude-code" / "projects"


@pytest.mark.skipif(not KIRO_HOME.is_dir(), reason=f"{KIRO_HOME} is absent (../shared/corpus)")
class TestKiroConformance(AdapterConformance):
    """kiro over the two real Kiro CLI sessions of the shared corpus."""

    adapter_class = KiroAdapter
    samples = KIRO_HOME
    unshown_capabilities = {
        "reasoning": "the two real sessions hold no reasoning message (tests/adapters/kiro covers it on synthetic 3.x input)",
        "children": "both sub-agents of the real 3.x session failed before writing a transcript",
        "media": "the real sessions carry no image (tests/adapters/kiro covers images on synthetic 3.x input)",
    }
