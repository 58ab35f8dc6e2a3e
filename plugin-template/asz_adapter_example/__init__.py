"""asz-adapter-example: the template for third-party asz adapters, reading Codex CLI rollout files.

Adapter ``example-codex``, dialect ``example-codex/1``: named so that publishing
this template unchanged can never collide with a real Codex adapter. Copy the
folder, rename ``example`` / ``example-codex`` / ``asz_adapter_example``, keep the shape.
"""

__version__ = "0.2.0"
