"""`frontend.source.source_lines` gives what `inspect.getsourcelines` gives, reading
where a function ends from its code instead of tokenizing it: on functions whose
code does not reach their last line (a docstring, a `pass`, a trailing comment),
and on every function of a few modules."""

import importlib
import inspect
import types

import pytest

from s2sad.frontend import source


def _decorate(f):
    return f


@classmethod
def docstring_only(cls):
    "A docstring, and no line of code."


def trailing_pass(x):
    y = x + 1
    if y:
        return y
    pass


def trailing_comment(x):
    return x * 2
    # a comment indented as the body, which inspect keeps


@_decorate
def one_line(x): return x + 1  # noqa: E704


def long_header(
    x,
    y=2,
):
    return (x
            + y)


def else_pass(x):
    if x > 0:
        x = x * 2
    else:
        pass


def nested(x):
    def inner(z):
        return z * x
    return inner


def string_last(x):
    x = x + 1
    """a string expression the compiler drops"""


class Holder:
    def method(self, x):
        return x

    @staticmethod
    def tail(x):
        x = x + 1

        # a comment after a blank line, indented as the body

    def after(self):
        return 1


CASES = [docstring_only.__func__, trailing_pass, trailing_comment, one_line, long_header,
         else_pass, nested, nested(1), string_last, Holder.method, Holder.tail,
         Holder.after]


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__qualname__)
def test_tricky_endings(func):
    assert source.source_lines(func) == inspect.getsourcelines(func)


def _functions(module):
    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for member in vars(value).values():
                member = getattr(member, "__func__", member)
                if isinstance(member, types.FunctionType):
                    yield member


@pytest.mark.parametrize("name", ["s2sad.optimize.arithmetic", "s2sad.frontend.expand",
                                  "json.decoder", "textwrap", "argparse", "zoo",
                                  "zoo_loops"])
def test_modules(name):
    module = importlib.import_module(name)
    functions = list(_functions(module))
    assert functions
    fast = 0
    for f in functions:
        assert source.source_lines(f) == inspect.getsourcelines(f), f.__qualname__
        lines, start = inspect.findsource(f)
        fast += source._block_end(lines, start, f.__code__) is not None
    assert fast > len(functions) // 2  # (most take the short way)
