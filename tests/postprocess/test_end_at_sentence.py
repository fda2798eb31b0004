from __future__ import annotations

from jupyter_codecomplete.postprocess.end_at_sentence import Sentence

from .helpers import both


def test_sentence() -> None:
    assert both(Sentence, "It works. Then") == "It works."
    assert both(Sentence, "Version 3.5 is out") == "Version 3.5 is out"
    assert both(Sentence, " Leading space. x") == " Leading space."
