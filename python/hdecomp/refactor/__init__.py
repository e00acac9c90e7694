"""Source transformations for decomposition steps (libcst, formatting and comments kept), shared by the
language server and the CLI. Pure library: never imports torch, pygls or lsprotocol."""

from hdecomp.refactor.extract import Extraction, extract_to_child, kernel_span
from hdecomp.refactor.movable import check_selection
from hdecomp.refactor.selection import ExtractionRefused, FileChange, SelectionInfo, Span

__all__ = ["Extraction", "ExtractionRefused", "FileChange", "SelectionInfo", "Span", "check_selection",
           "extract_to_child", "kernel_span"]
