import { describe, expect, it } from "vitest";
import { CliError } from "./errors.js";
import { checkUrl, redactUrls } from "./url.js";

describe("--url", () => {
  it("hides the user name and password of every URL in a text", () => {
    expect(redactUrls("could not reach http://user:pass@127.0.0.1:9/mcp or https://u@h/x")).toBe(
      "could not reach http://***@127.0.0.1:9/mcp or https://***@h/x",
    );
    expect(redactUrls("http://127.0.0.1/mcp?next=a@b")).toBe("http://127.0.0.1/mcp?next=a@b");
  });

  it("refuses a URL with credentials, and shows none of them in the refusal", () => {
    for (const url of [
      "http://user:s3cret@127.0.0.1:9/mcp",
      "http://s3cret@h/mcp",
      "http://user:s3cret@h:bad/mcp",
    ]) {
      let thrown: unknown;
      try {
        checkUrl(url);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, url).toBeInstanceOf(CliError);
      expect((thrown as CliError).exitCode).toBe(2);
      expect((thrown as CliError).message, url).not.toContain("s3cret");
    }
  });
});
