"""A Python project's own metadata (name, version, entry points), read from pyproject.toml, setup.cfg and
setup.py as literals, never executed; and the `.dist-info` an editable install would leave, so a task whose
tests find plugins or the version through importlib.metadata runs against the tree at /repo as installed."""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from loop.kinds.repo import pysyntax

Reader = Callable[[str], "str | None"]  # a file's text at the project's root (None: absent or unreadable)


@dataclass
class Project:
    name: str | None = None
    version: str | None = None
    entry_points: dict[str, list[str]] = field(default_factory=dict)  # group -> ["name = module:attr", ...]


def literal(node: ast.AST, bound: dict[str, ast.AST], depth: int = 0):
    """A literal, a name bound to one at module level, or a sum of lists; ValueError otherwise."""
    if depth > 20:
        raise ValueError("too deep")
    if isinstance(node, ast.Name) and node.id in bound:
        return literal(bound[node.id], bound, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [literal(e, bound, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {literal(k, bound, depth + 1): literal(v, bound, depth + 1) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left, bound, depth + 1), literal(node.right, bound, depth + 1)
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        raise ValueError("not a list sum")
    return ast.literal_eval(node)


def module_bindings(tree: ast.Module) -> dict[str, ast.AST]:
    bound: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound[node.targets[0].id] = node.value  # the last binding wins, as it would when run
    return bound


def setup_keywords(source: str) -> tuple[dict[str, object], list[str]] | None:
    """setup(...)'s keywords that read as literals, and the names of those that do not; None: not Python."""
    try:
        tree = pysyntax.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    bound = module_bindings(tree)
    got, computed = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            for kw in node.keywords:
                if kw.arg is None:
                    continue
                try:
                    got[kw.arg] = literal(kw.value, bound)
                except (ValueError, TypeError, SyntaxError, RecursionError, KeyError):
                    computed.append(f"{kw.arg} ({ast.unparse(kw.value)[:60]})")
    return got, computed


def _ini_entry_points(text: str) -> dict[str, list[str]]:
    """entry_points in setuptools' INI form ("[group]\\nname = module:attr")."""
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    return {g: [f"{k} = {v.strip()}" for k, v in parser.items(g)] for g in parser.sections()}


def _groups(value) -> dict[str, list[str]]:
    """setup.py's entry_points: a dict of group -> list (or one string) of "name = target", or INI text."""
    if isinstance(value, str):
        return _ini_entry_points(value)
    if not isinstance(value, dict):
        return {}
    out = {}
    for group, items in value.items():
        items = [items] if isinstance(items, str) else items
        if isinstance(group, str) and isinstance(items, list):
            out[group] = [" = ".join(p.strip() for p in i.split("=", 1)) for i in items if isinstance(i, str) and "=" in i]
    return {g: v for g, v in out.items() if v}


def read_project(read: Reader) -> Project:
    """What pyproject.toml, setup.cfg and setup.py declare (the first to name a field wins)."""
    out = Project()

    def take(name=None, version=None, eps=None):
        out.name = out.name or (name if isinstance(name, str) and name.strip() else None)
        out.version = out.version or (version if isinstance(version, str) and version.strip() else None)
        for group, items in (eps or {}).items():
            out.entry_points.setdefault(group, items)

    text = read("pyproject.toml")
    if text:
        try:
            project = tomllib.loads(text).get("project", {})
        except tomllib.TOMLDecodeError:
            project = {}
        if isinstance(project, dict):
            eps = {g: [f"{k} = {v}" for k, v in items.items() if isinstance(v, str)]
                   for g, items in (project.get("entry-points") or {}).items() if isinstance(items, dict)}
            for key, group in (("scripts", "console_scripts"), ("gui-scripts", "gui_scripts")):
                if isinstance(project.get(key), dict):
                    eps[group] = [f"{k} = {v}" for k, v in project[key].items() if isinstance(v, str)]
            take(project.get("name"), project.get("version"), {g: v for g, v in eps.items() if v})
    text = read("setup.cfg")
    if text:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            eps = {}
            if parser.has_section("options.entry_points"):
                for group, value in parser.items("options.entry_points"):
                    eps[group] = [x.strip() for x in value.splitlines() if "=" in x]
            take(parser.get("metadata", "name", fallback=None), parser.get("metadata", "version", fallback=None),
                 {g: v for g, v in eps.items() if v})
        except configparser.Error:
            pass
    text = read("setup.py")
    if text:
        got = setup_keywords(text)
        if got:
            kw, _ = got
            take(kw.get("name"), kw.get("version"), _groups(kw.get("entry_points")))
    return out


_NORMAL = re.compile(r"[-_.]+")


def dist_info(project: Project) -> list[tuple[str, str]]:
    """The files of the `.dist-info` folder an editable install writes (METADATA, entry_points.txt), as
    (path under the environment, text); none for a project without a readable name."""
    if not project.name or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", project.name):
        return []  # none, or not a name a folder can carry (a name is the repository's text: never a path)
    name = _NORMAL.sub("_", project.name)
    version = project.version if project.version and re.fullmatch(r"[0-9A-Za-z.+!_-]+", project.version) else "0+loop"
    folder = f"{name}-{version}.dist-info"
    files = [(f"{folder}/METADATA", f"Metadata-Version: 2.1\nName: {project.name}\nVersion: {version}\n"),
             (f"{folder}/INSTALLER", "loop\n")]
    if project.entry_points:
        body = "".join(f"[{g}]\n" + "".join(f"{e}\n" for e in items) + "\n" for g, items in project.entry_points.items())
        files.append((f"{folder}/entry_points.txt", body))
    return files


def from_tree(tree: Path) -> Project:
    def read(rel: str) -> str | None:
        try:
            return (tree / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    return read_project(read)
