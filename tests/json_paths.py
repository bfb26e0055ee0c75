"""Paths into parsed JSON (dict keys and list indices), for the tests that mutate real states and
files one field at a time (tests/fuzz_inputs.py, the games' loader tests)."""
import json

#: A value for `mutated_text`: the field is deleted.
DELETE = object()


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


def mutated_text(obj, path, value):
    """The JSON text of `obj` with the value at `path` (not the empty path) replaced by `value`, or
    deleted (`DELETE`); `obj` itself is left as it was. The same text as changing a deep copy,
    without making one: a mutation sweep makes thousands."""
    parent = get(obj, path[:-1])
    key = path[-1]
    if value is DELETE:
        if isinstance(parent, dict):
            keys = list(parent)
            old = parent.pop(key)
            try:
                return json.dumps(obj)
            finally:                                # put back where it was, keeping the keys' order
                rest = {k: parent.pop(k) for k in keys[keys.index(key) + 1:]}
                parent[key] = old
                parent.update(rest)
        old = parent.pop(key)
        try:
            return json.dumps(obj)
        finally:
            parent.insert(key, old)
    old = parent[key]
    parent[key] = value
    try:
        return json.dumps(obj)
    finally:
        parent[key] = old
