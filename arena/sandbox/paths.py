"""What a bot's sandbox may show it: its own folder and the runtime, nothing else.

A bot's **folder** is the directory it runs from: a registry version's own folder, a ladder
bot's ``cwd``. Every directory its command makes the sandbox show (the program's, the
script's or the folder named as its first argument, each link of their symlink chains) must
**resolve** inside that folder, or be part of the **runtime**: ``/usr`` and the top-level
links into it, Arena's own Python installation (for Python bots), a program found on
``PATH`` (the organiser's), the paths an organiser adds (``runtime_paths``), and the files the
installed runtimes link to from outside ``/usr`` (Debian's JDK keeps its settings in
``/etc/java-17-openjdk`` behind symlinks in its installation). Anything else is refused with
``BotPathError`` before the bot starts: never a weaker sandbox, never a silent one.

A bot named on the command line without a folder (``arena play ./my_bot``) is its runner's
own: the directories its command names are shown, and nothing is refused.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import protocol
from arena import games

TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives")
# Installations at these prefixes are the system itself: /usr is shown whole already.
_SYSTEM_PREFIXES = (Path("/"), Path("/usr"), Path("/usr/local"))
# A runtime's outward link to something this shallow (``/etc``, ``/home``) is never shown.
_SHALLOWEST_TARGET = 3  # parts: "/", "etc", "java-17-openjdk"


class BotPathError(OSError):
    """A bot's command names something outside its folder that is not part of the runtime.
    An ``OSError``, like a missing program: the bot's own problem, never the host's."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EACCES, message)

    def __str__(self) -> str:
        return str(self.strerror)


@dataclass(frozen=True)
class View:
    """The program to execute (an absolute path) and the directories to show read-only."""

    program: str
    binds: tuple[Path, ...]


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _covered(path: Path, roots: Iterable[Path]) -> bool:
    return any(inside(path, r) for r in roots)


@functools.cache
def system_runtime() -> tuple[Path, ...]:
    """What every sandbox shows of the system: ``/usr``, the real top-level library
    directories (on a merged-/usr system the top-level names are links into ``/usr``) and a
    few files of ``/etc`` (the loader's cache, the time zone, Debian's alternatives)."""
    found = [Path("/usr")]
    for name in TOP_LINKS:
        path = Path("/", name)
        if path.is_dir() and not path.is_symlink():
            found.append(path)
    found += [Path("/etc", name) for name in ETC_FILES if Path("/etc", name).exists()]
    return tuple(found)


@functools.cache
def python_paths() -> tuple[Path, ...]:
    """What a Python bot run with Arena's own interpreter needs: the installation, the venv, the
    ``protocol`` package and the game engines (search bots import them), not the rest of the
    project (the referee, the ladders, their databases)."""
    engines = Path(games.__file__).parent
    paths = {Path(sys.base_prefix), Path(sys.prefix), Path(protocol.__file__).parent, engines}
    paths.add(engines.parent / "__init__.py")
    return tuple(sorted(paths))


def search_path(path_env: str | None) -> str:
    """``PATH`` without relative entries, which would be looked up from the referee's own
    directory, not the bot's."""
    return os.pathsep.join(p for p in (path_env or "").split(os.pathsep) if os.path.isabs(p))


def _chain(path: Path) -> list[Path]:
    """``path`` and every link it passes through to its real file, each made absolute: a
    program reached through ``/usr/bin/java -> /etc/alternatives/java -> ...`` needs each
    link's directory shown, not only the end's."""
    found = [path]
    for _ in range(40):  # the kernel's own limit on a chain of links
        here = Path(os.path.realpath(found[-1].parent)) / found[-1].name
        if not here.is_symlink():
            break
        found.append(here.parent / os.readlink(here))
    return found


def _real_dirs(path: Path) -> list[Path]:
    """The real directories holding ``path`` and each link on its chain."""
    return [Path(os.path.realpath(p.parent)) for p in _chain(path)]


def view(
    argv: Sequence[str],
    cwd: Path,
    path_env: str | None,
    root: Path | None,
    runtime_paths: Sequence[str] = (),
) -> View:
    """What running ``argv`` from ``cwd`` needs shown, checked against the bot's folder
    ``root`` (None: a command-line bot, nothing refused).

    Raises FileNotFoundError like ``Popen`` when the program does not exist, BotPathError when
    something the command names resolves outside its folder and outside the runtime.
    """
    program = argv[0]
    on_path = "/" not in program
    if on_path:
        found = shutil.which(program, path=search_path(path_env))
        if found is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", program)
        resolved = Path(found)
    else:
        resolved = Path(program) if os.path.isabs(program) else cwd / program
    if not resolved.exists():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", program)
    runtime = [*system_runtime(), *runtime_binds(path_env, runtime_paths)]
    binds: list[Path] = []
    if os.path.realpath(resolved) == os.path.realpath(sys.executable):
        binds += python_paths()
        runtime += python_paths()
    else:
        for folder in _real_dirs(resolved):
            if not _covered(folder, runtime):  # on the organiser's PATH: part of the runtime
                binds.append(folder if on_path else _own(folder, program, root))
    first = next((a for a in argv[1:] if not a.startswith("-")), None)
    for script in first.split(":") if first else ():  # a class path names several
        path = Path(script) if os.path.isabs(script) else cwd / script
        if path.is_dir():
            folders = [Path(os.path.realpath(path))]
        else:
            folders = _real_dirs(path) if path.is_file() else []
        binds += [_own(f, script, root) for f in folders if not _covered(f, runtime)]
    return View(str(resolved), tuple(dict.fromkeys(binds)))


