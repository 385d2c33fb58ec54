/**
 * The support queue the agent works through: each ticket is a customer's request buried in
 * the log lines that came with it, a few kilobytes of text like the pages, logs and search
 * results that fill a long-running agent's context. Fixed, so that every run reads the same.
 */
const REQUESTS: Record<string, { customer: string; request: string }> = {
  "T-101": {
    customer: "Acme Corp",
    request: "Please send our invoices by email to billing@acme.example, never by post.",
  },
  "T-102": {
    customer: "Globex",
    request: "Outage reports must go to our on-call phone, +1 555 0100, not to email.",
  },
  "T-103": {
    customer: "Acme Corp",
    request: "Where is our March invoice? We have not received it.",
  },
};

/** The ids of the queue, in order. */
export const TICKET_IDS = Object.keys(REQUESTS);

/** A ticket's whole text: its request, then the 120 log lines attached to it. */
export function readTicket(id: string): string {
  const ticket = REQUESTS[id];
  if (ticket === undefined) {
    throw new Error(`There is no ticket ${id}; the queue holds ${TICKET_IDS.join(", ")}.`);
  }
  const lines = [
    `Ticket ${id} from ${ticket.customer}`,
    `Request: ${ticket.request}`,
    "Attached log:",
  ];
  for (let i = 0; i < 120; i++) {
    const minute = String(i % 60).padStart(2, "0");
    lines.push(
      `2026-03-0${1 + (i % 9)}T10:${minute}:00Z worker-${i % 7} heartbeat ok, queue depth ${(i * 37) % 101}`,
    );
  }
  return lines.join("\n");
}
