"""The built-in prompt style records (data only; validated into ``PromptStyle`` by ``styles.py``).

Each record has the shape a user writes in ``c.CodeCompleteApp.prompt_styles``. Token strings are
taken from the model cards / tokenizer configs named in ``source``. Families whose card documents
no repository tokens get a comment header for other files (the layout DeepSeek-Coder's card shows),
placed inside the prefix.
"""

from __future__ import annotations

from typing import Any

_STARCODER_FIM = {
    "prefix": "<fim_prefix>",
    "suffix": "<fim_suffix>",
    "middle": "<fim_middle>",
    "pad": "<fim_pad>",
}
# how a model with the StarCoder tokenizer ends its text, and the FIM padding it may leave
_STARCODER_ENDS: dict[str, Any] = {"eot": ["<|endoftext|>"], "leftovers": ["<fim_pad>"]}
_QWEN_FIM = {
    "prefix": "<|fim_prefix|>",
    "suffix": "<|fim_suffix|>",
    "middle": "<|fim_middle|>",
    "pad": "<|fim_pad|>",
}
_QWEN_REPO = {"repo_name": "<|repo_name|>", "repo_name_end": "\n", "file_sep": "<|file_sep|>"}
_QWEN_STOP = [
    "<|endoftext|>",
    "<|file_sep|>",
    "<|repo_name|>",
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|fim_pad|>",
    "<|im_start|>",
    "<|im_end|>",
]
_DEEPSEEK_FIM = {"prefix": "<｜fim▁begin｜>", "suffix": "<｜fim▁hole｜>", "middle": "<｜fim▁end｜>"}
_DEEPSEEK_STOP = ["<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<｜end▁of▁sentence｜>", "<|EOT|>"]
# Models without repository tokens: other files under a line-comment header, inside the prefix.
_COMMENT_REPO = {
    "file_header": "{comment} Path: {path}\n",
    "current_file_header": "{comment} Path: {path}\n",
    "placement": "in_prefix",
}

CHAT_SYSTEM = (
    "You are a code completion engine. The user sends a {language_tag} file with exactly one hole "
    "marked {hole}. Reply with only the text that replaces {hole}: start with <COMPLETION>, end "
    "with </COMPLETION>, keep the file's indentation, and write nothing else (no explanations, no "
    "Markdown fences). If nothing belongs in the hole, reply <COMPLETION></COMPLETION>."
)
CHAT_USER = (
    "File: {path}\n<QUERY>\n{prefix}{hole}{suffix}\n</QUERY>\n"
    "Fill the {hole} hole. Answer with <COMPLETION>...</COMPLETION> only."
)

