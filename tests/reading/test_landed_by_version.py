"""``asz conversation`` names each earlier version of any adapter whose files the conversation holds (trial 25a F6).

A third-party adapter (the plugin template's, installed with pip as a real distribution whose ``version`` the
environment sets) lands the template's samples as 0.1.0; one line is appended to one rollout file and the next pass
lands it as 0.2.0. The conversation then says ``landed by example-codex/0.1.0 (1 of 2 file(s)), an earlier version
than the installed example-codex/0.2.0``, whether or not the adapter says what that version did not keep
(``landed_without``), and adds the adapter's own words where it declares them (docs/storage-root.md, "A root several
asz versions read"; docs/adapters.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asz_core.sessiondata.reader import landed_header
from cli_helpers import pip_installed_plugins

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"

MODULE = '''
import os

from asz_core import hookimpl
from asz_adapter_example.plugin import ExampleCodexAdapter


class Bumped(ExampleCodexAdapter):
    version = os.environ.get("BUMP_VERSION", "0.2.0")

    def landed_without(self, dialect, adapter):
        said = os.environ.get("BUMP_SAYS", "")
        return [said] if said and adapter == "example-codex/0.1.0" else []


@hookimpl
def asz_register_adapters():
    return [Bumped]
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The adapter installed by pip (``--target``) as distribution ``asz-adapter-bump-test``, entry point ``example-codex``."""
    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    return pip_installed_plugins(tmp_path_factory.mktemp("bump"),
                                 [("asz-adapter-bump-test", "asz_adapter_bump_test", MODULE, "example-codex")])


def _asz(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(TEMPLATE), os.environ.get("PYTHONPATH", "")]), **env)
    return subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args], capture_output=True, text=True, env=e)


@pytest.fixture(scope="module")
def bumped(site, tmp_path_factory) -> tuple[Path, Path, str, str]:
    """(root, source root, the session appended to, the other session): the samples landed by 0.1.0, then one appended
    line by 0.2.0."""
    base = tmp_path_factory.mktemp("bumped")
    src, root = base / "src", base / "root"
    shutil.copytree(TEMPLATE / "samples", src)
    rollouts = sorted(src.rglob("rollout-*.jsonl"))
    first, other = rollouts
    for version in ("0.1.0", "0.2.0"):
        proc = _asz(site, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root),
                    BUMP_VERSION=version)
        assert proc.returncode == 0, proc.stderr
        if version == "0.1.0":
            last = first.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
            with open(first, "ab") as f:
                f.write(last + b"\n")
    session = first.stem[-36:]  # the UUID ending the file name is the session id (the template's README)
    return root, src, session, other.stem[-36:]


def _versions(root: Path, session: str) -> list[str]:
    """The ``adapter`` of each landed file of ``session``, read from its header."""
    return sorted(landed_header(p).adapter for p in (root / session).rglob("*.sd"))


def test_a_version_bump_is_said_with_no_words_from_the_adapter(site, bumped):
    root, _src, session, other = bumped
    assert _versions(root, session) == ["example-codex/0.1.0", "example-codex/0.2.0"]
    assert _versions(root, other) == ["example-codex/0.1.0"]
    out = _asz(site, "conversation", session, "--root", str(root)).stdout
    line = "landed by example-codex/0.1.0 (1 of 2 file(s)), an earlier version than the installed example-codex/0.2.0\n"
    assert "\n" + line in out
    assert out.index("landed through seq 2") < out.index(line)  # under landed through seq (storage-root.md)
    out = _asz(site, "conversation", other, "--root", str(root)).stdout
    assert "\nlanded by example-codex/0.1.0 (1 of 1 file(s)), an earlier version than the installed example-codex/0.2.0\n" in out
    # the installed version is the one that landed: nothing said
    out = _asz(site, "conversation", other, "--root", str(root), BUMP_VERSION="0.1.0").stdout
    assert "landed by" not in out
    # asz went back to an older adapter: the file is of a later version
    out = _asz(site, "conversation", session, "--root", str(root), BUMP_VERSION="0.1.0").stdout
    assert "\nlanded by example-codex/0.2.0 (1 of 2 file(s)), a later version than the installed example-codex/0.1.0\n" in out
    # an installed version that is not dotted numbers: neither earlier nor later is claimed
    out = _asz(site, "conversation", session, "--root", str(root), BUMP_VERSION="0.3.0rc1").stdout
    assert ("\nlanded by example-codex/0.1.0 (1 of 2 file(s)), another version than the installed example-codex/0.3.0rc1\n"
            "landed by example-codex/0.2.0 (1 of 2 file(s)), another version than the installed example-codex/0.3.0rc1\n") in out


