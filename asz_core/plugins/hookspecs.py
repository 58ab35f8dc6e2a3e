"""Hook specifications of the ``asz`` pluggy project (all hooks are prefixed ``asz_``).

A plugin is a module named by an entry point of the ``asz`` group; it
implements any of these hooks with ``@asz_core.hookimpl``. A function marked
``@hookimpl`` whose name is not one of them (a misspelling) makes the plugin a
``failed`` row of ``asz adapters list``; the other plugins load as usual.

Besides these hooks, a command that must start faster than the plugins load
(``asz hook``, which Claude Code runs after every tool call) is declared in the
entry-point group ``asz.fast`` as ``name = "module:function"``; see
:mod:`asz_core.cli.entry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from .adapter import Adapter, Setting

hookspec = pluggy.HookspecMarker("asz")

#: The hook names a plugin may implement, in documentation order.
HOOK_NAMES = ("asz_register_adapters", "asz_register_commands", "asz_register_settings")


@hookspec
def asz_register_adapters() -> "list[type[Adapter]] | type[Adapter]":
    """Return the adapter class (or a list of them) this plugin provides.

    Each class subclasses :class:`asz_core.Adapter` and carries its name,
    dialects, kinds, glossary and flag mapping.
    """


@hookspec
def asz_register_commands(cli: Any) -> None:
    """Add this plugin's commands to ``cli``, the ``asz`` Typer application (as ``llm``'s plugins do).

    Use ``cli.command("name")(function)`` or ``cli.add_typer(group, name=…)``.
    Called only when a command runs that the core does not define, and when the
    whole command list is shown (``asz --help``, ``docs/cli.md``). A hook that
    raises makes its plugin a ``failed`` row; the other commands stay.
    """


@hookspec
def asz_register_settings() -> "Mapping[str, Sequence[Setting]]":
    """Return, per adapter name, the keys that adapter reads from its own ``asz.yaml`` entry.

    Each :class:`asz_core.Setting` names a key, its default and the check that
    turns the YAML value into what :meth:`Adapter.configure` receives in
    ``entry.options``. A key no installed plugin declares stays an error naming
    the file and the key.
    """
