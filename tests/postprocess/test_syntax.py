"""The syntax property: never syntactically worse than the raw output.

When ``prefix + raw output + suffix`` parses without errors (tree-sitter), so does
``prefix + suggestion + suffix``. Checked over the golden set and, with hypothesis, on valid
programs cut at random places (prefix, the model's "ideal" middle, suffix) and streamed in random
chunks.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_codecomplete.postprocess import PostprocessContext, grammar_for, postprocess, rules_for
from jupyter_codecomplete.postprocess.syntax import SyntaxCheck, parser_for

from .golden import load_cases
from .test_properties import split

pytest.importorskip("tree_sitter_language_pack")


def parses(language: str | None, text: str) -> bool | None:
    parser = parser_for(grammar_for(language, rules_for(language)))
    if parser is None:
        return None
    return SyntaxCheck(parser, "", "").clean(text)


def raw_output(case) -> str:  # type: ignore[no-untyped-def]
    """The model's output up to its first stop sequence (where a server honouring stops ends it)."""
    raw = "".join(case.chunks)
    for stop in case.stop:
        if stop and stop in raw:
            raw = raw[: raw.index(stop)]
    return raw


# the golden cases in a language with a grammar whose raw output leaves the document parsing
GOLDEN = [
    (n, c) for n, c in load_cases() if c.language and parses(c.language, c.prefix + raw_output(c) + c.suffix)
]


def test_golden_property_is_not_vacuous() -> None:
    assert len(GOLDEN) >= 60, len(GOLDEN)


@pytest.mark.parametrize("case", [c for _, c in GOLDEN], ids=[n for n, _ in GOLDEN])
def test_golden_never_worse(case) -> None:  # type: ignore[no-untyped-def]
    result = postprocess(case.context(), case.chunks, case.truncated)
    assert parses(case.language, case.prefix + result + case.suffix), result


PROGRAMS = {
    "python": '''import math


def area(shape, size):
    """Area of a shape."""
    if shape == "circle":
        return math.pi * size ** 2
    elif shape == "square":
        return size * size
    for i in range(3):
        size += i
    return size


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)


message = """Hello
world"""
values = [
    1,
    2,
]
print(area("circle", 2), message, values)
''',
    "javascript": """function findMax(arr) {
  let max = arr[0];
  for (const x of arr) {
    if (x > max) {
      max = x;
    }
  }
  return max;
}

const config = {
  server: { port: 8080 },
  debug: true,
};

class Queue {
  constructor() {
    this.items = [];
  }
  push(x) {
    this.items.push(x);
  }
}

console.log(findMax([1, 2, 3]), config, `a
b`);
""",
    "c": """#include <stdio.h>

int count(const char *s) {
    int n = 0;
    while (*s) {
        if (*s == ' ') {
            n++;
        }
        s++;
    }
    return n;
}

int main(void)
{
    int total = count("a b c");
    printf("%d\\n", total);
    return 0;
}
""",
    "java": """public class Util {
    public static int sum(int[] xs) {
        int total = 0;
        for (int x : xs) {
            if (x > 0) {
                total += x;
            } else {
                total -= x;
            }
        }
        return total;
    }

    public static void main(String[] args)
    {
        System.out.println(sum(new int[] {1, 2}));
    }
}
""",
    "go": """package main

import "fmt"

func max(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

func main() {
	fmt.Println(max([]int{1, 2, 3}))
}
""",
    "rust": """fn classify(nums: &[i32]) -> (u32, u32) {
    let (mut pos, mut neg) = (0, 0);
    for n in nums {
        if *n > 0 {
            pos += 1;
        } else {
            neg += 1;
        }
    }
    (pos, neg)
}

fn main() {
    let v = vec![1, -2, 3];
    println!("{:?}", classify(&v));
}
""",
    "ruby": """class User
  def initialize(name)
    @name = name
  end

  def greet
    if @name
      puts "Hello #{@name}"
    else
      puts "Hello"
    end
  end
end

[1, 2].each do |x|
  puts x
end
""",
}


@st.composite
def cut_programs(draw):  # type: ignore[no-untyped-def]
    language = draw(st.sampled_from(sorted(PROGRAMS)))
    program = PROGRAMS[language]
    c = draw(st.integers(min_value=0, max_value=len(program)))
    e = draw(st.integers(min_value=c, max_value=min(len(program), c + 400)))
    # the model's output ends with code, not whitespace (the suggestion never ends with it)
    while e > c and program[e - 1].isspace():
        e -= 1
    cuts = draw(st.lists(st.integers(min_value=0, max_value=400), max_size=6))
    return language, program[:c], program[c:e], program[e:], cuts


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut_programs())
def test_never_worse_on_cut_programs(data) -> None:  # type: ignore[no-untyped-def]
    language, prefix, middle, suffix, cuts = data
    assert parses(language, prefix + middle + suffix)
    ctx = PostprocessContext(language=language, prefix=prefix, suffix=suffix)
    result = postprocess(ctx, split(middle, cuts))
    assert parses(language, prefix + result + suffix), (prefix[-80:], middle, suffix[:80], result)


def test_guard_extends_a_cut_that_breaks_the_document() -> None:
    # the cursor at the start of a line, before `"%d\n", total);`: single-line by the rules, but the
    # model wrote two lines that only together leave the program whole
    program = PROGRAMS["c"]
    c, e = program.index("    int total"), program.index('"%d')
    ctx = PostprocessContext(language="c", prefix=program[:c], suffix=program[e:])
    assert postprocess(ctx, [program[c:e]]) == program[c:e].rstrip()
    # asked for a single line: never extended
    single = ctx.model_copy(update={"multiline": False})
    assert postprocess(single, [program[c:e]]) == '    int total = count("a b c");'


def test_no_guard_without_grammar_or_for_prose() -> None:
    from jupyter_codecomplete.postprocess import Pipeline

    for language in ("markdown", "cobol", None):
        assert Pipeline(PostprocessContext(language=language, prefix="x = (", suffix=")"))._guard is None
    assert Pipeline(PostprocessContext(language="python", prefix="x = (", suffix=")"))._guard is not None


def test_window_bounds_the_parsed_text() -> None:
    from jupyter_codecomplete.postprocess.syntax import WINDOW

    prefix = "x = 1\n" * 5000 + "def f():\n    "
    suffix = "\ny = 2" * 5000
    check = SyntaxCheck(parser_for("python"), prefix, suffix)
    assert len(check._prefix) <= WINDOW + 20 and len(check._suffix) <= WINDOW
    assert check._prefix.endswith("def f():\n    ") and check.clean("return 1")
