"""A receiver's bearer token (docs/push.md): a wrong one is said as not matching, a missing one as required, over
gRPC and HTTP on a real loopback receiver; ``asz push`` takes the token from ``--token-file`` or ``$ASZ_PUSH_TOKEN``
(never a ``--token VALUE``, which ``ps`` shows) and never prints it.

Real input: the corpus project -home-user-spotter, collected by the real ``asz collect --once``.
"""

from __future__ import annotations

import http.client
import shutil
from pathlib import Path

import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from cli_helpers import write_secret
from export_helpers import asz, sent_files

TOKEN = "s3cret-Token_01"
PROJECT = "-home-user-spotter"


@pytest.fixture(scope="module")
def small_root(corpus_dir, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("push-token")
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, base / "projects" / PROJECT)
    p = asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"), cwd=base)
    assert p.returncode == 0, p.stderr
    return base / "root"


@pytest.fixture
def root(small_root, tmp_path) -> Path:
    """A private copy (push.state and the lock are written into it)."""
    shutil.copytree(small_root, tmp_path / "data", symlinks=True)
    return tmp_path / "data"


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "received", "127.0.0.1:0", token=TOKEN).start().serve_in_thread()
    yield r
    r.stop()


def _http_post(address: str, headers: dict[str, str]) -> tuple[int, bytes]:
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("POST", "/v1/logs", body=b"", headers={"Content-Type": "application/x-protobuf", **headers})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_http_says_required_or_does_not_match(receiver):
    assert _http_post(receiver.address, {}) == (401, b"a bearer token is required\n")
    assert _http_post(receiver.address, {"Authorization": "Bearer wrong"}) == (401, b"the bearer token does not match\n")
    assert _http_post(receiver.address, {"Authorization": f"Bearer {TOKEN}x"})[1] == b"the bearer token does not match\n"
    assert _http_post(receiver.address, {"Authorization": f"Bearer {TOKEN}"})[0] == 200  # an empty request, accepted


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_a_wrong_token_is_said_as_not_matching(proto, root, receiver):
    none = push(root, ExportConfig(), endpoint=f"{proto}://{receiver.address}")
    wrong = push(root, ExportConfig(headers={"Authorization": "Bearer wrong"}), endpoint=f"{proto}://{receiver.address}")
    for rep, words in ((none, "a bearer token is required"), (wrong, "the bearer token does not match")):
        assert rep.errors == 1 and rep.files == 0 and rep.requests == 1
        assert rep.wire == 0  # the refusal came to an empty request: no byte of the payload went out (8 MB before)
        assert ("UNAUTHENTICATED" if proto == "grpc" else "401") in rep.problems[0] and words in rep.problems[0]
        # where the token goes is said (trial 47a F3: after asz collect --once the line named neither)
        assert f"; the token is read from $ASZ_PUSH_TOKEN (asz push also takes --token-file FILE), else from the " \
               f"authorization header of export.otlp.headers (" in rep.problems[0]
    assert "required" not in wrong.problems[0] and "wrong" not in wrong.problems[0]  # nor is the token echoed


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_the_configured_wrong_token_over_the_cli(proto, root, receiver, tmp_path):
    """The trial's steps: export.otlp.headers {Authorization: "Bearer wrong"} in asz.yaml, then asz push."""
    (tmp_path / "asz.yaml").write_text('export: {otlp: {headers: {Authorization: "Bearer wrong"}}}\n')
    p = asz("push", "--root", str(root), "--endpoint", f"{proto}://{receiver.address}", cwd=tmp_path)
    assert p.returncode == 1 and "the bearer token does not match" in p.stderr and "required" not in p.stderr


def test_the_token_from_the_environment(root, receiver, tmp_path):
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", cwd=tmp_path,
            env={"ASZ_PUSH_TOKEN": TOKEN})
    assert p.returncode == 0, p.stderr
    assert TOKEN not in p.stdout + p.stderr
    assert sent_files(receiver.root) == sent_files(root)


@pytest.mark.parametrize("proto", ["grpc", "http"])
def test_the_token_from_a_file_replaces_the_configured_header(proto, root, receiver, tmp_path):
    (tmp_path / "asz.yaml").write_text('export: {otlp: {headers: {Authorization: "Bearer wrong"}}}\n')
    token_file = tmp_path / "token"
    write_secret(token_file, TOKEN + "\n")  # a file's trailing newline is not the token's
    p = asz("push", "--root", str(root), "--endpoint", f"{proto}://{receiver.address}", "--token-file", str(token_file),
            cwd=tmp_path, env={"ASZ_PUSH_TOKEN": "not-this-one"})  # the file wins over the environment
    assert p.returncode == 0, p.stderr
    assert TOKEN not in p.stdout + p.stderr
    assert sent_files(receiver.root) == sent_files(root)


def test_a_wrong_token_file_is_refused_by_the_receiver(root, receiver, tmp_path):
    token_file = tmp_path / "token"
    write_secret(token_file, "wrong-one\n")
    p = asz("push", "--root", str(root), "--endpoint", f"http://{receiver.address}", "--token-file", str(token_file),
            cwd=tmp_path)
    assert p.returncode == 1 and "the bearer token does not match" in p.stderr and "wrong-one" not in p.stderr + p.stdout


def test_a_token_file_that_cannot_be_used_is_a_usage_error(root, receiver, tmp_path):
    missing = tmp_path / "nope"
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", "--token-file", str(missing), cwd=tmp_path)
    assert p.returncode == 2 and p.stderr == f"asz push: --token-file {missing}: No such file or directory\n"
    empty = tmp_path / "empty"
    write_secret(empty, "\n")
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", "--token-file", str(empty), cwd=tmp_path)
    assert p.returncode == 2 and p.stderr == f"asz push: --token-file {empty}: no token in it\n"
    two = tmp_path / "two"
    write_secret(two, "secret one\n")
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", "--token-file", str(two), cwd=tmp_path)
    assert p.returncode == 2 and "whitespace" in p.stderr and "secret" not in p.stderr
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", cwd=tmp_path,
            env={"ASZ_PUSH_TOKEN": "a b"})
    assert p.returncode == 1 and p.stderr.startswith("asz push: $ASZ_PUSH_TOKEN: the token holds whitespace")
    assert not (receiver.root).exists() or sent_files(receiver.root) == {}
