"""Loading and running user code: a component file in isolation (its own module namespace, guards and time
limits), the --batch-limit rule, and the recording of the ops a model runs."""
