"""Prompt styles as data: one :class:`PromptStyle` record per model family, and the registry.

A record says everything the builder needs to know about a family: its fill-in-the-middle tokens
and their order, its repository-level tokens (or the comment header used when it has none), the
text that wraps a prompt for instruction-tuned models, stop and end-of-text tokens, whether the
endpoint takes ``suffix`` natively, and the model-name patterns that select it. The built-in
records live in :mod:`.builtin_styles` as plain dicts of the same shape a user writes in
``jupyter_server_config.py``. No code here or in the builder branches on a family name.

Templates (``prompt_start``, ``header``, ``file_header`` ...) are ``str.format`` strings with these
fields: ``{path}`` (file path), ``{name}`` (file name), ``{language}`` (lower-case language id),
``{language_tag}`` (display name, e.g. ``Python``), ``{comment}`` (the language's line-comment
marker), ``{repo_name}``, ``{file_sep}`` (the record's file-separator token), ``{hole}`` (chat only).
Write ``{{`` / ``}}`` for a literal brace.
"""

from __future__ import annotations

import fnmatch
import string
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import PromptError

TEMPLATE_FIELDS = frozenset(
    {"path", "name", "language", "language_tag", "comment", "repo_name", "file_sep", "hole"}
)


CHAT_FIELDS = TEMPLATE_FIELDS | {"prefix", "suffix", "content", "context", "user"}


def _check_template(value: str, allowed: frozenset[str] = TEMPLATE_FIELDS) -> str:
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
    except ValueError as e:
        raise ValueError(f"bad template {value!r}: {e}") from e
    unknown = names - allowed
    if unknown:
        raise ValueError(
            f"template {value!r} uses unknown fields {sorted(unknown)}; known: {sorted(allowed)}"
        )
    return value


def _check_chat_template(value: str) -> str:
    return _check_template(value, CHAT_FIELDS)


class FimSpec(BaseModel):
    """Fill-in-the-middle tokens, exactly as the model's tokenizer spells them (spaces included).

    ``psm``: ``prefix PREFIX suffix SUFFIX middle`` (the usual order); ``spm``: the suffix part
    first, then the prefix part, then ``middle``. ``middle`` may be empty (Codestral has none).
    """

    model_config = ConfigDict(extra="forbid")
    prefix: str
    suffix: str
    middle: str
    order: Literal["psm", "spm"] = "psm"
    pad: str | None = None


class RepoSpec(BaseModel):
    """How a family marks repository-level context (other files and the repository name).

    With tokens (Qwen2.5-Coder: ``<|repo_name|>name\\n<|file_sep|>path\\ncontent\\n...``) the block
    goes before the FIM prefix token (``placement="before_fim"``); with only a comment header
    (DeepSeek-Coder: ``#utils.py``) it goes inside the prefix (``placement="in_prefix"``).
    """

    model_config = ConfigDict(extra="forbid")
    repo_name: str | None = None
    repo_name_end: str = "\n"
    file_sep: str | None = None
    file_name: Literal["path", "name"] = "path"
    file_header: str = "{file_sep}{path}\n"
    file_end: str = ""
    current_file_header: str = "{file_sep}{path}\n"
    placement: Literal["before_fim", "in_prefix"] = "before_fim"
    # With fill-in-the-middle: the current file's header before the FIM block (None: the same as
    # ``current_file_header``) and one written right after the FIM prefix token. StarCoder2 puts the
    # path there: ``<file_sep><fim_prefix>path\ncode_pre<fim_suffix>...`` (paper section 5.1).
    fim_current_file_header: str | None = None
    fim_prefix_header: str = ""

    _tmpl = field_validator("file_header", "current_file_header", "fim_prefix_header")(_check_template)

    @field_validator("fim_current_file_header")
    @classmethod
    def _check_optional(cls, value: str | None) -> str | None:
        return None if value is None else _check_template(value)


