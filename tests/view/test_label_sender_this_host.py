"""On a receiving root a summary titles a conversation only when one sender sent both (docs/security.md, Who sent it;
asz_core/view/label_senders.py). A session collected into the receiving root itself is this host's; a sender whose
instance id is the words ``this host`` is not (review43b: with no named token its summary titled the root's own
collected sessions, the label ``this host`` being the word the rule used for this host).

Real files: a root with ``_received/``, a collected session (its ``session.state``) and sender records written by
:func:`asz_core.storage.senders.append_senders`, as ``asz receive`` writes them."""

from __future__ import annotations

from asz_core.storage.senders import append_senders
from asz_core.view.label_senders import Senders

HERE_SESSION = "11111111-1111-4111-8111-111111111111"  # collected into the receiving root
ALICE_SESSION = "22222222-2222-4222-8222-222222222222"  # received from alice@hostA
LABEL_SESSION = "33333333-3333-4333-8333-333333333333"  # received: the file holding the summary


def _line(session: str, instance: str) -> dict:
    return {"file": f"{session}/streams/main/t-000001.sd", "sha256": "0" * 64, "received_at": "2026-12-07T03:50:00Z",
            "instance": instance, "service": "asz", "credential": None}


def test_a_sender_named_this_host_is_not_this_host_and_one_sender_still_titles_its_own(tmp_path):
    root = tmp_path / "root"
    (root / "_received").mkdir(parents=True)
    (root / HERE_SESSION).mkdir()
    (root / HERE_SESSION / "session.state").write_text("{}\n")
    append_senders(root, ALICE_SESSION, [_line(ALICE_SESSION, "alice@hostA")])
    label_file = f"{LABEL_SESSION}/streams/main/t-000001.sd"

    append_senders(root, LABEL_SESSION, [_line(LABEL_SESSION, "this host")])
    senders = Senders(root)
    assert senders.same(LABEL_SESSION, label_file, HERE_SESSION) is False  # True before: 'this host' == this host
    assert senders.same(LABEL_SESSION, label_file, ALICE_SESSION) is False

    other = tmp_path / "root2"
    (other / "_received").mkdir(parents=True)
    append_senders(other, ALICE_SESSION, [_line(ALICE_SESSION, "alice@hostA")])
    append_senders(other, LABEL_SESSION, [_line(LABEL_SESSION, "alice@hostA")])
    assert Senders(other).same(LABEL_SESSION, label_file, ALICE_SESSION) is True  # one sender sent both
