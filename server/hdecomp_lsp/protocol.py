"""The LSP protocol with one addition: `$/cancelRequest` also reaches handlers that asked to hear it
(a command waiting on a subprocess kills it), since pygls only cancels futures that have not started."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pygls.protocol import LanguageServerProtocol


class HdecompProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cancel_hooks: dict[Any, Callable[[], None]] = {}

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        hook = self.cancel_hooks.pop(msg_id, None)
        super()._handle_cancel_notification(msg_id)
        if hook is not None:
            hook()