class ChatSpec(BaseModel):
    """The "fill the hole" prompt for instruction models (system + user message)."""

    model_config = ConfigDict(extra="forbid")
    hole: str = "<FILL_HERE>"
    system: str
    user: str
    context_header: str = ""
    context_file: str = "{path}\n{content}\n"
    user_with_context: str = "{context}{user}"

    _tmpl = field_validator("system", "user", "context_header", "context_file", "user_with_context")(
        _check_chat_template
    )


NOTEBOOK_FIELDS = TEMPLATE_FIELDS | {"expression"}


def _check_notebook_template(value: str) -> str:
    return _check_template(value, NOTEBOOK_FIELDS)


class NotebookSpec(BaseModel):
    """How a family is shown what only a notebook knows: cell outputs and the kernel's candidates.

    Both are written as line comments of the cell's language; these are the label lines before
    them (``{comment}`` is the marker, ``{expression}`` the text the kernel completed, e.g.
    ``df[``). An empty label writes no label line; ``outputs`` / ``candidates`` false leaves that
    context out for the family.
    """

    model_config = ConfigDict(extra="forbid")
    outputs: bool = True
    candidates: bool = True
    output_label: str = "{comment} Out:"
    error_label: str = "{comment} Error:"
    candidates_label: str = "{comment} The kernel completes {expression} with:"

    _tmpl = field_validator("output_label", "error_label", "candidates_label")(_check_notebook_template)


EDIT_FIELDS = frozenset(
    {
        "path",
        "language_tag",
        "files",
        "history",
        "excerpt",
        "items",
        "content",
        "diff",
        "old",
        "new",
        "start_of_file",
        "before",
        "region",
        "after",
        "after_nl",
        "after_lines",
        "after_line",
        "after_line_nl",
        "region_line",
        "prefix",
        "diff_lines",
        "content_text",
        "region_blocks",
        "original",
        "comment",
        "n",
        "run",
    }
)


def _check_edit_template(value: str) -> str:
    return _check_template(value, EDIT_FIELDS)


class EditAnswerSpec(BaseModel):
    """How a next-edit model's answer carries the rewritten editable region.

    The region is the text after ``start`` (when given; one line break after it is skipped) up to
    the first of ``end`` (cleaning gives it the region's final line break, or takes one off).
    ``require_start`` / ``require_end``: an answer without them is in the wrong format / never
    ended, and gives no edit. ``no_edits``:
    an answer that starts with it means "nothing to change". ``strip``: markers removed first (the
    cursor marker a model may echo; a line holding only a marker goes with it, so an echoed region
    marker adds no blank line). ``fences``: a Markdown fence around the region is removed.
    """

    model_config = ConfigDict(extra="forbid")
    start: str | None = None
    require_start: bool = False
    end: list[str] = Field(default_factory=list)
    require_end: bool = False
    no_edits: str | None = None
    strip: list[str] = Field(default_factory=list)
    fences: bool = True
    # The answer names a span of the region's numbered blocks (``EditSpec.blocks``): its first and
    # last block markers and the new text between them; the same marker twice: no edit.
    marker_span: bool = False
    # The prompt wrote the region in line-end form (``{region_line}`` then a line break before the
    # end marker): one line break before the end marker is the format's; an answer without it
    # (the region's lines joined by line breaks, as Instinct was trained to answer) keeps its own
    # unless it ends in more than the region does; the region's own final line break is given back
    # where the region does not end the text.
    end_break: bool = False


class BlockSpec(BaseModel):
    """A region cut into numbered blocks at line starts (zed's multi-region formats): a block has
    at least ``min_lines`` lines and is cut at ``max_lines``; a block prefers to start after a
    blank line, and at a line that is neither blank nor a closing tail (``}``, ``)``, ``]``,
    ``return``, ``end`` ...), looking up to ``nudge_lines`` lines further for one. ``marker`` is
    written before each block and after the last (``{n}``: 1, 2, ...)."""

    model_config = ConfigDict(extra="forbid")
    marker: str = "<|marker_{n}|>"
    min_lines: int = Field(default=6, ge=1)
    max_lines: int = Field(default=16, ge=1)
    nudge_lines: int = Field(default=5, ge=1)


