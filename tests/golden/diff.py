"""List the entries that differ between two recordings of ``behaviour.json``:
``python tests/golden/diff.py OLD.json [NEW.json]`` (NEW defaults to the recorded file). Prints
one line per leaf path that was added, removed or changed, then a count per kind of entry
(games, determinize, playouts, bots, matches), so a re-recording can be checked to change only
what its change meant to change."""
import json
import sys
from collections import Counter
from pathlib import Path


def leaves(obj, path=()):
    """(path, value) for every leaf of a JSON value; lists are leaves."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    else:
        yield path, obj


def diff(old, new):
    """[(kind, path)] with kind 'changed', 'added' or 'removed'."""
    a, b = dict(leaves(old)), dict(leaves(new))
    out = [("removed", p) for p in a if p not in b] + [("added", p) for p in b if p not in a]
    out += [("changed", p) for p in a if p in b and a[p] != b[p]]
    return sorted(out, key=lambda x: x[1])


def main(argv):
    if not 1 <= len(argv) <= 2:
        raise SystemExit(__doc__)
    old = json.loads(Path(argv[0]).read_text())
    new = json.loads(Path(argv[1] if len(argv) > 1 else Path(__file__).with_name("behaviour.json")).read_text())
    rows = diff(old, new)
    for kind, path in rows:
        print(kind, " / ".join(path))
    section = Counter(path[1] if len(path) > 1 and path[0] != "matches" else path[0] for _, path in rows)
    print(f"{len(rows)} leaves differ; by section: {dict(sorted(section.items())) or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
