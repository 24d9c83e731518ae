"""driver: runs the pipeline's stages in order and assembles derivative modules.

`stages` owns what happens to a function before it is transformed: the front
stages (parse -> anf -> dup), the argument kinds a derivative is built for, the
return kinds of the functions it calls, the loop marks for checkpointing, and the
stages `s2sad show` prints. `builder` turns a function into a `builder.Unit`: its
reverse-mode (`builder.reverse_unit`) or forward-mode (`builder.forward_unit`)
derivative and those of the functions it calls, as one module of emitted code;
`effects` makes a forward derivative's quiet twin (without what only reports);
`saved` binds what a split forward function returns on every path.

May import optimize, transform, analysis, primitives, frontend, ir, runtime, errors,
and from backend `emit` (the text of a unit); only `api` imports the driver.
"""