def test_the_adapters_own_words_follow_where_it_declares_them(site, bumped):
    root, _src, session, _other = bumped
    out = _asz(site, "conversation", session, "--root", str(root), BUMP_SAYS="a reasoning summary's title").stdout
    assert ("\nlanded by example-codex/0.1.0 (1 of 2 file(s)), an earlier version than the installed example-codex/0.2.0, "
            "which did not keep or read as it does: a reasoning summary's title; collecting the same sources into a new "
            "root (asz collect --once --root NEW, while the runtime keeps them) lands them by example-codex/0.2.0\n") in out


@pytest.mark.slow  # two pip installs and three collects: about 25 s
def test_collect_after_an_upgrade_says_root_wide_what_the_earlier_version_did_not_keep(site, tmp_path_factory):
    """Trial 47c F6: after 0.1.0 -> 0.2.0 the upgrade was said per conversation only; collect's note was the generic
    ``parse assembled N session(s) again``. The pass that assembles again after an upgrade (the adapter's code
    changed: a second distribution, one comment apart) says how many landed files in how many sessions 0.1.0 wrote,
    with the adapter's words, counted here from the landed files' headers, a session that grew in that pass included
    (trial 49c F2: it counted only those assembled again); with no words from the adapter, nothing."""
    upgraded = pip_installed_plugins(tmp_path_factory.mktemp("upgraded"), [(
        "asz-adapter-bump-test", "asz_adapter_bump_test", MODULE + "\n# the upgrade's code\n", "example-codex")])
    base = tmp_path_factory.mktemp("upgrade")
    src, root = base / "src", base / "root"
    shutil.copytree(TEMPLATE / "samples", src)
    assert _asz(site, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root),
                BUMP_VERSION="0.1.0").returncode == 0
    old = [p for p in root.rglob("*") if p.suffix in (".sd", ".sk") and landed_header(p).adapter == "example-codex/0.1.0"]
    sessions = {p.relative_to(root).parts[0] for p in old}
    assert len(old) >= 2 and len(sessions) == len(list(src.rglob("rollout-*.jsonl")))
    grown = sorted(src.rglob("rollout-*.jsonl"))[0]  # one session grows in the upgrade's pass (trial 49c F2: left out)
    with open(grown, "ab") as f:
        f.write(grown.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1] + b"\n")
    said = "a reasoning summary's title"
    proc = _asz(upgraded, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root),
                BUMP_VERSION="0.2.0", BUMP_SAYS=said)
    assert proc.returncode == 0, proc.stderr
    assert " landed=1 " in proc.stdout and "note: parse assembled 1 session(s) again" in proc.stderr, proc.stderr
    assert [p for p in root.rglob("*") if p.suffix in (".sd", ".sk") and landed_header(p).adapter == "example-codex/0.1.0"] == old
    assert (f"note: {len(old)} landed file(s) in {len(sessions)} session(s) were written by example-codex/0.1.0, an "
            "earlier version than the installed example-codex/0.2.0, which did not keep or read as it does: "
            f"{said}; they stay as landed (asz conversation ID says which of its files; collecting the same sources "
            "into a new root, asz collect --once --root NEW, while the runtime keeps them, lands them by "
            "example-codex/0.2.0)\n") in proc.stderr, proc.stderr
    again = _asz(site, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root),
                 BUMP_VERSION="0.2.0")  # the code changed back, the adapter says nothing of 0.1.0: no such note
    assert again.returncode == 0 and "were written by" not in again.stderr, again.stderr
