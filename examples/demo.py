"""s2sad demo: print derivative code with the CLI, then compute gradients.

Run from the repository root after installing:  python examples/demo.py
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import s2sad  # noqa: E402
import seeds  # noqa: E402


def run(*args):
    print("$ s2sad " + " ".join(args))
    done = subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True, text=True)
    print(done.stdout, end="")
    print(done.stderr, end="")
    print()


def main():
    path = os.path.relpath(os.path.join(HERE, "seeds.py"))
    run("show", f"{path}:z", "--wrt", "x,y")
    run("show", f"{path}:quadratic", "--stage", "dup")
    run("show", f"{path}:loss", "--wrt", "w,b")
    run("show", f"{path}:broken")

    print("gradients:")
    print("  d/dx (x*x + 3x + 2) at 5        =", s2sad.grad(seeds.quadratic)(5.0))
    value, grad = s2sad.value_and_grad(seeds.z, wrt=("x", "y"))(0.5, 4.2)
    print("  z(0.5, 4.2), dz/dx, dz/dy       =", value, grad)
    print("  d/dx program at (1.5, 0.7)      =", s2sad.grad(seeds.program, wrt=(0, 1))(1.5, 0.7))
    greeks = s2sad.grad(seeds.black_scholes, wrt=(0, 2, 3, 4))(100.0, 95.0, 0.5, 0.02, 0.3)
    print("  Black-Scholes delta, theta-ish, rho, vega =", greeks)
    out, pullback = s2sad.vjp(seeds.loss, 0.3, -0.1, 2.0, 1.0)
    print("  loss, pullback(1.0)             =", out, pullback(1.0))
    print("  jvp of z along (1, 0)           =", s2sad.jvp(seeds.z, (0.5, 4.2), (1.0, 0.0)))
    print("  Hessian of z at (0.5, 4.2)      =",
          s2sad.hessian(seeds.z, wrt=("x", "y"))(0.5, 4.2))
    print("  Jacobian of the program         =",
          s2sad.jacobian(seeds.program, wrt=(0, 1))(1.5, 0.7))


if __name__ == "__main__":
    main()
