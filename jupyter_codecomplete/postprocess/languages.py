"""Per-language post-processing rules: the records of the one language table, looked up here.

The filters never test a language name; they read the record (comment markers, string delimiters,
block openers/closers, words that continue a block, top-level stops, ...) that
:mod:`jupyter_codecomplete.languages` holds for every language. This module adds only what is
post-processing's own: a Python cell starting with an IPython cell magic (``%%sql``) takes the
magic's language, and an alias may choose its own tree-sitter grammar (``tsx``).
"""

from __future__ import annotations

import re

from ..languages import LANGUAGES, PLAIN_TEXT, Language, StringDelim, lookup

# The record type under its post-processing name (filters annotate ``rules: LanguageRules``).
LanguageRules = Language
# What an unknown or missing language gets (no comments, no strings, no bracket rule).
DEFAULT_RULES = PLAIN_TEXT

__all__ = ["DEFAULT_RULES", "LANGUAGES", "LanguageRules", "StringDelim", "grammar_for", "rules_for"]

_CELL_MAGIC = re.compile(r"\s*%%(\w+)")


def grammar_for(language: str | None, rules: LanguageRules) -> str | None:
    """The tree-sitter grammar for a request's language (an alias may have its own)."""
    return rules.alias_grammars.get((language or "").strip().lower(), rules.grammar)


def rules_for(language: str | LanguageRules | None, prefix: str = "") -> LanguageRules:
    """The rules for ``language`` (a name, or its record when the caller looked it up already); for
    an IPython cell starting with a cell magic (``%%sql``), the rules of the magic's language."""
    rules = language if isinstance(language, Language) else (lookup(language) or DEFAULT_RULES)
    if rules.cell_magics:
        m = _CELL_MAGIC.match(prefix)
        if m:
            target = rules.cell_magics.get(m.group(1).lower())
            if target is not None:
                return lookup(target) or DEFAULT_RULES
    return rules
