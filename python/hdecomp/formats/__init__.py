"""The output tree's files, read and written in one place, torch-free: `jsonio` (NaN-safe JSON, atomic
writes), `tree` (decomposition_tree.json in every layout), `log` (decomposition_log.json) and `layout`
(the level and step folders, and each node's verdict)."""
