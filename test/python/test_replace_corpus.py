"""The replacement corpus (test/python/corpus_replace/): every cheat refused by the check that must catch it
(its `# expect:` line), every honest replacement accepted, each judged at the kernel level with the kernel
and the candidate in processes of their own (`kernel_verdict`: the checks where the verdict on a cheat is
decided; test_replace.py proves the steps, the composition and the timing around them). And the reference
cache: a candidate that patches a functional cannot reach it, so verdicts are the same cold and warm."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hdecomp.decompose.driver import DecomposeOptions, decompose
from hdecomp.toolchain.replace import ReplaceOptions, kernel_verdict

CORPUS = Path(__file__).resolve().parent / "corpus_replace"
# (no corpus file depends on the speed-of-light floor, and a floor probed on a loaded machine reads high:
# this test decides nothing on a time)
OPTIONS = ReplaceOptions(runs=3, warmup=1, sol_margin=0.01)


def _header(path: Path) -> dict[str, str]:
    return dict(re.findall(r"^# (decomposition|kernel|class|expect): (\S+)", path.read_text(), re.MULTILINE))


CHEATS = sorted((CORPUS / "cheats").glob("*.py"))
HONEST = sorted((CORPUS / "honest").glob("*.py"))


def test_the_corpus_holds_every_class_of_cheat_and_enough_honest_replacements() -> None:
    headers = [_header(p) for p in CHEATS]
    assert len(CHEATS) >= 30 and len(HONEST) >= 15
    assert {"comparison", "stolen_output", "tensor_subclass", "clock", "global_settings", "work_after_return",
            "functional_patch", "cache_poisoning", "ignores_inputs", "memo"} <= {h["class"] for h in headers}
    assert all(h.get("expect") and h.get("kernel") and h.get("decomposition") for h in headers)
    assert all(_header(p).get("expect") == "PASS" for p in HONEST)
    assert "speed_of_light" not in {h["expect"] for h in headers}
    assert all(_header(p).get("expect") == "PASS" for p in (CORPUS / "neutralized").glob("*.py"))


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("corpus")
    out = {}
    for name in ("mlp", "convbn"):
        outcome = decompose(CORPUS / "models" / f"{name}.py", base / name, DecomposeOptions(self_tests=False),
                            progress=False)
        assert outcome.complete
        out[name] = outcome.root
    return out


def _judge(trees: dict[str, Path], file: Path, tmp_path: Path) -> tuple[str, list[str], str | None]:
    head = _header(file)
    root = tmp_path / "tree"
    shutil.copytree(trees[head["decomposition"]], root)
    result = kernel_verdict(root, root / "level_0_kernel" / f"{head['kernel']}.py", file, OPTIONS)
    failed = [c["name"] for c in result.data["checks"] if c["status"] == "FAIL"]
    return result.status, failed, result.reason


@pytest.mark.parametrize("file", CHEATS, ids=[p.stem for p in CHEATS])
def test_each_cheat_is_refused_by_the_check_that_must_catch_it(file: Path, trees: dict[str, Path],
                                                              tmp_path: Path) -> None:
    status, failed, reason = _judge(trees, file, tmp_path)
    assert status == "FAIL", reason
    assert failed == [_header(file)["expect"]], reason


@pytest.mark.parametrize("file", HONEST, ids=[p.stem for p in HONEST])
def test_each_honest_replacement_is_accepted(file: Path, trees: dict[str, Path], tmp_path: Path) -> None:
    status, failed, reason = _judge(trees, file, tmp_path)
    assert status == "PASS" and failed == [], reason


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.is_dir() else {}


def test_verdicts_are_the_same_with_a_cold_and_a_warm_cache_after_a_poisoning_attempt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate that rebinds F.gelu at import (so that a reference computed beside it, and cached, is
    wrong) is refused; it leaves nothing in the reference cache; and an honest and a wrong GELU then get the
    same verdicts from a cache the decomposition warmed as from an empty one."""
    from hdecomp.toolchain.replace import replace_kernel
    monkeypatch.delenv("HDECOMP_CACHE", raising=False)
    poison = CORPUS / "cheats" / "cache_poison_gelu_scale.py"
    assert _header(poison)["kernel"] == "gelu_fp32"
    honest = CORPUS / "honest" / "gelu_erf_formula.py"
    wrong = tmp_path / "gelu_wrong.py"
    wrong.write_text(honest.read_text().replace("0.5 *", "0.501 *", 1))
    assert wrong.read_text() != honest.read_text()
    verdicts = {}
    for temperature in ("warm", "cold"):
        cache = tmp_path / f"cache_{temperature}"
        monkeypatch.setenv("HDECOMP_CACHE_DIR", str(cache))
        outcome = decompose(CORPUS / "models" / "mlp.py", tmp_path / temperature, DecomposeOptions(self_tests=False),
                            progress=False)
        root = outcome.root
        if temperature == "cold":
            shutil.rmtree(cache)   # the decomposition's references gone: every reference computed afresh
        kernel = root / "level_0_kernel" / "gelu_fp32.py"
        before = _listing(cache)
        refused = replace_kernel(root, kernel, poison, OPTIONS)
        assert refused.status == "FAIL"
        assert [c["name"] for c in refused.data["checks"] if c["status"] == "FAIL"] == ["global_state"]
        assert "torch.nn.functional.gelu replaced" in refused.reason
        assert _listing(cache) == before   # nothing of the judged run reached the cache
        runs = [replace_kernel(root, kernel, f, OPTIONS) for f in (honest, wrong)]
        verdicts[temperature] = [(r.status, [c["name"] for c in r.data["checks"] if c["status"] == "FAIL"])
                                 for r in runs]
        if temperature == "warm":
            assert before, "the decomposition warmed the cache"
    assert verdicts["warm"] == verdicts["cold"] == [("PASS", []), ("FAIL", ["trials"])]


NEUTRALIZED = sorted((CORPUS / "neutralized").glob("*.py"))


@pytest.mark.parametrize("file", NEUTRALIZED, ids=[p.stem for p in NEUTRALIZED])
def test_a_cheat_the_isolation_leaves_nothing_to_exploit_is_judged_as_what_it_computes(
        file: Path, trees: dict[str, Path], tmp_path: Path) -> None:
    """A memo keyed on the input tensor itself never hits where the judge times (every run on copies of
    its own) and is right where it would: it is judged on what it computes, and that is correct."""
    status, failed, reason = _judge(trees, file, tmp_path)
    assert status == "PASS" and failed == [], reason
