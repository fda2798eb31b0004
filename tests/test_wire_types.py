"""The browser's wire types (`src/connection/protocol.ts`, `src/models/models.ts`, ...) against the
pydantic models.

Each TypeScript interface that mirrors a pydantic model is compared with the model's JSON schema:

- the same field names: a field added on either side fails;
- matching types (TypeScript `number` for JSON `integer`/`number`, string literal unions for
  `Literal`, `| null` for `None`, `T[]` for lists, the mirrored interface's name for a nested
  model). What the browser sends may be narrower than what the server accepts; what the server
  sends must be understood: there the TypeScript type covers the model's;
- optionality: a field the server requires is required in what the browser sends. What the server
  sends always carries every field (it never drops defaults or nulls), so a TypeScript field may be
  optional there (for older servers).

Every pydantic model in `protocol.py` and every interface exported from `src/connection/protocol.ts` is either
mirrored or listed below with the reason it is not. The TypeScript is read by a small parser of the
subset these files use (interfaces, type aliases, unions, arrays, inline object types); it fails
loudly on anything else.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]

Direction = Literal["to_server", "to_browser"]

# Where the models live; a model is looked up by name in each, so a model may move between them
# (CompletionRequestBody from web/rest.py into protocol.py) without changing this test.
MODEL_MODULES = (
    "jupyter_codecomplete.protocol",
    "jupyter_codecomplete.web.replies",
    "jupyter_codecomplete.models_service.service",
)

# TypeScript file, interface -> (pydantic model, direction).
MIRRORED: dict[tuple[str, str], tuple[str, Direction]] = {
    ("src/connection/protocol.ts", "IServingModel"): ("ServingModel", "to_browser"),
    ("src/connection/protocol.ts", "IErrorInfo"): ("ErrorInfo", "to_browser"),
    ("src/connection/protocol.ts", "ICellOutput"): ("CellOutput", "to_server"),
    ("src/connection/protocol.ts", "IContextCell"): ("ContextCell", "to_server"),
    ("src/connection/protocol.ts", "IKernelCandidate"): ("KernelCandidate", "to_server"),
    ("src/connection/protocol.ts", "IKernelCandidates"): ("KernelCandidates", "to_server"),
    ("src/connection/protocol.ts", "IContextFile"): ("ContextFile", "to_server"),
    ("src/connection/protocol.ts", "IInlineCompletionRequest"): ("InlineCompletionRequest", "to_server"),
    ("src/connection/protocol.ts", "ICancelRequest"): ("CancelRequest", "to_server"),
    ("src/connection/protocol.ts", "IRecentEdit"): ("RecentEdit", "to_server"),
    ("src/connection/protocol.ts", "ICellError"): ("CellError", "to_server"),
    ("src/connection/protocol.ts", "IEditRegion"): ("EditRegion", "to_server"),
    ("src/connection/protocol.ts", "IEditPredictionRequest"): ("EditPredictionRequest", "to_server"),
    ("src/connection/protocol.ts", "ITextEdit"): ("TextEdit", "to_browser"),
    ("src/connection/protocol.ts", "IEditPredictionReply"): ("EditPredictionReply", "to_browser"),
    ("src/connection/protocol.ts", "IClientHello"): ("ClientHello", "to_server"),
    ("src/connection/protocol.ts", "ICompletionItem"): ("InlineCompletionItem", "to_browser"),
    ("src/connection/protocol.ts", "IInlineCompletionReply"): ("InlineCompletionReply", "to_browser"),
    ("src/connection/protocol.ts", "IStreamChunk"): ("InlineCompletionStreamChunk", "to_browser"),
    ("src/connection/protocol.ts", "IErrorReply"): ("ErrorReply", "to_browser"),
    ("src/connection/protocol.ts", "IHelloMessage"): ("HelloMessage", "to_browser"),
    ("src/connection/protocol.ts", "IUsageEvent"): ("UsageEvent", "to_server"),
    ("src/connection/protocol.ts", "IUsageMessage"): ("UsageMessage", "to_server"),
    ("src/connection/protocol.ts", "IWarmRequest"): ("WarmRequest", "to_server"),
    ("src/connection/protocol.ts", "IWarmReply"): ("WarmReply", "to_browser"),
    ("src/models/models.ts", "IModelEntry"): ("ModelEntry", "to_browser"),
    ("src/models/models.ts", "ICustomEndpoint"): ("CustomEndpoint", "to_server"),
    # the REST replies the browser reads (web/replies.py)
    ("src/models/models.ts", "IModelListing"): ("ModelListing", "to_browser"),
    ("src/models/models.ts", "IDownload"): ("DownloadProgress", "to_browser"),
    ("src/models/models.ts", "IProbeReport"): ("ProbeReport", "to_browser"),
    ("src/models/models.ts", "IFimReport"): ("FimReport", "to_browser"),
    ("src/models/models.ts", "ITestReply"): ("TestReply", "to_browser"),
    ("src/models/models.ts", "IUseReply"): ("UseReply", "to_browser"),
    ("src/models/models.ts", "IEditSwitch"): ("EditUseReply", "to_browser"),
    ("src/models/models.ts", "ICustomSaved"): ("CustomSaved", "to_browser"),
    ("src/models/models.ts", "IEngineInstall"): ("EngineInstall", "to_browser"),
    ("src/usage/statspanel.ts", "IUsageSummary"): ("UsageSummary", "to_browser"),
    ("src/usage/statspanel.ts", "IUsageGroup"): ("UsageGroup", "to_browser"),
    ("src/usage/statspanel.ts", "ILatencyBin"): ("LatencyBin", "to_browser"),
    ("src/usage/statspanel.ts", "IRestraintPreview"): ("RestraintPreview", "to_browser"),
    ("src/completion/restraint.ts", "IGateModel"): ("GateModel", "to_browser"),
    ("src/completion/restraint.ts", "IGateSkip"): ("GateSkip", "to_browser"),
    ("src/completion/restraint.ts", "IGatePlace"): ("GatePlace", "to_browser"),
    ("src/completion/restraint.ts", "IGateCell"): ("GateCell", "to_browser"),
}

# REST replies (web/replies.py) the browser never reads, and why: each is still in the OpenAPI
# document, with its schema.
REPLIES_NOT_READ_BY_THE_BROWSER = {
    "ErrorBody": "read as IErrorInfo's fields by each client's error path",
    "DownloadList": "the dialog reads the downloads from IModelListing",
    "PromptPreview": "for tools and tests (the prompt preview REST route)",
    "TextCompletion": "the OpenAI-shaped one-shot completion, for tools",
    "ModelsReply": "for tools and `jupyter codecomplete` (the dialog uses models/choices)",
    "StylesReply": "for tools",
    "ServerStats": "for benchmarks and diagnosis",
}

# Pydantic models of protocol.py with no TypeScript twin, and why.
PYTHON_ONLY = {
    "InlineCompletionList": "inline in IInlineCompletionReply.list",
    "CompletionRequestBody": "body of POST api/codecomplete/completions, which the browser never calls",
}

# Names exported from src/connection/protocol.ts that mirror no single model, and why.
TYPESCRIPT_ONLY = {
    "Trigger": "alias of a Literal, compared where it is used",
    "UsageTrigger": "alias of a Literal, compared where it is used",
    "LineKind": "alias of a Literal, compared where it is used",
    "IRequestBody": "IInlineCompletionRequest without type and number",
    "IEditRequestBody": "IEditPredictionRequest without type and number",
    "ServerMessage": "union of the server's messages",
}

# (interface, field) -> (TypeScript type, reason) where TypeScript is deliberately narrower.
NARROWER_IN_TYPESCRIPT: dict[tuple[str, str], tuple[str, str]] = {
    ("IModelEntry", "source"): (
        "'catalogue' | 'configured' | 'custom' | 'detected' | 'disk'",
        "ModelEntry.source is a plain str documented with these five values",
    ),
}


# --- TypeScript --------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:('(?:[^'\\]|\\.)*')|([A-Za-z_$][\w$]*)|(\S))")


@dataclass(frozen=True)
class TsField:
    name: str
    optional: bool
    type: str  # canonical, see _canonical


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            break
        out.append(match.group(1) or match.group(2) or match.group(3))
        pos = match.end()
    return out


class _TsParser:
    """Parses the type syntax these files use into canonical strings."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise AssertionError(f"TypeScript parse: expected {expected!r}, got {token!r}")
        self.pos += 1
        return token

    def union(self) -> frozenset[str]:
        if self.peek() == "|":
            self.take()
        atoms = set(self.postfix())
        while self.peek() == "|":
            self.take()
            atoms |= self.postfix()
        return frozenset(atoms)

    def postfix(self) -> frozenset[str]:
        atoms = self.primary()
        while self.peek() == "[":
            self.take("[")
            self.take("]")
            atoms = frozenset({f"({_join(atoms)})[]"})
        return atoms

    def primary(self) -> frozenset[str]:
        token = self.take()
        if token == "(":
            inner = self.union()
            self.take(")")
            return inner
        if token == "{":
            return frozenset({_render_object(self.members("}"))})
        if token.startswith("'"):
            return frozenset({token})
        if token in ("Record", "ReadonlyArray", "Array"):
            self.take("<")
            args = [self.union()]
            while self.peek() == ",":
                self.take()
                args.append(self.union())
            self.take(">")
            if token == "Record":
                return frozenset({f"Record<{_join(args[0])}, {_join(args[1])}>"})
            return frozenset({f"({_join(args[0])})[]"})
        if re.fullmatch(r"[A-Za-z_$][\w$]*", token):
            while self.peek() == ".":  # a qualified name: Namespace.IType
                self.take()
                token += "." + self.take()
            return frozenset({token})
        raise AssertionError(f"TypeScript parse: unexpected {token!r}")

    def members(self, end: str) -> list[TsField]:
        fields: list[TsField] = []
        while self.peek() != end:
            if self.peek() == "readonly":
                self.take()
            name = self.take()
            optional = self.peek() == "?"
            if optional:
                self.take()
            self.take(":")
            fields.append(TsField(name, optional, _join(self.union())))
            if self.peek() in (";", ","):
                self.take()
        self.take(end)
        return fields


