"""Build the prompt a request makes: completion, infill, repository (also with infill), chat.

``build_prompt`` turns a :class:`PromptRequest` and a :class:`~.styles.PromptStyle` record into a
:class:`BuiltPrompt`: the prompt text (or chat messages), the stop sequences, the whitespace moved
out by token healing, and notes for the user. With a :class:`Budget` it trims the context from the
far ends, on line boundaries, so that prompt + ``max_new_tokens`` fits the context window, keeping
the text nearest the cursor; other files are dropped or trimmed before the current file is.

The layout, for a style with FIM tokens (``order="psm"``)::

    prompt_start + [repo block] + header + FIM.prefix + [fim_prefix_header] + [repo block, in_prefix]
                 + prefix
                 + FIM.suffix + suffix + FIM.middle + prompt_end

and with ``order="spm"`` the ``FIM.suffix + suffix`` part comes before ``FIM.prefix``. Nothing here
depends on a family's name: every difference between families is a field of its record.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from ..languages import DEFAULT_COMMENT, Language
from ..protocol import ContextCell, KernelCandidates
from .budget import Kept, keep_head, keep_tail, stable_tail
from .context import (
    assemble_prefix,
    assemble_suffix,
    comment_marker,
    display_path,
    language_from_path,
    language_tag,
    normalize_language,
)
from .errors import PromptError
from .healing import split_heal
from .outputs import (
    CellOutputs,
    candidate_expression,
    cursor_indent,
    insert_candidates,
    render_candidates,
)
from .styles import PromptStyle
from .tokens import EstimateCounter, TokenCounter

Mode = Literal["auto", "completion", "infill", "repository", "repository_infill"]
MODES: tuple[str, ...] = ("auto", "completion", "infill", "repository", "repository_infill")

# With a budget, cells are collected only up to this many characters per available token (far more
# than any tokenizer packs into a token) before the exact trim.
_MAX_CHARS_PER_TOKEN = 16
_FIT_ROUNDS = 4
# characters per token assumed for the window's grid (only its spacing: any fixed value works)
_GRID_CHARS_PER_TOKEN = 3


class PromptRequest(BaseModel):
    """What to complete: text around the cursor, notebook cells, other files.

    ``mode``: ``auto`` (infill when the suffix has text and the style has FIM; repository-level
    when there are files and the style supports it), ``completion``, ``infill``, ``repository``,
    ``repository_infill``. ``files`` (path or name -> content) with any mode makes a repository-level
    prompt when the style supports it. ``native_suffix`` overrides the style's flag (``None``: the
    style decides) for endpoints that do or do not take ``suffix`` themselves.
    """

    mode: Mode = "auto"
    prefix: str = ""
    suffix: str = ""
    files: dict[str, str] = Field(default_factory=dict)
    repo_name: str | None = None
    file_path: str | None = None
    language: str | None = None
    cells_above: list[ContextCell] = Field(default_factory=list)
    cells_below: list[ContextCell] = Field(default_factory=list)
    stop: list[str] = Field(default_factory=list)
    native_suffix: bool | None = None
    # what the notebook's kernel completes at the cursor (written right above the cursor's line)
    kernel_candidates: KernelCandidates | None = None


class Budget(BaseModel):
    """Token budget: prompt + ``max_new_tokens`` <= ``context_window``.

    ``prefix_share`` of what is left for text goes to the prefix when a suffix is used (a side that
    needs less gives the rest to the other); other files get what prefix and suffix leave.
    ``safety_tokens`` covers counts that do not add up exactly where pieces meet; ``verify``
    recounts the finished prompt instead (slower). ``BuiltPrompt.prompt_tokens`` is the sum of the
    parts' exact counts, or the recount with ``verify``.
    """

    context_window: int = Field(default=4096, gt=0)
    max_new_tokens: int = Field(default=256, ge=0)
    prefix_share: float = Field(default=0.75, ge=0.0, le=1.0)
    min_file_tokens: int = Field(default=32, ge=1)
    safety_tokens: int = Field(default=8, ge=0)
    # count the finished prompt once more, exactly, and trim again if the parts did not add up
    # (costs one more tokenization of the whole prompt)
    verify: bool = False
    # when the text above the cursor must be trimmed, its start moves in steps of this share of
    # the text budget (a fixed grid of lines), so consecutive prompts share their start and the
    # model server can reuse what it already read; 0: the longest tail that fits (moves per line)
    window_step: float = Field(default=0.25, ge=0.0, le=1.0)


class BuiltPrompt(BaseModel):
    prompt: str
    suffix: str | None = None
    stop: list[str] = Field(default_factory=list)
    style: str
    mode: Literal["completion", "infill", "repository", "repository_infill", "chat"]
    heal: str = ""
    notes: list[str] = Field(default_factory=list)
    prompt_tokens: int | None = None
    # added by the prompt engine (issue 4)
    messages: list[dict[str, str]] | None = None
    leftovers: list[str] = Field(default_factory=list)
    language: str | None = None
    token_counter: str | None = None
    tokens_exact: bool = False
    truncated: bool = False
    files_used: list[str] = Field(default_factory=list)
    files_dropped: list[str] = Field(default_factory=list)


def parse_request(data: Any) -> PromptRequest:
    """Validate a request dict, turning validation errors into a :class:`PromptError`."""
    if isinstance(data, PromptRequest):
        return data
    if not isinstance(data, Mapping):
        raise PromptError("bad_request", "The request must be a JSON object.")
    files = data.get("files")
    if files is not None and (
        not isinstance(files, Mapping)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
    ):
        raise PromptError("bad_files", "`files` must map file names or paths to file contents (strings).")
    try:
        return PromptRequest.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        if first["loc"] and first["loc"][0] == "mode":
            raise PromptError(
                "unknown_mode", f"Unknown mode {data.get('mode')!r}; use one of: {', '.join(MODES)}."
            ) from e
        raise PromptError("bad_request", f"Invalid request field `{loc}`: {first['msg']}.") from e


@dataclass
class _Plan:
    infill: bool
    repo: bool
    chat: bool
    native: bool
    notes: list[str] = field(default_factory=list)

    @property
    def mode(self) -> Literal["completion", "infill", "repository", "repository_infill", "chat"]:
        if self.chat:
            return "chat"
        if self.repo:
            return "repository_infill" if self.infill else "repository"
        return "infill" if self.infill else "completion"


def _has_suffix(request: PromptRequest) -> bool:
    if request.suffix.strip():
        return True
    return any(c.cell_type != "raw" and c.source.strip() for c in request.cells_below)


def _plan(request: PromptRequest, style: PromptStyle) -> _Plan:
    mode = request.mode
    explicit_infill = mode in ("infill", "repository_infill")
    has_suffix = _has_suffix(request)
    notes: list[str] = []
    if explicit_infill and not has_suffix:
        raise PromptError(
            "missing_suffix", f"Mode {mode!r} needs a suffix (text after the cursor); none was given."
        )
    if explicit_infill and not style.supports_infill:
        raise PromptError(
            "no_infill",
            f"The prompt style {style.name!r} has no fill-in-the-middle tokens; use mode 'completion' "
            "or a style with infill support.",
        )
    if mode == "completion":
        infill = False
        if has_suffix:
            notes.append("completion mode: the suffix is not used")
    elif explicit_infill:
        infill = True
    else:  # auto, repository
        infill = has_suffix and style.supports_infill
        if has_suffix and not style.supports_infill:
            notes.append(f"infill not supported by style {style.name!r}: fell back to completion")
    wants_repo = (
        mode in ("repository", "repository_infill") or bool(request.files) or request.repo_name is not None
    )
    repo = wants_repo and style.supports_repository
    if wants_repo and not style.supports_repository:
        if request.files:
            notes.append(f"style {style.name!r} has no repository support: files ignored")
        else:
            notes.append(f"style {style.name!r} has no repository support: repository mode ignored")
    native = style.native_suffix if request.native_suffix is None else request.native_suffix
    native = native and infill and not style.chat
    return _Plan(infill=infill, repo=repo, chat=style.chat, native=native, notes=notes)


def _fields(
    request: PromptRequest, style: PromptStyle, language: str | None, record: Language | None = None
) -> dict[str, str]:
    """The template fields; ``record``: the language's record when the caller has it (no lookup)."""
    path = display_path(request.file_path, language)
    shown = path
    if style.repo is not None and style.repo.file_name == "name":
        shown = posixpath.basename(path)
    return {
        "path": shown,
        "name": posixpath.basename(path),
        "language": language or "",
        "language_tag": record.title if record is not None else language_tag(language),
        "comment": (record.comment or DEFAULT_COMMENT) if record is not None else comment_marker(language),
        "repo_name": request.repo_name or "",
        "file_sep": (style.repo.file_sep or "") if style.repo is not None else "",
        "hole": style.chat_spec.hole if style.chat_spec is not None else "",
    }


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _file_block(style: PromptStyle, path: str, content: str, fields: dict[str, str]) -> str:
    if style.chat:
        spec = style.chat_spec
        assert spec is not None
        return spec.context_file.format(
            **{**fields, "path": path, "name": posixpath.basename(path)},
            content=_with_newline(content),
            prefix="",
            suffix="",
            context="",
            user="",
        )
    repo = style.repo
    assert repo is not None
    lang = language_from_path(path) or fields["language"] or None
    ff = {
        **fields,
        "path": path if repo.file_name == "path" else posixpath.basename(path),
        "name": posixpath.basename(path),
        "language": lang or "",
        "language_tag": language_tag(lang),
        "comment": comment_marker(lang),
    }
    return repo.file_header.format(**ff) + _with_newline(content) + repo.file_end


