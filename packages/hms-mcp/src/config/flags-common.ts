/**
 * The common flags of `hms-mcp`: where the stores are, which namespace, the transport, the
 * store's bounds and durability, the log level.
 */
import { MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_OPEN,
  DEFAULT_NAMESPACE,
  defaultDataDir,
  SYNCHRONOUS_MODES,
} from "@hms/store";
import { type Command, Option } from "commander";
import { DEFAULT_MAX_SUBSCRIPTIONS } from "../notify/subscriptions.js";
import { integer, LOG_LEVELS, maxTextBytes, namespaceName } from "./parse.js";

/** Adds the common flags to `command`. */
export function addCommonFlags(command: Command): Command {
  return command
    .addOption(
      new Option("--data-dir <dir>", `where the stores live (default: ${defaultDataDir()})`).env(
        "HMS_MCP_DATA_DIR",
      ),
    )
    .addOption(
      new Option("--namespace <name>", "the namespace (store) to serve")
        .env("HMS_MCP_NAMESPACE")
        .default(DEFAULT_NAMESPACE)
        .argParser(namespaceName),
    )
    .addOption(
      new Option(
        "--namespace-arg",
        "let every tool take a namespace argument (env: HMS_MCP_NAMESPACE_ARG=1)",
      ),
    )
    .addOption(
      new Option(
        "--no-create",
        "create neither the data directory nor a namespace: one that does not exist reads as " +
          "empty (stats says exists: false) and writing to it is refused; `hms` reads this way " +
          "(env: HMS_MCP_NO_CREATE=1)",
      ),
    )
    .addOption(
      new Option("--transport <kind>", "stdio or http")
        .env("HMS_MCP_TRANSPORT")
        .choices(["stdio", "http"])
        .default("stdio"),
    )
    .addOption(
      new Option(
        "--max-text-bytes <bytes>",
        `largest memory text in UTF-8 bytes, at most ${MAX_TEXT_BYTES_CAP} (what every MCP client can read back)`,
      )
        .env("HMS_MCP_MAX_TEXT_BYTES")
        .default(DEFAULT_LIMITS.maxTextBytes)
        .argParser(maxTextBytes),
    )
    .addOption(
      new Option("--max-open-namespaces <n>", "most namespace stores kept open at once")
        .env("HMS_MCP_MAX_OPEN_NAMESPACES")
        .default(DEFAULT_MAX_OPEN)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-subscriptions <n>",
        "most resources/subscribe subscriptions one connection holds (a directory's covers " +
          "every file under it); one more is refused",
      )
        .env("HMS_MCP_MAX_SUBSCRIPTIONS")
        .default(DEFAULT_MAX_SUBSCRIPTIONS)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-namespaces <n>",
        "most namespaces the data directory may hold; a write that would create one more is " +
          "refused (default: no bound)",
      )
        .env("HMS_MCP_MAX_NAMESPACES")
        .argParser(integer(1, 10000000)),
    )
    .addOption(
      new Option(
        "--busy-timeout <ms>",
        "how long a write waits for another process's lock on a store before UNAVAILABLE",
      )
        .env("HMS_MCP_BUSY_TIMEOUT")
        .default(10000)
        .argParser(integer(0, 600000)),
    )
    .addOption(
      new Option(
        "--synchronous <mode>",
        "full: every acknowledged write is on disk (survives a machine crash); normal: fsync " +
          "at checkpoints only (survives a crash of hms-mcp, may lose the last writes on power loss)",
      )
        .env("HMS_MCP_SYNCHRONOUS")
        .choices([...SYNCHRONOUS_MODES])
        .default("full"),
    )
    .addOption(
      new Option("--log-level <level>", "log level (logs go to stderr)")
        .env("HMS_MCP_LOG_LEVEL")
        .choices([...LOG_LEVELS])
        .default("info"),
    );
}