def _join(atoms: frozenset[str]) -> str:
    return " | ".join(sorted(atoms))


def _render_object(fields: list[TsField]) -> str:
    inner = "; ".join(
        f"{f.name}{'?' if f.optional else ''}: {f.type}" for f in sorted(fields, key=lambda f: f.name)
    )
    return "{ " + inner + " }"


def read_typescript(path: str) -> tuple[dict[str, list[TsField]], dict[str, str]]:
    """The exported interfaces (fields) and type aliases (canonical type) of one file."""
    text = _strip_comments((ROOT / path).read_text(encoding="utf-8"))
    tokens = _tokens(text)
    interfaces: dict[str, list[TsField]] = {}
    aliases: dict[str, str] = {}
    i = 0
    while i < len(tokens) - 2:
        if tokens[i] == "export" and tokens[i + 1] == "interface":
            name = tokens[i + 2]
            parser = _TsParser(tokens[i + 3 :])
            if parser.peek() == "extends":
                raise AssertionError(f"{path}: {name} extends another interface; teach this test")
            parser.take("{")
            interfaces[name] = parser.members("}")
            i += 3 + parser.pos
        elif tokens[i] == "export" and tokens[i + 1] == "type":
            name = tokens[i + 2]
            end = tokens.index(";", i)
            body = tokens[i + 4 : end]
            try:
                parser = _TsParser(body)
                atoms = parser.union()
                aliases[name] = _join(atoms) if parser.peek() is None else " ".join(body)
            except AssertionError:
                aliases[name] = " ".join(body)  # not a plain type (Omit<...>): kept as text
            i = end
        else:
            i += 1
    return interfaces, aliases


