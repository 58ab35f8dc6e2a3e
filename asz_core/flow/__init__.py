"""Session Flow (sf/1): index, assembly, rounds, fold and parse (origin-digest §2.4, §2.5, §4)."""

from .model import IDLE_GAP_NS, PARSER, POLICY, Assembly, Node, Ref, Relation, Unresolved, make_id, relation_id, unresolved_id

__all__ = ["IDLE_GAP_NS", "PARSER", "POLICY", "Assembly", "Node", "Ref", "Relation", "Unresolved", "make_id", "relation_id", "unresolved_id"]
