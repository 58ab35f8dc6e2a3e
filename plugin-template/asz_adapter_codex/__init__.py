"""asz adapter for Codex CLI rollout files (dialect ``codex/1``): a template for third-party adapters."""

__version__ = "0.1.0"
