"""The function kind: call a Python or C++ function with arguments and compare the values.

kind (the TaskKind), task (loading task.toml), grade (build, k attempts, verdict), attempt (one repeat),
programs (sources into runnable Programs), cpp and cppwire (the C++ build and its wire codec)."""