class EditSpec(BaseModel):
    """A next-edit prompt format: the editable region around the cursor, the user's recent edits,
    other files, and how the answer (the rewritten region) is read.

    ``template`` is the whole prompt (or, with ``chat``, the user message after ``system``), with
    ``{files}``, ``{history}``, ``{excerpt}``, ``{path}``, ``{language_tag}``. ``{files}`` is
    ``files_block`` around the ``file_item`` of each other file (``{path}``, ``{content}``: with a
    final line break) joined by ``file_sep``, or ``files_empty``; ``{history}`` likewise from
    ``history_item`` per recent edit (``{path}``, ``{diff}``: its hunks without file headers and
    without a final line break, ``{old}`` / ``{new}``: the hunks' old and new sides).
    ``excerpt`` shows the document: ``{before}`` (up to ``context_lines_before`` lines before the
    region; None: all), ``{region}`` (the region with ``cursor`` at the cursor, ending in a line
    break), ``{after}`` (up to ``context_lines_after`` lines after it), ``{after_nl}`` (the same,
    ending in a line break), ``{after_lines}`` (a line break and ``{after}`` without its last one,
    or nothing), ``{start_of_file}`` (``start_of_file`` when the excerpt starts the document),
    ``{original}`` (the region before the most recent edit, or as it is, with a final line break).
    Line-end fields, as zed and Continue cut a file (a range ends at the end of its last line,
    before its line break; in a file ending in a line break the empty row after it is the last
    line): ``{region_line}`` (the region with the cursor, without its final line break unless it
    ends the file), ``{after_line}`` (from that line break to the end of the context's last line;
    at the end of the file, its final line break included), ``{after_line_nl}`` (the same, ending
    in a line break), ``{prefix}`` (the shown text from the excerpt's start to the cursor). History
    items also get ``{diff_lines}`` (the hunks, each line ending in a line break, as zed's event
    diffs); file items ``{content_text}`` (the content as it is). With ``blocks``:
    ``{region_blocks}`` (the region in line-end form cut into numbered blocks, each after its
    marker on a line of its own, the last marker after them).
    ``cell_separator`` heads each cell when a notebook is shown as one document (an edit
    prediction with ``scope="notebook"``, ``prompting/notebook_document.py``): ``{comment}`` is
    the language's line-comment marker, ``{n}`` the cell's place in the notebook, ``{run}`` its
    execution (`` In [3]``, `` In [3], edited since``, or nothing when it has not run).
    Without a region from the client, the region is the cursor's line with ``region_lines_above``
    lines above and ``region_lines_below`` below.
    """

    model_config = ConfigDict(extra="forbid")
    chat: bool = False
    system: str = ""
    template: str
    file_item: str = "{path}\n{content}"
    file_sep: str = ""
    files_block: str = "{items}"
    files_empty: str = ""
    history_item: str = "{diff}"
    history_sep: str = ""
    history_block: str = "{items}"
    history_empty: str = ""
    excerpt: str
    cursor: str = ""
    start_of_file: str = ""
    context_lines_before: int | None = Field(default=None, ge=0)
    context_lines_after: int | None = Field(default=None, ge=0)
    region_lines_above: int = Field(default=1, ge=0)
    region_lines_below: int = Field(default=5, ge=0)
    stop: list[str] = Field(default_factory=list)
    answer: EditAnswerSpec = Field(default_factory=EditAnswerSpec)
    # the recent edits: one item per block of changed lines (``{old}`` / ``{new}`` only those
    # lines), the diffs' blank lines kept, the newest edit first
    history_per_change: bool = False
    # the region cut into numbered blocks: ``{region_blocks}`` (the region in line-end form, each
    # block after its marker, the cursor marked) and an answer that names a span of blocks
    blocks: BlockSpec | None = None
    history_keep_blank: bool = True
    history_newest_first: bool = False
    # A chat format (``chat``) sent to an endpoint without a chat API: each message in the model's
    # own chat template (``{content}``), then the assistant's turn opened; ChatML (Qwen) unless
    # the record says otherwise. ``completion_stop``: the turn's end, added to ``stop`` there.
    completion_system: str = "<|im_start|>system\n{content}<|im_end|>\n"
    completion_user: str = "<|im_start|>user\n{content}<|im_end|>\n"
    completion_assistant: str = "<|im_start|>assistant\n"
    completion_stop: list[str] = Field(default_factory=lambda: ["<|im_end|>", "<|endoftext|>"])
    # jupytext's "percent" script form of a notebook (``# %%`` cells), which code models have read
    cell_separator: str = "{comment} %% [{n}]{run}"

    _tmpl = field_validator(
        "system",
        "cell_separator",
        "template",
        "file_item",
        "files_block",
        "files_empty",
        "history_item",
        "history_block",
        "history_empty",
        "excerpt",
    )(_check_edit_template)


