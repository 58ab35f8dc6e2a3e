"""Two endpoints (trial 19, F23): a second or new endpoint gets the metrics as well as the files, and a push to another
endpoint no longer makes the next push to the first send the whole history again. ``push.state`` is the state of the
endpoint pushed to last, the others' are kept under ``_export/endpoints/``; metrics receipts are per endpoint
(``<session>/metrics/sent-<endpoint>.json``), and a ``sent.json`` of before belongs to the endpoint ``push.state`` named.

Real input: the corpus project -home-user-spotter collected by the real ``asz collect --once``, pushed by the real pass
over gRPC and HTTP to two real ``asz receive`` receivers on loopback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig
from asz_core.export.state import PushState, endpoint_key

from export_helpers import sent_files
from test_push_token import small_root  # noqa: F401 - the spotter project collected once (a fixture)


@pytest.fixture
def two(tmp_path):
    rs = [Receiver(tmp_path / f"recv{i}", "127.0.0.1:0").start().serve_in_thread() for i in (1, 2)]
    yield f"grpc://{rs[0].address}", f"http://{rs[1].address}"
    for r in rs:
        r.stop()


def _sent(root: Path) -> list[Path]:
    return sorted(root.glob("*/metrics/sent*.json"))


def test_each_endpoint_gets_files_and_metrics_once(small_root, two, tmp_path):
    a, b = two
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    files = len(sent_files(root))
    first = push(root, ExportConfig(), endpoint=a)
    assert first.ok and first.files == files and first.metrics > 0
    second = push(root, ExportConfig(), endpoint=b)
    assert second.ok and (second.files, second.metrics) == (files, first.metrics)  # metrics=0 before
    back = push(root, ExportConfig(), endpoint=a)
    assert back.ok and (back.files, back.metrics, back.bytes) == (0, 0, 0)  # it sent every file again before
    assert PushState.load(root).endpoint == a
    kept = PushState.load_file(root / "_export" / "endpoints" / f"{endpoint_key(b)}.state")
    assert kept.endpoint == b and set(kept.pushed) == set(sent_files(root))
    assert {p.name for p in _sent(root)} == {f"sent-{endpoint_key(a)}.json", f"sent-{endpoint_key(b)}.json"}
    assert push(root, ExportConfig(), endpoint=b).files == 0  # and b's state is taken up again


def test_a_sent_json_of_before_belongs_to_push_states_endpoint(small_root, two, tmp_path):
    a, b = two
    root = tmp_path / "data"
    shutil.copytree(small_root, root, symlinks=True)
    first = push(root, ExportConfig(), endpoint=a)
    for p in _sent(root):  # the root as the code before 2026-12-04 left it: one sent.json per session
        p.rename(p.with_name("sent.json"))
    shutil.rmtree(root / "_export" / "endpoints", ignore_errors=True)
    again = push(root, ExportConfig(), endpoint=a)
    assert (again.files, again.metrics) == (0, 0)  # its receipts are a's: nothing sent twice
    for p in _sent(root):
        p.rename(p.with_name("sent.json"))
    moved = push(root, ExportConfig(), endpoint=b)
    assert (moved.files, moved.metrics) == (len(sent_files(root)), first.metrics)
    assert not list(root.glob("*/metrics/sent.json"))  # renamed to a's file, which keeps a's receipts
    assert push(root, ExportConfig(), endpoint=a).metrics == 0
