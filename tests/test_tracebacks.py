"""An S2SADError reaches the user with the user's frames only: s2sad's own frames
(its modules, the dispatcher `grad` generates) are taken out as it leaves the
entry points, so the last frame printed is the user's call and the message follows
it. ``S2SAD_TRACEBACK=full`` brings them back; other exceptions keep theirs. Also
the refusals a user coming from JAX meets first: ``argnums=``, ``has_aux=``,
complex numbers."""

import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import s2sad
from s2sad import errors

S2SAD_DIR = os.path.dirname(os.path.abspath(s2sad.__file__)) + os.sep

# a bare `raise` re-raises the traceback the exception has now from Python 3.11 (3.10
# re-raises the one it caught, so there s2sad's frames stay, as before)
trimmed = pytest.mark.skipif(sys.version_info < (3, 11),
                             reason="tracebacks are trimmed from Python 3.11")


def run_script(tmp_path, body, **env):
    """stderr of a script with `body`, run as a user runs one."""
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(body))
    environ = {k: v for k, v in os.environ.items() if k != errors.TRACEBACK_VARIABLE}
    environ.update(env)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=environ, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    return str(script), done.stderr


def frame_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith('  File "')]


SCRIPT = """\
import s2sad


def f(x):
    return x.foo(3)


def outer(x):
    return s2sad.grad(f)(x)


outer(1.5)
"""


@trimmed
def test_a_users_script_sees_its_own_frames_and_the_message(tmp_path):
    script, stderr = run_script(tmp_path, SCRIPT)
    frames = frame_lines(stderr)
    assert frames and not any(S2SAD_DIR in line or "<s2sad dispatcher" in line
                              for line in frames), stderr
    assert frames == [f'  File "{script}", line 12, in <module>',
                      f'  File "{script}", line 9, in outer'], stderr
    # the last frame shown is the user's call, then the message
    after = stderr.split(frames[-1], 1)[1].splitlines()
    assert after[1].strip() == "return s2sad.grad(f)(x)"
    message = next(line for line in after if line.startswith("s2sad."))
    assert message.startswith(f"s2sad.errors.NoRuleError: {script}:5:")
    assert "no derivative rule for the method .foo()" in message


def test_the_environment_variable_brings_the_frames_back(tmp_path):
    script, stderr = run_script(tmp_path, SCRIPT, S2SAD_TRACEBACK="full")
    frames = frame_lines(stderr)
    assert any(S2SAD_DIR in line for line in frames), stderr
    assert any("<s2sad dispatcher" in line for line in frames), stderr
    assert frames[0] == f'  File "{script}", line 12, in <module>'
    assert "s2sad.errors.NoRuleError: " in stderr


def test_an_error_of_the_users_function_keeps_its_frames(tmp_path):
    # not an S2SADError: raised by the emitted derivative, every frame stays
    script, stderr = run_script(tmp_path, """\
        import s2sad


        def f(x, n):
            return x / n


        s2sad.grad(f)(1.0, 0)
        """)
    frames = frame_lines(stderr)
    assert frames[0] == f'  File "{script}", line 8, in <module>'
    assert any("<s2sad dispatcher" in line for line in frames), stderr
    assert any(S2SAD_DIR in line for line in frames), stderr
    assert frames[-1].startswith('  File "<s2sad-') and "f_grad" in frames[-1], stderr
    assert "ZeroDivisionError" in stderr
    assert f"raised this working on {script}:5" in stderr


@trimmed
def test_an_error_at_definition_time_ends_at_the_users_line(tmp_path):
    script, stderr = run_script(tmp_path, """\
        import s2sad


        def f(x):
            return x * x


        g = s2sad.grad(f, argnums=0)
        """)
    assert frame_lines(stderr) == [f'  File "{script}", line 8, in <module>'], stderr
    assert "s2sad.errors.OptionError: grad(argnums=0): argnums is JAX's name" in stderr


# ------------------------------------------------ every entry point, in process


def f(x):
    return np.sum(x * x)


def scalar(x):
    return x * x


def own_frames(exc):
    """The frames of `exc`'s traceback (this test's own are the first)."""
    return traceback.extract_tb(exc.__traceback__)


