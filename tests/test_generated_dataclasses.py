"""The classes of a checkpoint's schema.py behave as `@dataclass(frozen=True, slots=True)` ones.

schema.py writes out their `__slots__` and `__init__` and builds the rest itself (the
decorator's per-class `exec` was nearly all the cost of importing it). Each class of a real
checkpoint (every catalog group and collection, plus an import's inferred collection with
nested objects) is compared with the same class made by the decorator: the module's own
fallback, taken when the running `dataclasses` lacks the internals the fields need (here:
a `dataclasses` offering only its public names).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import inspect
import pickle
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from uac import Memory

pytestmark = pytest.mark.usefixtures("backend")

T0 = dt.datetime(2025, 1, 1, 12)

PATIENTS = [
    {"id": 42, "name": "Ben", "medications": [{"name": "ibuprofen", "dose_mg": 400}]},
    {"id": 9, "name": "Cy", "conditions": ["asthma"], "address": {"city": "Oslo", "zip": 150}},
]


def _compiled(mem: Memory) -> tuple[Any, Path]:
    """The root object of a checkpoint with values in groups, records and nested objects."""
    mem.set("alice", "identity.passport.expiry_date", "2031-05-03", now=T0)
    mem.set("alice", "preferences.verbosity", "short", now=T0)
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    (result,) = mem.compile("alice")
    assert result.status == "published", result.error
    checkpoint = mem.checkpoint("alice")
    return checkpoint.user, Path(checkpoint.directory) / "schema.py"


def _executed(path: Path, name: str) -> types.ModuleType:
    """schema.py executed as module `name` (registered: pickle finds its classes there)."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
    return module


@pytest.fixture
def modules(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Any, types.ModuleType, types.ModuleType]]:
    """(root object, schema.py as written, schema.py with the decorator making its classes)."""
    user, path = _compiled(mem)
    written = _executed(path, "written_schema")
    public = types.ModuleType("dataclasses")  # a `dataclasses` without the internals
    public.__dict__.update((name, getattr(dataclasses, name)) for name in dataclasses.__all__)
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "dataclasses", public)
        decorated = _executed(path, "decorated_schema")
    yield user, written, decorated
    del sys.modules["written_schema"], sys.modules["decorated_schema"]


def _classes(module: types.ModuleType) -> dict[str, Any]:
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == module.__name__
    }


def _instances(root: Any) -> Iterator[Any]:
    """Every dataclass instance under root (root included)."""
    if dataclasses.is_dataclass(root):
        yield root
        for f in dataclasses.fields(root):
            yield from _instances(getattr(root, f.name))
    elif isinstance(root, tuple):
        for item in root:
            yield from _instances(item)


def _values(cls: Any) -> dict[str, Any]:
    """Arguments for a class of which the checkpoint holds no instance: required ones only."""
    return {
        f.name: f"{f.name}-value"
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING
    }


def _outcome(action: Any, arg: Any) -> Any:
    """What action(arg) returns, or the type of what it raises."""
    try:
        return action(arg)
    except Exception as exc:
        return type(exc)


def test_the_written_classes_are_built_without_the_decorator(
    modules: tuple[Any, types.ModuleType, types.ModuleType],
) -> None:
    _, written, decorated = modules
    assert written._PARAMS is not None and decorated._PARAMS is None
    for name, cls in _classes(written).items():
        # The decorator execs its methods' source ("<string>"); schema.py's are its own.
        assert cls.__init__.__code__.co_filename == written.__file__, name
        assert _classes(decorated)[name].__init__.__code__.co_filename == "<string>", name


