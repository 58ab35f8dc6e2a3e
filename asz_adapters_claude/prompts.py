"""What of a typed Claude Code prompt names its conversation (``Adapter.prompt_title``).

Claude Code records what a person typed inside markup of its own: a slash command as ``<command-message>``,
``<command-name>`` and ``<command-args>``; a command typed in bash mode (``!`` before it) as
``<bash-input>X</bash-input>`` (its output as ``<bash-stdout>``/``<bash-stderr>``, in a record of its own); and, around
the prompt, the IDE extension's context (``<ide_selection>``, ``<ide_opened_file>``, ``<ide_diagnostics>``) and the
runtime's ``<system-reminder>`` blocks. A title reads like the prompt as typed: the readers people already use
(claude-code-log's previews) replace the leading markup by the command and keep the text that follows.
"""

from __future__ import annotations

import re

__all__ = ["prompt_title"]

#: Context the IDE or the runtime wraps around what a person typed, and a bash-mode command's output: not typed.
_CONTEXT = re.compile(r"<(ide_selection|ide_opened_file|ide_diagnostics|system-reminder|bash-stdout|bash-stderr)>.*?</\1>", re.S)
_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.S)
#: A command typed in bash mode, recorded as ``<bash-input>X</bash-input>``.
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)


def _bash(m: re.Match) -> str:
    command = m.group(1).strip()
    return f" ! {command} " if command else " "


def prompt_title(text: str) -> str:
    """``text`` as the person typed it: a slash command as ``/name args``; each bash-mode command as ``! command``, as
    Claude Code shows it, with the text typed around it kept (an empty one, ``!`` with nothing after it, is left out,
    and reads ``!`` when nothing else was typed); the IDE context, reminder and command output blocks dropped. The
    prompt as written when nothing else is left."""
    head = text.lstrip()
    name = _COMMAND_NAME.search(text) if head.startswith(("<command-message>", "<command-name>")) else None
    if name and name.group(1):
        args = _COMMAND_ARGS.search(text)
        return f"{name.group(1)} {args.group(1) if args else ''}".strip()
    rest = _CONTEXT.sub(" ", text)
    if "<bash-input>" in rest:
        typed = _BASH_INPUT.sub(_bash, rest)
        if typed.strip():
            return typed
        if _BASH_INPUT.fullmatch(rest.strip()):
            return "!"  # bash mode entered with no command: what was typed
    return rest if rest.strip() else text
