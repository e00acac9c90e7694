"""Code actions: "Extract to child component" (refactor.extract) on a selection in forward(), and the quick
fix "Extract `<op>` into a kernel child" on each compute diagnostic. The check is `ast`-only and cheap; the
libcst edit is computed on codeAction/resolve (or at once for clients that cannot resolve)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hdecomp_lsp.convert import SOURCE, text_edits
from hdecomp_lsp.uris import path_to_uri, uri_to_path

if TYPE_CHECKING:
    from hdecomp.refactor import Extraction, Span
    from pygls.workspace import TextDocument

    from hdecomp_lsp.state import HdecompLanguageServer

EXTRACT_TITLE = "Extract to child component"


def _span(doc: TextDocument, rng: types.Range) -> Span:
    """LSP range (UTF-16 by default) -> library Span (1-based lines, str-index columns)."""
    from hdecomp.refactor import Span

    server_range = doc.range_from_client_units(rng)
    return Span(server_range.start.line + 1, server_range.start.character,
                server_range.end.line + 1, server_range.end.character)


def _range_json(rng: types.Range) -> dict[str, Any]:
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def _range_from_json(d: Any) -> types.Range:
    return types.Range(start=types.Position(int(d["start"]["line"]), int(d["start"]["character"])),
                       end=types.Position(int(d["end"]["line"]), int(d["end"]["character"])))


def _can_resolve_edit(ls: HdecompLanguageServer) -> bool:
    td = ls.client_capabilities.text_document
    ca = td.code_action if td else None
    return bool(ca and ca.resolve_support and "edit" in (ca.resolve_support.properties or []))


def _supports_disabled(ls: HdecompLanguageServer) -> bool:
    td = ls.client_capabilities.text_document
    return bool(td and td.code_action and td.code_action.disabled_support)


def _supports_create(ls: HdecompLanguageServer) -> bool:
    ws = ls.client_capabilities.workspace
    we = ws.workspace_edit if ws else None
    return bool(we and we.document_changes and we.resource_operations
                and types.ResourceOperationKind.Create in we.resource_operations)


def extraction_edit(ls: HdecompLanguageServer, doc: TextDocument, ex: Extraction) -> types.WorkspaceEdit:
    """The library's file changes as one WorkspaceEdit (documentChanges with CreateFile)."""
    changes: list[Any] = []
    for change in ex.changes:
        uri = path_to_uri(change.path)
        if change.old_text is None:
            changes.append(types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False,
                                                                                     ignore_if_exists=False)))
            changes.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[types.TextEdit(range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                                      new_text=change.new_text)]))
        else:
            version = doc.version if uri == doc.uri else None
            changes.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=list(text_edits(change.old_text, change.new_text))))
    return types.WorkspaceEdit(document_changes=changes)


def _compute(ls: HdecompLanguageServer, data: dict[str, Any]) -> tuple[types.WorkspaceEdit | None, str | None]:
    uri = data.get("uri")
    if not isinstance(uri, str):
        return None, "invalid code action data"
    doc = ls.workspace.get_text_document(uri)
    if data.get("version") is not None and doc.version != data.get("version"):
        return None, "the document changed since the action was offered: try again"
    if not _supports_create(ls):
        return None, "this editor cannot create files through a workspace edit"
    if not uri.startswith("file:"):
        return None, "save the file first: the child component is created next to it"
    from hdecomp.refactor import ExtractionRefused, extract_to_child, kernel_span

    try:
        span = _span(doc, _range_from_json(data["range"]))
        op = data.get("op") if isinstance(data.get("op"), str) else None
        if data.get("kind") == "kernel":
            span = kernel_span(doc.source, span)
        ex = extract_to_child(doc.source, uri_to_path(uri), span, kernel_op=op)
    except ExtractionRefused as exc:
        return None, str(exc)
    edit = extraction_edit(ls, doc, ex)
    if ex.todo:
        ls.show(f"{ex.child_path.name}: fill in " + "; ".join(ex.todo) + " (marked TODO(hdecomp))",
                types.MessageType.Warning)
    return edit, None


def _action(ls: HdecompLanguageServer, title: str, kind: str, data: dict[str, Any],
            diagnostics: list[types.Diagnostic] | None = None) -> types.CodeAction | None:
    action = types.CodeAction(title=title, kind=kind, diagnostics=diagnostics, data=data)
    if _can_resolve_edit(ls):
        return action
    edit, reason = _compute(ls, data)
    if edit is None:
        if _supports_disabled(ls):
            action.disabled = types.CodeActionDisabled(reason=reason or "cannot extract")
            return action
        return None
    action.edit = edit
    return action


def code_actions(ls: HdecompLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    # imported on first use: keeps the server's cold start short
    from hdecomp.refactor import ExtractionRefused, check_selection, kernel_span

    doc = ls.workspace.get_text_document(params.text_document.uri)
    if not doc.uri.endswith(".py"):
        return []
    source = doc.source
    if "class Model" not in source and "class RefactoredModel" not in source:
        return []
    only = params.context.only or []
    want_refactor = not only or any(str(k).startswith(("refactor", "refactor.extract")) for k in only)
    want_quickfix = not only or any(str(k).startswith("quickfix") for k in only)
    actions: list[types.CodeAction] = []
    rng = params.range
    base = {"uri": doc.uri, "version": doc.version}
    if want_refactor and (rng.start.line, rng.start.character) != (rng.end.line, rng.end.character):
        reason = None
        try:
            check_selection(source, _span(doc, rng))
        except ExtractionRefused as exc:
            reason = str(exc)
        if reason is None:
            act = _action(ls, EXTRACT_TITLE, types.CodeActionKind.RefactorExtract,
                          {**base, "kind": "extract", "range": _range_json(rng)})
            if act is not None:
                actions.append(act)
        elif _supports_disabled(ls):
            actions.append(types.CodeAction(title=EXTRACT_TITLE, kind=types.CodeActionKind.RefactorExtract,
                                            disabled=types.CodeActionDisabled(reason=reason)))
        elif only and params.context.trigger_kind == types.CodeActionTriggerKind.Invoked:
            ls.show(f"Cannot extract: {reason}", types.MessageType.Warning)
    if want_quickfix:
        for diag in params.context.diagnostics:
            data = diag.data if isinstance(diag.data, dict) else {}
            op = data.get("op")
            if diag.source != SOURCE or not isinstance(op, str) or not str(diag.code or "").startswith("HD1"):
                continue
            title = f"Extract `{op}` into a kernel child"
            try:
                kernel_span(source, _span(doc, diag.range))
            except ExtractionRefused as exc:
                if _supports_disabled(ls):
                    actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix,
                                                    diagnostics=[diag],
                                                    disabled=types.CodeActionDisabled(reason=str(exc))))
                continue
            act = _action(ls, title, types.CodeActionKind.QuickFix,
                          {**base, "kind": "kernel", "op": op, "range": _range_json(diag.range)}, [diag])
            if act is not None:
                actions.append(act)
    return actions


def register(server: HdecompLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.RefactorExtract, types.CodeActionKind.QuickFix],
        resolve_provider=True))
    async def on_code_action(ls: HdecompLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        # async: a request the client cancelled before it ran is dropped by pygls
        return code_actions(ls, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def on_resolve(ls: HdecompLanguageServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        edit, reason = _compute(ls, data)
        if edit is None:
            ls.show(f"Cannot extract: {reason}", types.MessageType.Warning)
            return action
        action.edit = edit
        return action
