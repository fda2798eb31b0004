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


# --- faces enforced: one subpackage reaches another only through its face ------------------------

SUBPACKAGES = {dotted(p) for p in PACKAGES}

# Imports that reach past another subpackage's face on purpose: (importing module, module imported).
PAST_THE_FACE: set[tuple[str, str]] = set()


def _module_name(path: Path) -> tuple[str, str]:
    """A source file's dotted module name, and the package its relative imports start from."""
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name == "__init__.py":
        name = name.removesuffix(".__init__")
        return name, name
    return name, name.rsplit(".", 1)[0]


def past_the_face(source: str, module: str, package: str) -> list[tuple[int, str]]:
    """``(line, imported module)`` of each import in ``source`` that names a module inside another
    subpackage instead of that subpackage itself (its face)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
        else:
            target = node.module or ""
        owner = target.rsplit(".", 1)[0]
        if target in SUBPACKAGES or owner not in SUBPACKAGES:
            continue
        if package == owner or package.startswith(owner + "."):
            continue  # inside the subpackage itself
        found.append((node.lineno, target))
    return found


def test_packages_reach_each_other_through_their_faces() -> None:
    problems = []
    allowed_seen = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if "labextension" in path.relative_to(PACKAGE).parts:
            continue
        module, package = _module_name(path)
        for line, target in past_the_face(path.read_text(encoding="utf-8"), module, package):
            if (module, target) in PAST_THE_FACE:
                allowed_seen.add((module, target))
                continue
            problems.append(f"{path.relative_to(ROOT)}:{line} imports {target} (use its package's face)")
    assert problems == []
    assert allowed_seen == PAST_THE_FACE, "an allowed exception is no longer needed: remove it"


def test_the_face_check_sees_an_import_past_a_face() -> None:
    source = "from ..prompting.styles import PromptStyle\nfrom ..prompting import StyleRegistry\n"
    assert past_the_face(source, "jupyter_codecomplete.backends.base", "jupyter_codecomplete.backends") == [
        (1, "jupyter_codecomplete.prompting.styles")
    ]
    inside = "from .styles import PromptStyle\n"
    assert (
        past_the_face(inside, "jupyter_codecomplete.prompting.edits", "jupyter_codecomplete.prompting") == []
    )


def _private_writes(source: str) -> list[tuple[int, str]]:
    """``(line, attribute)`` of each assignment to another object's private attribute
    (``other._x = ...``, ``other._x[k] = ...``): only an object's own methods write its state."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if (
                isinstance(target, ast.Attribute)
                and is_private(target.attr)
                and not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))
            ):
                found.append((node.lineno, target.attr))
    return found


def test_no_module_writes_another_objects_private_state() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "labextension" in path.relative_to(PACKAGE).parts:
            continue
        for line, attr in _private_writes(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(ROOT)}:{line} writes .{attr}")
    assert problems == []


def test_the_private_write_check_sees_one() -> None:
    assert _private_writes("handler._reported[key] = 1\nself._own = 2\nx.public = 3\n") == [(1, "_reported")]
