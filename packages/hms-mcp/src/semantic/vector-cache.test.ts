import { describe, expect, it } from "vitest";
import { VectorCache } from "./vector-cache.js";

const vector = (x: number) => new Float32Array([x, 1 - x]);

describe("VectorCache", () => {
  it("gives back the vector kept for exactly that text", () => {
    const cache = new VectorCache(10, 1000);
    cache.set("Acme Corp prefers email follow-ups", vector(0.25));
    expect(cache.get("Acme Corp prefers email follow-ups")).toEqual(vector(0.25));
    expect(cache.get("Acme Corp prefers email follow-ups.")).toBeUndefined();
    expect(cache.get("acme corp prefers email follow-ups")).toBeUndefined();
  });

  it("drops the least recently used text first when full", () => {
    const cache = new VectorCache(2, 1000);
    cache.set("a", vector(1));
    cache.set("b", vector(2));
    expect(cache.get("a")).toEqual(vector(1)); // "a" is now newer than "b"
    cache.set("c", vector(3));
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual(vector(1));
    expect(cache.get("c")).toEqual(vector(3));
  });

  it("bounds the characters of text it keeps, and keeps no text longer than that", () => {
    const cache = new VectorCache(100, 10);
    cache.set("12345", vector(1));
    cache.set("67890", vector(2));
    cache.set("abc", vector(3)); // 13 characters: the oldest goes
    expect(cache.get("12345")).toBeUndefined();
    expect(cache.get("67890")).toEqual(vector(2));
    cache.set("x".repeat(11), vector(4));
    expect(cache.get("x".repeat(11))).toBeUndefined();
    expect(cache.get("abc")).toEqual(vector(3));
  });

  it("replaces the vector of a text set again without counting it twice", () => {
    const cache = new VectorCache(100, 8);
    cache.set("abcd", vector(1));
    cache.set("abcd", vector(2));
    cache.set("efgh", vector(3)); // 8 characters in all: both fit
    expect(cache.get("abcd")).toEqual(vector(2));
    expect(cache.get("efgh")).toEqual(vector(3));
  });

  it("refuses bounds that are not non-negative integers", () => {
    expect(() => new VectorCache(-1, 10)).toThrow(/maxEntries/);
    expect(() => new VectorCache(1, 1.5)).toThrow(/maxChars/);
  });
});
