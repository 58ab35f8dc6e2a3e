"""Kiro adapter (dialect ``kiro/1``): not yet built, so it registers no adapter (issue 12)."""
