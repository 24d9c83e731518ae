"""`s2sad.graph` (module `s2sad.api.graphs`): the dup stage as Graphviz dot text, with
values and adjoints."""

import math
import os
import re
import shutil
import stat

import pytest

from s2sad.engines import tape_grad
from s2sad.api.graphs import INSTALL_HINT, graph, render
from tests import zoo, zoo_loops
from tests.helpers import close

_LINE = re.compile(
    r'\s*(?:'
    r'digraph "[^"]*" \{'
    r'|subgraph cluster_\d+ \{'
    r'|\}'
    r'|\w+=(?:"(?:[^"\\]|\\.)*");'
    r'|(?:node|edge) \[.*\];'
    r'|n\d+(?: -> n\d+)?(?: \[(?:\w+="(?:[^"\\]|\\.)*"(?:, )?)+\])?;'
    r')\s*$')


def parse(text):
    """Check the dot text line by line and the nesting of braces outside strings;
    return {node: label} and the list of (from, to) edges."""
    depth = 0
    for line in text.splitlines():
        assert _LINE.fullmatch(line), f"not dot: {line!r}"
        unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        depth += unquoted.count("{") - unquoted.count("}")
        assert depth >= 0
    assert depth == 0
    labels = {m[0]: m[1].replace("\\n", "\n")
              for m in re.findall(r'^\s*(n\d+) \[label="((?:[^"\\]|\\.)*)"', text, re.M)}
    edges = re.findall(r"^\s*(n\d+) -> (n\d+)", text, re.M)
    return labels, edges


def node(labels, first_line):
    found = [n for n, label in labels.items() if label.split("\n")[0] == first_line]
    assert len(found) == 1, (first_line, labels)
    return found[0]


def out_edges(edges, n):
    return [b for a, b in edges if a == n]


def shared(x, y):
    s = x * y
    return s + s


def test_dot_text_parses():
    text = graph(zoo.seed_z, wrt=(0, 1))
    assert text.startswith('digraph "seed_z" {')
    labels, edges = parse(text)
    assert labels and edges


def test_dup_of_a_variable_used_twice():
    labels, edges = parse(graph(zoo.seed_z, wrt=(0, 1)))
    x = node(labels, "x (wrt)")
    (dup,) = out_edges(edges, x)
    assert labels[dup] == "dup"
    copies = sorted(labels[c] for c in out_edges(edges, dup))
    assert copies == ["x_a", "x_b"]
    assert node(labels, "t1 = x_a * y") and node(labels, "t2 = math.sin(x_b)")


def test_shared_subexpression_is_one_node():
    labels, edges = parse(graph(shared, wrt=(0, 1)))
    s = node(labels, "s = x * y")
    (dup,) = out_edges(edges, s)
    assert labels[dup] == "dup" and len(out_edges(edges, dup)) == 2
    total = node(labels, "t1 = s_a + s_b")
    assert sorted(a for a, b in edges if b == total) == sorted(out_edges(edges, dup))


def test_values_and_adjoints():
    labels, _ = parse(graph(shared, wrt=(0, 1), at=(3.0, 2.0)))
    assert labels[node(labels, "x (wrt)")] == "x (wrt)\n= 3.0\nadj 4.0"
    assert labels[node(labels, "y (wrt)")] == "y (wrt)\n= 2.0\nadj 6.0"
    assert labels[node(labels, "s = x * y")] == "s = x * y\n= 6.0\nadj 2.0"
    assert labels[node(labels, "s_a")] == "s_a\n= 6.0\nadj 1.0"
    assert labels[node(labels, "return t1")] == "return t1\n= 12.0\nadj 1.0"


def test_values_match_the_function_and_the_tape():
    labels, _ = parse(graph(zoo.seed_z, wrt=(0, 1), at=(0.5, 4.2)))
    value, (gx, gy) = tape_grad(zoo.seed_z, (0.5, 4.2), (0, 1))
    assert f"= {value:.6g}" in labels[node(labels, "return z")]
    assert f"adj {gx:.6g}" in labels[node(labels, "x (wrt)")]
    assert "adj 0.5" in labels[node(labels, "y (wrt)")]


def test_branches_are_clusters_with_joins():
    text = graph(zoo.branches, wrt=(0, 1), at=(0.5, 1.0))
    labels, edges = parse(text)
    assert text.count("subgraph cluster_") == 6  # two ifs, each with then and else
    assert "(not run)" in labels[node(labels, "z = x_b * y_b")]
    join = node(labels, "φ z")
    assert len([a for a, b in edges if b == join]) == 3
    assert "= 1.5" in labels[join]


