"""Templates compiled at install time (``wheel_size.render.bytecode``): used only where still
current, never written at run time, and the image's build stage makes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO_ROOT
from wheel_size.render.bytecode import precompile
from wheel_size.render.compiled import InstalledBytecode
from wheel_size.render.templates import make_environment, template_dir


def test_every_template_loads_compiled_and_renders_the_same(tmp_path: Path) -> None:
    names = precompile(tmp_path)
    assert "split_report.md.j2" in names and "split_report_sections.md.j2" in names
    cache = InstalledBytecode(tmp_path)
    env = make_environment(template_dir(), cache)
    for name in names:
        env.get_template(name)
    assert len(cache.loaded) == len(names)  # none compiled again
    plain = make_environment(template_dir())
    for value in (1234.56, -0.04):
        rendered = env.get_template("_selftest.txt.j2").render(value=value)
        assert rendered == plain.get_template("_selftest.txt.j2").render(value=value)


def test_an_edited_template_compiles_from_its_source(tmp_path: Path) -> None:
    root, compiled = tmp_path / "templates", tmp_path / "compiled"
    root.mkdir()
    (root / "a.md.j2").write_text("{{ x }} one\n")
    assert precompile(compiled, root) == ["a.md.j2"]
    (root / "a.md.j2").write_text("{{ x }} two\n")
    cache = InstalledBytecode(compiled)
    assert make_environment(root, cache).get_template("a.md.j2").render(x=1) == "1 two\n"
    assert cache.loaded == set()


def test_a_run_writes_no_compiled_template(tmp_path: Path) -> None:
    cache = InstalledBytecode(tmp_path)  # as the package reads it: write=False
    env = make_environment(template_dir(), cache)
    assert env.get_template("_selftest.txt.j2").render(value=1.0) == "+1.0 MB\n"
    assert list(tmp_path.iterdir()) == []


def test_the_image_compiles_the_templates_after_installing_the_package() -> None:
    text = (REPO_ROOT / "Dockerfile").read_text()
    install = text.index("pip install")
    assert text.index("-m wheel_size.render.bytecode", install) > install
    assert "src/wheel_size/render/_bytecode" in (REPO_ROOT / ".dockerignore").read_text()


def test_help_is_help_not_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m wheel_size.render.bytecode --help`` prints its usage and writes nothing
    (it once compiled every template into a folder named ``--help``); another option is an
    error, not a folder either."""
    from wheel_size.render.bytecode import main

    monkeypatch.chdir(tmp_path)
    assert main(["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
    assert main(["--verbose"]) == 2
    assert "unexpected arguments --verbose" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
