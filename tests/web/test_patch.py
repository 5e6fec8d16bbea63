"""The web client's RFC 6902 applier (clients/web/patch.js), run in Chromium."""

from __future__ import annotations

from typing import Any

from .conftest import Pages

# Each case: document, operations, and the expected document (None: the patch must fail).
CASES: list[tuple[Any, list[dict[str, Any]], Any]] = [
    ({"a": 1}, [{"op": "add", "path": "/b", "value": [1]}], {"a": 1, "b": [1]}),
    (
        {"h": ["7H", "2C"]},
        [{"op": "add", "path": "/h/1", "value": "KD"}],
        {"h": ["7H", "KD", "2C"]},
    ),
    ({"h": ["7H"]}, [{"op": "add", "path": "/h/-", "value": "KD"}], {"h": ["7H", "KD"]}),
    ({"h": ["7H"]}, [{"op": "add", "path": "/h/2", "value": "KD"}], None),
    ({"h": ["7H", "2C"]}, [{"op": "remove", "path": "/h/0"}], {"h": ["2C"]}),
    ({"a": 1, "b": 2}, [{"op": "remove", "path": "/b"}], {"a": 1}),
    ({"a": 1}, [{"op": "remove", "path": "/b"}], None),
    (
        {"g": {"stock": 20}},
        [{"op": "replace", "path": "/g/stock", "value": 19}],
        {"g": {"stock": 19}},
    ),
    ({"g": None}, [{"op": "replace", "path": "/g", "value": {"x": 1}}], {"g": {"x": 1}}),
    ({"a": 1}, [{"op": "replace", "path": "/b", "value": 2}], None),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [3]}], [3]),
    (
        {"a": {"x": 1}, "b": {}},
        [{"op": "move", "from": "/a/x", "path": "/b/y"}],
        {"a": {}, "b": {"y": 1}},
    ),
    ({"l": [1, 2, 3]}, [{"op": "move", "from": "/l/0", "path": "/l/-"}], {"l": [2, 3, 1]}),
    ({"a": {"x": 1}}, [{"op": "move", "from": "/a", "path": "/a/b"}], None),
    ({"a": [1]}, [{"op": "copy", "from": "/a", "path": "/b"}], {"a": [1], "b": [1]}),
    (
        {"a": [1, {"k": 2}]},
        [{"op": "test", "path": "/a", "value": [1, {"k": 2}]}],
        {"a": [1, {"k": 2}]},
    ),
    ({"a": [1]}, [{"op": "test", "path": "/a", "value": [2]}], None),
    ({"a/b": 1, "m~n": 2}, [{"op": "replace", "path": "/a~1b", "value": 3}], {"a/b": 3, "m~n": 2}),
    ({"m~n": 2}, [{"op": "remove", "path": "/m~0n"}], {}),
    ({"l": [1]}, [{"op": "replace", "path": "/l/01", "value": 2}], None),
    ({"a": 1}, [{"op": "jump", "path": "/a"}], None),
    # A failing operation leaves nothing half done.
    ({"a": 1}, [{"op": "add", "path": "/b", "value": 2}, {"op": "remove", "path": "/c"}], None),
]

SCRIPT = """async (cases) => {
  const { applyPatch } = await import("/patch.js");
  return cases.map(([doc, ops]) => {
    const before = JSON.stringify(doc);
    try {
      const after = applyPatch(doc, ops);
      return { ok: true, after, untouched: JSON.stringify(doc) === before };
    } catch (error) {
      return { ok: false, error: error.name, untouched: JSON.stringify(doc) === before };
    }
  });
}"""


def test_patch_applier_follows_rfc_6902(pages: Pages) -> None:
    page = pages.open("patch")
    results = page.evaluate(SCRIPT, [[doc, ops] for doc, ops, _ in CASES])
    for (doc, ops, expected), result in zip(CASES, results, strict=True):
        assert result["untouched"], (doc, ops)
        if expected is None:
            assert not result["ok"], (doc, ops, result)
        else:
            assert result["ok"], (doc, ops, result)
            assert result["after"] == expected, (doc, ops, result)
