import numpy as np, s2sad

def f(a, b, c):
    return np.sum(np.meshgrid(a, b, c)[2] ** 2)

a, b, c = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]), np.array([0.5, 1.5])
print(f(a, b, c))
for mode in ("reverse", "forward"):
    try:
        print(mode, s2sad.grad(f, wrt=(0, 1, 2), mode=mode)(a, b, c))
    except Exception as e:
        print(mode, type(e).__module__, type(e).__name__, str(e).splitlines()[-1][:200])
