"""The asz.view document (seed 004) and its renderings."""

from .document import FORMAT, TEXT_LIMIT, VERSION, ViewError, build_view, list_conversations
from .render import to_json, to_yaml

__all__ = ["FORMAT", "TEXT_LIMIT", "VERSION", "ViewError", "build_view", "list_conversations", "to_json", "to_yaml"]
