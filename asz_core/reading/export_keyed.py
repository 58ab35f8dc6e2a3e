"""A masked export's mask digests keyed by the root's mask key (trial 37a F1; docs/verify.md, "A masked export").

A manifest's ``fingerprint`` and ``texts_sha256`` were the unkeyed SHA-256 of the credential and of each unmasked text
it was masked in: anyone holding the copy could test guessed passwords against them offline. An export now writes
them keyed (:func:`keyed`, the key :mod:`asz_core.storage.mask_key`'s), and names the key in the manifest's
``mask_digests``; the root's holder keys the masking it makes again with its own key and compares (:func:`compared`).
"""

from __future__ import annotations

from typing import Optional

__all__ = ["MASK_DIGESTS", "keyed", "compared", "held_key"]

#: A mask's keys that digest the unmasked credential or text: keyed by the root's mask key since trial 37a F1.
MASK_DIGESTS = ("fingerprint", "texts_sha256")


def keyed(entries: list[dict], key: bytes) -> list[dict]:
    """``entries`` (:func:`~asz_core.reading.export_manifest.mask_places`') with ``fingerprint`` and ``texts_sha256`` keyed by ``key``
    (:func:`~asz_core.storage.mask_key.keyed_mark`, :func:`~asz_core.storage.mask_key.keyed_text`): nobody without
    the root's key can test a guessed credential or text against them (trial 37a F1)."""
    from ..storage.mask_key import keyed_mark, keyed_text

    return [{**e, "fingerprint": keyed_mark(key, e["fingerprint"]),
             "texts_sha256": [keyed_text(key, d) for d in e["texts_sha256"]]} for e in entries]


def held_key(body: dict, key: Optional[bytes]) -> tuple[Optional[bytes], str]:
    """How the root's holder compares a manifest's mask digests (``body["mask_digests"]``; ``key``: the checking
    root's mask key, None when it has none): ``(key to key the root's masks with, or None, why they are not
    compared, '' when they are)``. A manifest from before trial 37a F1 has no ``mask_digests``: its digests are
    unkeyed SHA-256s, compared as they are."""
    from ..storage.mask_key import key_id

    said = body.get("mask_digests")
    if said is None:
        return None, ""
    if said.get("mac") == "hmac-sha256" and key is not None and key_id(key) == said.get("key"):
        return key, ""
    why = ("the manifest holds none" if said.get("mac") != "hmac-sha256" else
           f"they were keyed by the mask key {said.get('key')}, and this root's is "
           + (key_id(key) if key is not None else "none") + " (a copy another root made, or the key file was removed)")
    return None, (f"the masks' fingerprint and texts_sha256 are not compared: {why}; each mask's place, form and the "
                  "copy made again byte for byte are")


def compared(body: dict, key: Optional[bytes], entries: list[dict]) -> tuple[list[dict], list[dict], str, str]:
    """The masks the masking of the root's text makes (``entries``, unkeyed) and the manifest's (``body["masks"]``) as
    ``asz verify --export --root`` compares them (``key``: the checking root's mask key, or None): ``(entries keyed as
    the manifest's were, the manifest's masks, the line saying the digests are not compared or '', the words the
    closing line gives the digests)``. Digests not comparable (another root's key, none) are left out of both sides:
    each mask's place and form are compared still."""
    listed = body.get("masks") or []
    mac_key, uncompared = held_key(body, key)
    if mac_key is not None:
        return keyed(entries, mac_key), listed, "", ", with the HMAC under this root's mask key of the landed text it sat in"
    if uncompared:
        bare = [[{k: v for k, v in e.items() if k not in MASK_DIGESTS} for e in each] for each in (entries, listed)]
        return bare[0], bare[1], uncompared, ""
    return entries, listed, "", ", with the SHA-256 of the landed text it sat in"
