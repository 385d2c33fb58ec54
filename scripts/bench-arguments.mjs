// Loaded into every node process a `pnpm bench <name>` run starts (scripts/bench.mjs puts it
// in NODE_OPTIONS). A benchmark that parses its arguments with node:util's parseArgs throws
// on an option it does not take, and node printed that as a stack trace with exit 1; this
// turns it into one line that names the benchmark and its --help, with exit 2 (a usage
// error). Any other uncaught error is left to node, as before. The processes a benchmark
// starts inherit it too (tsx, for one, runs the benchmark in a child of its own): loading it
// adds well under a millisecond to a process's start, within the noise of any start figure.
const name = new URL(import.meta.url).searchParams.get("bench") ?? "<name>";

process.on("uncaughtExceptionMonitor", (error) => {
  const code = typeof error === "object" && error !== null ? error.code : undefined;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) return;
  // parseArgs's message goes on to explain `--` for positional values: not what a person who
  // misspelt an option needs.
  const message = String(error.message).split(". To specify a positional argument")[0];
  console.error(`pnpm bench ${name}: ${message}. (pnpm bench ${name} --help says what it takes.)`);
  process.exit(2);
});
