"""Sphinx extension: the reference pages generated from the code at build time.

On ``builder-inited`` it writes Markdown into ``docs/_generated/`` (ignored by git, excluded from the
sources; the pages ``configuration.md`` and ``rest-api.md`` ``{include}`` it):

* ``configuration-traits.md``: every configurable trait of ``CodeCompleteApp`` (type, default, help),
  read from the traitlets themselves;
* ``model-config.md``: every field of ``ModelConfig`` (type, default, help), read from the pydantic
  model (help: the field's description, else the comment above the field in its source, else
  :data:`FIELD_HELP` below);
* ``rest-api.md`` and ``openapi.json``: the OpenAPI document of the REST endpoints, rendered;
* ``languages.md``: every record of the language table (``jupyter_codecomplete/languages.py``).

The generators are plain functions (``traits_markdown`` ...) so tests can check them.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

# ModelConfig fields document themselves (Field descriptions, else a comment above the field).
FIELD_HELP: dict[str, str] = {}


def _md_escape_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """Inline code that survives backticks inside."""
    ticks = "``" if "`" in text else "`"
    pad = " " if ticks == "``" else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


# -------------------------------------------------------------------------------------- traitlets


def config_traits() -> list[tuple[str, Any]]:
    """(name, trait) of every configurable trait CodeCompleteApp defines itself, in name order."""
    from jupyter_codecomplete.extension import CodeCompleteApp

    return sorted(CodeCompleteApp.class_own_traits(config=True).items())


def trait_type(trait: Any) -> str:
    name = type(trait).__name__
    if name == "Type":
        klass = (
            trait.klass
            if isinstance(trait.klass, str)
            else f"{trait.klass.__module__}.{trait.klass.__name__}"
        )
        return f"Type (a subclass of {klass.rsplit('.', 1)[-1]})"
    return name


def traits_markdown() -> str:
    out = []
    for name, trait in config_traits():
        default = trait.default_value_repr()
        out.append(f"### `c.CodeCompleteApp.{name}`\n")
        out.append(f"**Type:** {trait_type(trait)} · **Default:** {_code(default)}\n")
        out.append((trait.help or "(no help)").strip() + "\n")
    return "\n".join(out)


# -------------------------------------------------------------------------------------- ModelConfig


def _field_comments(cls: type) -> dict[str, str]:
    """The ``#`` comment lines right above each field in the class source."""
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in inspect.getsource(cls).splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped.lstrip("#").strip())
            continue
        m = re.match(r"\s+(\w+)\s*:", line)
        if m and pending:
            comments[m.group(1)] = " ".join(pending)
        pending = []
    return comments


def _type_name(annotation: Any) -> str:
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    return re.sub(r"\b(typing|pydantic\.types)\.", "", text)


def model_fields() -> list[dict[str, str]]:
    """name, type, default and help of every ModelConfig field, in definition order."""
    from pydantic_core import PydanticUndefined

    from jupyter_codecomplete.backends import ModelConfig

    comments = _field_comments(ModelConfig)
    rows = []
    for name, f in ModelConfig.model_fields.items():
        if f.default_factory is not None:
            default = f.default_factory()  # type: ignore[call-arg]
        else:
            default = None if f.default is PydanticUndefined else f.default
        help_text = f.description or comments.get(name) or FIELD_HELP.get(name, "")
        rows.append(
            {"name": name, "type": _type_name(f.annotation), "default": repr(default), "help": help_text}
        )
    return rows


def model_fields_markdown() -> str:
    lines = ["| field | type | default | meaning |", "|---|---|---|---|"]
    for r in model_fields():
        lines.append(
            f"| `{r['name']}` | {_md_escape_cell(_code(r['type']))} | {_md_escape_cell(_code(r['default']))} "
            f"| {_md_escape_cell(r['help'])} |"
        )
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------- OpenAPI


