/** The HTTP flags of `hms-mcp`: where it listens, tokens, and what clients may make it hold. */
import { type Command, Option } from "commander";
import { commaList, integer, urlPath } from "./parse.js";

/** Adds the HTTP flags to `command`. */
export function addHttpFlags(command: Command): Command {
  return command
    .addOption(
      new Option("--max-sessions <n>", "HTTP: most sessions of all clients; then new ones get 503")
        .env("HMS_MCP_MAX_SESSIONS")
        .default(1000)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-sessions-per-token <n>",
        "HTTP: most sessions one token holds; one of its own (unused first, else least recently used) is closed to make room",
      )
        .env("HMS_MCP_MAX_SESSIONS_PER_TOKEN")
        .default(100)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option("--session-idle-timeout <s>", "HTTP: a session unused this long is closed")
        .env("HMS_MCP_SESSION_IDLE_TIMEOUT")
        .default(1800)
        .argParser(integer(1, 7 * 24 * 3600)),
    )
    .addOption(
      new Option("--max-in-flight <n>", "HTTP: most requests of all clients in flight; then 503")
        .env("HMS_MCP_MAX_IN_FLIGHT")
        .default(64)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-new-sessions-per-second <n>",
        "HTTP: new sessions one token may open per second (bursts of twice that); then 429",
      )
        .env("HMS_MCP_MAX_NEW_SESSIONS_PER_SECOND")
        .default(20)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-in-flight-per-token <n>",
        "HTTP: most requests one token has in flight; then 429",
      )
        .env("HMS_MCP_MAX_IN_FLIGHT_PER_TOKEN")
        .default(16)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-unread-bytes <bytes>",
        "HTTP: most bytes of answers held for clients that do not read them; beyond it the " +
          "longest-held connections are closed",
      )
        .env("HMS_MCP_MAX_UNREAD_BYTES")
        .default(64 * 1024 * 1024)
        .argParser(integer(1024 * 1024, 2 ** 40)),
    )
    .addOption(
      new Option(
        "--headers-timeout <s>",
        "HTTP: a request's headers must all come within this; then its connection is closed (408)",
      )
        .env("HMS_MCP_HEADERS_TIMEOUT")
        .default(10)
        .argParser(integer(1, 3600)),
    )
    .addOption(
      new Option(
        "--request-timeout <s>",
        "HTTP: a request's headers and body must all come within this; then its connection " +
          "is closed (408). A request counts against the bounds in flight only once its body came",
      )
        .env("HMS_MCP_REQUEST_TIMEOUT")
        .default(30)
        .argParser(integer(1, 3600)),
    )
    .addOption(
      new Option(
        "--max-connections-per-peer <n>",
        "HTTP: most connections open from one address (IPv6: one /64), before any token is " +
          "read; then a new one gets 429 and is closed (0: no cap, e.g. behind a proxy)",
      )
        .env("HMS_MCP_MAX_CONNECTIONS_PER_PEER")
        .default(256)
        .argParser(integer(0, 1_000_000)),
    )
    .addOption(
      new Option("--host <address>", "HTTP: address to listen on")
        .env("HMS_MCP_HOST")
        .default("127.0.0.1"),
    )
    .addOption(
      new Option("--port <port>", "HTTP: port to listen on (0 picks a free one)")
        .env("HMS_MCP_PORT")
        .default(8765)
        .argParser(integer(0, 65535)),
    )
    .addOption(
      new Option("--path <path>", "HTTP: the MCP endpoint's path")
        .env("HMS_MCP_PATH")
        .default("/mcp")
        .argParser(urlPath),
    )
    .addOption(
      new Option(
        "--allow-remote",
        "HTTP: allow a non-loopback --host (also needs HMS_MCP_TOKEN of at least 32 bytes or " +
          "--tokens-file) (env: HMS_MCP_ALLOW_REMOTE=1)",
      ),
    )
    .addOption(
      new Option(
        "--ui",
        "HTTP: serve the web inspector at /ui, behind the same token (env: HMS_MCP_UI=1)",
      ),
    )
    .addOption(
      new Option(
        "--tokens-file <file>",
        "HTTP: named tokens, each limited to some namespaces and read-only or read-write (JSON " +
          "Lines; `hms-mcp token create` makes an entry); reloaded on change and on SIGHUP",
      ).env("HMS_MCP_TOKENS_FILE"),
    )
    .addOption(
      new Option(
        "--allowed-origins <list>",
        "HTTP: comma-separated Origin values to accept (browser clients); others get 403",
      )
        .env("HMS_MCP_ALLOWED_ORIGINS")
        .argParser(commaList),
    )
    .addOption(
      new Option(
        "--allowed-hosts <list>",
        "HTTP: comma-separated extra Host header values to accept (e.g. a DNS name)",
      )
        .env("HMS_MCP_ALLOWED_HOSTS")
        .argParser(commaList),
    );
}
