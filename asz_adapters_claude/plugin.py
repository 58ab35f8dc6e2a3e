"""The ``claude-code-local`` adapter and its registration (entry point ``claude-code-local``).

It reads Claude Code's local files under ``projects`` and speaks dialect
``claude-code/1`` (origin-digest §5.1; seed 000, Producing Session Data).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from asz_core import Adapter, Capabilities, Discovery, Record, Source, hookimpl

from .blocks import content_shape, fixed_notice, fixed_prefix, fixed_wording, rates_stated
from .convert import DIALECT, convert_record
from .discover import discover
from .flags import FLAG_RULES
from .glossary import GLOSSARY
from .prompts import prompt_blocks, prompt_names_work, prompt_title
from .relayed import relayed_calls, relayed_kept, relayed_results
from .roots import default_root, preferred_folders, suggest_source, unread_roots
from .transcript import child_label, child_prompt, given_title, label_target, landed_without, read_today, record_commands, record_line, record_words

__all__ = ["ClaudeCodeLocal", "asz_register_adapters", "asz_register_commands"]


class ClaudeCodeLocal(Adapter):
    """Claude Code's local transcripts, sidecars and workflow files into Session Data.

    Lands ``transcript`` (main and child streams), ``agent_meta`` (sidecars),
    ``journal`` (workflow run journals), ``workflow_manifest`` and
    ``workflow_script``. Stateless: every method may be called on any
    instance, from any thread.
    """

    name = "claude-code-local"
    # 0.2.0: a list of one text block is stated in dropped (blocks.CONTENT_LIST_FROM); 0.3.0: a call's rate other than
    # standard (fast mode, a priority or batch tier, a region) is stated in dropped (blocks.RATES_STATED_FROM); 0.4.0: a
    # line member the dialect does not describe lands verbatim as an unknown part (transcript.undescribed_members); 0.5.0:
    # so does a content block's member (members.BLOCK_KNOWN) and a text attachment's (members.ATTACHMENT_TEXT_KNOWN);
    # 0.6.0: and an item's of a tool_result's content or a queued_command's prompt list (members.MEMBERS), and a user
    # line's list of one text block holding such a member states "content list" (blocks.BLOCK_MEMBERS_LISTED_FROM);
    # 0.7.0: a line after the first that starts with a byte order mark (files joined) is read past it (asz_core.BOM_WHY_LINE);
    # 0.8.0: a main transcript line's "isSidechain": true lands as the record's sidechain (transcript.SIDECHAIN_FROM)
    # 0.9.0: Claude Code's interrupt notice lands flagged notice, not external_input (transcript.INTERRUPT_RULE_FROM)
    version = "0.9.0"
    dialects = (DIALECT,)
    kinds = ("transcript", "agent_meta", "journal", "workflow_manifest", "workflow_script")
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=True, children=True, media=True, snapshots=True)
    source_env = ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "HOME")
    description = "Claude Code local files (~/.claude/projects): transcripts, subagents and workflow runs"

    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}
    #: Claude Code's shell tool and its editing tools (whose successful results get a derived changes/1 record, changes.py).
    tool_roles = {DIALECT: {"Bash": "shell", **dict.fromkeys(("Edit", "MultiEdit", "Write", "NotebookEdit"), "file_write")}}
    sessions_in_parallel = True  # converts from its arguments and the source files alone

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """The ``projects`` directory of Claude's configuration directory (origin-digest §5.1).

        ``$CLAUDE_CONFIG_DIR/projects`` when that is set (of a comma-separated list, the first entry whose
        ``projects`` is a directory, else the first entry); else ``$XDG_CONFIG_HOME/claude/projects`` when
        ``$XDG_CONFIG_HOME/claude`` is a directory (Claude Code keeps ``~/.claude`` even where ``XDG_CONFIG_HOME``
        is set, so the variable alone does not move it); else ``~/.claude/projects`` (``$HOME`` from ``env`` when it
        names one); when that one is not a directory and the other (``${XDG_CONFIG_HOME:-~/.config}/claude/projects``
        or ``~/.claude/projects``) is, the other. ``env`` defaults to the process environment. Never raises. The
        folders it does not pick that hold sessions are :meth:`unread_default_sources`
        (:mod:`asz_adapters_claude.roots`).
        """
        return default_root(os.environ if env is None else env)

    def unread_default_sources(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """Claude Code's other ``projects`` folders that hold sessions (each entry of a comma-separated
        ``CLAUDE_CONFIG_DIR``; else ``${XDG_CONFIG_HOME:-~/.config}/claude/projects`` and ``~/.claude/projects``),
        apart from :meth:`default_source_root`; see :func:`asz_adapters_claude.roots.unread_roots`. Never raises."""
        return unread_roots(os.environ if env is None else env)

    def default_source_candidates(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """Every ``projects`` folder Claude Code may keep sessions in, existing or not, in the order asz prefers them
        (:func:`asz_adapters_claude.roots.preferred_folders`). Never raises."""
        return preferred_folders(os.environ if env is None else env, "projects")

    def suggest_source(self, source_root: Path) -> Path | None:
        """The ``projects`` folder a ``source_root`` one level off meant: its parent for a project folder, its
        ``projects`` child for a configuration folder; see :func:`asz_adapters_claude.roots.suggest_source`."""
        return suggest_source(Path(source_root))

    def project_folder(self, src: str) -> str | None:
        """The project folder a source's relative name starts with (``-home-me-proj`` of ``-home-me-proj/<id>.jsonl``
        and of ``-home-me-proj/<id>/subagents/agent-<a>.jsonl``); None for a name at the top of the folder. A landed
        source whose project folder no folder of the pass holds was not looked at, not gone (docs/storage-root.md,
        Several source folders)."""
        top, sep, _ = src.partition("/")
        return top if sep and top else None

    def project_folder_named(self, cwd: str) -> str | None:
        """The folder under ``projects`` Claude Code keeps the sessions started in ``cwd`` in: each character that is
        not an ASCII letter or digit made ``-`` (``/home/user/spotter`` -> ``-home-user-spotter``)."""
        return re.sub(r"[^A-Za-z0-9]", "-", cwd)

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Sources under ``source_root`` grouped by session; see :func:`asz_adapters_claude.discover.discover`.

        Never raises for what is on disk: unreadable places are ``errors``,
        noise is ``skipped`` with a reason. ``notes`` holds the one on the
        observer hook of the configuration folder's ``settings.json`` when it
        would not start (:func:`asz_adapters_claude.hooks_status.source_notes`).
        """
        from .hooks_status import source_notes

        disc = discover(Path(source_root), include=include, exclude=exclude)
        disc.notes += source_notes(Path(source_root), "projects")  # an observer hook that would not start (docs/claude-code-hooks.md)
        return disc

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One complete source line (no newline) of a transcript or journal into one record.

        ``ord`` counts lines from 1, ``off`` is the line's byte offset;
        ``bytes`` = ``len(line)``, ``sha`` = first 12 hex of its SHA-256.
        Never raises: what cannot be described is an ``unknown`` part.
        """
        return convert_record(source, line, ord, off)

    def label_target(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The message an older ``summary`` record names (its ``leafUuid``, kept in the record's one data part); None
        for one naming no message (no conversation); else '' (an ``ai-title``, a sidecar's or a manifest's label names
        the conversation it is in); see
        :func:`asz_adapters_claude.transcript.label_target`."""
        return label_target(record)

    def given_title(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The name ``/rename`` gave the session (a ``custom-title`` record's ``customTitle``); see
        :func:`asz_adapters_claude.transcript.given_title`."""
        return given_title(record)

    def child_label(self, dialect: str, stream: str, call: Mapping[str, Any] | None, prompt: str = "") -> str:
        """An older child's (no ``.meta.json``) label: its starting call's ``description``, else ``compaction`` for
        the compaction agent (``acompact-…``), else its own short ``prompt`` (``Warmup``); see
        :func:`asz_adapters_claude.transcript.child_label`."""
        return child_label(stream, call, prompt)

    def child_prompt(self, dialect: str, stream: str, call: Mapping[str, Any]) -> str:
        """The ``prompt`` of the ``Task``/``Agent`` call that started a child; see
        :func:`asz_adapters_claude.transcript.child_prompt`."""
        return child_prompt(call)

    def content_shape(self, dialect: str, adapter: str, record: Mapping[str, Any]) -> str | None:
        """``"list"`` when a record of one text part that ``adapter`` (the header's value) landed lists the content
        list it did not carry under ``dropped``, else ``"string"``, for files of ``claude-code-local/0.2.0`` on; None
        for earlier files; see :func:`asz_adapters_claude.blocks.content_shape`."""
        return content_shape(adapter, record)

    def rates_stated(self, dialect: str, adapter: str) -> bool | None:
        """Whether a file whose header names ``adapter`` states a call's rate other than standard under ``dropped``
        (``claude-code-local/0.3.0`` on); see :func:`asz_adapters_claude.blocks.rates_stated`."""
        return rates_stated(adapter)

    def relayed_calls(self, dialect: str, records) -> list[tuple[int, Mapping[str, Any]]] | None:
        """A sub-agent's replies Claude Code 2.1.x copied into this transcript as ``progress`` records; see
        :func:`asz_adapters_claude.relayed.relayed_calls`."""
        return relayed_calls(records)

    def relayed_results(self, dialect: str, records) -> list[tuple[int, list[Mapping[str, Any]]]] | None:
        """The results of a sub-agent's tool calls Claude Code 2.1.x copied into this transcript as ``progress``
        records; see :func:`asz_adapters_claude.relayed.relayed_results`."""
        return relayed_results(records)

    def metered_data(self, dialect: str, data: Any) -> Any:
        """What a skeleton keeps of a ``progress`` line copying a sub-agent's line, so :meth:`relayed_calls` and
        :meth:`relayed_results` read the same after retention (fix50i); see
        :func:`asz_adapters_claude.relayed.relayed_kept`."""
        return relayed_kept(data)

    def read_today(self, dialect: str, adapter: str, record: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Today's flags and trigger of a ``<bash-stdout>``/``<bash-stderr>`` record a file of ``adapter`` before
        ``claude-code-local/0.3.0``, or an interrupt notice one before 0.9.0, landed as a typed prompt; see :func:`asz_adapters_claude.transcript.read_today`."""
        return read_today(adapter, record)

    def landed_without(self, dialect: str, adapter: str) -> list[str]:
        """What a file of an earlier ``claude-code-local`` version did not keep or read as this one does; see
        :func:`asz_adapters_claude.transcript.landed_without`."""
        return landed_without(adapter)

    def failed_word(self, dialect: str) -> str:
        """Claude Code's word for a failed tool call: the tool_result block's ``is_error`` (blocks.py)."""
        return "is_error: true on its tool_result"

    def fixed_notice(self, dialect: str, text: str) -> str | None:
        """``interrupt`` or ``refused`` by Claude Code's own wording; see :func:`asz_adapters_claude.blocks.fixed_notice`."""
        return fixed_notice(text)

    def fixed_wording(self, dialect: str, text: str) -> bool:
        """Claude Code's interrupt notices and its answer to a refused call with no reason, whole; see
        :func:`asz_adapters_claude.blocks.fixed_wording`."""
        return fixed_wording(text)

    def fixed_prefix(self, dialect: str, text: str) -> str | None:
        """The fixed lead of Claude Code's answer to a refused call that carries the person's reason; see
        :func:`asz_adapters_claude.blocks.fixed_prefix`."""
        return fixed_prefix(text)

    def prompt_title(self, dialect: str, text: str) -> str:
        """A typed prompt as the person typed it, read from Claude Code's markup (slash commands, bash-mode commands,
        IDE context, reminders); see :func:`asz_adapters_claude.prompts.prompt_title`."""
        return prompt_title(text)

    def prompt_blocks(self, dialect: str, text: str) -> list[tuple[str, str]]:
        """A prompt as a person reads it: a slash command as ``/name args``, a bash-mode command as ``! command``, a
        command's output as ``stdout``/``stderr`` blocks; see :func:`asz_adapters_claude.prompts.prompt_blocks`."""
        return prompt_blocks(text)

    def record_line(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """A short form of Claude Code's own ``system`` line (a compaction boundary: ``auto, 167,731 tokens before``;
        a stop hook summary, a recap); see :func:`asz_adapters_claude.transcript.record_line`."""
        return record_line(record)

    def record_commands(self, dialect: str, record: Mapping[str, Any]) -> list[tuple[str, int | None]]:
        """A stop hook summary's hooks, each command and its ``durationMs``; see
        :func:`asz_adapters_claude.transcript.record_commands`."""
        return record_commands(record)

    def record_words(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The words of Claude Code's own ``system`` line a reader reads (its content, short form, hooks' commands),
        what search indexes; see :func:`asz_adapters_claude.transcript.record_words`."""
        return record_words(record)

    def prompt_names_work(self, dialect: str, text: str) -> bool:
        """False for a slash command with no arguments, the caveat Claude Code writes before local commands, and a
        local command's output; see :func:`asz_adapters_claude.prompts.prompt_names_work`."""
        return prompt_names_work(text)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """One whole document (sidecar, manifest, script) into one record at ord 1, off 0.

        ``sha`` and ``bytes`` cover ``data`` as given (the collector trims
        trailing newlines). Never raises.
        """
        return convert_record(source, data, 1, 0)


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[ClaudeCodeLocal]``."""
    return [ClaudeCodeLocal]


@hookimpl
def asz_register_commands(cli) -> None:
    """``asz hook`` (the MCP observer; also the ``asz.fast`` command) and ``asz hooks install|uninstall``."""
    from .hook_cmd import register

    register(cli)