def _resolve_aliases(type_: str, aliases: dict[str, str]) -> str:
    parts = set()
    for part in type_.split(" | "):
        parts.update(aliases[part].split(" | ") if part in aliases else [part])
    return " | ".join(sorted(parts))


# --- Python ------------------------------------------------------------------------------------


def model_class(name: str) -> type[BaseModel]:
    for module_name in MODEL_MODULES:
        found = getattr(importlib.import_module(module_name), name, None)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    raise AssertionError(f"no pydantic model {name} in {', '.join(MODEL_MODULES)}")


TS_NAME_OF = {python: ts for (_, ts), (python, _) in MIRRORED.items()}


class _SchemaReader:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})

    def atoms(self, prop: dict[str, Any]) -> set[str]:
        if "$ref" in prop:
            name = prop["$ref"].rsplit("/", 1)[-1]
            if name in TS_NAME_OF:
                return {TS_NAME_OF[name]}
            return {self.object(self.defs[name])}
        if "anyOf" in prop:
            out: set[str] = set()
            for option in prop["anyOf"]:
                out |= self.atoms(option)
            return out
        if "const" in prop:
            return {_ts_literal(prop["const"])}
        if "enum" in prop:
            return {_ts_literal(value) for value in prop["enum"]}
        kind = prop.get("type")
        if kind == "array":
            return {f"({' | '.join(sorted(self.atoms(prop.get('items', {}))))})[]"}
        if kind == "object" and "properties" not in prop:
            values = prop.get("additionalProperties", {})
            return {f"Record<string, {' | '.join(sorted(self.atoms(values)))}>"}
        if kind == "object":
            return {self.object(prop)}
        simple = {
            "string": "string",
            "integer": "number",
            "number": "number",
            "boolean": "boolean",
            "null": "null",
        }
        if kind in simple:
            return {simple[kind]}
        raise AssertionError(f"JSON schema: cannot map {prop}")

    def object(self, schema: dict[str, Any]) -> str:
        required = set(schema.get("required", []))
        fields = [
            TsField(name, name not in required, " | ".join(sorted(self.atoms(prop))))
            for name, prop in schema.get("properties", {}).items()
        ]
        return _render_object(fields)