class PromptStyle(BaseModel):
    """One model family's prompt format. See the module docstring for template fields."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    source: str = ""
    patterns: list[str] = Field(default_factory=list)
    fim: FimSpec | None = None
    repo: RepoSpec | None = None
    stop: list[str] = Field(default_factory=list)
    eot: list[str] = Field(default_factory=list)
    native_suffix: bool = False
    leftovers: list[str] = Field(default_factory=list)
    chat: bool = False
    chat_spec: ChatSpec | None = None
    # Wrapping text for instruction-tuned models that take FIM inside a chat turn (Qwen3-Coder,
    # CodeGeeX4): written before and after the FIM block. Not used for plain completion.
    prompt_start: str = ""
    prompt_end: str = ""
    # A header always written right before the current file's text / FIM block (CodeGeeX4's
    # ``###PATH:...###LANGUAGE:...``).
    header: str = ""
    # Plain completion is rendered as infill with an empty suffix (instruction-tuned FIM models).
    completion_via_fim: bool = False
    # Token healing at the cursor (off for chat styles, where the model writes fresh text).
    heal: bool = True
    # The family is not trained for fill-in-the-middle (Code Llama 34B/70B and -Python, CodeGemma
    # -it): completion mode, also where a server could write a FIM prompt itself.
    no_infill: bool = False
    # Cell outputs and kernel candidates: their labels (comment lines), or off for this family.
    notebook: NotebookSpec = Field(default_factory=NotebookSpec)
    # A next-edit format (edit predictions): the family rewrites an editable region.
    edit: EditSpec | None = None

    _tmpl = field_validator("prompt_start", "prompt_end", "header")(_check_template)

    @property
    def supports_infill(self) -> bool:
        return self.fim is not None or self.chat

    @property
    def server_can_infill(self) -> bool:
        """Can a server that writes the FIM prompt itself from its own template (llama.cpp's
        ``/infill``: prefix first, no text around the FIM block, its own fixed repository layout)
        render this family the way the record says? When not, the prompt is rendered here and sent
        to the plain completion endpoint. A record without FIM tokens (``raw``) leaves it to the
        server; a family not trained for FIM says so (``no_infill``)."""
        f = self.fim
        if self.chat or self.no_infill:
            return False
        if f is None:
            return True  # no format of our own: the server's template (from the model file) is all
        if f.order != "psm":
            return False
        if self.prompt_start or self.prompt_end or self.header:
            return False
        return not (self.repo is not None and self.repo.fim_prefix_header)

    @property
    def edit_only(self) -> bool:
        """A next-edit format and nothing else (no FIM, chat or repository format of its own)."""
        return self.edit is not None and self.fim is None and not self.chat and self.repo is None

    @property
    def supports_repository(self) -> bool:
        return self.repo is not None or self.chat

    def vocabulary_tokens(self) -> tuple[list[str], list[str]]:
        """The family's special tokens as its tokenizer spells them: its FIM tokens, and the others
        it declares (FIM pad, repository tokens, stop and end-of-text tokens that look like tokens).
        A server that has them all as single tokens serves a model of this family, whatever its file
        is called (:meth:`StyleRegistry.for_vocabulary`)."""
        if self.fim is None:
            return [], []
        spelled = (self.fim.prefix, self.fim.suffix, self.fim.middle)
        fim = [t for t in map(_as_token, spelled) if t]
        others: list[str] = []
        repo = [self.repo.repo_name, self.repo.file_sep] if self.repo is not None else []
        for text in (self.fim.pad, *repo, *self.stop, *self.eot):
            token = _as_token(text or "")
            if token and token not in fim and token not in others:
                others.append(token)
        return fim, others

    def capabilities(self) -> dict[str, bool]:
        return {
            "infill": self.supports_infill,
            "repository": self.supports_repository,
            "native_suffix": self.native_suffix,
            "chat": self.chat,
            "edit": self.edit is not None,
        }


def _as_token(text: str) -> str | None:
    """``text`` without surrounding spaces when it looks like a special token (``<|fim_prefix|>``,
    ``<PRE>``, ``[SUFFIX]``, ``</s>``), else None."""
    token = text.strip()
    if len(token) >= 3 and token[0] in "<[" and token[-1] in ">]" and not any(c.isspace() for c in token):
        return token
    return None


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Override ``base`` with ``override``; nested records (``fim``, ``repo``...) merge one level."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def style_from_record(
    name: str, record: PromptStyle | Mapping[str, Any], base: Mapping[str, PromptStyle] | None = None
) -> PromptStyle:
    """Validate one record. A dict may name ``extends`` (a known style) or reuse a known style's name:
    then only the fields it gives replace the known record's."""
    if isinstance(record, PromptStyle):
        return record if record.name == name else record.model_copy(update={"name": name})
    if not isinstance(record, Mapping):
        raise PromptError(
            "bad_style", f"Prompt style {name!r} must be a record (dict), not {type(record).__name__}."
        )
    data = dict(record)
    parent_name = data.pop("extends", None)
    known = base or {}
    if parent_name is not None and parent_name not in known:
        raise PromptError("bad_style", f"Prompt style {name!r} extends unknown style {parent_name!r}.")
    parent = known.get(parent_name) if parent_name is not None else known.get(name)
    if parent is not None:
        data = _merge(parent.model_dump(exclude_defaults=True), data)
    data["name"] = name
    try:
        return PromptStyle.model_validate(data)
    except ValidationError as e:
        errors = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors())
        raise PromptError("bad_style", f"Prompt style {name!r} is not valid: {errors}") from e


