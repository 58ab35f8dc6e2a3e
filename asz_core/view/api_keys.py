"""The JSON keys of each ``/api/`` answer, served at ``/api/keys`` and tabled in docs/view.md (Keys of each answer).

Trial 36a F7: the keys were documented in prose alone and a script could not tell a breaking change. :data:`API_KEYS`
names, for each route (and ``/api/conversations``' row), the keys every answer has (``keys``) and those an answer has
only in some case (``when``: key -> the case). tests/view_server/test_api_keys.py holds real answers of a real server
to it both ways (every key of an answer listed; every ``keys`` key in the answer) and docs/view.md's table to it.
``/api/status``'s ``api_version`` (:data:`~asz_core.view.app.API_VERSION`) is raised when a listed key goes or changes
its meaning; a key added leaves it. The document (``/api/c/{id}/view``) has its own: seed 004 and docs/view.md.
"""

from __future__ import annotations

__all__ = ["API_KEYS", "keys_answer"]

_ROW_WHEN = {
    "counting": "the row's summary keys are still being counted (they are absent until then)",
    "held_back": "the conversation does not verify",
    "runtime_kept": "the query gives runtime",
    "sent_by": "the root holds received data",
    "sent_by_senders": "the root holds received data",
}

#: route -> {"keys": [...], "when": {key: case}} (module docstring).
API_KEYS: dict[str, dict] = {
    "/api/status": {"keys": ["mode", "root", "source", "interval", "follows", "started", "last_refresh", "next_refresh",
                             "refreshing", "last_pass", "conversations", "root_exists", "hide", "hide_override",
                             "documents_built", "checked", "checked_built", "reading", "counting", "torn_tails", "reading_for", "first_pass",
                             "code_changed",
                             "product", "version", "api_version"], "when": {}},
    "/api/conversations": {"keys": ["root", "conversations", "note", "shown_ids", "total", "of", "offset", "limit", "sort", "filters"],
                           "when": {"snapshot": "the query gives a limit, or a snapshot",
                                    "next": "the query gives a limit, or a snapshot",
                                    "gone": "a snapshot's page holds conversations no longer listed"}},
    "/api/conversations row": {
        "keys": ["id", "title", "project", "project_before", "project_label", "from", "to", "talks", "llm_calls",
                 "usage", "cost", "state", "state_from", "dialect", "runtime", "models", "git_branch", "rounds",
                 "streams", "segments", "steps", "subagents", "unresolved", "changes", "lines_added", "lines_removed",
                 "changes_lines_unknown", "changes_not_derived", "bash_runs", "api_errors", "failed_runs", "never_ended",
                 "errors_said", "calls_failed", "calls_grouped", "calls_unread", "calls_with_usage", "usage_recorded",
                 "usage_incomplete", "credits", "cut", "continues", "counted_later", "shares", "removed_files",
                 "problems", "conflicts", "sources_gone", "cache_write_1h", "calls_long_context"],
        "when": _ROW_WHEN},
    "/api/usage": {"keys": ["hours", "counted", "conversations", "unpriced", "priced", "quarters", "no_time", "models",
                            "placed", "total", "held_back", "usage_incomplete", "complete", "credits", "untimed",
                            "same_calls", "undescribed", "undescribed_said", "stopped", "stopped_said", "filters"],
                   "when": {"instances": "by=instance", "two_roots": "by=instance", "periods": "by=week or by=month",
                            "periods_undescribed_said": "by=week or by=month"}},
    "/api/usage/blocks": {"keys": ["blocks", "total", "problems", "unreadable", "undescribed", "undescribed_said", "tz",
                                   "filters"], "when": {}},
    "/api/tools": {"keys": ["tools", "servers", "total", "conversations", "held_back", "repeated_ids"], "when": {}},
    "/api/search?held_back=1": {"keys": ["hits", "held_back", "partial", "indexing", "across", "total", "total_capped",
                                         "offset", "limit", "next"],
                                "when": {"note": "the filters keep no conversation, or -words left out every text",
                                         "first_pass": "asz server's first pass runs: the index as it stood is searched"}},
    "/api/glossary": {"keys": ["dialect", "dialects", "terms", "fields"], "when": {}},
    "/api/c/{id}/headings": {"keys": ["headings", "blocks", "places", "repeats", "asked", "prompts", "lines",
                                      "compactions", "reports", "asks", "gists", "unresolved", "drawn", "costs", "labels", "shown_ids", "credentials", "secrets",
                                      "replays"],
                             "when": {"sent_by": "the root holds received data"}},
    "error": {"keys": ["error", "code"], "when": {"matches": "code ambiguous_id", "matched": "code ambiguous_id"}},
}


def keys_answer() -> dict:
    """``/api/keys``' answer: ``{"api_version", "routes": API_KEYS}``."""
    from .app import API_VERSION

    return {"api_version": API_VERSION, "routes": API_KEYS}