BUILTIN_RECORDS: dict[str, dict[str, Any]] = {
    "raw": {
        "description": "Prefix only, no special tokens: any base model through a plain completion endpoint.",
    },
    "chat": {
        "description": "Instruction/chat models: a fill-the-hole message; the answer is between "
        "<COMPLETION> and </COMPLETION>.",
        "source": "Continue's hole-filler prompt (VictorTaelin/AI-scripts) adapted",
        "patterns": [
            "gpt-3.5*",
            "gpt-4*",
            "gpt-5*",
            "o1*",
            "o3*",
            "o4*",
            "*claude*",
            "*gemini*",
            "*-chat",
            "*mistral-large*",
            "*mistral-small*",
        ],
        "chat": True,
        "heal": False,
        "chat_spec": {
            "hole": "<FILL_HERE>",
            "system": CHAT_SYSTEM,
            "user": CHAT_USER,
            "context_header": "Other files of the project, for reference:\n",
            "context_file": "<FILE path={path}>\n{content}</FILE>\n",
            "user_with_context": "{context}\n{user}",
        },
        "stop": ["</COMPLETION>"],
        "leftovers": ["<COMPLETION>", "</COMPLETION>"],
        # an instruction model reads labels as sentences
        "notebook": {
            "output_label": "{comment} Output of the cell above:",
            "error_label": "{comment} The cell above failed with:",
            "candidates_label": "{comment} The running kernel completes {expression} with:",
        },
    },
    "starcoder": {
        "description": "StarCoder / StarCoderBase (BigCode, 2023).",
        "source": "https://huggingface.co/bigcode/starcoder (tokenizer special tokens)",
        "patterns": ["*starcoder*", "*starcoderbase*", "*octocoder*"],
        "fim": _STARCODER_FIM,
        "repo": {
            "repo_name": "<reponame>",
            "repo_name_end": "",
            "file_sep": "<filename>",
        },
        "stop": ["<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<filename>", "<reponame>"],
        **_STARCODER_ENDS,
    },
    "starcoder2": {
        "description": "StarCoder2 3B/7B/15B (BigCode, 2024).",
        "source": "StarCoder2 paper (arXiv 2402.19173) section 5.1; bigcode/starcoder2-15b tokenizer",
        "patterns": ["*starcoder2*", "*starcoder-2*"],
        "fim": _STARCODER_FIM,
        "repo": {
            "repo_name": "<repo_name>",
            "repo_name_end": "",
            "file_sep": "<file_sep>",
            # infill: <file_sep><fim_prefix>path\ncode_pre<fim_suffix>... (the path after <fim_prefix>)
            "fim_current_file_header": "{file_sep}",
            "fim_prefix_header": "{path}\n",
        },
        "stop": [
            "<|endoftext|>",
            "<file_sep>",
            "<repo_name>",
            "<fim_prefix>",
            "<fim_suffix>",
            "<fim_middle>",
        ],
        **_STARCODER_ENDS,
    },
    "codeqwen1.5": {
        "description": "CodeQwen1.5-7B (Qwen, 2024).",
        "source": "https://github.com/QwenLM/CodeQwen1.5 (README: FIM and repository-level completion)",
        "patterns": ["*codeqwen*", "*code-qwen*"],
        "fim": _STARCODER_FIM,
        "repo": {"repo_name": "<reponame>", "repo_name_end": "\n", "file_sep": "<file_sep>"},
        "stop": ["<|endoftext|>", "<file_sep>", "<reponame>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>"],
        **_STARCODER_ENDS,
    },
    "qwen2.5-coder": {
        "description": "Qwen2.5-Coder base and instruct models (Qwen, 2024).",
        "source": "https://github.com/QwenLM/Qwen2.5-Coder (README sections 3 and 4)",
        "patterns": ["*qwen2.5*coder*", "*qwen2.5-coder*", "*qwen2-coder*"],
        "fim": _QWEN_FIM,
        "repo": _QWEN_REPO,
        "stop": _QWEN_STOP,
        "eot": ["<|endoftext|>"],
        "leftovers": ["<|fim_pad|>"],
    },
    "qwen3-coder": {
        "description": "Qwen3-Coder instruct models: Qwen2.5-Coder's FIM tokens inside a ChatML turn.",
        "source": "https://github.com/QwenLM/Qwen3-Coder (README: Fill in the middle)",
        "patterns": ["*qwen3*coder*", "*qwen3-coder*"],
        "fim": _QWEN_FIM,
        "repo": _QWEN_REPO,
        "prompt_start": (
            "<|im_start|>system\nYou are a code completion assistant.<|im_end|>\n<|im_start|>user\n"
        ),
        "prompt_end": "<|im_end|>\n<|im_start|>assistant\n",
        "completion_via_fim": True,
        "stop": _QWEN_STOP,
        "eot": ["<|im_end|>", "<|endoftext|>"],
        "leftovers": ["<|fim_pad|>"],
    },
    "deepseek-coder": {
        "description": "DeepSeek-Coder 1.3B/6.7B/33B (DeepSeek, 2023). Other files as '#path' headers.",
        "source": "https://huggingface.co/deepseek-ai/deepseek-coder-6.7b-base (README)",
        "patterns": ["*deepseek-coder*", "*deepseek_coder*", "*deepseekcoder*"],
        "fim": _DEEPSEEK_FIM,
        "repo": {
            "file_header": "{comment}{path}\n",
            "current_file_header": "{comment}{path}\n",
            "placement": "in_prefix",
        },
        "stop": _DEEPSEEK_STOP,
        "eot": ["<｜end▁of▁sentence｜>", "<|EOT|>"],
    },
    "deepseek-coder-v2": {
        "description": "DeepSeek-Coder-V2 and V2-Lite (DeepSeek, 2024).",
        "source": "https://huggingface.co/deepseek-ai/DeepSeek-Coder-V2-Lite-Base (README: code insertion)",
        "patterns": ["*deepseek-coder-v2*", "*deepseek-coder-v2-lite*", "*deepseek_coder_v2*"],
        "fim": _DEEPSEEK_FIM,
        "repo": {
            "file_header": "{comment}{path}\n",
            "current_file_header": "{comment}{path}\n",
            "placement": "in_prefix",
        },
        "stop": _DEEPSEEK_STOP,
        "eot": ["<｜end▁of▁sentence｜>"],
    },
    "codellama": {
        "description": "Code Llama 7B/13B (base, instruct) infilling; no repository tokens.",
        "source": "facebookresearch/codellama generation.py: '<PRE> ' prefix ' <SUF>' suffix ' <MID>'",
        "patterns": ["*codellama*", "*code-llama*", "*code_llama*"],
        "fim": {"prefix": "<PRE> ", "suffix": " <SUF>", "middle": " <MID>"},
        "stop": ["<EOT>", "<PRE>", "<SUF>", "<MID>"],
        "eot": ["</s>", "<EOT>"],
        "leftovers": [" <EOT>", "<EOT>"],
    },
    "codestral": {
        "description": "Codestral (Mistral): suffix first; Mistral's FIM endpoint takes the suffix natively.",
        "source": "mistral-common FIM encoding ([SUFFIX]suffix[PREFIX]prefix); docs.mistral.ai FIM endpoint",
        "patterns": ["*codestral*"],
        "fim": {"prefix": "[PREFIX]", "suffix": "[SUFFIX]", "middle": "", "order": "spm"},
        "repo": _COMMENT_REPO,
        "native_suffix": True,
        "stop": ["[PREFIX]", "[SUFFIX]", "[MIDDLE]"],
        "eot": ["</s>"],
    },
    "codegemma": {
        "description": "CodeGemma 2B/7B pretrained (Google, 2024).",
        "source": "https://huggingface.co/google/codegemma-7b (README: FIM tokens, <|file_separator|>)",
        "patterns": ["*codegemma*", "*code-gemma*"],
        "fim": {"prefix": "<|fim_prefix|>", "suffix": "<|fim_suffix|>", "middle": "<|fim_middle|>"},
        "repo": {"file_sep": "<|file_separator|>"},
        "stop": [
            "<|file_separator|>",
            "<|fim_prefix|>",
            "<|fim_suffix|>",
            "<|fim_middle|>",
            "<end_of_turn>",
            "<eos>",
        ],
        "eot": ["<eos>"],
    },
    "granite": {
        "description": "IBM Granite Code 3B-34B (StarCoder tokenizer tokens).",
        "source": "https://huggingface.co/ibm-granite/granite-20b-code-base (special_tokens_map.json)",
        "patterns": ["*granite*code*", "*granite-code*"],
        "fim": _STARCODER_FIM,
        "repo": {"repo_name": "<reponame>", "repo_name_end": "", "file_sep": "<filename>"},
        "stop": ["<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<filename>", "<reponame>"],
        **_STARCODER_ENDS,
    },
    "seed-coder": {
        "description": "ByteDance Seed-Coder-8B-Base: suffix-prefix-middle order.",
        "source": "https://huggingface.co/ByteDance-Seed/Seed-Coder-8B-Base (README: FIM example)",
        "patterns": ["*seed-coder*", "*seed_coder*", "*seedcoder*"],
        "fim": {
            "prefix": "<[fim-prefix]>",
            "suffix": "<[fim-suffix]>",
            "middle": "<[fim-middle]>",
            "order": "spm",
        },
        "repo": _COMMENT_REPO,
        "stop": ["<[end▁of▁sentence]>", "<[fim-prefix]>", "<[fim-suffix]>", "<[fim-middle]>"],
        "eot": ["<[end▁of▁sentence]>"],
    },
    "stable-code": {
        "description": "Stability AI stable-code-3b (StarCoder-style FIM tokens).",
        "source": "https://huggingface.co/stabilityai/stable-code-3b (README: fill in the middle)",
        "patterns": ["*stable-code*", "*stablecode*", "*stable_code*"],
        "fim": _STARCODER_FIM,
        "repo": _COMMENT_REPO,
        "stop": ["<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>"],
        **_STARCODER_ENDS,
    },
    "codegeex4": {
        "description": "CodeGeeX4-ALL-9B (Zhipu): FIM in a user turn with ###PATH/###LANGUAGE headers.",
        "source": "https://github.com/THUDM/CodeGeeX4/blob/main/guides/Infilling_guideline.md",
        "patterns": ["*codegeex*", "*codegeex4*"],
        "fim": {
            "prefix": "<|code_prefix|>",
            "suffix": "<|code_suffix|>",
            "middle": "<|code_middle|>",
            "order": "spm",
        },
        "repo": {
            "file_header": "###REFERENCE:\n###PATH:{path}\n",
            "current_file_header": "",
            "placement": "before_fim",
        },
        "prompt_start": "<|user|>\n",
        "header": "###PATH:{path}\n###LANGUAGE:{language_tag}\n###MODE:BLOCK\n",
        "prompt_end": "<|assistant|>\n",
        "completion_via_fim": True,
        "stop": [
            "<|endoftext|>",
            "<|user|>",
            "<|assistant|>",
            "<|observation|>",
            "<|code_prefix|>",
            "<|code_suffix|>",
            "<|code_middle|>",
        ],
        "eot": ["<|endoftext|>", "<|user|>", "<|observation|>"],
    },
}

