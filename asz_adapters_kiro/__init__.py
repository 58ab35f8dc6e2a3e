"""Built-in adapter ``kiro``: Kiro CLI and Kiro IDE sessions as Session Data (dialect ``kiro/1``).

See :mod:`asz_adapters_kiro.plugin` for the adapter, :mod:`.discover` for
where sources are found, :mod:`.convert` for the record mapping,
:mod:`.sqlite_rows` for the read-only SQLite reader and :mod:`.glossary` /
:mod:`.flags` for the declarations (issue 12; ``docs/adapters/kiro.md``).
"""

from .plugin import KiroAdapter

__all__ = ["KiroAdapter"]
