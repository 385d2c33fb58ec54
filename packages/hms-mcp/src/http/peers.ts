/**
 * Connections per peer, counted before anything is known of the client (no token, no request
 * yet): a peer is a remote IPv4 address, or an IPv6 /64 network (one host can take a whole
 * /64). A peer over its cap has its new connection refused, so one address cannot hold
 * every socket the server has; other peers are untouched.
 */
import { isIPv4, isIPv6, type Socket } from "node:net";

/** The peer a remote `address` belongs to: the IPv4 address (also IPv4-mapped), else its /64. */
export function peerOf(address: string | undefined): string {
  if (address === undefined) return "unknown";
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  const bare = address.replace(/%.*$/, "");
  if (!isIPv6(bare)) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const groupsOf = (part: string): string[] => {
    if (part === "") return [];
    const groups = part.split(":");
    const last = groups[groups.length - 1] as string;
    if (isIPv4(last)) {
      const [a, b, c, d] = last.split(".").map(Number) as [number, number, number, number];
      groups.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
    }
    return groups;
  };
  const [head = "", tail] = address.split("::");
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => "0");
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

/** Counts each peer's open connections and says whether a new one is within the cap. */
export class PeerConnections {
  readonly #open = new Map<string, number>();

  /** `max` connections per peer; 0: no cap. */
  constructor(private readonly max: number) {}

  /** Open connections of `peer`. */
  countOf(peer: string): number {
    return this.#open.get(peer) ?? 0;
  }

  /**
   * Counts `socket` against its peer until it closes, when the peer is within the cap; says
   * which peer it is and whether it was admitted (a refused socket is not counted).
   */
  admit(socket: Socket): { peer: string; admitted: boolean } {
    const peer = peerOf(socket.remoteAddress);
    const open = this.countOf(peer);
    if (this.max > 0 && open >= this.max) return { peer, admitted: false };
    this.#open.set(peer, open + 1);
    socket.once("close", () => {
      const left = this.countOf(peer) - 1;
      if (left > 0) this.#open.set(peer, left);
      else this.#open.delete(peer);
    });
    return { peer, admitted: true };
  }
}