def _schema_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " \\| ".join(_schema_type(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(json.dumps(v) for v in schema["enum"])
    t = schema.get("type", "any")
    if t == "array":
        return f"array of {_schema_type(schema.get('items', {}))}"
    if (
        t == "object"
        and "additionalProperties" in schema
        and isinstance(schema["additionalProperties"], dict)
    ):
        return f"object of {_schema_type(schema['additionalProperties'])}"
    return str(t)


def _anchor(name: str) -> str:
    return "schema-" + name.lower()


def openapi_markdown(doc: dict[str, Any]) -> str:
    out = [
        f"OpenAPI {doc['openapi']} · {doc['info']['title']} {doc['info']['version']}\n",
        "## Endpoints\n",
    ]
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            out.append(f"### {method.upper()} `{path}`\n")
            if op.get("summary"):
                out.append(op["summary"] + ".\n")
            if op.get("description"):
                out.append(op["description"].strip() + "\n")
            for p in op.get("parameters", []):
                out.append(f"- parameter `{p['name']}` ({p.get('in')}): {p.get('description', '')}")
            body = op.get("requestBody")
            if body:
                for ctype, content in body.get("content", {}).items():
                    out.append(
                        f"**Request body** ({ctype}{', required' if body.get('required') else ''}): "
                        f"{_schema_ref(content.get('schema', {}))}\n"
                    )
            out.append("| status | meaning | content |\n|---|---|---|")
            for code, resp in op.get("responses", {}).items():
                contents = ", ".join(
                    f"{ctype} {_schema_ref(c.get('schema', {}))}"
                    for ctype, c in resp.get("content", {}).items()
                )
                out.append(f"| {code} | {_md_escape_cell(resp.get('description', ''))} | {contents} |")
            out.append("")
    out.append("## Schemas\n")
    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        out.append(f"({_anchor(name)})=\n### {name}\n")
        if schema.get("description"):
            out.append(schema["description"].strip() + "\n")
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        if props:
            out.append("| field | type | required | default | description |\n|---|---|---|---|---|")
            for pname, p in props.items():
                default = _code(json.dumps(p["default"])) if "default" in p else ""
                out.append(
                    f"| `{pname}` | {_schema_type(p)} | {'yes' if pname in required else ''} | "
                    f"{_md_escape_cell(default)} | {_md_escape_cell(p.get('description', ''))} |"
                )
            out.append("")
        if schema.get("additionalProperties") is False:
            out.append("Unknown fields are rejected (HTTP 400).\n")
    return "\n".join(out)


def _schema_ref(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    return _schema_type(schema)


# ------------------------------------------------------------------------------------ languages


def languages_markdown() -> str:
    """One row per language of the table: names, extensions, comments, strings, grammar."""
    from jupyter_codecomplete.languages import ALL

    rows = [
        "| language | id and other names | extensions | comments | strings | grammar | rules |",
        "|---|---|---|---|---|---|---|",
    ]
    for lang in ALL:
        names = ", ".join(_code(n) for n in lang.names)
        extensions = " ".join(_code(e) for e in lang.extensions) or "—"
        comments = [
            *(_code(c) for c in lang.line_comments),
            *(_code(f"{a} {b}") for a, b in lang.block_comments),
        ]
        strings = " ".join(_code(s.delim) + (" (multi-line)" if s.multiline else "") for s in lang.strings)
        grammars = [_code(lang.grammar)] if lang.grammar else []
        grammars += [f"{_code(g)} ({alias})" for alias, g in lang.alias_grammars.items()]
        rules = []
        if lang.block_opener or lang.continuation_words or lang.closer_words or lang.top_level_stop:
            rules.append("blocks")
        if not lang.brackets:
            rules.append("no bracket rule")
        if lang.indent_matters:
            rules.append("indentation is syntax")
        if lang.statement_end:
            rules.append(f"{_code(lang.statement_end)} ends")
        if lang.prose:
            rules.append("prose")
        if lang.cell_magics:
            rules.append("cell magics")
        cells = [
            _md_escape_cell(lang.title),
            names,
            extensions,
            " ".join(comments) or "—",
            strings or "—",
            ", ".join(grammars) or "—",
            ", ".join(rules) or "—",
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


# -------------------------------------------------------------------------------------- Sphinx


def _write(path: Path, text: str) -> None:
    """Write only when the content changed (keeps incremental builds incremental)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(srcdir: str) -> Path:
    from jupyter_codecomplete.web.openapi import openapi_document

    out = Path(srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    _write(out / ".gitignore", "*\n")
    header = "<!-- generated by docs/_ext/codecomplete_docs.py at build time; do not edit -->\n\n"
    _write(out / "configuration-traits.md", header + traits_markdown())
    _write(out / "model-config.md", header + model_fields_markdown())
    doc = openapi_document()
    _write(out / "rest-api.md", header + openapi_markdown(doc))
    _write(out / "openapi.json", json.dumps(doc, indent=2) + "\n")
    _write(out / "languages.md", header + languages_markdown())
    return out


def _builder_inited(app: Any) -> None:
    generate(app.srcdir)


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _builder_inited)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = [
    "generate",
    "languages_markdown",
    "model_fields",
    "model_fields_markdown",
    "openapi_markdown",
    "traits_markdown",
]
