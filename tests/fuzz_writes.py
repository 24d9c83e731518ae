"""Random programs that write into arrays around loops, branches and calls, for
`test_fuzz_writes.py`.

`write_program(draw)` gives the text of a module defining ``f(x, y)`` (``x`` an array
of 3 floats, ``y`` a float) that makes an array ``v`` and then runs a few of these
steps, nested in loops and branches at random:

* an elementwise step that makes a new array (``v = np.sin(v) + y``), or reads an
  element or a reversed view of the array it replaces (``v = v + v[0]``);
* a write into an element (``v[1] = v[1] * y``, ``v[2] += y``), in a loop too;
* a second name for the array (``u = v``, ``v = v``), written through afterwards;
* a value a derivative rule keeps (``w = np.clip(v, -3, 3)``, ``w = np.tanh(v)``)
  before a later write changes ``v``;
* a helper of the module given the array (``s = s + h(v, y)``) before a write;

and one of `SCENARIOS` among them, each a shape of the class that gave wrong
gradients.

The function returns a sum that reads ``v``, ``s`` and what else it made, so a
write can change values the derivative needs: the class of programs where a saved
value, a tape entry, a helper's residual or a loop's carried name may be the array
written later. Every program is valid Python; s2sad either refuses it or must give
the right derivative.
"""

from hypothesis import strategies as st

PRELUDE = '''import numpy as np


def h(a, c):
    return np.sum(a * c)


def h2(a):
    return a * 2.0

'''

STEPS = ["new", "new_reads", "write", "write_aug", "alias", "self_alias", "kept", "helper",
         "helper_array"]

# Shapes that gave wrong gradients (or crashed), each a template the filler steps go
# around: {new} a step making a new `v`, {reads} one reading an element or a view of
# it, {k} an element, {n} a trip count, {value} a value written
SCENARIOS = [
    # a loop's last array, on its tape, written after the loop
    ["for i in range({n}):", "    v = {new}", "    s = s + np.sum(v * v)", "v[{k}] = v[{k}] * y"],
    # a helper's residual holds the array a later line writes
    ["s = s + h(v, y)", "v[{k}] = {value}"],
    # two names a loop gives one array, one written after it
    ["for i in range({n}):", "    v = {new}", "    u = v", "u[{k}] = y"],
    ["for i in range({n}):", "    u = v", "u[{k}] = y"],
    # a rule's kept input, written through the loop's carried name
    ["w = np.clip(v, -3.0, 3.0)", "for i in range({n}):", "    v[{k}] -= y", "    v = w * 2.0"],
    # a loop inside a branch reading an element of the array it carries
    ["if y > 0.5:", "    for i in range({n}):", "        v = {reads}"],
    # an array a loop recomputes as an earlier one was computed, then written
    ["w = x * y", "for i in range({n}):", "    u = x * y", "u[{k}] = 0.0"],
    # a write in the loop into the array it carries, the old value kept by a name
    ["for i in range({n}):", "    v[{k}] = v[{k}] * y", "    w = v", "    v = {new}"],
]


@st.composite
def write_program(draw):
    lines = ["def f(x, y):", "    s = 0.0", "    w = x * 0.5", "    u = x * 0.0"]
    lines.append("    v = " + draw(st.sampled_from(["x * 1.0", "np.tanh(x * y)", "x.copy()"])))
    counter = iter(range(100))

    def block(depth, indent):
        n = draw(st.integers(1, 3))
        for _ in range(n):
            form = draw(st.sampled_from(["step", "step", "loop", "if"] if depth < 2 else ["step"]))
            pad = "    " * indent
            if form == "loop":
                i = f"i{next(counter)}"
                lines.append(f"{pad}for {i} in range({draw(st.integers(1, 2))}):")
                block(depth + 1, indent + 1)
            elif form == "if":
                lines.append(f"{pad}if y {draw(st.sampled_from(['>', '<']))} 0.5:")
                block(depth + 1, indent + 1)
                if draw(st.booleans()):
                    lines.append(f"{pad}else:")
                    block(depth + 1, indent + 1)
            else:
                lines.append(pad + step(draw(st.sampled_from(STEPS))))

    def step(kind):
        k = draw(st.integers(0, 2))
        return {
            "new": draw(st.sampled_from(["v = np.sin(v) + y", "v = v * 1.5", "v = np.tanh(v) * y"])),
            "new_reads": draw(st.sampled_from(["v = v + v[0]", "v = v[::-1] * y + v",
                                               "v = v + v[1:2] * y"])),
            "write": f"v[{k}] = v[{k}] * y",
            "write_aug": draw(st.sampled_from([f"v[{k}] += y", f"u[{k}] = y", f"u[{k}] += v[{k}]"])),
            "alias": draw(st.sampled_from(["u = v", "u = v * 1.0"])),
            "self_alias": "v = v",
            "kept": draw(st.sampled_from(["w = np.clip(v, -3.0, 3.0)", "w = np.tanh(v)",
                                          "w = v * v"])),
            "helper": "s = s + h(v, y)",
            "helper_array": "w = h2(v)",
        }[kind]

    scenario = draw(st.sampled_from(SCENARIOS))
    if draw(st.booleans()):
        block(1, 1)  # (filler before it)
    fill = {"n": draw(st.integers(1, 2)), "k": draw(st.integers(0, 2)),
            "new": draw(st.sampled_from(["np.sin(v) + y", "v * 1.5", "np.tanh(v) * y",
                                         "v + x"])),
            "reads": draw(st.sampled_from(["v + v[0]", "v[::-1] * y + v", "v + v[1:2] * y"])),
            "value": draw(st.sampled_from(["5.0", "y", "v[0] * y"]))}
    lines.extend("    " + line.format(**fill) for line in scenario)
    if draw(st.booleans()):
        block(1, 1)  # (and after it)
    lines.append("    return np.sum(v * v) + s + np.sum(w * u) + np.sum(w)")
    return PRELUDE + "\n".join(lines) + "\n"
