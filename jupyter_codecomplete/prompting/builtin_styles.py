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
        "eot": ["<|endoftext|>"],
        "leftovers": ["<fim_pad>"],
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
        "eot": ["<|endoftext|>"],
        "leftovers": ["<fim_pad>"],
    },
    "codeqwen1.5": {
        "description": "CodeQwen1.5-7B (Qwen, 2024).",
        "source": "https://github.com/QwenLM/CodeQwen1.5 (README: FIM and repository-level completion)",
        "patterns": ["*codeqwen*", "*code-qwen*"],
        "fim": _STARCODER_FIM,
        "repo": {"repo_name": "<reponame>", "repo_name_end": "\n", "file_sep": "<file_sep>"},
        "stop": ["<|endoftext|>", "<file_sep>", "<reponame>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>"],
        "eot": ["<|endoftext|>"],
        "leftovers": ["<fim_pad>"],
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
        "eot": ["<|endoftext|>"],
        "leftovers": ["<fim_pad>"],
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
        "eot": ["<|endoftext|>"],
        "leftovers": ["<fim_pad>"],
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
