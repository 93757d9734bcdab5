"""Loading a batch's tasks: polarity checked once per task and remembered across runs; remembered tasks load in the
calling thread."""

import threading

import pytest

from loop import kinds
from loop import config as loop_config
from loop.errors import TaskError
from loop.run import verified
from loop.sandbox import SandboxConfig


@pytest.mark.sandbox
def test_a_batch_checks_polarity_only_of_tasks_not_remembered_and_refuses_a_broken_one(task_copy, monkeypatch):
    folder, cfg = task_copy("merge_intervals_py", "first_py")
    task_copy("merge_intervals_py", "second_py")
    config = loop_config.load(cfg)
    sandbox = SandboxConfig()
    checked = []
    real = kinds.get("function").polarity
    monkeypatch.setattr(kinds.get("function"), "polarity", lambda task, box: checked.append(task.name) or real(task, box))
    names = ["first_py", "second_py"]
    assert list(verified.load_verified_tasks(config, names, sandbox)) == names
    assert sorted(checked) == names
    verified._POLARITY_OK.clear()  # a new run: the markers remember
    checked.clear()
    threads = []
    load = verified.tasks.load
    monkeypatch.setattr(verified.tasks, "load", lambda *a: threads.append(threading.current_thread()) or load(*a))
    assert [t.name for t in verified.load_verified_tasks(config, names, sandbox).values()] == names
    assert checked == []
    assert threads == [threading.main_thread()] * 2  # nothing to wait on: no threads contending for the GIL
    # a change to a task's folder checks it again, and a broken polarity refuses the batch
    tests = (folder / "tests.json").read_text().replace('"kind": "p2p", "suites": ["smoke", "full"]',
                                                         '"kind": "f2p", "suites": ["smoke", "full"]')
    (folder / "tests.json").write_text(tests)
    with pytest.raises(TaskError, match="task refused: .*existing_overlap"):
        verified.load_verified_tasks(config, names, sandbox)
    assert checked == ["first_py"]
