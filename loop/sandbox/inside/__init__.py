"""What runs inside the sandbox. Standard library only: it imports nothing from `loop`, because these files are
staged by path into a sandbox where no `loop` package exists (the worker, its codec, the fork server, the C++ runtime)."""
