"""The names of torch's dtypes by kind, as code and the tree spell them (`int64`, `long`, `bool`; a recorded
Python int is `int`): one list for the static check, the quality lint and the workload key. Torch-free."""

from __future__ import annotations

# integer and bool dtypes: a 0-dim tensor of one holds a number (hdecomp.runtime.host_values.is_number)
NUMBER_DTYPES = frozenset("int8 int16 int32 int64 uint8 short int long bool".split())
# floating dtypes
FLOAT_DTYPES = frozenset("float32 float64 float16 bfloat16 float half double".split())

__all__ = ["FLOAT_DTYPES", "NUMBER_DTYPES"]
