// What the embedder's benchmark scripts share on their command line: stop with a message on
// stderr (exit 2), and read a flag that must be a positive integer.

/** A script's `fail` and `positive`, its messages prefixed with `name`. */
export function cliOf(name) {
  function fail(message) {
    process.stderr.write(`${name}: ${message}\n`);
    process.exit(2);
  }
  function positive(flag, text) {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      fail(`${flag} must be a positive integer, not ${text}`);
    }
    return value;
  }
  return { fail, positive };
}