def test_each_class_is_the_decorators_class(
    modules: tuple[Any, types.ModuleType, types.ModuleType],
) -> None:
    _, written, decorated = modules
    classes = _classes(written)
    assert {"User", "Note", "Identity", "Patient"} <= classes.keys()
    assert classes.keys() == _classes(decorated).keys()
    for name, cls in classes.items():
        ref = _classes(decorated)[name]
        assert set(vars(cls)) == set(vars(ref)), name
        assert cls.__slots__ == ref.__slots__ and cls.__match_args__ == ref.__match_args__
        assert cls.__qualname__ == ref.__qualname__ and cls.__doc__ == ref.__doc__
        assert cls.__annotations__ == ref.__annotations__
        fields, ref_fields = dataclasses.fields(cls), dataclasses.fields(ref)
        assert len(fields) == len(ref_fields) == len(cls.__slots__), name
        for f, r in zip(fields, ref_fields, strict=True):
            for slot in dataclasses.Field.__slots__:
                assert getattr(f, slot) == getattr(r, slot), (name, f.name, slot)
        for slot in type(ref.__dataclass_params__).__slots__:
            assert getattr(cls.__dataclass_params__, slot) == getattr(
                ref.__dataclass_params__, slot
            )
        params = inspect.signature(cls).parameters
        assert list(params.values()) == list(inspect.signature(ref).parameters.values())
        assert dataclasses.is_dataclass(cls), name  # last: it narrows cls's type


def test_instances_behave_as_the_decorators(
    modules: tuple[Any, types.ModuleType, types.ModuleType],
) -> None:
    user, written, decorated = modules
    by_class: dict[str, list[Any]] = {}
    for item in _instances(user):
        by_class.setdefault(type(item).__name__, []).append(item)
    assert {"User", "Identity", "Preferences", "Patient"} <= by_class.keys()
    assert len(by_class) > 5, sorted(by_class)  # nested objects of the import's records
    for name, cls in _classes(written).items():
        ref = _classes(decorated)[name]
        samples = [{f: getattr(i, f) for f in cls.__slots__} for i in by_class.get(name, [])]
        for values in samples or [_values(ref)]:
            _same_behaviour(cls, ref, values)


def _same_behaviour(cls: Any, ref: Any, values: dict[str, Any]) -> None:
    name = cls.__name__
    item, other = cls(**values), ref(**values)
    assert cls(*values.values()) == item and ref(*values.values()) == other
    assert repr(item) == repr(other), name
    for view in (dataclasses.asdict, dataclasses.astuple):  # a mapping in User: no deep copy
        assert _outcome(view, item) == _outcome(view, other), name
    assert item == cls(**values) and item != other and (item != item) is False
    assert item.__eq__(other) is NotImplemented is other.__eq__(item)
    assert _outcome(hash, item) == _outcome(hash, other), name
    assert not hasattr(item, "__dict__") and not hasattr(other, "__dict__")
    first = cls.__slots__[0]
    changed = dataclasses.replace(item, **{first: "changed"})
    assert repr(changed) == repr(dataclasses.replace(other, **{first: "changed"}))
    assert getattr(changed, first) == "changed" and type(changed) is cls
    for obj in (item, other):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
            setattr(obj, first, None)
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field"):
            delattr(obj, first)
        with pytest.raises((AttributeError, TypeError)):
            obj.not_a_field = 1
        assert getattr(obj, first) == values[first]
    for roundtrip in (lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy, copy.copy):
        back, ref_back = _outcome(roundtrip, item), _outcome(roundtrip, other)
        if isinstance(ref_back, type):  # a mapping in User: neither pickles
            assert back is ref_back, name
        else:
            assert back == item and type(back) is cls and repr(back) == repr(ref_back)
    match item:
        case cls(found):  # type: ignore[misc]
            assert found == values[first]
        case _:
            raise AssertionError(f"{name} did not match its class pattern")
    # "...__init__() missing 2 required positional arguments: 'key' and 'fact_ids'" (the
    # decorator's function is named after the function that execs it: the rest must match)
    assert _missing(cls) == _missing(ref), name


def _missing(cls: Any) -> str | None:
    """What constructing cls with no arguments raises, after the function's name."""
    try:
        cls()
    except TypeError as exc:
        return str(exc).split("() ", 1)[1]
    return None
