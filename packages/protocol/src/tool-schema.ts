/** The shape of one tool of the contract, which every tool definition module shares. */
import type { z } from "zod";

/** MCP tool annotations (a subset of the MCP type, so this package needs no MCP SDK). */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
}

/** One tool of the contract. */
export interface ToolSchema<
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: Input;
  readonly output: Output;
  readonly annotations: ToolAnnotations;
}