# Variants of the families above, derived from their records (data only: a copy with changes).


def _variant(base: str, **changes: Any) -> dict[str, Any]:
    record = {k: v for k, v in BUILTIN_RECORDS[base].items() if k not in changes.get("drop", ())}
    record.update({k: v for k, v in changes.items() if k != "drop"})
    return record


BUILTIN_RECORDS["codeqwen1.5-chat"] = _variant(
    "codeqwen1.5",
    description="CodeQwen1.5-7B-Chat (Ollama's codeqwen:7b): CodeQwen1.5's tokens; turns end at <|im_end|>.",
    source="https://huggingface.co/Qwen/CodeQwen1.5-7B-Chat (generation_config: eos <|im_end|>)",
    patterns=[
        "codeqwen",
        "codeqwen:latest",
        "codeqwen:7b",
        "codeqwen:7b-chat*",
        "codeqwen:chat*",
        "*codeqwen*chat*",
    ],
    stop=[*BUILTIN_RECORDS["codeqwen1.5"]["stop"], "<|im_end|>", "<|im_start|>"],
    eot=["<|im_end|>", "<|endoftext|>"],
)
# Not trained for fill-in-the-middle: completion mode (the builder notes "infill not supported").
BUILTIN_RECORDS["codellama-completion"] = _variant(
    "codellama",
    description="Code Llama 34B/70B and the -Python models: not trained for infilling; completion mode.",
    source="Code Llama paper (arXiv 2308.12950) section 2.3: infilling for the 7B and 13B models only",
    patterns=[
        "*codellama*34b*",
        "*codellama*70b*",
        "*codellama*python*",
        "*code-llama*34b*",
        "*code-llama*70b*",
        "*code-llama*python*",
    ],
    drop=("fim",),
    no_infill=True,
)
BUILTIN_RECORDS["codegemma-it"] = _variant(
    "codegemma",
    description="CodeGemma 7B instruction-tuned: not trained for fill-in-the-middle; completion mode.",
    source="https://huggingface.co/google/codegemma-7b-it (model card: FIM is for the pretrained models)",
    patterns=["*codegemma*-it*", "*codegemma*instruct*"],
    drop=("fim", "repo"),
    no_infill=True,
)
# IBM Granite 3.x / 4.x (general models that also do code): end token <|end_of_text|>, chat roles
# <|start_of_role|> / <|end_of_role|> (IBM Granite docs, prompt engineering); Granite 3.x keeps the
# StarCoder tokenizer's FIM tokens, Granite 4.0 uses <|fim_prefix|>-style ones.
_GRANITE_STOP = ["<|end_of_text|>", "<|start_of_role|>", "<|end_of_role|>"]
BUILTIN_RECORDS["granite3"] = {
    "description": "IBM Granite 3.x base and instruct models (StarCoder-style FIM tokens).",
    "source": "ibm-granite/granite-3.1-8b-base special_tokens_map.json; IBM Granite docs (end token)",
    "patterns": ["*granite-3*", "*granite3*"],
    "fim": _STARCODER_FIM,
    "repo": {"repo_name": "<reponame>", "repo_name_end": "", "file_sep": "<filename>"},
    "stop": [*_GRANITE_STOP, "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<filename>", "<reponame>"],
    "eot": ["<|end_of_text|>"],
    "leftovers": ["<fim_pad>"],
}
BUILTIN_RECORDS["granite4"] = {
    "description": "IBM Granite 4.x base and instruct models (<|fim_prefix|>-style FIM tokens).",
    "source": "IBM Granite 4.0 docs (prompt engineering: FIM, <|end_of_text|>); granite-4.0 tokenizer",
    "patterns": ["*granite-4*", "*granite4*"],
    "fim": {
        "prefix": "<|fim_prefix|>",
        "suffix": "<|fim_suffix|>",
        "middle": "<|fim_middle|>",
        "pad": "<|fim_pad|>",
    },
    "repo": _COMMENT_REPO,
    "stop": [*_GRANITE_STOP, "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
    "eot": ["<|end_of_text|>"],
    "leftovers": ["<|fim_pad|>"],
}

# -- Next-edit formats (edit predictions) -------------------------------------------------------
# Each record's ``edit`` is the format as the editor that serves the model builds it; ``source``
# names that code and the commit read. Lines of context around the region where the source sizes
# them in tokens are our choice (a number of lines), and so marked.

ZETA1_INSTRUCTION = (
    "### Instruction:\n"
    "You are a code completion assistant and your task is to analyze user edits and then rewrite an "
    "excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking "
    "into account the cursor location.\n\n"
)
# The system prompt Instinct's weights were trained with (continuedev/instinct utils/datautils.py
# @2f888a1b152fdaab37a1c9043b749aabdf55a305, SYSTEM_PROMPT; Continue's constants.ts now says "AI
# agent"). Continue's client sends none (NextEditProvider: a "fineTuned" endpoint gets the user turn
# alone), and so does the record; a user record can set ``system`` to it.
INSTINCT_SYSTEM = (
    "You are Instinct, an intelligent next-edit predictor developed by Continue.dev. Your role as an "
    "AI assistant is to help developers complete their code tasks by predicting the next edit that "
    "they will make within the section of code marked by <|editable_region_start|> and "
    "<|editable_region_end|> tags.\n\n"
    "You have access to the following information to help you make informed suggestions:\n\n"
    '- Context: In the section marked "### Context", there are context items from potentially '
    "relevant files in the developer's codebase. Each context item consists of a <|context_file|> "
    "marker, the filepath, a <|snippet|> marker, and then some content from that file, in that "
    "order. Keep in mind that not all of the context information may be relevant to the task, so "
    "use your judgement to determine which parts to consider.\n"
    '- User Edits: In the section marked "### User Edits:", there is a record of the most recent '
    "changes made to the code, helping you understand the evolution of the code and the developer's "
    "intentions. These changes are listed from most recent to least recent. It's possible that some "
    "of the edit diff history is entirely irrelevant to the developer's change. The changes are "
    "provided in a unified line-diff format, i.e. with pluses and minuses for additions and "
    "deletions to the code.\n"
    '- User Excerpt: In the section marked "### User Excerpt:", there is a filepath to the '
    "developer's current file, and then an excerpt from that file. The <|editable_region_start|> and "
    "<|editable_region_end|> markers are within this excerpt. Your job is to rewrite only this "
    "editable region, not the whole excerpt. The excerpt provides additional context on the "
    "surroundings of the developer's edit.\n"
    "- Cursor Position: Within the user excerpt's editable region, the <|user_cursor_is_here|> flag "
    "indicates where the developer's cursor is currently located, which can be crucial for "
    "understanding what part of the code they are focusing on. Do not produce this marker in your "
    "output; simply take it into account.\n\n"
    "Your task is to predict and complete the changes the developer would have made next in the "
    "editable region. The developer may have stopped in the middle of typing. Your goal is to keep "
    "the developer on the path that you think they're following. Some examples include further "
    "implementing a class, method, or variable, or improving the quality of the code. Make sure the "
    "developer doesn't get distracted by ensuring your suggestion is relevant. Consider what changes "
    "need to be made next, if any. If you think changes should be made, ask yourself if this is "
    "truly what needs to happen. If you are confident about it, then proceed with the changes.\n\n"
    "# Steps\n\n"
    "1. **Review Context**: Analyze the context from the resources provided, such as recently viewed "
    "snippets, edit history, surrounding code, and cursor location.\n"
    "2. **Evaluate Current Code**: Determine if the current code within the tags requires any "
    "corrections or enhancements.\n"
    "3. **Suggest Edits**: If changes are required, ensure they align with the developer's patterns "
    "and improve code quality.\n"
    "4. **Maintain Consistency**: Ensure indentation and formatting follow the existing code style.\n\n"
    "# Output Format\n\n"
    "- Provide only the revised code within the tags. Do not include the tags in your output.\n"
    "- Ensure that you do not output duplicate code that exists outside of these tags.\n"
    "- Avoid undoing or reverting the developer's last change unless there are obvious typos or errors."
)
INSTINCT_USER_PREFIX = (
    "Reference the user excerpt, user edits, and the snippets to understand the developer's intent. "
    "Update the editable region of the user excerpt by predicting and completing the changes they "
    "would have made next. This may be a deletion, addition, or modification of code."
)
EDIT_CHAT_SYSTEM = (
    "You predict the next edit a programmer makes. The user sends the recent edits as unified "
    "diffs, other files for reference, and the current {language_tag} file, in which the editable "
    "region lies between <|editable_region_start|> and <|editable_region_end|> and the cursor is "
    "marked <|cursor|>. Rewrite the editable region as it should read after the programmer's next "
    "edit (the lines below a renamed name or a changed signature follow it; unchanged if no edit "
    "is needed). Reply with the rewritten region only, between <REWRITE> and </REWRITE>: no "
    "explanations, no Markdown fences, no markers, nothing from outside the region."
)

BUILTIN_RECORDS["zeta1"] = {
    "description": "Zed's Zeta (Qwen2.5-Coder-7B fine-tune): next-edit predictions, instruction format.",
    "source": "zed-industries/zed crates/zeta_prompt/src/zeta_prompt.rs, module zeta1 (format_zeta1_prompt, "
    "clean_zeta1_model_output, the tests test_format_zeta1_from_input_*: the stored version id 4725512672, "
    "the index gives no commit); the history lines as the client that made the training data wrote them "
    "(crates/zeta Event::to_prompt, 'User edited {:?}'), seen in a logged request: "
    "g0t4/zed-zeta-server try-zeta/server/examples.md @f3c9909fd828d8f7672d0a3353ac5c4907f9380c; "
    "huggingface.co/zed-industries/zeta (model card)",
    "patterns": ["*zeta*"],
    "edit": {
        "template": ZETA1_INSTRUCTION
        + "### User Edits:\n\n{history}\n\n### User Excerpt:\n\n{excerpt}\n\n### Response:\n",
        # the path quoted ({:?}) and the diff ending in a line break, as the client that made the
        # training data (crates/zeta) wrote it, so the block ends with a blank line
        "history_item": 'User edited "{path}":\n```diff\n{diff_lines}\n```',
        "history_sep": "\n\n",
        "excerpt": "```{path}\n{start_of_file}{before}<|editable_region_start|>\n{region_line}\n"
        "<|editable_region_end|>{after_line}\n```",
        "cursor": "<|user_cursor_is_here|>",
        "start_of_file": "<|start_of_file|>\n",
        # ours: zed sizes the excerpt in tokens (150-token region, 350 of context)
        "context_lines_before": 8,
        "context_lines_after": 8,
        "region_lines_above": 1,
        "region_lines_below": 8,
        "answer": {
            "start": "<|editable_region_start|>",
            "end": ["<|editable_region_end|>"],
            "require_end": True,
            "strip": ["<|user_cursor_is_here|>"],
            # clean_zeta1_model_output: the line break before the end marker is the format's
            "end_break": True,
        },
    },
}
BUILTIN_RECORDS["zeta2"] = {
    "description": "Zed's Zeta 2 (Seed-Coder-8B fine-tune): suffix first, git merge markers, NO_EDITS.",
    "source": "zed-industries/zed crates/zeta_prompt/src/zeta_prompt.rs, module seed_coder "
    "(ZetaFormat::V0211SeedCoder and V0304SeedNoEdits, which write the same cursor section; the tests "
    "test_seed_coder_*: the stored version id 4725512672, the index gives no commit; write_event as at "
    "commit ef3ed54d11abac36149ddfff39af7b5a5fa8669c); zed.dev/blog/how-we-developed-zeta2. Not the "
    "newest zed format: the multi-region formats (<|marker_N|>, V0306 on) came after it",
    "patterns": ["*zeta-2*", "*zeta2*", "*zeta_2*", "*zeta 2*"],
    "edit": {
        # the suffix from the region's last line break: it starts with "\n" (zed's region ends at
        # the end of its last line)
        "template": "<[fim-suffix]>{after_line_nl}<[fim-prefix]>{files}{history}{excerpt}<[fim-middle]>",
        "file_item": "<filename>{path}\n{content}",
        "files_block": "{items}\n",
        "history_item": "--- a/{path}\n+++ b/{path}\n{diff_lines}",
        "history_block": "<filename>edit_history\n{items}\n",
        "excerpt": "<filename>{path}\n{before}<<<<<<< CURRENT\n{region}=======\n",
        "cursor": "<|user_cursor|>",
        # ours: zed sizes the region in tokens (350) with 150 tokens of context
        "context_lines_before": 20,
        "context_lines_after": 20,
        "region_lines_above": 2,
        "region_lines_below": 10,
        "stop": ["<[end\u2581of\u2581sentence]>", "<[fim-prefix]>", "<[fim-suffix]>", "<[fim-middle]>"],
        "answer": {
            "end": [">>>>>>> UPDATED"],
            "require_end": True,
            "no_edits": "NO_EDITS",
            "strip": ["<|user_cursor|>"],
        },
    },
}
BUILTIN_RECORDS["zeta2.1"] = {
    "description": "Zed's Zeta 2.1 (Seed-Coder-8B fine-tune): suffix first, the region in numbered "
    "blocks (<|marker_N|>), the answer rewrites a span of them.",
    "source": "huggingface.co/zed-industries/zeta-2.1 README.md @dfccd40 (model version "
    "0323-multi-region-filtered-r3; its minimal example prompt and output are the goldens); "
    "zed-industries/zed crates/zeta_prompt/src/multi_region.rs @17c39e85357a92f5ec3c679ac80aacf05f1ee203 "
    "(ZetaFormat::V0318SeedMultiRegions: blocks of 6 to 16 lines, write_editable_with_markers_v0318, "
    "extract_marker_span / apply_marker_span; the same marker twice: no edits)",
    "patterns": ["*zeta-2.1*", "*zeta2.1*", "*zeta_2.1*", "*zeta-2-1*", "*zeta 2.1*"],
    "edit": {
        "template": "<[fim-suffix]>{after_line_nl}<[fim-prefix]>{files}{history}{excerpt}\n<[fim-middle]>",
        "file_item": "<filename>{path}\n{content}",
        "files_block": "{items}\n",
        "history_item": "--- a/{path}\n+++ b/{path}\n{diff_lines}",
        "history_block": "<filename>edit_history\n{items}\n",
        "excerpt": "<filename>{path}\n{before}{region_blocks}",
        "cursor": "<|user_cursor|>",
        "blocks": {"marker": "<|marker_{n}|>", "min_lines": 6, "max_lines": 16},
        # ours: zed sizes the region in tokens (350) with 150 tokens of context
        "context_lines_before": 20,
        "context_lines_after": 20,
        "region_lines_above": 8,
        "region_lines_below": 24,
        "stop": ["<[end\u2581of\u2581sentence]>", "<[fim-prefix]>", "<[fim-suffix]>", "<[fim-middle]>"],
        "answer": {"marker_span": True, "strip": ["<|user_cursor|>"]},
    },
}
BUILTIN_RECORDS["instinct"] = {
    "description": "Continue's Instinct (Qwen2.5-Coder-7B fine-tune): system prompt, chat turn.",
    "source": "continuedev/continue @d0a3c0b626b5bebc3bef4742eec05a0242be0bab: core/nextEdit/constants.ts "
    "(system prompt, markers, window), templating/NextEditPromptEngine.ts (template), "
    "templating/instinct.ts and its fixtures templating/instinct.vitest.ts (blocks), "
    "providers/InstinctNextEditProvider.ts, NextEditProvider.ts (a fine-tuned endpoint gets the user "
    "turn alone), context/processNextEditData.ts with autocomplete/templating/AutocompleteTemplate.ts "
    "(the context: Codestral-style items, the current file's prefix last; no fixture of the composed "
    "block, so it follows the code)",
    "patterns": ["*instinct*"],
    "edit": {
        "chat": True,
        # no system message: Continue sends a fine-tuned endpoint (all of its endpoints) the user
        # turn alone (NextEditProvider.ts: ``endpointType === "fineTuned" ? [prompts[1]] : prompts``)
        "template": INSTINCT_USER_PREFIX + "\n\n### Context:\n{files}\n\n### User Edits:\n\n{history}\n\n"
        "### User Excerpt:\n{path}\n\n{excerpt}```\n### Response:",
        # the context as Continue makes it: Codestral-style items ("+++++ path \ncontent", joined by
        # blank lines, the current file's prefix last) turned into <|context_file|> / <|snippet|>
        "file_item": "<|context_file|>: {path} \n<|snippet|>\n{content}",
        "file_sep": "\n",
        "files_block": "{items}\n<|context_file|>: {path}\n<|snippet|>\n{prefix}",
        "files_empty": "{prefix}",
        "history_item": 'User edited file "{path}"\n\n```diff\n{diff}\n```',
        "history_sep": "\n",
        # editHistoryBlock drops the diffs' blank lines and lists the newest edit first
        "history_keep_blank": False,
        "history_newest_first": True,
        # currentFileContentBlock: the file's lines (split on "\n": at the end of a file ending in
        # a line break, the empty last row too) joined by "\n" with the markers as lines
        "excerpt": "{before}<|editable_region_start|>\n{region_line}\n<|editable_region_end|>{after_line}",
        "cursor": "<|user_cursor_is_here|>",
        # a window of 25 lines either side of the cursor; the region from 1 line above to 5 below
        "context_lines_before": 24,
        "context_lines_after": 20,
        "region_lines_above": 1,
        "region_lines_below": 5,
        # the answer is the region itself ("Do not include the tags"); tags a model echoes anyway
        "answer": {
            "start": "<|editable_region_start|>",
            "end": ["<|editable_region_end|>"],
            "strip": ["<|user_cursor_is_here|>"],
            "end_break": True,
        },
    },
}
BUILTIN_RECORDS["sweep-next-edit"] = {
    "description": "Sweep Next-Edit 0.5B-7B (Qwen2.5-Coder fine-tunes): original/current/updated blocks.",
    "source": "sweepai/cursortab.nvim @bc06a8ffa07ff538da188699a40cacd6d87b4eed: "
    "server/provider/sweep/sweep.go (prompt, stops) and sweep_test.go; server/provider/processors.go "
    "FormatDiffHistoryOriginalUpdated and processors_test.go; server/buffer/buffer.go "
    "extractGranularDiffs (history blocks hold only the changed lines). Its tests assert substrings: "
    "the goldens' full texts follow its code. sweepai/vscode-nes src/local/completions.ts "
    "@9bce2d776b4070ceff548e4b10b381f3cc701053; the sweep-next-edit-1.5B model card's run_model.py "
    "(no expected output there: not a golden); blog.sweep.dev/posts/oss-next-edit",
    "patterns": ["*sweep-next-edit*", "*sweep_next_edit*", "*sweep-nes*", "*sweep next edit*"],
    "edit": {
        "template": "{files}{history}<|file_sep|>original/{path}\n{original}<|file_sep|>current/{path}\n"
        "{excerpt}<|file_sep|>updated/{path}\n",
        "file_item": "<|file_sep|>{path}\n{content}",
        # one block per contiguous change, holding only the changed lines (cursortab's
        # extractGranularDiffs + FormatDiffHistoryOriginalUpdated; the model card's recent_diffs)
        "history_item": "<|file_sep|>{path}.diff\noriginal:\n{old}\nupdated:\n{new}\n",
        "history_per_change": True,
        "excerpt": "{region}",
        # the window is the region: 10 lines above the cursor's line and 10 below
        "context_lines_before": 0,
        "context_lines_after": 0,
        "region_lines_above": 10,
        "region_lines_below": 10,
        "stop": ["<|file_sep|>", "</s>", "<|endoftext|>"],
        "answer": {"end": ["<|file_sep|>", "</s>", "<|endoftext|>"]},
    },
}
BUILTIN_RECORDS["edit-chat"] = {
    "description": "Edit predictions from any instruction/chat model: the region between markers, "
    "the rewrite between <REWRITE> and </REWRITE>.",
    "source": "ours (the markers follow Zeta 1 and Instinct): no source fixture, the goldens in "
    "tests/golden/edit_prompts are our own",
    "edit": {
        "chat": True,
        "system": EDIT_CHAT_SYSTEM,
        "template": "{files}{history}{excerpt}\n\nRewrite the editable region. Answer with "
        "<REWRITE>...</REWRITE> only.",
        "file_item": "<FILE path={path}>\n{content}</FILE>\n",
        "files_block": "Other files, for reference:\n{items}\n",
        "history_item": "--- a/{path}\n+++ b/{path}\n{diff}\n",
        "history_block": "The recent edits, oldest first:\n{items}\n",
        "excerpt": "File: {path}\n```\n{before}<|editable_region_start|>\n{region}"
        "<|editable_region_end|>\n{after}```",
        "cursor": "<|cursor|>",
        "context_lines_before": 30,
        "context_lines_after": 30,
        "region_lines_above": 2,
        "region_lines_below": 8,
        "answer": {
            "start": "<REWRITE>",
            "require_start": True,
            "end": ["</REWRITE>"],
            "require_end": True,
            "strip": ["<|cursor|>", "<|editable_region_start|>", "<|editable_region_end|>"],
        },
    },
}
