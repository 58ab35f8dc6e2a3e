"""Masking by default changes no byte of a document holding no credential (perf36: the document is searched for
credentials in the very bytes then served, and ``secret_forms.find`` tries each form only where it can begin): real
``asz view`` processes, the default and ``--no-redact``, over the corpus root and over the corpus's de3b8b19 with three
keys planted (test_page_masks_credentials.py's root), read over HTTP.
"""

from __future__ import annotations

import orjson

from test_page_masks_credentials import CID, root  # noqa: F401  (the planted root, a module fixture there)


def test_a_document_holding_no_credential_is_served_the_bytes_it_was_built_as(corpus_root, root, serve):
    """Masking by default changes no byte of a document holding no credential (perf36: the document is searched in
    the very bytes then served): every corpus conversation (none holds a credential: 0 places each) is served by the
    default server exactly the bytes ``--no-redact`` serves, the document as built (as before 4ccb070d); the planted
    one is not."""
    masked, whole = serve(corpus_root), serve(corpus_root, extra=("--no-redact",))
    rows = orjson.loads(masked.get("/api/conversations").body)["conversations"]
    assert len(rows) == 11 and max(r["steps"] for r in rows) == 483  # the largest: 8463c716, 570 KB of JSON
    for r in rows:
        m, w = masked.get(f"/api/c/{r['id']}/view"), whole.get(f"/api/c/{r['id']}/view")
        assert m.status == w.status == 200 and m.headers["asz-credentials-masked"] == "0", r["id"]
        assert m.body == w.body, r["id"]
    m, w = serve(root).get(f"/api/c/{CID}/view"), serve(root, extra=("--no-redact",)).get(f"/api/c/{CID}/view")
    assert m.headers["asz-credentials-masked"] != "0" and m.body != w.body
