"""Every python block of docs/engine.md runs, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def python_blocks() -> list[str]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_engine_doc_has_runnable_examples() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 10
    joined = "\n".join(blocks)
    for needle in ("new_match(", "legal_actions(", "next_hand()", "replay(", "parse_position("):
        assert needle in joined


def test_every_python_block_of_the_engine_doc_runs() -> None:
    namespace: dict[str, object] = {"__name__": "engine_doc"}
    for number, block in enumerate(python_blocks(), start=1):
        code = compile(block, f"docs/engine.md, python block {number}", "exec")
        exec(code, namespace)
    assert "match" in namespace
