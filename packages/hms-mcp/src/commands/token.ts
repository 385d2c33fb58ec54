/**
 * `hms-mcp token create --name NAME --namespaces LIST [--read-only] [--metrics]`: makes a
 * random token, prints it once, and prints the tokens-file line that grants it (which holds
 * only its sha256). `--metrics` lets it read /metrics; with no `--namespaces` it may read
 * nothing else (a scraper's token).
 */
import { Command, InvalidArgumentError } from "commander";
import { newToken, parseTokensFile, type TokenEntry, tokenSha256 } from "../auth/tokens.js";
import { oneLineError } from "../config/config.js";

/** Runs `hms-mcp token ...` with `argv` (after `token`); resolves to the exit status. */
export function tokenCommand(argv: readonly string[], version: string): number {
  let status = 0;
  const program = new Command("hms-mcp token")
    .description("Manage the tokens of --tokens-file.")
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .configureOutput({
      outputError: oneLineError("hms-mcp token", "hms-mcp token create --help shows how"),
    })
    .exitOverride();
  program
    .command("create")
    .description(
      "Make a new random token (32 bytes), print it once, and print the line to add to the " +
        "tokens file, which holds only the token's sha256. The server reloads the file when it " +
        "changes (or on SIGHUP); the client sends the token as Authorization: Bearer <token> " +
        "(HMS_MCP_TOKEN for the hms clients).",
    )
    .helpOption("-h, --help", "print this help and exit")
    .requiredOption("--name <name>", "the token's name, shown in the server's logs")
    .option(
      "--namespaces <list>",
      "comma-separated namespaces it may use: names, prefix patterns such as user-*, or * for " +
        "all (required unless --metrics)",
      (value: string) => {
        const list = value
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item !== "");
        if (list.length === 0) throw new InvalidArgumentError("expected at least one namespace");
        return list;
      },
    )
    .option("--read-only", "refuse its writes (default: read-write)")
    .option(
      "--metrics",
      "let it read the server's metrics (GET /metrics); without --namespaces, only that",
    )
    .allowExcessArguments(false)
    .action(
      (options: { name: string; namespaces?: string[]; readOnly?: boolean; metrics?: boolean }) => {
        if (options.namespaces === undefined && options.metrics !== true) {
          process.stderr.write(
            "hms-mcp token create: --namespaces is required (or --metrics for a token that " +
              "only reads the metrics)\n",
          );
          status = 2;
          return;
        }
        const token = newToken();
        const entry: TokenEntry = {
          name: options.name,
          sha256: tokenSha256(token),
          namespaces: options.namespaces ?? [],
          access: options.readOnly ? "read-only" : "read-write",
          ...(options.metrics === true ? { metrics: true } : {}),
        };
        const line = JSON.stringify(entry);
        try {
          // The same checks the server makes when it loads the file.
          parseTokensFile(line, "the new entry");
        } catch (error) {
          process.stderr.write(`hms-mcp token create: ${(error as Error).message}\n`);
          status = 2;
          return;
        }
        process.stdout.write(
          [
            `Token ${entry.name} (shown only now; the server keeps only its sha256):`,
            `  ${token}`,
            "Add this line to the tokens file (--tokens-file):",
            `  ${line}`,
            "",
          ].join("\n"),
        );
      },
    );
  try {
    program.parse([...argv], { from: "user" });
  } catch (error) {
    // --help and --version exit 0; a bad flag is a usage error (2), as for the server.
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  return status;
}
