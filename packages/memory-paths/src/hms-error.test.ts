import { describe, expect, it } from "vitest";
import { errorBrand, HmsError, hasBrand } from "./hms-error.js";

const brand = errorBrand("ExampleError");

class ExampleError extends HmsError {
  readonly [brand] = true;
  static override isInstance(error: unknown): error is ExampleError {
    return hasBrand(error, brand);
  }
}

describe("HmsError brands", () => {
  it("recognise an error of the class and of its base", () => {
    const error = new ExampleError("x");
    expect(ExampleError.isInstance(error)).toBe(true);
    expect(HmsError.isInstance(error)).toBe(true);
  });

  it("recognise an error made by another copy of the class (same Symbol.for key)", () => {
    const copy = Object.assign(new Error("from another bundle"), {
      [Symbol.for("hms.error")]: true,
      [Symbol.for("hms.error.ExampleError")]: true,
    });
    expect(copy instanceof ExampleError).toBe(false);
    expect(ExampleError.isInstance(copy)).toBe(true);
  });

  it("refuse other errors and non-objects", () => {
    expect(ExampleError.isInstance(new HmsError("base only"))).toBe(false);
    expect(HmsError.isInstance(new Error("plain"))).toBe(false);
    expect(HmsError.isInstance(null)).toBe(false);
    expect(HmsError.isInstance("HmsError")).toBe(false);
  });
});

describe("MemoryPathError", () => {
  it("is a branded HmsError", async () => {
    const { MemoryPathError } = await import("./errors.js");
    const error = new MemoryPathError("nul", "/memories/a\0", "x");
    expect(MemoryPathError.isInstance(error)).toBe(true);
    expect(HmsError.isInstance(error)).toBe(true);
    expect(MemoryPathError.isInstance(new HmsError("other"))).toBe(false);
  });
});
