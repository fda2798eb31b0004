"""The package's layers and its import graph: the contracts in ``pyproject.toml`` ([tool.importlinter])
are kept, and no module of ``jupyter_codecomplete`` is in an import cycle.

Every import counts, as import-linter and grimp read them from the source: at module level, inside
a function, and under ``TYPE_CHECKING``. The last tests build a small package in a temporary
folder with an upward import hidden inside a function and one under ``TYPE_CHECKING``, and check
that both checks see them (so that a kept contract means something).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def cycles(package: str) -> list[list[str]]:
    """The groups of modules of ``package`` that import each other in a loop (each group sorted)."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_the_layers_contracts_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_no_module_of_the_package_is_in_an_import_cycle() -> None:
    # the acyclic_siblings contract compares sibling packages; this also sees a loop through a
    # package's own __init__ (a module importing `from .. import x` of a package that imports it)
    assert cycles("jupyter_codecomplete") == []


@pytest.fixture
def layered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package ``layered``: ``high`` imports ``low`` and ``low.types``; ``low`` imports ``high``
    back inside a function, and ``low.types`` imports it under TYPE_CHECKING."""
    pkg = tmp_path / "layered"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "high.py").write_text(
        "from .low import helper\nfrom .low.types import Kind\n\n\ndef run() -> Kind:\n    return helper()\n"
    )
    (pkg / "low" / "__init__.py").write_text(
        textwrap.dedent(
            """
            def helper() -> int:
                from ..high import run  # hidden in a function

                return 1 if run else 0
            """
        )
    )
    (pkg / "low" / "types.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ..high import run\n\nKind = int\n"
    )
    (tmp_path / "contracts.toml").write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_package = "layered"

            [[tool.importlinter.contracts]]
            name = "high above low"
            type = "layers"
            containers = ["layered"]
            layers = ["high", "low"]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_cycle_check_sees_imports_inside_functions_and_under_type_checking(layered: Path) -> None:
    assert cycles("layered") == [["layered.high", "layered.low", "layered.low.types"]]
    # without the function-level import, the TYPE_CHECKING one still closes a loop
    (layered / "layered" / "low" / "__init__.py").write_text("def helper() -> int:\n    return 1\n")
    assert cycles("layered") == [["layered.high", "layered.low.types"]]
    (layered / "layered" / "low" / "types.py").write_text("Kind = int\n")
    assert cycles("layered") == []


def test_the_layers_contract_sees_an_upward_import_inside_a_function(
    layered: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (layered / "layered" / "low" / "types.py").write_text("Kind = int\n")
    config = str(layered / "contracts.toml")
    assert lint_imports(config_filename=config, no_cache=True, no_logo=True) == 1
    assert "layered.low -> layered.high (l.3)" in capsys.readouterr().out
    (layered / "layered" / "low" / "__init__.py").write_text("def helper() -> int:\n    return 1\n")
    assert lint_imports(config_filename=config, no_cache=True, no_logo=True) == 0