@dataclass
class _Job:
    """One prompt being built: the request, its style and plan, and what was derived from them
    once (the language, the template fields, the files, the notebook context), read by every step."""

    request: PromptRequest
    style: PromptStyle
    plan: _Plan
    count: TokenCounter
    language: str | None
    fields: dict[str, str]
    notes: list[str]
    files: list[tuple[str, str]]
    repo_name: str | None
    prefix_in: str
    outputs: CellOutputs


@dataclass
class _Rendered:
    prompt: str
    suffix: str | None
    messages: list[dict[str, str]] | None


def _render(job: _Job, prefix: str, suffix: str, file_blocks: list[str]) -> _Rendered:
    style, plan, fields, repo_name = job.style, job.plan, job.fields, job.repo_name
    if plan.chat:
        spec = style.chat_spec
        assert spec is not None
        system = spec.system.format(**fields, prefix="", suffix="", content="", context="", user="")
        user = spec.user.format(
            **fields, prefix=prefix, suffix=suffix if plan.infill else "", content="", context="", user=""
        )
        if file_blocks:
            context = spec.context_header.format(
                **fields, prefix="", suffix="", content="", context="", user=""
            )
            context += "".join(file_blocks)
            user = spec.user_with_context.format(
                **fields, context=context, user=user, prefix="", suffix="", content=""
            )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return _Rendered(f"{system}\n\n{user}", None, messages)

    use_fim = style.fim is not None and (plan.infill or style.completion_via_fim) and not plan.native
    repo_block = ""
    fim_header = ""
    if plan.repo and style.repo is not None:
        r = style.repo
        parts = []
        if r.repo_name and repo_name:
            parts.append(r.repo_name + repo_name + r.repo_name_end)
        parts.extend(file_blocks)
        current = r.current_file_header
        if use_fim and r.fim_current_file_header is not None:
            current = r.fim_current_file_header
        parts.append(current.format(**fields))
        repo_block = "".join(parts)
        fim_header = r.fim_prefix_header.format(**fields) if use_fim else ""
    in_prefix = style.repo is not None and style.repo.placement == "in_prefix"
    outer_repo = "" if in_prefix else repo_block
    inner_repo = repo_block if in_prefix else ""
    header = style.header.format(**fields)

    if plan.native:
        return _Rendered(outer_repo + header + inner_repo + prefix, suffix, None)
    if not use_fim:
        return _Rendered(outer_repo + header + inner_repo + prefix, None, None)
    f = style.fim
    assert f is not None
    sfx = suffix if plan.infill else ""
    pre_part = f.prefix + fim_header + inner_repo + prefix
    suf_part = f.suffix + sfx
    body = pre_part + suf_part if f.order == "psm" else suf_part + pre_part
    start = style.prompt_start.format(**fields)
    end = style.prompt_end.format(**fields)
    return _Rendered(start + outer_repo + header + body + f.middle + end, None, None)