def _ts_literal(value: object) -> str:
    if not isinstance(value, str):
        raise AssertionError(f"JSON schema: literal {value!r} is not a string")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def python_fields(model: type[BaseModel], direction: Direction) -> dict[str, TsField]:
    mode: Literal["validation", "serialization"] = (
        "validation" if direction == "to_server" else "serialization"
    )
    schema = model.model_json_schema(mode=mode)
    reader = _SchemaReader(schema)
    required = set(schema.get("required", []))
    return {
        name: TsField(name, name not in required, " | ".join(sorted(reader.atoms(prop))))
        for name, prop in schema.get("properties", {}).items()
    }


# --- the comparison ----------------------------------------------------------------------------


def differences(
    ts_name: str,
    ts_fields: list[TsField],
    aliases: dict[str, str],
    model: type[BaseModel],
    direction: Direction,
) -> list[str]:
    problems: list[str] = []
    ts = {f.name: TsField(f.name, f.optional, _resolve_aliases(f.type, aliases)) for f in ts_fields}
    py = python_fields(model, direction)
    for name in sorted(set(py) - set(ts)):
        problems.append(f"{ts_name} lacks {name} (in {model.__name__})")
    for name in sorted(set(ts) - set(py)):
        problems.append(f"{ts_name}.{name} is not in {model.__name__}")
    for name in sorted(set(ts) & set(py)):
        expected = py[name].type
        narrower = NARROWER_IN_TYPESCRIPT.get((ts_name, name))
        if narrower is not None:
            expected = narrower[0]
        ts_atoms, py_atoms = set(ts[name].type.split(" | ")), set(expected.split(" | "))
        # What the browser sends must be accepted; what the server sends must be understood.
        fits = ts_atoms <= py_atoms if direction == "to_server" else py_atoms <= ts_atoms
        if not fits:
            problems.append(f"{ts_name}.{name}: TypeScript {ts[name].type!r}, pydantic {expected!r}")
        if direction == "to_server" and ts[name].optional and not py[name].optional:
            problems.append(f"{ts_name}.{name} is optional in TypeScript but required by {model.__name__}")
    return problems


@pytest.mark.parametrize(
    ("where", "model_name", "direction"),
    [(k, *v) for k, v in MIRRORED.items()],
    ids=lambda v: v[1] if isinstance(v, tuple) else None,
)
def test_interface_matches_model(where: tuple[str, str], model_name: str, direction: Direction) -> None:
    path, ts_name = where
    interfaces, aliases = read_typescript(path)
    assert ts_name in interfaces, f"{path} exports no interface {ts_name}"
    assert differences(ts_name, interfaces[ts_name], aliases, model_class(model_name), direction) == []


