"""`loop report --datasette`: runs.db in Datasette, with the canned queries shipped in loop/datasette.yaml.

Datasette is an optional extra (`pip install -e '.[datasette]'`); it runs as its own process, so loop
never imports it.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from loop.errors import LoopError
from loop.store.db import RunStore

METADATA = Path(__file__).with_name("datasette.yaml")


def metadata(db: Path) -> dict:
    """The shipped metadata, its queries under this database's name (Datasette names a database after its
    file: `results.db` is `results`)."""
    import yaml  # installed with datasette

    meta = yaml.safe_load(METADATA.read_text(encoding="utf-8"))
    meta["databases"] = {db.stem: meta["databases"]["runs"]}
    return meta


def check(db: Path) -> None:
    """Refuse, in one line, what Datasette could not serve; migrate the database so every view exists."""
    if importlib.util.find_spec("datasette") is None:
        raise LoopError("Datasette is not installed: pip install -e '.[datasette]' (make venv installs it)")
    if not db.is_file():
        raise LoopError(f"{db}: no such database")
    RunStore(db).close()


def serve(db: Path, *, host: str = "127.0.0.1", port: int = 8001) -> int:
    """Serve `db` until Datasette exits (Ctrl-C); its exit status."""
    check(db)
    with tempfile.TemporaryDirectory(prefix="loop-datasette-") as tmp:
        meta = Path(tmp) / "metadata.json"
        meta.write_text(json.dumps(metadata(db), indent=2), encoding="utf-8")
        argv = [sys.executable, "-m", "datasette", "serve", str(db), "--metadata", str(meta), "--host", host,
                "--port", str(port)]
        server = subprocess.Popen(argv)
        # SIGTERM to loop (a service manager, `kill`) stops Datasette too, as Ctrl-C does (it reaches the group)
        previous = signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        try:
            code = server.wait()
            return 0 if code == -signal.SIGTERM else code
        except KeyboardInterrupt:
            return 0
        finally:
            signal.signal(signal.SIGTERM, previous)
            if server.poll() is None:
                server.terminate()
                server.wait()
