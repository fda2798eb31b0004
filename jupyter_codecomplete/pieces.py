"""The model's text as it streams, in pieces that say how many of its tokens they hold.

A model streams one event per token (or a few). The engine's readers count those events against
the request's token limit: a suggestion whose model sent as many as ``max_tokens`` was most likely
cut off there (``Pipeline.budget_spent``, the edit reader's). The text of all the events one read of
the stream brought travels the engine as one :class:`Piece` (the cleaning, the bounds and the
socket run once for them, not once per token), and carries their number: :func:`tokens_in`.
A plain ``str`` is one event's text (what LangChain's runnables pass).
"""

from __future__ import annotations

__all__ = ["Piece", "tokens_in"]


class Piece(str):
    """Model text with the number of the model's stream events (its tokens) it holds."""

    tokens: int

    def __new__(cls, text: str, tokens: int) -> Piece:
        piece = super().__new__(cls, text)
        piece.tokens = tokens
        return piece

    def __reduce__(self) -> tuple[type[Piece], tuple[str, int]]:
        return (Piece, (str(self), self.tokens))


def tokens_in(text: str) -> int:
    """How many of the model's tokens ``text`` holds: a :class:`Piece`'s count, else one."""
    return text.tokens if isinstance(text, Piece) else 1
