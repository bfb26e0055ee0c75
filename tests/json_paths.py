"""Paths into parsed JSON (dict keys and list indices), for the tests that mutate real states and
files one field at a time (tests/fuzz_inputs.py, tests/breakthrough/test_breakthrough_loader.py)."""


def paths(obj, prefix=()):
    """Every path to a value inside `obj`, `obj` itself (the empty path) first."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def get(obj, path):
    """The value at `path`."""
    for k in path:
        obj = obj[k]
    return obj


def put(obj, path, value):
    """Set the value at `path` (not the empty path)."""
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value