@trimmed
@pytest.mark.parametrize("call", [
    lambda: s2sad.grad(scalar)(1 + 2j),
    lambda: s2sad.grad(scalar, wrt="y"),
    lambda: s2sad.grad(scalar, mode="forward")(1 + 2j),
    lambda: s2sad.grad(scalar, mode="tape", wrt=3),
    lambda: s2sad.value_and_grad(scalar)(np.array([1j])),
    lambda: s2sad.hessian(f)(np.array([1 + 2j])),
    lambda: s2sad.hvp(f)(np.ones(2), np.ones(3)),
    lambda: s2sad.jacobian(scalar)(1 + 2j),
    lambda: s2sad.derivative(scalar)(1 + 2j),
    lambda: s2sad.jvp(scalar, (1 + 2j,), (1.0,)),
    lambda: s2sad.vjp(scalar, 1 + 2j),
    lambda: s2sad.vjp(scalar, 2.0)[1]((1.0, 2.0)),
    lambda: s2sad.source(scalar, stage="nothing"),
    lambda: s2sad.grad(s2sad.grad(scalar), checkpoint="ctz"),
    lambda: s2sad.check(scalar, 1),
    lambda: s2sad.graph(scalar, wrt=2),
    lambda: s2sad.register_rule(np.sinc, reverse=lambda x: x),
])
def test_no_s2sad_frame_in_the_traceback(call):
    with pytest.raises(s2sad.S2SADError) as info:
        call()
    frames = own_frames(info.value)
    assert all(__file__ == frame.filename for frame in frames), frames
    assert frames[-1].name == "<lambda>"


@trimmed
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_a_nan_keeps_the_frame_of_the_derivative_that_made_it():
    def root(x):
        return np.sqrt(x) * 0.0 + x

    with pytest.raises(s2sad.NonFiniteError) as info:
        s2sad.grad(root, debug=True)(0.0)
    frames = own_frames(info.value)
    assert not any(frame.filename.startswith(S2SAD_DIR) for frame in frames), frames
    assert frames[-1].filename.startswith("<s2sad-")


def test_the_full_traceback_on_request(monkeypatch):
    monkeypatch.setenv(errors.TRACEBACK_VARIABLE, "full")
    with pytest.raises(s2sad.WrtError) as info:
        s2sad.grad(scalar)(1 + 2j)
    assert any(frame.filename.startswith(S2SAD_DIR) for frame in own_frames(info.value))


def test_other_exceptions_keep_their_frames():
    def broken(x):
        return x / 0.0

    with pytest.raises(ZeroDivisionError) as info:
        s2sad.hessian(broken)(1.0)
    assert any(frame.filename.startswith(S2SAD_DIR) for frame in own_frames(info.value))


# ---------------------------------------------------------- JAX's keywords


@pytest.mark.parametrize("entry", [s2sad.grad, s2sad.value_and_grad, s2sad.hessian,
                                   s2sad.hvp, s2sad.jacobian, s2sad.source, s2sad.check,
                                   s2sad.graph])
def test_argnums_is_called_wrt(entry):
    with pytest.raises(s2sad.OptionError) as info:
        entry(scalar, argnums=(0, 1))
    err = info.value
    assert isinstance(err, TypeError)  # (as Python's own error for the keyword was)
    assert f"{entry.__name__}(argnums=(0, 1)): argnums is JAX's name for it; s2sad " \
           "calls it `wrt`" in str(err)
    assert "Write wrt=(0, 1)" in err.hint and "parameter's position, its name" in err.hint


def test_argnums_that_is_not_a_position_gets_the_general_hint():
    with pytest.raises(s2sad.OptionError, match=r"wrt=0, wrt=\"x\" or wrt=\(0, \"y\"\)"):
        s2sad.grad(scalar, argnums="x")


def test_argnums_of_vjp_and_jvp():
    with pytest.raises(s2sad.OptionError, match="vjp takes no argnums; it "
                       "differentiates with respect to every positional argument"):
        s2sad.vjp(scalar, 1.0, argnums=0)
    with pytest.raises(TypeError, match="jvp takes no argnums"):
        s2sad.jvp(scalar, (1.0,), (1.0,), argnums=0)


def test_has_aux_is_taken_by_grad_only():
    with pytest.raises(s2sad.OptionError, match="jacobian takes no has_aux") as info:
        s2sad.jacobian(scalar, has_aux=True)
    assert "grad(f, has_aux=True)" in info.value.hint