def _language(request: PromptRequest) -> str | None:
    lang = normalize_language(request.language) or language_from_path(request.file_path)
    if lang:
        return lang
    for cell in (*request.cells_above[-1:], *request.cells_below[:1]):
        if cell.cell_type == "code" and cell.language:
            return normalize_language(cell.language)
    return None


def _stop(style: PromptStyle, request: PromptRequest) -> list[str]:
    return list(dict.fromkeys(s for s in (*style.stop, *style.eot, *request.stop) if s))


def build_prompt(
    request: PromptRequest,
    style: PromptStyle,
    budget: Budget | None = None,
    counter: TokenCounter | None = None,
    language: Language | None = None,
) -> BuiltPrompt:
    """The prompt ``request`` makes with ``style``; trimmed to ``budget`` when one is given.

    ``counter`` counts tokens exactly (the model's tokenizer); without one a character estimate
    is used. ``language``: the record of ``request.language`` when the caller looked it up already
    (the engine's request record); None: looked up here. Raises only :class:`PromptError`.
    """
    if not isinstance(request.files, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in request.files.items()
    ):
        raise PromptError("bad_files", "`files` must map file names or paths to file contents (strings).")
    if request.mode not in MODES:
        raise PromptError("unknown_mode", f"Unknown mode {request.mode!r}; use one of: {', '.join(MODES)}.")
    plan = _plan(request, style)
    record = language if language is not None and request.language and language.name else None
    lang = record.name if record is not None else _language(request)
    fields = _fields(request, style, lang, record)
    prefix_in, outputs = _notebook_context(request, style, fields)
    job = _Job(
        request=request,
        style=style,
        plan=plan,
        count=counter if counter is not None else EstimateCounter(),
        language=lang,
        fields=fields,
        notes=list(plan.notes),
        files=list(request.files.items()) if plan.repo else [],
        repo_name=request.repo_name if plan.repo else None,
        prefix_in=prefix_in,
        outputs=outputs,
    )
    if budget is None:
        return _build_whole(job)
    return _build_with_budget(job, budget)


