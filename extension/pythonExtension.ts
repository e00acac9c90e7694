/**
 * The Python extension (ms-python.python), used only when it is installed: its active interpreter is the
 * second choice after the `hdecomp.interpreter` setting. Every call is guarded — its API is optional.
 */

import * as vscode from "vscode";

const PYTHON_EXTENSION_ID = "ms-python.python";

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath?(resource?: vscode.Uri): { id: string; path: string } | undefined;
  resolveEnvironment?(env: { id: string; path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } };
}

function pythonExtension(): vscode.Extension<PythonExtensionApi> | undefined {
  return vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
}

export function isPythonExtensionInstalled(): boolean {
  return pythonExtension() !== undefined;
}

async function api(): Promise<PythonExtensionApi | undefined> {
  const ext = pythonExtension();
  if (!ext) return undefined;
  return ext.isActive ? ext.exports : await ext.activate();
}

/** A getter for the active interpreter, or undefined when the Python extension is not installed. */
export function activeInterpreterGetter(resource?: vscode.Uri): (() => Promise<string | undefined>) | undefined {
  if (!isPythonExtensionInstalled()) return undefined;
  return async () => {
    const python = await api();
    const envs = python?.environments;
    const active = envs?.getActiveEnvironmentPath?.(resource);
    if (active && envs?.resolveEnvironment) {
      const resolved = await envs.resolveEnvironment(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) return executable;
    }
    return python?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
  };
}

/** Fires when the user picks another interpreter in the Python extension (when it is installed). */
export async function onDidChangeActiveInterpreter(listener: () => void): Promise<vscode.Disposable | undefined> {
  try {
    const event = (await api())?.environments?.onDidChangeActiveEnvironmentPath;
    return event ? event(listener) : undefined;
  } catch {
    return undefined;
  }
}
