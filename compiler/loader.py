"""The one place that finds and imports a published checkpoint of a subject.

Layout under a workspace: `generated/<tenant>/<scope>/<subject>/versions/vNNNNNN/` holds one
checkpoint; the file `current` in the subject directory names the published one. A version
directory is imported as its own uniquely named package from its path — never by adding a
directory to `sys.path` — so no subject's code can shadow another's.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import sys
import threading
from collections.abc import Collection
from types import ModuleType
from typing import TYPE_CHECKING, Any

from uac.compiler.gc_pause import cyclic_gc_paused
from uac.fact_log.errors import NotFound, WorkspaceError

if TYPE_CHECKING:
    from pathlib import Path

    from uac.compiler.verified import Checked, Checkpoint
    from uac.fact_log.addressing import Address
    from uac.fact_log.chain_keys import KeyRing

# The sandbox's zygote imports this module and only `import_package` and `stubs_except` of
# it, with a directory as a string: neither `pathlib` nor the addressing module (~5 ms of its
# start) is imported here, nor the records of a loaded checkpoint (compiler/verified.py, two
# dataclasses: ~1 ms); the functions that make a `Path`, an `Address` or those import them.

GENERATED = "generated"
FILES = "files.json"
# HMAC of files.json under the workspace's chain key (fact_log/chain_keys.py): a separate file so
# files.json (and the golden output) stays the same in every workspace.
SIGNATURE = "files.sig"
# Per subject: `placed/vNNNNNN.sig` signs (tenant, scope, subject, version, files.json) so a
# checkpoint copied to another subject or renamed to another version is refused.
PLACED = "placed"
# The generated module every records_<attr> module of a checkpoint decodes its JSON with
# (compiler/templates/columns.py.j2); its leading underscore keeps it out of any name a
# sandboxed program may write.
COLUMNS = "_columns"
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*\Z")  # \Z: no trailing newline


def _component(name: str) -> str:
    # Names are validated at the API boundary; this is the last line against traversal.
    if not _SAFE.match(name) or name in (".", ".."):
        raise WorkspaceError(f"refusing unsafe path component {name!r}")
    return name


def subject_dir(home: Path, addr: Address) -> Path:
    """Directory holding all checkpoints of one subject."""
    return (
        home
        / GENERATED
        / _component(addr.tenant)
        / _component(addr.scope)
        / _component(addr.subject)
    )


def version_name(version: int) -> str:
    """Directory name of a checkpoint version."""
    return f"v{version:06d}"


def current_version(home: Path, addr: Address) -> int | None:
    """The published version number of a subject, or None if it was never compiled."""
    pointer = subject_dir(home, addr) / "current"
    try:
        text = pointer.read_text().strip()
    except FileNotFoundError:
        return None
    if not re.fullmatch(r"v\d{6}", text):
        raise WorkspaceError(f"checkpoint pointer {pointer} is corrupted; run 'uac compile {addr}'")
    return int(text[1:])


def diff_versions(
    home: Path, addr: Address, published: list[int], old: int | None, new: int | None
) -> tuple[int, int]:
    """The two versions a diff compares: those given, else the current one and the
    published one before it (`published`: the subject's published versions in order)."""
    if new is None:
        new = current_version(home, addr)
        if new is None:
            raise NotFound(f"{addr} has no compiled checkpoint; run 'uac compile {addr}'")
    if old is None:
        earlier = [v for v in published if v < new]
        if not earlier:
            raise NotFound(
                f"{addr} has no checkpoint before version {new} to compare with; "
                f"a diff needs two: write to it, then run 'uac compile {addr}'"
            )
        old = earlier[-1]
    return old, new


def file_digests(directory: str | os.PathLike[str]) -> dict[str, str]:
    """SHA-256 of every generated file in a version directory (not caches)."""
    digests = {}
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.is_file() and entry.name not in (FILES, SIGNATURE):
            with open(entry.path, "rb") as f:
                digests[entry.name] = hashlib.sha256(f.read()).hexdigest()
    return digests


def home_of(directory: str | os.PathLike[str]) -> Path:
    """The workspace a version directory belongs to (generated/<t>/<s>/<subj>/versions/vN)."""
    from pathlib import Path

    return Path(directory).resolve().parents[5]


def sign(directory: Path, ring: KeyRing) -> None:
    """Write the signature of a version directory's files.json (the compiler calls this).

    This first line signs the content alone (tenant, subject, watermark, head and file
    digests are in files.json), so a checkpoint shared between nodes keeps it; `bind` adds
    the line that pins it to its place.
    """
    stamp = (directory / FILES).read_bytes()
    (directory / SIGNATURE).write_text(ring.sign(b"checkpoint:" + stamp) + "\n")


def _placement(addr: Address, version: int, stamp: bytes) -> bytes:
    where = "\0".join((addr.tenant, addr.scope, addr.subject, version_name(version)))
    return f"checkpoint-at:{where}\0".encode() + hashlib.sha256(stamp).hexdigest().encode()


def placement_file(subject_base: Path, version: int) -> Path:
    """Where the signature pinning version `version` of a subject to its place is kept.

    Beside the version directories, not in them: a version's files are the same whatever
    number it gets (compiling twice gives identical bytes), only this signature differs.
    """
    return subject_base / PLACED / f"{version_name(version)}.sig"


def bind(directory: Path, ring: KeyRing, addr: Address, version: int, base: Path) -> None:
    """Sign where a signed checkpoint is placed: its subject and version (before placing)."""
    stamp = (directory / FILES).read_bytes()
    target = placement_file(base, version)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(ring.sign(_placement(addr, version, stamp)) + "\n")
    os.replace(tmp, target)


def content_signature(directory: Path) -> str:
    """The first line of files.sig: the signature of files.json alone (what nodes share)."""
    return (directory / SIGNATURE).read_text().split()[0]


def placed_at(directory: Path) -> tuple[Address, int]:
    """The subject and version a version directory's place in the layout says it is."""
    from pathlib import Path

    from uac.fact_log.addressing import Address

    resolved = Path(directory).resolve()
    subject, scope, tenant = (resolved.parents[i].name for i in (1, 2, 3))
    if not re.fullmatch(r"v\d{6}", resolved.name):
        raise WorkspaceError(f"checkpoint {directory} is not a version directory")
    return Address(tenant, scope, subject), int(resolved.name[1:])  # type: ignore[arg-type]


def folded_head(directory: Path) -> tuple[int, str | None]:
    """The log head (seq, fact id) a version directory's files.json says it folded."""
    try:
        meta = json.loads((directory / FILES).read_bytes())
        return int(meta.get("watermark") or 0), meta.get("head_id")
    except (OSError, ValueError, TypeError, AttributeError):
        return 0, None


def signature_ok(directory: Path, stamp: bytes, ring: KeyRing | None = None) -> bool:
    """True when files.sig is the workspace key's signature of these files.json bytes."""
    if ring is None:
        from uac.fact_log.chain_keys import KeyRing

        ring = KeyRing.load(home_of(directory))
    try:
        mac = content_signature(directory)
    except (OSError, IndexError):
        return False
    return ring is not None and ring.check(b"checkpoint:" + stamp, mac)


def check_signature(directory: Path, stamp: bytes | None = None) -> None:
    """Refuse a checkpoint whose files.json is unsigned or not signed by this workspace's key,
    or that is not the checkpoint of the subject and version its directory stands for."""
    if stamp is None:
        try:
            stamp = (directory / FILES).read_bytes()
        except OSError:
            stamp = b""
    # Here, not at import: the sandbox's zygote imports this module and never holds a key.
    from uac.fact_log.chain_keys import KeyRing, key_path

    home = home_of(directory)
    ring = KeyRing.load(home)
    if ring is None:
        raise WorkspaceError(
            f"checkpoint {directory} cannot be trusted: the chain key file {key_path(home)} "
            "is missing"
        )
    if not (directory / SIGNATURE).exists():
        raise WorkspaceError(f"checkpoint {directory} is not signed; recompile it")
    if not signature_ok(directory, stamp, ring):
        raise WorkspaceError(
            f"checkpoint {directory} has a signature that does not match its {FILES} "
            "(edited outside uac); recompile it"
        )
    addr, version = placed_at(directory)
    try:
        meta = json.loads(stamp)
        compiled_for = (str(meta["tenant"]), str(meta["subject"]))
    except (ValueError, KeyError, TypeError):
        compiled_for = ("?", "?")
    if compiled_for != (addr.tenant, str(addr)):
        raise WorkspaceError(
            f"checkpoint {directory} was compiled for {compiled_for[0]}/{compiled_for[1]}, not"
            f" for {addr.tenant}/{addr} (copied from another subject); recompile {addr}"
        )
    try:
        placed = placement_file(directory.parent.parent, version).read_text().strip()
    except OSError:
        placed = ""
    if not ring.check(_placement(addr, version, stamp), placed):
        raise WorkspaceError(
            f"checkpoint {directory} is not signed as version {version} of {addr} (moved,"
            f" renamed or from an older uac); recompile {addr}"
        )


def check_files(directory: str | os.PathLike[str], stamp: bytes) -> dict[str, str]:
    """The digests of a version directory's files, refused unless they are the ones its
    files.json (`stamp`) lists: a file edited, added or removed after publishing."""
    try:
        meta = json.loads(stamp)
    except ValueError:
        raise WorkspaceError(
            f"checkpoint {directory} is missing or corrupted ({FILES} unreadable); recompile it"
        ) from None
    found = file_digests(directory)
    if found != meta.get("files"):
        bad = sorted(set(found.items()) ^ set(meta.get("files", {}).items()))
        raise WorkspaceError(
            f"checkpoint {directory} is corrupted ({bad[0][0]} does not match); recompile it"
        )
    return found


def verified_files(home: Path, addr: Address, version: int | None = None) -> Checked:
    """A subject's published checkpoint (or a given version) checked as `load` checks it
    (signature, placement, every file's digest), without importing its code: for reads of
    its data files (provenance, manifest) that never need the typed objects."""
    version, directory = version_dir(home, addr, version)
    try:
        stamp = (directory / FILES).read_bytes()
    except OSError:
        stamp = b""
    check_signature(directory, stamp)
    check_files(directory, stamp)
    from uac.compiler.verified import Checked

    return Checked(addr, version, directory, json.loads(stamp))


_IMPORTED: dict[str, str] = {}  # a subject's versions directory -> package imported last
# Threads of one process (a server's requests, reactions, the scheduler) import checkpoints
# at once: one lock makes "in sys.modules" mean "fully executed", and keeps one thread from
# scanning sys.modules while another adds to it.
_IMPORT_LOCK = threading.RLock()


def _forget(name: str) -> None:
    for mod in [m for m in list(sys.modules) if m == name or m.startswith(name + ".")]:
        sys.modules.pop(mod, None)
    where = _FINDERS.pop(name, None)
    if where is not None:
        sys.path_importer_cache.pop(where, None)


class _SourceOnly(importlib.machinery.SourceFileLoader):
    """Runs a checkpoint module from its source, which its digest and signature cover.

    Never from bytecode: a `.pyc` beside the sources is covered by no digest, and the
    standard loader would run one planted there (its header names the source's size and
    time, both easy to copy) instead of the verified source. Nothing is written either.
    """

    def get_code(self, fullname: str) -> Any:
        """The module's code, compiled from its source file."""
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


# A package imported from a version directory -> that directory, whose finder (in
# sys.path_importer_cache) loads its modules with _SourceOnly.
_FINDERS: dict[str, str] = {}


def import_package(
    directory: str | os.PathLike[str],
    verify: bool = True,
    signed: bool = True,
    stubs: tuple[str, ...] = (),
    constraints: bool = True,
) -> ModuleType:
    """Import a version directory as a fresh, uniquely named package and return it.

    With verify, every file must have its digest in files.json and, with signed, files.json
    must carry the workspace key's signature (the sandbox's zygote passes signed=False: its
    host checked the signature, and the key never enters the sandbox). Only the version
    imported last of each subject stays in `sys.modules` (a long-lived process compiles a
    new version on every write); packages still referenced keep working.

    `stubs` names record modules to stand in for with an empty `RECORDS` (the validator,
    for collections carried unchanged from a validated version): such a package is
    partial, imported under its own name, and only good for digesting its other parts.

    `constraints=False` leaves the constraints module (the checks' functions, and `calendar`
    its rules import) unimported: the sandbox's zygote, where no check runs. Its file is
    still checked against files.json with the others.
    """
    cacheable = verify and signed and not stubs and constraints
    if cacheable:
        from uac.fact_log.chain_keys import key_path

        known = _VERIFIED.get(str(directory))
        ring_file = known[2] if known else key_path(home_of(directory))
        seen = _stat_stamp(directory, ring_file)  # before reading: a later write shows
        with _IMPORT_LOCK:
            if known is not None and known[0] == seen and known[1] in sys.modules:
                return sys.modules[known[1]]
    try:
        with open(os.path.join(directory, FILES), "rb") as f:
            stamp = f.read()
    except OSError:
        stamp = b""
    if verify and signed:
        from pathlib import Path

        check_signature(Path(directory), stamp)
    files = check_files(directory, stamp) if verify else None
    # Named by path and content: a directory rewritten with other code (a workspace deleted
    # and built again at the same path) must not be served from an earlier import.
    resolved = os.path.realpath(directory)
    ident = hashlib.sha256(resolved.encode() + b"\0" + stamp).hexdigest()
    name = "uac_checkpoint_" + ident[:16] + ("_partial" if stubs else "")
    name += "" if constraints else "_no_constraints"  # never served as the whole package
    with _IMPORT_LOCK:
        # Only the host (signed) carries modules between versions; the sandbox's zygote
        # imports one checkpoint per process and keeps its own, never shared, copy.
        package = _import_as(
            name, directory, resolved, stubs, files if signed else None, constraints
        )
        if cacheable and seen:
            _VERIFIED[str(directory)] = (seen, name, ring_file)
        return package


# A version directory -> (its _stat_stamp when it was last verified, the package imported,
# the workspace's key file).
_VERIFIED: dict[str, tuple[tuple[Any, ...], str, Path]] = {}


def _stat_stamp(directory: str | os.PathLike[str], ring_file: Path) -> tuple[Any, ...]:
    """Name, inode, size and change times of every file of a version dir and of the key file.

    A pass loads every subject's unchanged checkpoint again; reading and hashing all its
    files each time costs more than the rest of the evaluation. While this stamp is what it
    was when the files were verified (and the package is still imported), they are not read
    again. Any write or rename changes ctime, which a process cannot set back, so a file
    edited after verification is verified (and refused) on the next load as before.
    """
    try:
        # __pycache__ appears with the first import (its files are not what runs then).
        entries = sorted(
            (e for e in os.scandir(directory) if e.name != "__pycache__"), key=lambda e: e.name
        )
        files = [(e.name, *_stat(e.stat(follow_symlinks=False))) for e in entries]
        ring = os.stat(ring_file)
    except OSError:
        return ()  # never equal to a stamp stored after a verification that passed
    return (*files, _stat(ring))


def _stat(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


# A package imported with verified files -> those files' digests and the modules it holds
# (its own or carried from an earlier version): what the next version of the subject may reuse.
_VERIFIED_FILES: dict[str, tuple[dict[str, str], dict[str, ModuleType]]] = {}


def _carried(earlier: str | None, files: dict[str, str] | None) -> dict[str, ModuleType]:
    """Modules of the subject's previously imported version whose sources are the same.

    A new version usually changes one part: executing its unchanged schema (dozens of
    dataclasses) and record modules (thousands of objects) again costs most of loading it.
    Both sides' files were verified against their files.json, so equal digests mean equal
    source and rows; a record module is carried only with the schema and the decoding module
    it was built from.
    """
    known = _VERIFIED_FILES.get(earlier or "")
    if files is None or known is None or earlier not in sys.modules:
        return {}
    before, modules = known
    if "schema" not in modules or any(
        files.get(name) != before.get(name) for name in ("schema.py", f"{COLUMNS}.py")
    ):
        return {}
    out = {"schema": modules["schema"]}
    for module, obj in modules.items():
        sources = (f"{module}.py", f"{module}.json")
        if module.startswith("records_") and all(
            name in files and files[name] == before.get(name) for name in sources
        ):
            out[module] = obj
    return out


def _import_as(
    name: str,
    directory: str | os.PathLike[str],
    resolved: str,
    stubs: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
    constraints: bool = True,
) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    for module in stubs:
        stub = ModuleType(f"{name}.{module}")
        stub.RECORDS = ()  # type: ignore[attr-defined]
        sys.modules[stub.__name__] = stub
    where = str(directory)
    init = where + os.sep + "__init__.py"
    spec = importlib.util.spec_from_file_location(
        name, init, loader=_SourceOnly(name, init), submodule_search_locations=[where]
    )
    if spec is None or spec.loader is None:
        raise WorkspaceError(f"checkpoint {directory} cannot be imported")
    # Its modules are found by this directory's finder: one that loads only sources.
    sys.path_importer_cache[where] = importlib.machinery.FileFinder(
        where, (_SourceOnly, importlib.machinery.SOURCE_SUFFIXES)
    )
    _FINDERS[name] = where
    package = importlib.util.module_from_spec(spec)
    earlier = _IMPORTED.get(os.path.dirname(resolved))
    carried = {} if stubs else _carried(earlier, files)
    for module, obj in carried.items():
        sys.modules[f"{name}.{module}"] = obj
        setattr(package, module, obj)
    sys.modules[name] = package
    try:
        with cyclic_gc_paused():  # thousands of records: see compiler.gc_pause
            spec.loader.exec_module(package)
            package.state = importlib.import_module(f"{name}.state")  # type: ignore[attr-defined]
            package.schema = importlib.import_module(f"{name}.schema")  # type: ignore[attr-defined]
            if constraints:
                package.constraints = importlib.import_module(f"{name}.constraints")  # type: ignore[attr-defined]
    except Exception as exc:
        _forget(name)
        raise WorkspaceError(f"checkpoint {directory} failed to import: {exc}") from None
    if earlier is not None and earlier != name:
        _forget(earlier)
        _VERIFIED_FILES.pop(earlier, None)
    _IMPORTED[os.path.dirname(resolved)] = name
    if files is not None and not stubs:
        held = [
            "schema",
            *(f[:-3] for f in files if f.startswith("records_") and f.endswith(".py")),
        ]
        modules = {m: sys.modules[f"{name}.{m}"] for m in held if f"{name}.{m}" in sys.modules}
        _VERIFIED_FILES[name] = (dict(files), modules)
    return package


def imported(home: Path, addr: Address) -> tuple[ModuleType, dict[str, Any]] | None:
    """The subject's current checkpoint as this process imported (and verified) it, with
    its files.json; None if it has not imported that version. Imports nothing."""
    version = current_version(home, addr)
    if version is None:
        return None
    directory = (subject_dir(home, addr) / "versions" / version_name(version)).resolve()
    with _IMPORT_LOCK:
        name = _IMPORTED.get(str(directory.parent))
        package = sys.modules.get(name) if name and name in _VERIFIED_FILES else None
    from pathlib import Path

    if package is None or Path(package.__file__ or "").parent != directory:
        return None
    try:
        return package, json.loads((directory / FILES).read_text())
    except (OSError, ValueError):
        return None


def version_dir(home: Path, addr: Address, version: int | None = None) -> tuple[int, Path]:
    """(version, directory) of the subject's current checkpoint, or of the version given."""
    if version is None:
        version = current_version(home, addr)
        if version is None:
            raise NotFound(f"{addr} has no compiled checkpoint; run 'uac compile {addr}'")
    directory = subject_dir(home, addr) / "versions" / version_name(version)
    if not directory.is_dir():
        raise NotFound(f"{addr} has no checkpoint version {version}")
    return version, directory


def stubs_except(directory: str | os.PathLike[str], only: Collection[str]) -> tuple[str, ...]:
    """The record modules of a version directory other than those of the `only` collections:
    the `stubs` of a package that needs just those (`import_package`)."""
    names = os.listdir(directory)
    modules = sorted(n[:-3] for n in names if n.startswith("records_") and n.endswith(".py"))
    return tuple(m for m in modules if m.removeprefix("records_") not in only)


def load(
    home: Path, addr: Address, version: int | None = None, only: Collection[str] | None = None
) -> Checkpoint:
    """Load a subject's published checkpoint (or a given version).

    `only`: the collections of `user` the caller reads; the records of every other one are
    not executed (an empty tuple there), though every file is verified all the same."""
    version, directory = version_dir(home, addr, version)
    package = import_package(directory, stubs=() if only is None else stubs_except(directory, only))
    meta = json.loads((directory / FILES).read_text())
    from uac.compiler.verified import Checkpoint

    return Checkpoint(addr, version, directory, meta, package)
