"""Each package's face is what its ``__init__`` declares: ``__all__`` lists exactly the names the
``__init__`` binds for others (its own definitions and what it imports from its modules), each of
them is there at run time, and none is private (``_name``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "jupyter_codecomplete"
PACKAGES = sorted(
    p.parent for p in PACKAGE.rglob("__init__.py") if "labextension" not in p.relative_to(PACKAGE).parts
)


def dotted(package: Path) -> str:
    return ".".join(package.relative_to(ROOT).parts)


def bound_names(body: list[ast.stmt]) -> set[str]:
    """The names an ``__init__`` binds for others: what it defines or assigns, and what it imports
    from its own modules (relative imports; an absolute import is its own business), also under
    ``if TYPE_CHECKING`` or ``try``. Private names (``_x``) are not bound for others."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.If):
            names |= bound_names(node.body) | bound_names(node.orelse)
        elif isinstance(node, ast.Try):
            names |= bound_names(node.body) | bound_names(node.orelse)
            for handler in node.handlers:
                names |= bound_names(handler.body)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def is_private(name: str) -> bool:
    return name.startswith("_") and not is_dunder(name)


def test_every_package_is_found() -> None:
    names = {dotted(p) for p in PACKAGES}
    expected = ("postprocess", "testing", "web", "backends.embedded")
    assert {f"jupyter_codecomplete.{p}" for p in expected} <= names


@pytest.mark.parametrize("package", PACKAGES, ids=dotted)
def test_exports_are_what_init_declares(package: Path) -> None:
    module = importlib.import_module(dotted(package))
    declared = getattr(module, "__all__", None)
    assert isinstance(declared, list), f"{dotted(package)}: no __all__"
    assert len(declared) == len(set(declared)), "a name twice in __all__"
    assert [n for n in declared if is_private(n)] == [], "private names exported"
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    # (a module attribute such as ``__version__`` may be declared too)
    assert bound_names(tree.body) == {n for n in declared if not is_dunder(n)}
    for name in declared:
        assert getattr(module, name, None) is not None, f"{dotted(package)}.{name} is declared but not there"


def test_bound_names_sees_what_an_init_binds() -> None:
    tree = ast.parse(
        "from __future__ import annotations\nimport os\nfrom typing import TYPE_CHECKING\n"
        "from .a import A, _b\nif TYPE_CHECKING:\n    from .c import C as C\n"
        "try:\n    from ._v import __version__\nexcept ImportError:\n    __version__ = '0'\n"
        "X: int = 1\ndef f() -> None: ...\ndef __getattr__(name: str) -> object: ...\n"
    )
    assert bound_names(tree.body) == {"A", "C", "X", "f"}