def _build_whole(job: _Job) -> BuiltPrompt:
    """The prompt with all of its context (no budget)."""
    request, language = job.request, job.language
    prefix_text, _ = assemble_prefix(request.cells_above, job.prefix_in, language, outputs=job.outputs.all())
    suffix_text = assemble_suffix(request.suffix, request.cells_below, language)[0] if job.plan.infill else ""
    prefix_text, heal = split_heal(prefix_text) if job.style.heal else (prefix_text, "")
    blocks = [_file_block(job.style, p, c, job.fields) for p, c in job.files]
    rendered = _render(job, prefix_text, suffix_text, blocks)
    return _result(job, rendered, heal, truncated=False, used=[p for p, _ in job.files], dropped=[])


def _notebook_context(
    request: PromptRequest, style: PromptStyle, fields: dict[str, str]
) -> tuple[str, CellOutputs]:
    """The prefix with the kernel's candidates above the cursor's line, and each cell's outputs."""
    spec = style.notebook
    marker = fields["comment"]
    prefix = request.prefix
    candidates = request.kernel_candidates
    if spec.candidates and candidates is not None:
        label = spec.candidates_label.format(**fields, expression=candidate_expression(candidates.expression))
        block = render_candidates(candidates, label, marker, cursor_indent(prefix))
        prefix = insert_candidates(prefix, block)
    labels = (
        spec.output_label.format(**fields, expression=""),
        spec.error_label.format(**fields, expression=""),
    )
    outputs = CellOutputs(request.cells_above, labels, marker, enabled=spec.outputs)
    return prefix, outputs


