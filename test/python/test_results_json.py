"""results.dumps_json: the one JSON writer of every `--json` output and result file. JSON has no NaN or
Infinity, so they are written as strings ("nan", "inf", "-inf") anywhere in the structure, objects with a
`to_dict` included: strict JSON readers (jq, JavaScript's JSON.parse) read every output back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hdecomp.formats.jsonio import dumps_json, read_json, write_json_atomic


class _Result:
    def to_dict(self) -> dict[str, Any]:
        return {"max_diff": float("nan"), "trials": [{"diff": float("inf")}, {"diff": -float("inf")}]}


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"bare {name} in JSON output")
    return json.loads(text, parse_constant=refuse)


def test_non_finite_floats_are_strings_at_any_depth() -> None:
    data = _strict(dumps_json({"result": _Result(), "path": Path("a/b"), "ok": 1.5}))
    assert data == {"result": {"max_diff": "nan", "trials": [{"diff": "inf"}, {"diff": "-inf"}]},
                    "path": "a/b", "ok": 1.5}


def test_result_files_use_the_same_writer(tmp_path: Path) -> None:
    path = write_json_atomic(tmp_path / "r.json", {"result": _Result()})
    _strict(path.read_text())
    assert read_json(path)["result"]["max_diff"] == "nan"