def _load_builtins() -> dict[str, PromptStyle]:
    from .builtin_styles import BUILTIN_RECORDS

    return {name: style_from_record(name, rec) for name, rec in BUILTIN_RECORDS.items()}


BUILTIN_STYLES: dict[str, PromptStyle] = _load_builtins()
DEFAULT_STYLE = "raw"
# the next-edit style of a model that has none of its own (any instruction/chat model)
GENERIC_EDIT_STYLE = "edit-chat"


class StyleRegistry:
    """Built-in styles plus the user's records; picks a style from a model name.

    ``user_styles`` maps a name to a :class:`PromptStyle` or a plain dict (as from a traitlet). A
    user record with a built-in's name (or with ``"extends": "<name>"``) overrides only the fields it
    gives. ``default`` is the style used when no pattern matches a model name.
    """

    def __init__(
        self,
        user_styles: Mapping[str, PromptStyle | Mapping[str, Any]] | None = None,
        default: str = DEFAULT_STYLE,
    ) -> None:
        self._styles: dict[str, PromptStyle] = dict(BUILTIN_STYLES)
        self._user: set[str] = set()
        if user_styles is not None and not isinstance(user_styles, Mapping):
            raise PromptError("bad_style", "prompt_styles must map a style name to a record.")
        for name, record in (user_styles or {}).items():
            if not isinstance(name, str) or not name:
                raise PromptError("bad_style", f"Prompt style names must be non-empty strings, not {name!r}.")
            self._styles[name] = style_from_record(name, record, self._styles)
            self._user.add(name)
        if default not in self._styles:
            raise PromptError("unknown_style", f"The default prompt style {default!r} is not known.")
        self.default = default

    def get(self, name: str) -> PromptStyle:
        try:
            return self._styles[name]
        except KeyError:
            known = ", ".join(sorted(self._styles))
            raise PromptError(
                "unknown_style", f"Unknown prompt style {name!r}; known styles: {known}."
            ) from None

    def all(self) -> dict[str, PromptStyle]:
        return dict(self._styles)

    def is_user(self, name: str) -> bool:
        return name in self._user

    def vocabulary_tokens(self, limit: int = 128) -> list[str]:
        """Every special token a FIM family declares (FIM tokens first), at most ``limit``: what a
        client asks a model server to tokenize to learn the family it serves."""
        fim: list[str] = []
        others: list[str] = []
        for style in self._fim_styles():
            first, rest = style.vocabulary_tokens()
            fim += [t for t in first if t not in fim]
            others += [t for t in rest if t not in others]
        return [*fim, *[t for t in others if t not in fim]][:limit]

    def _fim_styles(self) -> list[PromptStyle]:
        return [s for s in self._styles.values() if s.fim is not None and not s.chat and not s.no_infill]

    def for_vocabulary(self, single: Collection[str], model_name: str = "") -> PromptStyle | None:
        """The FIM family whose tokens the model's vocabulary has as single special tokens
        (``single``: the tokens of :meth:`vocabulary_tokens` that the server tokenized to one
        token), or None when no family's FIM tokens are all there.

        Among the families that pass, the one ``model_name`` names wins; then the one with the
        largest share of its other declared tokens present, then the most of them, then the first
        record (a base family before the variants derived from it)."""
        named = self.for_model(model_name) if model_name else None
        best: tuple[tuple[int, float, int, int], PromptStyle] | None = None
        for index, style in enumerate(self._fim_styles()):
            fim, others = style.vocabulary_tokens()
            if not fim or any(t not in single for t in fim):
                continue
            present = sum(t in single for t in others)
            share = present / len(others) if others else 1.0
            key = (int(named is not None and named.name == style.name), share, present, -index)
            if best is None or key > best[0]:
                best = (key, style)
        return best[1] if best else None

    def for_model(self, model_name: str) -> PromptStyle:
        """The style whose longest pattern matches ``model_name`` (case-insensitive ``fnmatch``).

        On equal length a user record wins over a built-in. No match: the default style.
        """
        return self._best(model_name, self._styles.values()) or self._styles[self.default]

    def for_edits(self, model_name: str) -> PromptStyle:
        """The next-edit style for ``model_name``: as :meth:`for_model`, among the styles with a
        next-edit format; no match: the generic one for instruction models (:data:`GENERIC_EDIT_STYLE`)."""
        with_edits = [s for s in self._styles.values() if s.edit is not None]
        return self._best(model_name, with_edits) or self.get(GENERIC_EDIT_STYLE)

    def _best(self, model_name: str, styles: Iterable[PromptStyle]) -> PromptStyle | None:
        name = model_name.lower()
        best: tuple[int, int, PromptStyle] | None = None
        for style in styles:
            rank = 1 if style.name in self._user else 0
            for pat in style.patterns:
                if fnmatch.fnmatchcase(name, pat.lower()):
                    key = (len(pat), rank)
                    if best is None or key > best[:2]:
                        best = (len(pat), rank, style)
        return best[2] if best else None
