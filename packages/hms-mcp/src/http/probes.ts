/**
 * Probes for load balancers and orchestrators on the HTTP transport: `/healthz` (the process
 * serves HTTP) and `/readyz` (its engine can serve calls: on PostgreSQL the database answers
 * and its schema is current; on SQLite the default namespace's store opens). Unauthenticated
 * and outside the Host check (a balancer probes by address), so they answer nothing but a
 * status and, when not ready, a reason that names no secret.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Runtime } from "../runtime/runtime.js";

/** Whether `pathname` is a probe's. */
export function isProbe(pathname: string): boolean {
  return pathname === "/healthz" || pathname === "/readyz";
}

function answer(res: ServerResponse, status: number, body: Record<string, string>): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** Answers a probe request (`isProbe(pathname)`). */
export async function serveProbe(
  runtime: Runtime,
  pathname: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  if (pathname === "/healthz") {
    answer(res, 200, { status: "ok" });
    return;
  }
  if (runtime.calls.stopping) {
    answer(res, 503, { status: "unavailable", reason: "the server is shutting down" });
    return;
  }
  const readiness = await runtime.readiness();
  if (readiness.ready) answer(res, 200, { status: "ok" });
  else answer(res, 503, { status: "unavailable", reason: readiness.reason });
}
