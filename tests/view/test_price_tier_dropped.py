"""An asz.yaml price for a model whose shipped entry has a ``long_context`` tier, given without one, drops the tier
(docs/configuration.md, Prices): every command that reads that configuration for prices warns, one line naming the
model and the tier (trial 28a F7: a negotiated Sonnet 4.5 price halved a 250K-input call's cost with no word). Real
input: the Claude Code corpus collected by ``asz collect``; which shipped entries have the tier is read from the
shipped ``prices.yaml`` file."""

from __future__ import annotations

from pathlib import Path

import yaml

from cli_helpers import asz_in_process

SHIPPED = yaml.safe_load((Path(__file__).resolve().parents[2] / "asz_core" / "view" / "prices.yaml").read_text(encoding="utf-8"))
TIERED = sorted(m for m, p in SHIPPED["models"].items() if "long_context" in p)
DISCOUNT = "{input: 2.7, output: 13.5, cache_write: 3.375, cache_read: 0.27}"  # the trial's 10 % off Sonnet 4.5
LONG = "long_context: {input: 5.4, output: 20.25, cache_write: 6.75, cache_read: 0.54}"


def _warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "long_context" in ln and "dropped" in ln]


def test_an_override_without_the_tier_is_warned_of_wherever_prices_are_read(corpus, tmp_path):
    _, root = corpus
    assert TIERED == ["claude-sonnet-4", "claude-sonnet-4-5"]
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"prices:\n  claude-sonnet-4-5: {DISCOUNT}\n  claude-opus-4-6: {DISCOUNT}\n")
    for args in (("usage", "model"), ("usage", "--json"), ("ls",), ("ls", "--json")):
        p = asz_in_process(*args, "--config", str(cfg), "--root", str(root))
        assert p.returncode == 0, p.stderr
        said = _warnings(p.stderr)
        assert len(said) == 1 and "prices.claude-sonnet-4-5" in said[0] and "200K" in said[0], (args, p.stderr)
        assert "claude-opus-4-6" not in p.stderr  # its shipped entry has no tier: nothing dropped


def test_an_override_that_keeps_the_tier_or_no_override_says_nothing(corpus, tmp_path):
    _, root = corpus
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"prices:\n  claude-sonnet-4-5:\n    {DISCOUNT[1:-1].replace(', ', chr(10) + '    ')}\n    {LONG}\n")
    for conf in (("--config", str(cfg)), ()):
        p = asz_in_process("usage", *conf, "--root", str(root))
        assert p.returncode == 0, p.stderr
        assert not _warnings(p.stderr), p.stderr


def test_the_rows_a_collect_keeps_warn_once(corpus, tmp_path):
    """The list rows ``asz collect --once`` keeps after its pass read the configuration's prices once: one warning a
    dropped tier (reread1: the rows' table and the whole build's were each read, so the line came twice)."""
    projects, _ = corpus
    cfg = tmp_path / "asz.yaml"
    cfg.write_text(f"prices:\n  claude-sonnet-4-5: {DISCOUNT}\n")
    p = asz_in_process("collect", "--once", "--source", str(projects), "--root", str(tmp_path / "root"), "--config", str(cfg))
    assert p.returncode == 0, p.stderr
    said = _warnings(p.stderr)
    assert len(said) == 1 and "prices.claude-sonnet-4-5" in said[0], p.stderr
