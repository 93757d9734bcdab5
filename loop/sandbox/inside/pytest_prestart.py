"""`python -m pytest`, started before the tree it tests is in place: the interpreter starts and imports pytest
while the parent still applies the patch and plants its tripwires, then waits for the command line.

Run by path in the sandbox (`python3 pytest_prestart.py FD`), standard library only. On FD the parent writes the
test command's argv (NUL-separated) once the tree is ready and closes it; from then on this process is what
`python -m pytest ARGS` would have been: sys.argv, sys.path (the working folder first), a fresh __main__.
Nothing is imported from the tree before then: the folders of sys.path inside it are left out of the search
while pytest is imported (the parent is still writing them). If the tree then holds a module by the name of one
imported before it arrived (a `textwrap.py` at the top of /repo, a `_pytest` on a PYTHONPATH folder inside it),
or pytest could not be imported at all, the command is exec'd as written instead.
"""

import importlib
import os
import sys


# (no annotations, no walrus: the task's interpreter may be an old Python 3; one that cannot read this file ends
# before the command line goes in, and loop then starts the run as written)
def _argv(fd):
    chunks = [os.read(fd, 1 << 16)]
    while chunks[-1]:
        chunks.append(os.read(fd, 1 << 16))
    os.close(fd)
    return [os.fsdecode(a) for a in b"".join(chunks).split(b"\0")]


def _inside(folder, cwd):
    return folder == cwd or folder.startswith(cwd.rstrip("/") + "/")


def _shadowed(cwd):
    """Whether a folder on sys.path inside the tree holds a name already imported (or imported at start-up)."""
    names = {name.partition(".")[0] for name in sys.modules} | {"sitecustomize", "usercustomize"}
    for folder in sys.path:
        if _inside(folder, cwd):
            try:
                entries = os.listdir(folder)
            except OSError:
                continue
            if any(entry.partition(".")[0] in names for entry in entries):
                return True
    return False


def main():
    fd = int(sys.argv[1])
    cwd = os.getcwd()
    path = [cwd, *sys.path[1:]]  # as `-m` has it, not this file's folder
    sys.path[:] = [folder for folder in path if not _inside(folder, cwd)]
    try:  # the task's own pytest, from its environment (by name: nothing here is loop's or pytest's to import)
        importlib.import_module("pytest")  # the start-up this process is here to take off the critical path
    except BaseException:  # (an editable install of pytest itself, say): the command as written
        imported = False
    else:
        imported = True
    argv = _argv(fd)
    sys.path[:] = path
    if not imported or argv[1:3] != ["-m", "pytest"] or _shadowed(cwd):
        os.execvp(argv[0], argv)
    import runpy

    importlib.invalidate_caches()  # the folders were read before the tree arrived
    sys.argv = ["-m", *argv[3:]]
    sys.orig_argv = list(argv)  # (3.10+) what the interpreter was started with, as written
    main_globals = sys.modules["__main__"].__dict__
    for name in [n for n in main_globals if n not in ("__name__", "__builtins__", "__annotations__")]:
        del main_globals[name]  # runpy runs pytest's __main__ in this module's namespace
    runpy._run_module_as_main("pytest")


if __name__ == "__main__":
    main()
