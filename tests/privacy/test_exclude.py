"""Which documents never reach a model (``privacy/exclude.py``): the defaults, ``.codecompleteignore``
files nearest first, the administrator's exclusions no user file undoes, ``.gitignore`` for context,
and ignore files that are huge, broken or changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_codecomplete.privacy import exclude
from jupyter_codecomplete.privacy.exclude import Exclusions


@pytest.fixture(autouse=True)
def reread_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exclude, "RECHECK_SECONDS", 0.0)


@pytest.mark.parametrize(
    ("path", "excluded"),
    [
        (".env", True),
        ("app/.env.production", True),
        ("certs/server.pem", True),
        ("ssh/id_rsa", True),
        ("ssh/id_ed25519.pub", True),
        ("conf/aws_credentials.json", True),
        ("k8s/secrets.yaml", True),
        ("RTC:app/.env", True),  # a collaborative drive's prefix
        ("../elsewhere/.env", True),  # outside the root: the defaults still apply
        ("analysis.ipynb", False),
        ("src/environment.py", False),
        ("env.py", False),
        ("docs/keys.md", False),
    ],
)
def test_the_default_exclusions(tmp_path: Path, path: str, excluded: bool) -> None:
    found = Exclusions(tmp_path).check(path)
    assert (found is not None) is excluded, found
    if found is not None:
        assert found.source == "default" and "excluded by default" in found.reason


def test_the_nearest_ignore_file_decides(tmp_path: Path) -> None:
    (tmp_path / "data" / "public").mkdir(parents=True)
    (tmp_path / ".codecompleteignore").write_text("# customer data\ndata/\n")
    (tmp_path / "data" / ".codecompleteignore").write_text("!public/\n")
    rules = Exclusions(tmp_path)
    assert rules.check("data/private/a.csv") is not None
    assert rules.check("data/private/a.csv").reason == "excluded by .codecompleteignore"  # type: ignore[union-attr]
    assert rules.check("data/public/a.py") is None
    assert rules.check("src/a.py") is None


def test_a_user_file_undoes_a_default_but_never_the_administrators(tmp_path: Path) -> None:
    (tmp_path / ".codecompleteignore").write_text("!.env.example\n!*.sql\n")
    rules = Exclusions(tmp_path, admin=["*.sql", "hr/"])
    assert rules.check(".env.example") is None
    assert rules.check(".env") is not None
    found = rules.check("queries/payroll.sql")
    assert found is not None and found.source == "admin"
    assert found.reason == "excluded by the administrator (c.CodeCompleteApp.exclude)"
    assert rules.check("hr/salaries.ipynb") is not None


def test_gitignored_files_are_kept_out_of_context_only(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("local_settings.py\nbuild/\n")
    rules = Exclusions(tmp_path)
    assert rules.check("local_settings.py") is None  # completed itself
    found = rules.check("local_settings.py", context=True)
    assert found is not None and found.reason == "ignored by .gitignore"
    assert rules.check("build/gen.py", context=True) is not None
    assert Exclusions(tmp_path, gitignore=False).check("build/gen.py", context=True) is None


def test_an_edited_ignore_file_counts(tmp_path: Path) -> None:
    rules = Exclusions(tmp_path)
    assert rules.check("notes.py") is None
    (tmp_path / ".codecompleteignore").write_text("notes.py\n")
    assert rules.check("notes.py") is not None
    (tmp_path / ".codecompleteignore").unlink()
    assert rules.check("notes.py") is None


def test_a_huge_broken_or_binary_ignore_file_is_read_within_bounds(tmp_path: Path) -> None:
    big = "*.tmp\n" * (exclude.MAX_IGNORE_BYTES // 6 + 1000) + "late.py\n"
    (tmp_path / ".codecompleteignore").write_text(big)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".codecompleteignore").write_bytes(b"\xff\xfe\x00bad[\n!\n[z-a]\nkeep.py\n")
    rules = Exclusions(tmp_path)
    assert rules.check("late.py") is None  # past the bound: not read
    assert rules.check("x.tmp") is not None
    assert rules.check("sub/keep.py") is not None  # the good lines of a bad file still count
    assert rules.check("sub/other.py") is None


def test_no_path_and_odd_paths(tmp_path: Path) -> None:
    rules = Exclusions(tmp_path)
    for path in (None, "", ".", "/", "\\"):
        assert rules.check(path) is None
    assert rules.check("/abs/.env") is not None
    assert rules.check("a\\b\\.env") is not None  # a Windows client's separators
