import { PassThrough } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { LineTransport, TopLevelIdScanner } from "./stdio.js";

/** The id the scanner reads from `json`, fed in pieces of `size` bytes. */
function scan(json: string, size = 3): string | number | undefined {
  const scanner = new TopLevelIdScanner();
  const bytes = Buffer.from(json, "utf8");
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size));
  return scanner.id;
}

describe("TopLevelIdScanner", () => {
  it("reads the top-level id wherever it sits, and only that one", () => {
    expect(scan('{"id":1,"method":"x"}')).toBe(1);
    expect(scan('{"method":"x","params":{"id":"inner","a":[{"id":2}]},"id":"outer"}')).toBe(
      "outer",
    );
    expect(scan('{ "jsonrpc" : "2.0" , "id" : -4.5e1 }')).toBe(-45);
    expect(scan('{"params":{"text":"a \\"id\\": 9 \\\\"},"id":"é\\"q"}', 1)).toBe('é"q');
    expect(scan('{"idx":1,"i":2,"params":{"id":3}}')).toBeUndefined();
  });

  it("reads no id from a notification or an id that JSON-RPC does not allow", () => {
    expect(scan('{"method":"notifications/x","params":{"id":1}}')).toBeUndefined();
    expect(scan('{"id":{"a":1}}')).toBeUndefined();
    expect(scan('{"id":[1]}')).toBeUndefined();
    expect(scan('{"id":null}')).toBeUndefined();
    expect(scan('{"id":true}')).toBeUndefined();
    expect(scan(`{"id":"${"x".repeat(300)}"}`)).toBeUndefined();
  });
});

describe("LineTransport", () => {
  it("knows which requests it has not answered yet", async () => {
    const stdin = new PassThrough();
    const transport = new LineTransport({
      maxLineBytes: 1024,
      log: pino({ level: "silent" }),
      stdin,
      stdout: new PassThrough(),
    });
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    let answered = false;
    await transport.answered();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    stdin.write('{"jsonrpc":"2.0","id":"b","method":"ping"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toHaveLength(3);
    const waiting = transport.answered().then(() => {
      answered = true;
    });
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    await transport.send({ jsonrpc: "2.0", id: "b", error: { code: -32601, message: "no" } });
    await waiting;
    expect(answered).toBe(true);
  });
});
