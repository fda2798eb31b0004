"""Scripted "models" for edit predictions across cells (issue 27): rules of the scripted
upstream (:mod:`.scripted`) that answer an edit prompt from what it contains.

A ``rewrite`` rule takes the editable region the prompt shows (for a ``scope="notebook"``
request, the cells around the cursor's with their separators), rewrites it and answers in the
format's frame (:func:`.scripted.rewrite_answer`). These are in the generic chat format
``edit-chat`` (the region between ``<|editable_region_start|>`` and ``<|editable_region_end|>``,
the answer between ``<REWRITE>`` and ``</REWRITE>``), the format the UI tests' ``edit_model`` is
asked in (``ui-tests/jupyter_server_test_config.py`` puts them first in its rules):

* the fix after an error: the prompt shows the cell's ``KeyError: 'prcie'`` and what the kernel
  completes for ``df[``: ``prcie`` becomes ``price``;
* the rename across cells: the edit history shows ``df`` renamed to ``sales`` where it is defined
  (``-df = pd.DataFrame`` / ``+sales = pd.DataFrame``): every other ``df`` in the region follows.

Without the region (another format's prompt), a rule answers an empty rewrite: no edit.
"""

from __future__ import annotations

from typing import Any

EDIT_CHAT_REGION = r"<\|editable_region_start\|>\n(.*?)<\|editable_region_end\|>"
EDIT_CHAT_ANSWER = "<REWRITE>\n{region}</REWRITE>"
# the region's start marker and its line break: only an edit-chat prompt has both
EDIT_CHAT_PROMPT = "<|editable_region_start|>\n"


def edit_chat_rewrite(contains_all: list[str], replace: list[list[str]]) -> dict[str, Any]:
    """A rule: an edit-chat prompt holding every one of ``contains_all`` is answered with its
    region, ``replace`` applied (``[pattern, replacement]`` pairs, regular expressions)."""
    return {
        "contains": EDIT_CHAT_PROMPT,
        "contains_all": list(contains_all),
        "rewrite": {
            "region": EDIT_CHAT_REGION,
            "strip": ["<|cursor|>"],
            "replace": [list(pair) for pair in replace],
            "answer": EDIT_CHAT_ANSWER,
        },
        "completion": "<REWRITE>\n</REWRITE>",
        "token_s": 0.002,  # the answer comes (almost) whole
    }


EDIT_CHAT_ISSUE_27_RULES: list[dict[str, Any]] = [
    edit_chat_rewrite(["KeyError: 'prcie'", "The kernel completes df["], [["prcie", "price"]]),
    edit_chat_rewrite(["-df = pd.DataFrame", "+sales = pd.DataFrame"], [[r"\bdf\b", "sales"]]),
]

__all__ = ["EDIT_CHAT_ISSUE_27_RULES", "edit_chat_rewrite"]
