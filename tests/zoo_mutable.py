"""A module whose global a test rebinds."""


def square(x):
    return x * x


def cube(x):
    return x * x * x


inner = square


def outer(x):
    return inner(x)