def test_loops_are_clusters_with_carried_values():
    text = graph(zoo_loops.loop_sum, wrt=(0, 1), at=(0.7, 1.3, 3))
    labels, edges = parse(text)
    assert 'label="for i in range(n)"' in text
    carried = node(labels, "acc_1 (loop-carried)")
    step = node(labels, "acc_2 = acc_1 + t3")
    assert (step, carried) in edges and (carried, step) in edges
    assert "(last of 3 iterations)" in labels[step]
    assert "inside a loop: its last iteration" in text


def weighted(xs):
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * i + i
    return s


def nested(x, n):
    acc = 0.0
    for i in range(n):
        for j in range(i + 2):
            acc = acc + x * j
        if i % 2 == 0:
            acc = acc * 1.5
    return acc


def values_of(label):
    """The numbers on a label's ``= value`` lines."""
    return [float(line[2:]) for line in label.split("\n") if line.startswith("= ")]


def test_a_list_input_shows_its_gradient():
    labels, _ = parse(graph(weighted, wrt=0, at=([1.0, 2.0, 3.0],)))
    _, grad = tape_grad(weighted, ([1.0, 2.0, 3.0],), 0)
    assert [float(g) for g in grad] == [0.0, 1.0, 2.0]
    assert labels[node(labels, "xs (wrt)")] == "xs (wrt)\n= [1.0, 2.0, 3.0]\nadj [0.0, 1.0, 2.0]"
    # the copies are the same list on the tape: their label points to it
    assert labels[node(labels, "xs_a")] == "xs_a\n= [1.0, 2.0, 3.0]\nadj: see xs (one list)"


def test_a_long_list_adjoint_is_cut_like_its_value():
    xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    labels, _ = parse(graph(weighted, wrt=0, at=(xs,)))
    assert labels[node(labels, "xs (wrt)")] == \
        "xs (wrt)\n= [1.0, 2.0, 3.0, 4.0, ...]\nadj [0.0, 1.0, 2.0, 3.0, ...]"


def pairs(x):
    pts = []
    for i in range(2):
        pts.append((x * i, x))
    return pts[1][0] * pts[1][1] + pts[0][1]


def test_a_list_of_tuples_shows_their_adjoints():
    """A list of pairs the function builds is one list per position (frontend.pairs):
    each shows its values and adjoints, those of the pairs' first and second items."""
    labels, _ = parse(graph(pairs, at=(1.5,)))
    assert labels[node(labels, "pts_0 = []")] == "pts_0 = []\n= [0.0, 1.5]\nadj [0.0, 1.5]"
    assert labels[node(labels, "pts_1 = []")] == "pts_1 = []\n= [1.5, 1.5]\nadj [1.0, 1.5]"


def test_every_node_of_a_loop_shows_its_last_iteration():
    labels, edges = parse(graph(zoo_loops.loop_sum, wrt=(0, 1), at=(0.7, 1.3, 3)))
    carried = labels[node(labels, "acc_1 (loop-carried)")]
    t3 = labels[node(labels, "t3 = t2 * y")]
    step = labels[node(labels, "acc_2 = acc_1 + t3")]
    # acc_2 = acc_1 + t3 holds between the values the three nodes show
    assert values_of(step)[0] == pytest.approx(values_of(carried)[0] + values_of(t3)[0],
                                               rel=1e-5)
    assert values_of(carried)[0] == pytest.approx(sum(math.sin(0.7 * i) * 1.3 for i in range(2)),
                                                  rel=1e-5)
    assert "after the loop = 2.11857" in carried
    assert labels[node(labels, "i in range(n)")] == \
        "i in range(n)\ni = 2\n(last of 3 iterations)"
    assert labels[node(labels, "t1 = x * i")] == \
        "t1 = x * i\n= 1.4\nadj 0.220957\n(last of 3 iterations)"
    inside = [label for label in labels.values()
              if label.split("\n")[0] not in ("x (wrt)", "y (wrt)", "n", "acc = 0.0",
                                               "return acc_1")]
    assert len(inside) == 6
    assert all("(last of 3 iterations)" in label for label in inside)


def test_a_branch_in_a_loop_shows_the_same_iteration():
    # the loop breaks in its 6th iteration: the else branch ran in the 5 before it,
    # not in the one every other node of the loop shows
    labels, _ = parse(graph(zoo_loops.with_break, wrt=0, at=(0.9, 10)))
    assert labels[node(labels, "s_3 = s_2_b * 1.1")] == \
        "s_3 = s_2_b * 1.1\n(not run in the last of 6 iterations)"
    assert labels[node(labels, "s_2 = s_1 + t1")] == \
        "s_2 = s_1 + t1\n= 15.4405\nadj 1.0\n(last of 6 iterations)"
    carried = labels[node(labels, "s_1 (loop-carried)")]
    assert carried.split("\n")[1:] == ["= 10.9405", "adj 1.0", "(last of 6 iterations)",
                                       "after the loop = 15.4405"]


