/**
 * What a tool's runner is given and gives back: the call's context and its result. Its own
 * module so that the memory tools and the history tools share it without importing each other.
 */
import type { ToolArguments, ToolName } from "@hms/protocol";
import type { Awaitable, Limits, StoreApi } from "@hms/store";
import type { Grant } from "../auth/tokens.js";
import type { Semantic } from "../semantic/semantic.js";
import type { StorePlace } from "./store-place.js";

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
  /** Which store this is, as much of it as the caller's token is told (`stats`). */
  readonly place: StorePlace;
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

/** The tools that answer about the server and the caller, and open no store. */
export type ServerToolName = "namespaces";
/** The tools that run against one namespace's store. */
export type StoreToolName = Exclude<ToolName, ServerToolName>;

/** What a tool that opens no store runs against: the server and the caller's grant. */
export interface ServerContext {
  /** The namespaces that exist, in name order (whoever may use them). */
  names(): Awaitable<string[]>;
  /** What the caller's token may do. */
  readonly grant: Grant;
  /** The namespace of calls that name none. */
  readonly defaultNamespace: string;
  /** Whether calls may name a namespace (--namespace-arg). */
  readonly namespaceArg: boolean;
}

/** Runs one call of a tool that opens no store. */
export type ServerRunner<T extends ServerToolName = ServerToolName> = (
  args: ToolArguments<T>,
  context: ServerContext,
) => ToolOutput | Promise<ToolOutput>;