def test_every_protocol_model_is_mirrored_or_listed() -> None:
    protocol = importlib.import_module("jupyter_codecomplete.protocol")
    defined = {
        name
        for name, value in vars(protocol).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == protocol.__name__
        and not name.startswith("_")
    }
    mirrored = {python for python, _ in MIRRORED.values()}
    assert sorted(defined - mirrored - set(PYTHON_ONLY)) == []
    for name in PYTHON_ONLY:
        model_class(name)  # still exists somewhere


def test_every_reply_is_mirrored_or_listed() -> None:
    """Every top-level REST reply (the models of ``OPERATIONS`` in ``web/openapi.py``) has its
    TypeScript twin, or a reason above why the browser does not read it."""
    from jupyter_codecomplete.web.openapi import OPERATIONS

    answered = {m.__name__ for op in OPERATIONS if op.reply for m in (op.reply, *op.extra_content.values())}
    mirrored = {python for python, _ in MIRRORED.values()}
    assert sorted(answered - mirrored - set(REPLIES_NOT_READ_BY_THE_BROWSER)) == []
    assert sorted(set(REPLIES_NOT_READ_BY_THE_BROWSER) & mirrored) == []
    for name in REPLIES_NOT_READ_BY_THE_BROWSER:
        model_class(name)


def test_every_protocol_interface_is_mirrored_or_listed() -> None:
    interfaces, aliases = read_typescript("src/connection/protocol.ts")
    mirrored = {ts for (path, ts) in MIRRORED if path == "src/connection/protocol.ts"}
    assert sorted(set(interfaces) - mirrored - set(TYPESCRIPT_ONLY)) == []
    assert sorted(set(TYPESCRIPT_ONLY) - set(interfaces) - set(aliases)) == []


# --- the checker itself: a drift on either side must fail ----------------------------------------


def test_a_field_added_to_a_model_is_a_difference() -> None:
    class Grown(model_class("ErrorInfo")):  # type: ignore[misc]  # a subclass made at run time
        extra_field: int = 0

    interfaces, aliases = read_typescript("src/connection/protocol.ts")
    assert differences("IErrorInfo", interfaces["IErrorInfo"], aliases, Grown, "to_browser") == [
        "IErrorInfo lacks extra_field (in Grown)"
    ]


def test_a_field_added_to_an_interface_is_a_difference() -> None:
    interfaces, aliases = read_typescript("src/connection/protocol.ts")
    grown = [*interfaces["IErrorInfo"], TsField("extra_field", True, "number")]
    assert differences("IErrorInfo", grown, aliases, model_class("ErrorInfo"), "to_browser") == [
        "IErrorInfo.extra_field is not in ErrorInfo"
    ]


def test_a_changed_type_or_optional_required_field_is_a_difference() -> None:
    interfaces, aliases = read_typescript("src/connection/protocol.ts")
    changed = [
        TsField(f.name, True, f.type)
        if f.name == "prefix"
        else TsField(f.name, f.optional, "string")
        if f.name == "stream"
        else f
        for f in interfaces["IInlineCompletionRequest"]
    ]
    assert differences(
        "IInlineCompletionRequest", changed, aliases, model_class("InlineCompletionRequest"), "to_server"
    ) == [
        "IInlineCompletionRequest.prefix is optional in TypeScript but required by InlineCompletionRequest",
        "IInlineCompletionRequest.stream: TypeScript 'string', pydantic 'boolean'",
    ]


def test_the_parser_reads_nested_objects_unions_and_aliases() -> None:
    tokens = _tokens("{ a?: 'x' | 'y' | null; b: { c: number[] }[]; d: Record<string, Foo> }")
    parser = _TsParser(tokens)
    parser.take("{")
    fields = parser.members("}")
    assert fields == [
        TsField("a", True, "'x' | 'y' | null"),
        TsField("b", False, "({ c: (number)[] })[]"),
        TsField("d", False, "Record<string, Foo>"),
    ]
