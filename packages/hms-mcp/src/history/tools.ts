/**
 * The runners of the history tools (`history`, `diff`, `restore`, `unused`): the store keeps the
 * versions (@hms/store's history.ts); this module turns calls into its operations and
 * answers into text for people.
 */
import type { HistoryDrop } from "@hms/store";
import { createTwoFilesPatch } from "diff";
import { ToolError, treeWithVersion } from "../errors.js";
import { after } from "../runtime/engines.js";
import type { ToolOutput, ToolRunner } from "../tools/types.js";

type HistoryRunners = {
  readonly history: ToolRunner<"history">;
  readonly diff: ToolRunner<"diff">;
  readonly restore: ToolRunner<"restore">;
  readonly unused: ToolRunner<"unused">;
};

export const HISTORY_RUNNERS: HistoryRunners = {
  history(args, { store }) {
    if ((args.key === undefined) === (args.prefix === undefined)) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "give exactly one of key (a file) or prefix (a directory)",
      );
    }
    if (args.since !== undefined && args.key !== undefined) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "since applies to prefix; a file's history is paged with before",
      );
    }
    const page = { limit: args.limit, before: args.before };
    const found =
      args.key !== undefined
        ? store.history.ofFile(args.key, page)
        : store.history.under(args.prefix as string, { ...page, since: args.since });
    return after(found, ({ entries, next_before, dropped }) => {
      const lines = entries.map(
        (change) =>
          `${change.at}  v${change.version}  ${change.op.padEnd(6)}  ${change.from_key ? `${change.from_key} -> ` : ""}${change.key}` +
          `${change.command ? `  (${change.command}${change.actor ? ` by ${change.actor}` : ""})` : ""}`,
      );
      return {
        structured: { changes: entries, next_before, dropped },
        text:
          (lines.length === 0 ? "No changes recorded." : lines.join("\n")) +
          (next_before === null ? "" : `\nOlder changes: before ${next_before}`) +
          dropped.map((drop) => `\n${droppedLine(drop)}`).join(""),
      };
    });
  },

  diff(args, { store }) {
    return after(store.history.version(args.key, args.from_version), (older) => {
      if (older === undefined) throw missingVersion(args.key, args.from_version);
      const { to_version: toVersion } = args;
      const newer =
        toVersion === undefined
          ? after(store.get(args.key), (current) => {
              if (current === undefined) {
                throw new ToolError(
                  "NOT_FOUND",
                  `${args.key} does not exist now; give to_version to compare two versions of its history`,
                  { key: args.key },
                );
              }
              return current;
            })
          : after(store.history.version(args.key, toVersion), (found) => {
              if (found === undefined) throw missingVersion(args.key, toVersion);
              return found;
            });
      return after(newer, (to) => diffOutput(args.key, older, to));
    });
  },

  restore(args, { store }) {
    if ((args.version === undefined) === (args.at === undefined)) {
      throw new ToolError("INVALID_ARGUMENT", "give exactly one of version or at");
    }
    if (args.tree === true) {
      if (args.at === undefined) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "a tree is restored to a time (at), not to a version",
        );
      }
      if (args.expected_version !== undefined) throw treeWithVersion();
      return after(store.history.restoreTree(args.key, args.at), (result) => ({
        structured: { ...result },
        text:
          `Restored ${result.restored.length} and deleted ${result.deleted.length} files under ${args.key}` +
          (result.unknown.length === 0
            ? ""
            : `; left ${result.unknown.length} as they are (history does not reach back): ${result.unknown.join(", ")}`),
      }));
    }
    const target =
      args.version !== undefined ? { version: args.version } : { at: args.at as string };
    const restored = store.history.restoreFile(args.key, target, {
      ...(args.expected_version === undefined ? {} : { expectedVersion: args.expected_version }),
    });
    return after(restored, (done) => ({
      structured: {
        restored: done.version === null ? [] : [{ key: done.key, version: done.version }],
        deleted: done.deleted ? [done.key] : [],
        unknown: [],
      },
      text:
        done.version !== null
          ? `Restored ${done.key} as version ${done.version}`
          : done.deleted
            ? `Deleted ${done.key}: it did not exist at ${args.at}`
            : `${done.key} did not exist at ${args.at} and does not exist now: nothing to do`,
    }));
  },

  unused(args, { store }) {
    const unused = store.access.unused(args.before, { prefix: args.prefix, limit: args.limit });
    return after(unused, (files) => ({
      structured: { files },
      text:
        files.length === 0
          ? `No memory file has gone unused since ${args.before}.`
          : files.map((file) => `${file.last_used}  ${file.key}`).join("\n"),
    }));
  },
};

/** The diff tool's answer: `older`'s text against `newer`'s. */
function diffOutput(
  key: string,
  older: { text: string; version: number },
  newer: { text: string; version: number },
): ToolOutput {
  const unified =
    older.text === newer.text
      ? ""
      : createTwoFilesPatch(
          key,
          key,
          older.text,
          newer.text,
          `version ${older.version}`,
          `version ${newer.version}`,
        );
  let added = 0;
  let removed = 0;
  for (const line of unified.split("\n").slice(4)) {
    if (line.startsWith("+")) added += 1;
    else if (line.startsWith("-")) removed += 1;
  }
  return {
    structured: {
      key: key,
      from_version: older.version,
      to_version: newer.version,
      unified,
      added,
      removed,
    },
    text:
      unified === ""
        ? `Versions ${older.version} and ${newer.version} have the same text.`
        : unified,
  };
}

/** Why the history dropped changes, in words. */
const DROP_REASONS: Record<HistoryDrop["reason"], string> = {
  bytes: "to keep the history within its size (--keep-mib; the oldest go first)",
  disk_full: "to make room for writes on a full disk (the oldest go first)",
  versions: "beyond the versions kept of each file (--keep-versions)",
  days: "older than the days kept (--keep-days)",
};

/** One line saying which older changes may be missing, and why. */
export function droppedLine(drop: HistoryDrop): string {
  return (
    `Dropped ${drop.changes} ${drop.changes === 1 ? "change" : "changes"} made up to ${drop.through} ` +
    `${DROP_REASONS[drop.reason]}, the last at ${drop.at}: older changes may be missing.`
  );
}

function missingVersion(key: string, version: number): ToolError {
  return new ToolError(
    "NOT_FOUND",
    `the history of ${key} has no version ${version} (see its history for the versions kept)`,
    { key, version },
  );
}
