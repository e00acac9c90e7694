"""The end-to-end composition test: the whole model rebuilt from kernel files only.

`compose()` reads the steps, replaces each child of a refactored parent by that child's own refactored
decomposition, recursively, until only kernel files remain, and writes verification/composition_test.py:
a standalone script holding the refactored classes re-targeted to one another (readable code, one class
per step) that imports nothing but kernel files. The original's weights reach the composed model
through the steps' weight maps composed along each path (explicit weight_map.json > names > structure,
the verifier's own `hdecomp.verify.weights.build_weight_map`). Running it compares the composed model with the
original (fp32: rtol 1e-4, atol 1e-5; several seeds; nested outputs) and prints PASS or FAIL with the
max difference; exit 0 PASS, 1 FAIL, 2 ERROR.
"""

from hdecomp.formats.weight_map import map_json
from hdecomp.toolchain.compose.plan import (
           ComposeError,
           Composition,
           build_composition,
           original_model_file,
           plan_step,
)
from hdecomp.toolchain.compose.run import ComposeResult, compose
from hdecomp.toolchain.compose.script import (
           RESULT_MARK,
           SCRIPT,
           SCRIPT_WITH_REPLACEMENTS,
           fixed_part,
           generate_script,
)
from hdecomp.toolchain.compose.weights import composed_weight_map, kernel_use_counts

__all__ = [
           "RESULT_MARK",
           "SCRIPT",
           "SCRIPT_WITH_REPLACEMENTS",
           "ComposeError",
           "ComposeResult",
           "Composition",
           "build_composition",
           "compose",
           "composed_weight_map",
           "fixed_part",
           "generate_script",
           "kernel_use_counts",
           "map_json",
           "original_model_file",
           "plan_step",
]
