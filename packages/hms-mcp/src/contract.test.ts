/**
 * The server meets two declarations of the same numbers: the contract clients read
 * (@hms/protocol) and the store that enforces them (@hms/store). They must agree.
 */
import * as protocol from "@hms/protocol";
import * as store from "@hms/store";
import { describe, expect, it } from "vitest";

describe("the contract and the store", () => {
  it("state the same limits", () => {
    expect({
      DEFAULT_RECALL_K: store.DEFAULT_RECALL_K,
      MAX_RECALL_K: store.MAX_RECALL_K,
      MAX_QUERY_BYTES: store.MAX_QUERY_BYTES,
      DEFAULT_PAGE: store.DEFAULT_PAGE,
      MAX_PAGE: store.MAX_PAGE,
      DEFAULT_MAX_TEXT_BYTES: store.DEFAULT_LIMITS.maxTextBytes,
    }).toEqual({
      DEFAULT_RECALL_K: protocol.DEFAULT_RECALL_K,
      MAX_RECALL_K: protocol.MAX_RECALL_K,
      MAX_QUERY_BYTES: protocol.MAX_QUERY_BYTES,
      DEFAULT_PAGE: protocol.DEFAULT_PAGE,
      MAX_PAGE: protocol.MAX_PAGE,
      DEFAULT_MAX_TEXT_BYTES: protocol.DEFAULT_MAX_TEXT_BYTES,
    });
  });
});