def _result(
    job: _Job,
    rendered: _Rendered,
    heal: str,
    *,
    truncated: bool,
    used: list[str],
    dropped: list[str],
    tokens: int | None = None,
) -> BuiltPrompt:
    counter = job.count
    if tokens is None:
        tokens = counter.count(rendered.prompt)
        if rendered.suffix:
            tokens += counter.count(rendered.suffix)
    return BuiltPrompt(
        prompt=rendered.prompt,
        suffix=rendered.suffix,
        stop=_stop(job.style, job.request),
        style=job.style.name,
        mode=job.plan.mode,
        heal=heal,
        notes=job.notes,
        prompt_tokens=tokens,
        messages=rendered.messages,
        leftovers=list(job.style.leftovers),
        language=job.language,
        token_counter=counter.name,
        tokens_exact=counter.exact,
        truncated=truncated,
        files_used=used,
        files_dropped=dropped,
    )


def _build_with_budget(job: _Job, budget: Budget) -> BuiltPrompt:
    request, style, plan, count, language, notes = (
        job.request,
        job.style,
        job.plan,
        job.count,
        job.language,
        job.notes,
    )
    window = budget.context_window - budget.max_new_tokens
    if window <= 0:
        raise PromptError(
            "bad_budget",
            f"max_new_tokens ({budget.max_new_tokens}) leaves no room in a context window of "
            f"{budget.context_window} tokens.",
        )
    skeleton = _render(job, "", "", [])
    overhead = count.count(skeleton.prompt)
    avail = window - overhead - budget.safety_tokens
    max_chars = max(avail, 1) * _MAX_CHARS_PER_TOKEN
    # outputs are left out here: they only get what the code leaves (see _fit_outputs)
    prefix_text, cut_p = assemble_prefix(request.cells_above, job.prefix_in, language, max_chars)
    suffix_text, cut_s = ("", False)
    if plan.infill:
        suffix_text, cut_s = assemble_suffix(request.suffix, request.cells_below, language, max_chars)
    prefix_text, heal = split_heal(prefix_text) if style.heal else (prefix_text, "")

    # the cursor's own line must fit
    p_line = prefix_text.rfind("\n") + 1
    s_line = suffix_text.find("\n") + 1 or len(suffix_text)
    required = count.count(prefix_text[p_line:]) + (count.count(suffix_text[:s_line]) if suffix_text else 0)
    if required > avail:
        raise PromptError(
            "prompt_too_long",
            f"The cursor's line needs {required} tokens, but the context window leaves {max(avail, 0)} "
            f"for text ({budget.context_window} - {budget.max_new_tokens} new tokens - {overhead} for "
            f"the {style.name!r} template).",
        )

    text_avail = avail
    for _ in range(_FIT_ROUNDS):
        pre, suf = _fit_prefix_suffix(prefix_text, suffix_text, p_line, s_line, text_avail, budget, count)
        left = avail - pre.tokens - suf.tokens
        pre, left, outputs_complete = _fit_outputs(job, pre, cut_p, left)
        blocks, used, dropped, files_tokens = _fit_files(job, left, budget)
        rendered = _render(job, pre.text, suf.text, blocks)
        # counted by parts (template, prefix, suffix, files): each part was counted exactly
        total = overhead + pre.tokens + suf.tokens + files_tokens
        if not budget.verify:
            break
        total = count.count(rendered.prompt) + (count.count(rendered.suffix) if rendered.suffix else 0)
        if total <= window:
            break
        # pieces did not add up (tokens merging across joins): take the excess off the far ends
        text_avail = max(required, text_avail - (total - window) - budget.safety_tokens)
    else:
        raise PromptError("prompt_too_long", "The prompt could not be made to fit the context window.")

    truncated = cut_p or cut_s or not pre.complete or not suf.complete or bool(dropped)
    if not pre.complete or cut_p:
        notes.append("context above the cursor was trimmed to fit the token budget")
    if plan.infill and (not suf.complete or cut_s):
        notes.append("context below the cursor was trimmed to fit the token budget")
    if dropped:
        notes.append(f"files left out to fit the token budget: {', '.join(dropped)}")
    if not outputs_complete:
        notes.append("cell outputs left out to fit the token budget")
    return _result(job, rendered, heal, truncated=truncated, used=used, dropped=dropped, tokens=total)


