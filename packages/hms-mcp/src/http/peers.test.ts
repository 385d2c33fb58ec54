import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PeerConnections, peerOf } from "./peers.js";

describe("peerOf", () => {
  it("is the IPv4 address, also when mapped into IPv6", () => {
    expect(peerOf("127.0.0.2")).toBe("127.0.0.2");
    expect(peerOf("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(peerOf("::FFFF:10.1.2.3")).toBe("10.1.2.3");
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    const peer = "2001:db8:1:2::/64";
    expect(peerOf("2001:db8:1:2::1")).toBe(peer);
    expect(peerOf("2001:0db8:0001:0002:ffff:0:0:9")).toBe(peer);
    expect(peerOf("2001:DB8:1:2:aaaa:bbbb:cccc:dddd")).toBe(peer);
    expect(peerOf("2001:db8:1:2::1%eth0")).toBe(peer);
    expect(peerOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(peerOf("::1")).toBe("0:0:0:0::/64");
    expect(peerOf("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
  });

  it("keeps anything else as it is", () => {
    expect(peerOf(undefined)).toBe("unknown");
    expect(peerOf("not an address")).toBe("not an address");
  });
});

describe("PeerConnections", () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A loopback server whose connections `peers` admits; resolves with what it said of each. */
  async function serve(peers: PeerConnections) {
    const admitted: { peer: string; admitted: boolean }[] = [];
    const accepted: Socket[] = [];
    server = createServer((socket) => {
      accepted.push(socket);
      admitted.push(peers.admit(socket));
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const open = async (localAddress: string) => {
      const before = admitted.length;
      sockets.push(connect({ port, host: "127.0.0.1", localAddress }));
      while (admitted.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
      return admitted[before];
    };
    return { open, accepted };
  }

  it("admits a peer's connections up to the cap, other peers apart, and again once one closes", async () => {
    const peers = new PeerConnections(2);
    const { open, accepted } = await serve(peers);
    expect(await open("127.0.0.2")).toEqual({ peer: "127.0.0.2", admitted: true });
    expect(await open("127.0.0.2")).toEqual({ peer: "127.0.0.2", admitted: true });
    expect(await open("127.0.0.2")).toEqual({ peer: "127.0.0.2", admitted: false });
    expect(await open("127.0.0.3")).toEqual({ peer: "127.0.0.3", admitted: true });
    expect(peers.countOf("127.0.0.2")).toBe(2);
    accepted[0]?.destroy();
    while (peers.countOf("127.0.0.2") > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await open("127.0.0.2")).toEqual({ peer: "127.0.0.2", admitted: true });
  });

  it("has no cap at 0", async () => {
    const peers = new PeerConnections(0);
    const { open } = await serve(peers);
    for (let i = 0; i < 5; i++) expect((await open("127.0.0.2"))?.admitted).toBe(true);
    expect(peers.countOf("127.0.0.2")).toBe(5);
  });
});
