/** Whether the engine can serve: reachable, schema current. `reason` names no secret. */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: string };