def test_has_aux_of_vjp_and_jvp():
    with pytest.raises(s2sad.OptionError, match=r"vjp\(has_aux=True\): vjp takes no has_aux"):
        s2sad.vjp(scalar, 1.0, has_aux=True)
    with pytest.raises(s2sad.OptionError, match=r"jvp\(has_aux=False\): jvp takes no has_aux"):
        s2sad.jvp(scalar, (1.0,), (1.0,), has_aux=False)


def test_holomorphic_and_allow_int():
    with pytest.raises(s2sad.OptionError, match="complex numbers are not supported yet"):
        s2sad.grad(scalar, holomorphic=True)
    with pytest.raises(s2sad.OptionError, match="floats only"):
        s2sad.grad(scalar, allow_int=True)


def test_another_unknown_keyword_lists_the_parameters():
    with pytest.raises(s2sad.OptionError) as info:
        s2sad.grad(scalar, wrtt=0)
    assert isinstance(info.value, TypeError)
    assert "grad() got an unexpected keyword argument 'wrtt'" in str(info.value)
    assert info.value.hint == \
        "Its parameters: grad(f, wrt, mode, debug, checkpoint, snapshots, has_aux, jit)."


def test_the_keywords_the_derivative_passes_to_f_are_f_s():
    def with_option(x, *, argnums=1.0):
        return x * argnums

    assert s2sad.hessian(with_option)(1.0, argnums=2.0) == 0.0
    assert s2sad.derivative(with_option)(1.0, argnums=2.0) == 2.0
    assert s2sad.grad(with_option)(1.0, argnums=3.0) == 3.0


def test_the_entry_points_keep_their_names_and_signatures():
    import inspect
    assert s2sad.grad.__name__ == "grad" and "gradient" in s2sad.grad.__doc__
    assert list(inspect.signature(s2sad.jacobian).parameters) == ["f", "wrt", "mode"]


# ------------------------------------------------------------ complex numbers


@pytest.mark.parametrize("call,where,what", [
    (lambda: s2sad.grad(scalar)(1 + 2j), "grad of scalar with respect to `x`",
     "the complex number (1+2j)"),
    (lambda: s2sad.grad(f)(np.array([1 + 2j, 3])), "grad of f with respect to `x`",
     "an array of complex128"),
    (lambda: s2sad.grad(f)([1.0, 2j]), "grad of f with respect to `x`",
     "a list holding complex numbers"),
    (lambda: s2sad.value_and_grad(scalar)(np.complex64(1)),
     "value_and_grad of scalar with respect to `x`", "the complex number"),
    (lambda: s2sad.grad(scalar, mode="forward")(1j), "grad of scalar with respect to `x`",
     "the complex number 1j"),
    (lambda: s2sad.hessian(f)(np.array([1j])), "hessian of f with respect to `x`",
     "an array of complex128"),
    (lambda: s2sad.jacobian(scalar)(1j), "jacobian of scalar with respect to `x`",
     "the complex number 1j"),
    (lambda: s2sad.derivative(scalar)(1j), "derivative of scalar", "the complex number 1j"),
    (lambda: s2sad.jvp(scalar, (1j,), (1.0,)), "jvp of scalar along `x`",
     "the complex number 1j"),
    (lambda: s2sad.vjp(scalar, 1j), "vjp of scalar at `x`", "the complex number 1j"),
    (lambda: s2sad.vjp(f, [1.0, 1j]), "vjp of f at `x`", "a list holding complex numbers"),
    (lambda: s2sad.grad(scalar, mode="tape")(1j), "the gradient of scalar with respect "
     "to `x`", "the complex number 1j"),
    (lambda: s2sad.grad(f, mode="tape")(np.array([1j])), "the gradient of f with respect "
     "to `x`", "an array of complex128"),
    (lambda: s2sad.check(scalar, 1 + 1j), "the gradient of scalar with respect to `x`",
     "the complex number (1+1j)"),
])
def test_complex_numbers_are_not_supported_yet(call, where, what):
    with pytest.raises(s2sad.ComplexArgumentError) as info:
        call()
    err = info.value
    assert isinstance(err, s2sad.WrtError)
    assert f"{where}: its value is {what}" in err.message
    assert err.message.endswith("and complex numbers are not supported yet")
    assert "real and imaginary parts as two float arguments" in err.hint
    assert "its own argument" not in str(err)


def test_a_complex_argument_held_fixed_is_fine():
    def scaled(x, c):
        return x * abs(c)

    assert s2sad.grad(scaled)(1.0, 3 + 4j) == 5.0
