import { describe, expect, it } from "vitest";
import { TopLevelIdScanner } from "./stdio.js";

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
