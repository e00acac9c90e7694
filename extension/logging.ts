/**
 * Logging: one LogOutputChannel ("hdecomp") for the extension, the server's stderr and the LSP trace.
 * The LSP trace follows the channel's log level (Trace -> verbose, Debug -> messages, else off), so
 * "Developer: Set Log Level…" on the channel is the one switch.
 */

import * as vscode from "vscode";
import { Trace } from "vscode-languageclient/node";

export const CHANNEL_NAME = "hdecomp";

export function createLogChannel(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(CHANNEL_NAME, { log: true });
}

export function lspTraceFor(level: vscode.LogLevel): Trace {
  if (level === vscode.LogLevel.Trace) return Trace.Verbose;
  if (level === vscode.LogLevel.Debug) return Trace.Messages;
  return Trace.Off;
}

/** Keeps a client's trace in step with the channel's level; returns the subscription. */
export function followLogLevel(
  channel: vscode.LogOutputChannel,
  setTrace: (trace: Trace) => Promise<void>,
): vscode.Disposable {
  void setTrace(lspTraceFor(channel.logLevel));
  return channel.onDidChangeLogLevel((level) => {
    channel.info(`log level ${vscode.LogLevel[level]}; LSP trace ${Trace[lspTraceFor(level)]}`);
    void setTrace(lspTraceFor(level));
  });
}

/** Writes a multi-line block (command output, debug information) line by line at info level. */
export function logBlock(channel: vscode.LogOutputChannel, text: string): void {
  for (const line of text.split(/\r?\n/)) {
    if (line.trim()) channel.info(line);
  }
}