def test_nested_loops_show_the_inner_last_iteration_of_the_outer_last():
    labels, _ = parse(graph(nested, wrt=0, at=(0.5, 3)))
    # i = 2 in the last outer iteration, so j runs 4 times: the last is j = 3
    assert labels[node(labels, "j in range(t1)")] == \
        "j in range(t1)\nj = 3\n(last of 4 iterations)"
    inner = labels[node(labels, "acc_2 (loop-carried)")]
    step = labels[node(labels, "acc_3 = acc_2 + t2")]
    assert values_of(step)[0] == pytest.approx(values_of(inner)[0] + 0.5 * 3, rel=1e-5)
    assert labels[node(labels, "acc_4 = acc_2 * 1.5")].endswith("(last of 3 iterations)")
    assert labels[node(labels, "φ acc_4")].endswith("(last of 3 iterations)")
    outer = labels[node(labels, "acc_1 (loop-carried)")]
    assert f"after the loop = {nested(0.5, 3):.6g}" in outer


def test_a_loop_of_no_iterations():
    labels, _ = parse(graph(zoo_loops.loop_sum, wrt=(0, 1), at=(0.7, 1.3, 0)))
    assert labels[node(labels, "acc_1 (loop-carried)")] == \
        "acc_1 (loop-carried)\n= 0.0\n(0 iterations)"
    assert labels[node(labels, "t1 = x * i")] == "t1 = x * i\n(not run: 0 iterations)"


def test_an_int_index_is_one_node():
    for at in (None, ([0.5, 1.2, -0.3, 0.8],)):
        labels, edges = parse(graph(zoo_loops.rosenbrock, wrt=0, at=at))
        # i is read three times: no dup and no copies of it, only the dups of the list
        assert [label.split("\n")[0] for label in labels.values()].count("dup") == 2
        assert not any(label.startswith("i_") for label in labels.values())
        index = node(labels, "i in range(t2)")
        assert sorted(labels[b].split(" = ")[0] for a, b in edges if a == index) == \
            ["t10", "t3", "t5"]
    text = graph(zoo_loops.rosenbrock, wrt=0)
    assert [line.split(" [")[1] for line in text.splitlines()
            if line.startswith(f"  {index} -> ")] == \
        ['label="i_a"];', 'label="i_b"];', 'label="i_c"];']


def test_a_float_used_twice_keeps_its_dup():
    labels, _ = parse(graph(weighted, wrt=0, at=([1.0, 2.0],)))
    assert not any(label.startswith("i_") for label in labels.values())
    assert sorted(label.split("\n")[0] for label in labels.values()
                  if label.startswith("xs_")) == ["xs_a", "xs_b"]


def test_without_values_there_are_none():
    labels, _ = parse(graph(zoo.seed_z, wrt=0))
    assert all("adj" not in label for label in labels.values())
    assert labels[node(labels, "y")] == "y"


@pytest.mark.parametrize("f, args, wrt", zoo.ZOO + zoo_loops.ZOO,
                         ids=[f"{c[0].__name__}{c[1]}" for c in zoo.ZOO + zoo_loops.ZOO])
def test_every_zoo_function(f, args, wrt):
    labels, _ = parse(graph(f, wrt=wrt))
    assert labels
    labels, _ = parse(graph(f, wrt=wrt, at=args))
    returns = [label for label in labels.values() if label.startswith("return ")]
    shown = [line for label in returns for line in label.split("\n") if line.startswith("= ")]
    assert len(shown) == 1
    value = f(*args)
    assert close(float(shown[0][2:]), value, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- render


def test_render_without_dot(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert render(graph(shared), tmp_path / "g.svg") is False
    err = capsys.readouterr().err
    assert "apt install graphviz" in err and "brew install graphviz" in err
    assert "pip" in err
    assert "apt install graphviz" in INSTALL_HINT
    assert not (tmp_path / "g.svg").exists()


@pytest.mark.skipif(os.name != "posix", reason="a fake `dot` needs a POSIX shell")
def test_render_calls_dot(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n# fake dot: -Tfmt -o path, text on stdin\n'
                    'cat > "$3"\necho "$1" >> "$3"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(fake.parent) + os.pathsep + os.environ.get("PATH", ""))
    out = tmp_path / "g.png"
    assert render("digraph g {}\n", out) is True
    assert out.read_text() == "digraph g {}\n-Tpng\n"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_render_with_graphviz(tmp_path):
    out = tmp_path / "g.svg"
    assert render(graph(zoo_loops.with_break, wrt=0, at=(0.9, 10)), out) is True
    assert out.read_text().lstrip().startswith(("<?xml", "<svg"))
