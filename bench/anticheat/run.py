"""Anti-cheat benchmark: the corpus (caught / accepted per spelling), the static analyser's speed on
generated 50 / 500 / 2000-line refactored files, and (when hdecomp.verify.step works) the full verifier on
every corpus case.

Run:  OMP_NUM_THREADS=1 .venv/bin/python bench/anticheat/run.py [--no-verify] [--repeats 30]
Writes bench/anticheat/results.json and bench/anticheat/README.md (the table for the project README).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from hdecomp.anticheat.static import analyze_source, analyze_source_uncached  # noqa: E402
from hdecomp.formats.jsonio import write_json_atomic, write_text_atomic  # noqa: E402

CORPUS = ROOT / "test" / "python" / "corpus"
HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------------------------------------
# Generated refactored files of a given length (honest: children + plumbing, like a big model's step)
# ---------------------------------------------------------------------------------------------------------

def generate_refactored(lines: int) -> str:
    """An honest RefactoredModel of about `lines` lines: imports, many children in __init__, a plumbing
    helper, and a long forward of child calls, residuals, reshapes, slicing and shape arithmetic."""
    n_blocks = max(1, (lines - 40) // 14)
    head = [
        '"""Generated refactored parent (benchmark input)."""',
        "",
        "import torch",
        "import torch.nn as nn",
        "from children.linear import Model as Linear",
        "from children.gelu import Model as GELU",
        "from children.layer_norm import Model as LayerNorm",
        "from children.softmax import Model as Softmax",
        "",
        "",
        "class RefactoredModel(nn.Module):",
        f"    def __init__(self, dim=64, heads=4, depth={n_blocks}):",
        "        super().__init__()",
        "        self.heads = heads",
        "        self.norms = nn.ModuleList([LayerNorm(dim) for _ in range(depth)])",
        "        self.ups = nn.ModuleList([Linear(dim, 4 * dim) for _ in range(depth)])",
        "        self.downs = nn.ModuleList([Linear(4 * dim, dim) for _ in range(depth)])",
        "        self.act = GELU()",
        "        self.softmax = Softmax(-1)",
        "",
        "    def _split(self, t, b, n):",
        "        return t.view(b, n, self.heads, -1).transpose(1, 2).contiguous()",
        "",
        "    def _merge(self, t, b, n):",
        "        return t.transpose(1, 2).reshape(b, n, -1)",
        "",
        "    def forward(self, x):",
        "        b, n, d = x.shape",
        "        half = d // 2",
    ]
    body: list[str] = []
    for i in range(n_blocks):
        body += [
            f"        # block {i}: pre-norm MLP with a residual (comments mention F.gelu and x @ W)",
            f"        h = self.norms[{i}](x)",
            f"        h = self.ups[{i}](h)",
            "        h = self.act(h)",
            f"        h = self.downs[{i}](h)",
            "        if h.shape[-1] == d and n > 0:",
            "            x = x + h",
            "        s = self._split(x, b, n)",
            "        x = self._merge(s, b, n)",
            "        left, right = torch.split(x, [half, d - half], dim=-1)",
            "        x = torch.cat([left, right], dim=-1).contiguous()",
            "        x = x.view(b * n, d).reshape(b, n, d)[:, :, :d]",
            f"        assert x.size(1) == n, f\"block {i}: {{x.shape}}\"",
            "",
        ]
    tail = [
        "        return self.softmax(x)",
        "",
        "",
        "def get_inputs():",
        "    return [torch.randn(2, 16, 64)]",
        "",
        "",
        "def get_init_inputs():",
        f"    return [64, 4, {n_blocks}]",
        "",
    ]
    return "\n".join(head + body + tail)


def _load() -> str:
    try:
        import os
        return f"{os.getloadavg()[0]:.1f} / {os.cpu_count()}"
    except (OSError, AttributeError):
        return "?"


def _percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def bench_speed(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for target in (50, 500, 2000):
        src = generate_refactored(target)
        n_lines = src.count("\n") + 1
        errors = [v for v in analyze_source(src) if v.severity == "error"]
        parse_ms, total_ms, parse_cpu, total_cpu, cached_ms = [], [], [], [], []
        for _ in range(repeats):
            # wall clock (what the editor feels) and CPU time (what the code costs: this machine is shared)
            c0, t0 = time.process_time(), time.perf_counter()
            ast.parse(src)
            c1, t1 = time.process_time(), time.perf_counter()
            analyze_source_uncached(src, None)  # uncached: parse + analysis
            c2, t2 = time.process_time(), time.perf_counter()
            analyze_source(src)  # the public entry point on an unchanged text (cache hit)
            t3 = time.perf_counter()
            parse_ms.append((t1 - t0) * 1e3)
            total_ms.append((t2 - t1) * 1e3)
            parse_cpu.append((c1 - c0) * 1e3)
            total_cpu.append((c2 - c1) * 1e3)
            cached_ms.append((t3 - t2) * 1e3)
        rows.append({
            "lines": n_lines, "repeats": repeats, "errors_reported": len(errors),
            "parse_ms_p50": round(statistics.median(parse_ms), 2),
            "parse_ms_p95": round(_percentile(parse_ms, 0.95), 2),
            "analyze_ms_p50": round(statistics.median(total_ms), 2),
            "analyze_ms_p95": round(_percentile(total_ms, 0.95), 2),
            "parse_cpu_ms_p50": round(statistics.median(parse_cpu), 2),
            "analyze_cpu_ms_p50": round(statistics.median(total_cpu), 2),
            "analysis_only_cpu_ms_p50": round(statistics.median(total_cpu) - statistics.median(parse_cpu), 2),
            "cached_ms_p50": round(statistics.median(cached_ms), 3),
        })
    return rows


# ---------------------------------------------------------------------------------------------------------
# The corpus
# ---------------------------------------------------------------------------------------------------------

def load_cases() -> list[tuple[Path, dict[str, Any]]]:
    return [(d, json.loads((d / "case.json").read_text())) for d in sorted(CORPUS.iterdir())
            if (d / "case.json").is_file()]


def bench_static(cases: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    per_case = []
    by_spelling: dict[str, dict[str, int]] = defaultdict(lambda: {"cases": 0, "ok": 0})
    for d, meta in cases:
        src = (d / "refactored.py").read_text()
        vs = analyze_source(src, str(d / "refactored.py"))
        errors = sorted({v.rule for v in vs if v.severity == "error"})
        if meta["kind"] == "honest":
            ok, verdict = not errors, "accepted" if not errors else "false positive"
        elif meta["static_detectable"]:
            ok = set(meta["rules"]) <= set(errors)
            verdict = "caught" if errors else "missed"
        else:
            ok, verdict = True, "caught" if errors else "left to the verifier"
        key = f"{meta['kind']}: {meta['spelling']}"
        by_spelling[key]["cases"] += 1
        by_spelling[key]["ok"] += int(ok)
        per_case.append({"case": d.name, "kind": meta["kind"], "spelling": meta["spelling"],
                         "static_detectable": meta["static_detectable"], "expected": meta["rules"],
                         "reported": errors, "verdict": verdict, "ok": ok})
    cheats = [c for c in per_case if c["kind"] == "cheat" and c["static_detectable"]]
    honest = [c for c in per_case if c["kind"] == "honest"]
    return {
        "cheats_static": len(cheats), "cheats_caught": sum(c["verdict"] == "caught" for c in cheats),
        "cheats_expected_rules_matched": sum(c["ok"] for c in cheats),
        "honest": len(honest), "honest_accepted": sum(c["ok"] for c in honest),
        "runtime_only_cheats": sum(1 for c in per_case if c["kind"] == "cheat" and not c["static_detectable"]),
        "by_spelling": dict(sorted(by_spelling.items())), "cases": per_case,
    }


def bench_verifier(cases: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any] | None:
    try:
        from hdecomp.verify.result import VerifyOptions
        from hdecomp.verify.step import verify_step
    except Exception as exc:  # the verifier is another module; report why it could not run
        return {"available": False, "reason": f"{type(exc).__name__}: {exc}"}
    rows = []
    t_all = time.perf_counter()
    for d, meta in cases:
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                res = verify_step(d / "original.py", d / "refactored.py", VerifyOptions(), console=None)
            data = res.to_dict()
            status = res.status
        except Exception as exc:
            rows.append({"case": d.name, "kind": meta["kind"], "status": "CRASH",
                         "error": f"{type(exc).__name__}: {exc}"})
            continue
        rules = sorted({v.get("rule", "") for v in data.get("anticheat", {}).get("violations", [])
                        if isinstance(v, dict)})
        kinds = sorted({v.get("kind", "") for v in data.get("anticheat", {}).get("violations", [])
                        if isinstance(v, dict)})
        numerics = data.get("numerical_comparison", {}).get("status")
        caught_by = [k for k in ("static", "structural", "runtime") if k in kinds]
        if numerics == "FAIL":
            caught_by.append("numerics")
        rows.append({"case": d.name, "kind": meta["kind"], "static_detectable": meta["static_detectable"],
                     "status": status, "rules": rules, "caught_by": caught_by,
                     "seconds": round(time.perf_counter() - t0, 3),
                     "error": str(res.error)[:200] if res.error else None})
    cheats = [r for r in rows if r["kind"] == "cheat"]
    honest = [r for r in rows if r["kind"] == "honest"]
    by_check: dict[str, int] = defaultdict(int)
    for r in cheats:
        for k in r.get("caught_by", []):
            by_check[k] += 1
    return {
        "available": True, "seconds_total": round(time.perf_counter() - t_all, 2),
        "cheats": len(cheats), "cheats_failed": sum(r["status"] == "FAIL" for r in cheats),
        "cheats_passed": [r["case"] for r in cheats if r["status"] == "PASS"],
        "cheats_error": [r["case"] for r in cheats if r["status"] not in ("FAIL", "PASS")],
        "runtime_only_caught": sum(r["status"] == "FAIL" for r in cheats if not r["static_detectable"]),
        "runtime_only": sum(1 for r in cheats if not r["static_detectable"]),
        "honest": len(honest), "honest_passed": sum(r["status"] == "PASS" for r in honest),
        "honest_not_passed": [r["case"] for r in honest if r["status"] != "PASS"],
        "cheats_caught_by_check": dict(by_check), "cases": rows,
    }


# ---------------------------------------------------------------------------------------------------------

def render_markdown(res: dict[str, Any]) -> str:
    st, speed, ver = res["static"], res["speed"], res.get("verifier")
    out = ["# Anti-cheat benchmark", "",
           f"Measured {res['timestamp']} on {res['machine']} (Python {res['python']}). "
           "Re-run: `OMP_NUM_THREADS=1 .venv/bin/python bench/anticheat/run.py`.", "",
           "## Corpus (test/python/corpus)", "",
           "| check | cheats caught | honest accepted |", "| --- | --- | --- |",
           f"| static (`hdecomp check`, no torch) | {st['cheats_caught']}/{st['cheats_static']} statically "
           f"detectable (expected rule ids: {st['cheats_expected_rules_matched']}/{st['cheats_static']}) "
           f"| {st['honest_accepted']}/{st['honest']} |"]
    if ver and ver.get("available"):
        out.append(f"| full `verify-step` (static + structural + runtime + numerics) | "
                   f"{ver['cheats_failed']}/{ver['cheats']} (runtime-only cheats: "
                   f"{ver['runtime_only_caught']}/{ver['runtime_only']}) | {ver['honest_passed']}/{ver['honest']} |")
    out += ["", "## Static analysis speed (`analyze_source`, generated honest refactored files)", "",
            "| lines | ast.parse p50 / p95 (ms) | analyze_source p50 / p95 (ms, incl. parse) "
            "| CPU ms p50: parse / parse+analysis | same text again (cache) | budget |",
            "| --- | --- | --- | --- | --- | --- |"]
    for r in speed:
        budget = "< 30 ms" if r["lines"] >= 2000 else ""
        out.append(f"| {r['lines']} | {r['parse_ms_p50']} / {r['parse_ms_p95']} | "
                   f"{r['analyze_ms_p50']} / {r['analyze_ms_p95']} | {r['parse_cpu_ms_p50']} / "
                   f"{r['analyze_cpu_ms_p50']} | {r['cached_ms_p50']} ms | {budget} |")
    out += ["", f"Machine load while measuring (1-min load average / cores): {res.get('load', '?')}. "
            "The analysis itself (parse excluded) costs about "
            f"{speed[-1]['analysis_only_cpu_ms_p50']} ms CPU at {speed[-1]['lines']} lines, "
            f"{round(100 * speed[-1]['analysis_only_cpu_ms_p50'] / max(speed[-1]['parse_cpu_ms_p50'], 1e-9))}% "
            "of `ast.parse`; a no-op walk of the same tree costs about as much. "
            "Wall-clock times here are inflated by the shared machine's load; at the issue's reference speed "
            "(`ast.parse` 24 ms for a 2000-line file) the measured CPU ratio puts `analyze_source` at about "
            f"{round(24 * speed[-1]['analyze_cpu_ms_p50'] / max(speed[-1]['parse_cpu_ms_p50'], 1e-9), 1)} ms, "
            "parse included; an unchanged text (diagnostics, code actions and lenses of one document version) "
            "is answered from a small cache."]
    out += ["", "## Static results by spelling", "", "| kind: spelling | cases | as expected |", "| --- | --- | --- |"]
    for k, v in st["by_spelling"].items():
        out.append(f"| {k} | {v['cases']} | {v['ok']} |")
    if ver and ver.get("available"):
        out += ["", "## Full verifier: which check caught each cheat", "",
                "| check | cheats it flagged |", "| --- | --- |"]
        for k, v in sorted(ver["cheats_caught_by_check"].items()):
            out.append(f"| {k} | {v} |")
        if ver["cheats_passed"]:
            out += ["", "Cheats the full verifier let through: " + ", ".join(f"`{c}`" for c in ver["cheats_passed"])]
        if ver["honest_not_passed"]:
            out += ["", "Honest steps not passed: " + ", ".join(f"`{c}`" for c in ver["honest_not_passed"])]
    elif ver:
        out += ["", f"Full verifier not run: {ver.get('reason')}"]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=30, help="timing repeats per file size")
    ap.add_argument("--no-verify", action="store_true", help="skip the full verifier over the corpus")
    args = ap.parse_args()
    cases = load_cases()
    res: dict[str, Any] = {
        "timestamp": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "load": _load(),
        "speed": bench_speed(args.repeats),
        "static": bench_static(cases),
    }
    if not args.no_verify:
        res["verifier"] = bench_verifier(cases)
    write_json_atomic(HERE / "results.json", res)
    md = render_markdown(res)
    write_text_atomic(HERE / "README.md", md)
    print(md)
    st = res["static"]
    ok = st["cheats_caught"] == st["cheats_static"] and st["honest_accepted"] == st["honest"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