def check_command(argv: Sequence[str], folder: Path | None, runtime_paths: Sequence[str]) -> None:
    """Refuse (BotPathError) a command run from ``folder`` that names something the sandbox
    would refuse to show it, as ``launch`` would; a missing program is left to its caller."""
    if folder is None:
        return
    try:
        view(argv, folder, os.environ.get("PATH"), folder, runtime_paths)
    except FileNotFoundError:
        return


def _own(folder: Path, named: str, root: Path | None) -> Path:
    """``folder`` if it lies in the bot's folder: ``root``, or for a path named absolutely
    (the organiser's own naming: a registry version may name none, ``manifest.run_outside``)
    the folder it names. Else BotPathError naming both."""
    if root is None:
        return folder
    allowed = [Path(os.path.realpath(root))]
    if os.path.isabs(named):
        allowed.append(Path(os.path.realpath(os.path.dirname(os.path.normpath(named)))))
    if _covered(folder, allowed):
        return folder
    raise BotPathError(
        f"{named} resolves to {folder}, outside the bot's folder {allowed[0]}: a bot may name "
        "only files inside its own folder and programs of the runtime"
    )


_RUNTIME_LINKS: dict[str | None, tuple[Path, ...]] = {}  # by PATH: see runtime_links


def runtime_links(path_env: str | None) -> tuple[Path, ...]:
    """Files and folders outside the system runtime that its installations link to: for every
    program on ``PATH`` that resolves into an installation of its own (``<home>/bin/<name>``
    under ``/usr``, such as ``/usr/lib/jvm/java-17-openjdk-amd64``), the resolved targets of
    the links inside that installation which lead out of ``/usr`` (its configuration in
    ``/etc``). Once per process and ``PATH``, or given by the process that started this one
    (``learn_runtime_links``): the walk reads every folder of those installations, 0.2-0.5 s
    of CPU on a machine with a cloud SDK or a JDK installed."""
    found = _RUNTIME_LINKS.get(path_env)
    if found is None:
        found = _RUNTIME_LINKS[path_env] = _find_runtime_links(path_env)
    return found


def learn_runtime_links(known: dict[str | None, tuple[Path, ...]]) -> None:
    """Take ``runtime_links`` found by another process of this machine, with the same
    installations (a ladder's runner, for its local workers), instead of walking them again."""
    for path_env, found in known.items():
        _RUNTIME_LINKS.setdefault(path_env, tuple(found))


def _find_runtime_links(path_env: str | None) -> tuple[Path, ...]:
    system = system_runtime()
    homes: set[Path] = set()
    for folder in search_path(path_env).split(os.pathsep):
        if not folder or not _covered(Path(os.path.realpath(folder)), system):
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                real = Path(os.path.realpath(entry.path))
                home = real.parent.parent
                if real.parent.name == "bin" and home not in _SYSTEM_PREFIXES:
                    homes.add(home)
    found: set[Path] = set()
    for home in sorted(homes):
        found.update(_outward_links(home, system))
    return tuple(p for p in sorted(found) if not _covered(p, found - {p}))


def _outward_links(home: Path, system: Sequence[Path]) -> list[Path]:
    """Resolved targets of the links under ``home`` that exist and lie outside ``system``: the
    folder holding a file target (``/etc/java-17-openjdk``), or the file where that folder
    would be too shallow (``/etc`` itself is never shown)."""
    found, stack = [], [str(home)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                target = Path(os.path.realpath(entry.path))
                if target.is_file() and len(target.parent.parts) >= _SHALLOWEST_TARGET:
                    target = target.parent  # one mount for a folder of settings, not one each
                deep = len(target.parts) >= _SHALLOWEST_TARGET
                if deep and target.exists() and not _covered(target, system):
                    found.append(target)
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return found


def runtime_binds(path_env: str | None, runtime_paths: Sequence[str]) -> tuple[Path, ...]:
    """What every bot is shown beyond the system runtime: the installations' outward links and
    the organiser's runtime paths."""
    return (*runtime_links(path_env), *map(Path, runtime_paths))


def runtime_path_problem(path: str, private: Iterable[Path]) -> str:
    """Empty if ``path`` may be shown to every bot as part of the runtime; else why not. It
    must be absolute, exist, and neither hold nor lie in one of the ``private`` places (the
    competition's own folder, its database, registry and replays)."""
    if not os.path.isabs(path):
        return f"{path!r}: a runtime path must be absolute"
    if not os.path.exists(path):
        return f"{path!r}: no such file or folder"
    real = Path(os.path.realpath(path))
    for place in private:
        place = Path(os.path.realpath(place))
        if inside(real, place) or inside(place, real):
            return f"{path!r}: it would show {place} to every bot"
    return ""
