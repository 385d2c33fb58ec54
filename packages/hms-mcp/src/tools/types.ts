/**
 * What a tool's runner is given and gives back: the call's context and its result. Its own
 * module so that the memory tools and the history tools share it without importing each other.
 */
import type { ToolArguments, ToolName } from "@hms/protocol";
import type { Awaitable, Limits, StoreApi } from "@hms/store";
import type { Semantic } from "../semantic/semantic.js";

/** What a tool call runs against. */
export interface ToolContext {
  /**
   * The store of the call's namespace, on either engine. Runners chain its answers with
   * `after`, so on SQLite a call runs synchronously as a whole.
   */
  readonly store: StoreApi;
  /** The size limits of the server's stores. */
  readonly limits: Limits;
  readonly namespace: string;
  /** Whether the namespace has a store (one nothing was written to reads as empty). */
  exists(): Awaitable<boolean>;
  readonly server: { readonly name: string; readonly version: string };
  /** The embedding model's side of recall, when the server runs with one. */
  readonly semantic: Semantic | undefined;
  /** The connection (stdio pipe or HTTP session) making the call; hybrid recall waits for its writes. */
  readonly caller: object;
}

/** A tool's successful result: structured content and a short text for people and models. */
export interface ToolOutput {
  readonly structured: Record<string, unknown>;
  readonly text: string;
}

/** Runs one call of tool `T` (without the `namespace` argument, which picked the store). */
export type ToolRunner<T extends ToolName = ToolName> = (
  args: ToolArguments<T>,
  context: ToolContext,
) => ToolOutput | Promise<ToolOutput>;