def _fit_prefix_suffix(
    prefix: str, suffix: str, p_line: int, s_line: int, avail: int, budget: Budget, count: TokenCounter
) -> tuple[Kept, Kept]:
    pre, suf = _fit_tight(prefix, suffix, p_line, s_line, avail, budget, count)
    # the step is in characters, from the text budget (fixed for a model), so the grid stays put
    step = int(avail * budget.window_step * _GRID_CHARS_PER_TOKEN)
    return stable_tail(prefix, pre, count, step, p_line), suf


def _fit_tight(
    prefix: str, suffix: str, p_line: int, s_line: int, avail: int, budget: Budget, count: TokenCounter
) -> tuple[Kept, Kept]:
    if not suffix:
        return keep_tail(prefix, avail, count, min_start=p_line), Kept("", 0, True)
    p_budget = int(avail * budget.prefix_share)
    s_budget = avail - p_budget
    suf = keep_head(suffix, s_budget, count, min_end=s_line)
    pre = keep_tail(prefix, avail - suf.tokens if suf.complete else p_budget, count, min_start=p_line)
    if pre.complete and not suf.complete:
        suf = keep_head(suffix, avail - pre.tokens, count, min_end=s_line)
    if pre.tokens + suf.tokens > avail:
        # the cursor lines forced more than a share allowed: shrink the prefix first
        pre = keep_tail(prefix, avail - suf.tokens, count, min_start=p_line)
    return pre, suf


def _fit_outputs(job: _Job, pre: Kept, cut: bool, left: int) -> tuple[Kept, int, bool]:
    """Add cell outputs, nearest cell first, into what the code left: outputs rank below code.

    Only when every cell above fit whole (a cell's output without the cell would mislead);
    stops at the first cell whose outputs do not fit, and renders no output past it. Returns
    (prefix, tokens left, whether every cell's outputs are in).
    """
    outputs, count = job.outputs, job.count
    if not outputs.indexes:
        return pre, left, True
    if cut or not pre.complete or left <= 0:
        return pre, left, False
    chosen: dict[int, str] = {}
    spent = 0
    complete = True
    for index in reversed(outputs.indexes):
        text = outputs.get(index)
        if text is None:
            continue
        # an output block longer than any tokenizer could pack into what is left is not counted
        cost = count.count(text + "\n") if len(text) <= left * _MAX_CHARS_PER_TOKEN else left + 1
        if cost > left:
            complete = False
            break
        chosen[index] = text
        left -= cost
        spent += cost
    if not chosen:
        return pre, left, complete
    text, _ = assemble_prefix(job.request.cells_above, job.prefix_in, job.language, outputs=chosen)
    if job.style.heal:
        text = split_heal(text)[0]
    return Kept(text, pre.tokens + spent, True), left, complete


def _fit_files(job: _Job, left: int, budget: Budget) -> tuple[list[str], list[str], list[str], int]:
    style, fields, count = job.style, job.fields, job.count
    blocks: list[str] = []
    used: list[str] = []
    dropped: list[str] = []
    spent = 0
    for path, content in job.files:
        block = _file_block(style, path, content, fields)
        # a block longer than any tokenizer could pack into what is left is not counted at all
        fits_maybe = 0 < left and len(block) <= left * _MAX_CHARS_PER_TOKEN
        cost = count.count(block) if fits_maybe else left + 1
        if cost > left:
            block, cost = _trimmed_file(job, path, content, left, budget)
        if cost > left:
            dropped.append(path)
            continue
        blocks.append(block)
        used.append(path)
        left -= cost
        spent += cost
    return blocks, used, dropped, spent


def _trimmed_file(job: _Job, path: str, content: str, left: int, budget: Budget) -> tuple[str, int]:
    """The block of a file that does not fit whole: its head, in what is left; ("", left + 1)
    when not even :attr:`Budget.min_file_tokens` of it fits."""
    style, fields, count = job.style, job.fields, job.count
    none = ("", left + 1)
    if left < budget.min_file_tokens:
        return none
    room = left - count.count(_file_block(style, path, "", fields))
    if room < budget.min_file_tokens:
        return none
    kept = keep_head(content, room, count)
    if not kept.text.strip():
        return none
    block = _file_block(style, path, kept.text, fields)
    return block, count.count(block)
