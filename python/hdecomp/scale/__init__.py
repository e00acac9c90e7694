"""Many models at once: `hdecomp decompose MODEL_OR_FOLDER... -o OUT [--executor local|ray]`. One task per
model (task.py: `hdecomp decompose` itself, staged, time-limited), run by an executor: local processes
(local.py) or a Ray cluster (ray_cluster.py); many.py installs finished trees atomically, skips done ones
and writes the index."""

from hdecomp.scale.local import LocalExecutor
from hdecomp.scale.many import INDEX_FILE, ManyResult, decompose_many, expand
from hdecomp.scale.task import TaskResult, TaskSpec, run_task

__all__ = ["INDEX_FILE", "LocalExecutor", "ManyResult", "TaskResult", "TaskSpec", "decompose_many", "expand",
           "run_task"]
