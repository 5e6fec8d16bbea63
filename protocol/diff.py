"""View diffs as RFC 6902 JSON Patch operations.

:func:`diff` is specialised for our documents (small dicts of scalars and short lists):
it keeps a card played to a few operations and falls back to replacing a whole list when
that is shorter. Clients apply patches with any RFC 6902 implementation (we use
``jsonpatch``). The property that matters: ``apply(old, diff(old, new)) == new``.
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]
#: Beyond this many element operations, a changed list is sent whole.
_MAX_LIST_OPS = 3


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """Operations turning ``old`` into ``new`` (both JSON-ready values)."""
    ops: list[Op] = []
    _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in old.items():
            sub = f"{path}/{_escape(key)}"
            if key not in new:
                ops.append({"op": "remove", "path": sub})
            else:
                _diff(value, new[key], sub, ops)
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
        return
    if isinstance(old, list) and isinstance(new, list) and old and new:
        list_ops = _diff_list(old, new, path)
        if list_ops is not None:
            ops.extend(list_ops)
            return
    ops.append({"op": "replace", "path": path, "value": new})


def _diff_list(old: list[Any], new: list[Any], path: str) -> list[Op] | None:
    """Element operations for a changed list, or None when replacing it whole is shorter."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    ops: list[Op] = []
    common = min(end_old - start, end_new - start)
    for i in range(start, start + common):
        _diff(old[i], new[i], f"{path}/{i}", ops)
    # Removals from the back so earlier indices stay valid; additions in order.
    for i in range(end_old - 1, start + common - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{i}"})
    for i in range(start + common, end_new):
        ops.append({"op": "add", "path": f"{path}/{i}", "value": new[i]})
    return ops if len(ops) <= _MAX_LIST_OPS else None
