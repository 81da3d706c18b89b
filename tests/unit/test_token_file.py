"""Where the tokens are said: on a terminal in the printed links, as the README's first run shows;
anywhere else (a journal, a file) in a file only its user may read, whose path the lines print in
their place, so no printed line carries one. `--token-file` chooses the file on a terminal too."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from ringside.server import serve, up
from ringside.server.config import Settings
from ringside.server.operate.tokens import PRESENTER, VIEWER, WORKER, read, shown, token_file, write


def settings_at(tmp_path: Path, **given) -> Settings:
    return Settings(db=tmp_path / "runs.db", viewer_token="viewer-token-22-chars-", **given)


def secrets_of(settings: Settings) -> list[str]:
    return [settings.presenter_token, settings.worker_token, settings.viewer_token]


def test_tokens_are_printed_on_a_terminal_and_filed_beside_the_store_anywhere_else(tmp_path):
    settings = settings_at(tmp_path)
    assert token_file(settings, terminal=True) is None
    assert token_file(settings, terminal=False) == tmp_path / "runs-tokens.env"
    chosen = settings_at(tmp_path, token_file=tmp_path / "mine.env")
    assert token_file(chosen, terminal=True) == token_file(chosen, terminal=False) == tmp_path / "mine.env"


def test_on_a_terminal_the_links_carry_the_tokens(tmp_path):
    settings = settings_at(tmp_path)
    said = "\n".join(
        [*serve.started(settings, shown(settings, None)), *up.links(settings, False, shown(settings, None))]
    )
    assert (
        f"/?token={settings.presenter_token}" in said
        and f"RINGSIDE_WORKER_TOKEN={settings.worker_token}" in said
    )
    assert "tokens:" not in said


def test_filed_no_line_carries_a_token_and_one_names_the_file(tmp_path, capsys):
    settings = settings_at(tmp_path, host="0.0.0.0")
    filed = shown(settings, tmp_path / "runs-tokens.env")
    serve.warn_if_exposed(settings, filed)
    said = "\n".join(
        [*serve.started(settings, filed), *up.links(settings, True, filed), capsys.readouterr().err]
    )
    assert not [token for token in secrets_of(settings) if token in said], said
    assert f"tokens:     in {tmp_path / 'runs-tokens.env'} (yours alone" in said
    assert f"/?token=${PRESENTER}" in said and f"/?token=${VIEWER}" in said
    assert f"RINGSIDE_WORKER_TOKEN=${WORKER} torchrun" in said


def test_the_file_is_the_users_alone_and_a_shell_reads_the_tokens_back(tmp_path):
    settings = settings_at(tmp_path, presenter_token="a token's $quote and space")
    path = tmp_path / "runs-tokens.env"
    path.write_text("what was there")
    path.chmod(0o644)
    write(settings, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read(path) == {
        PRESENTER: settings.presenter_token,
        WORKER: settings.worker_token,
        VIEWER: settings.viewer_token,
    }
    printed = subprocess.run(
        ["sh", "-c", f'. "{path}" && printf %s "${PRESENTER}"'], capture_output=True, text=True, check=True
    )
    assert printed.stdout == settings.presenter_token
    assert f"# presenter: {settings.presenter_url()}" in path.read_text(), "the link to open, whole"


def test_a_link_at_the_path_is_replaced_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not the tokens'")
    path = tmp_path / "runs-tokens.env"
    path.symlink_to(elsewhere)
    write(settings_at(tmp_path), path)
    assert elsewhere.read_text() == "not the tokens'" and not path.is_symlink()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["elsewhere", "runs-tokens.env"], "nothing left half-written"


def test_a_file_that_cannot_be_written_refuses_the_start_in_one_line(tmp_path, capsys):
    (tmp_path / "plain").write_text("")
    settings = settings_at(tmp_path, token_file=tmp_path / "plain" / "tokens.env")
    with pytest.raises(SystemExit) as refused:
        serve.tokens_shown(settings)
    assert refused.value.code == serve.REFUSED
    assert capsys.readouterr().err.splitlines() == [
        f"error: token file {tmp_path / 'plain' / 'tokens.env'}: File exists; give another with --token-file"
    ]
