/**
 * Logs a store's upgrade at open (schema migrations, the one-time compaction): the server
 * answers nothing while it runs, which on a big store can be minutes, so the operator is told
 * what is happening and how far it is. Info level, on the server's logger (stderr).
 */
import type { UpgradeEvent } from "@hms/store";
import type { Logger } from "pino";

/** A progress line at most every this many percent of a task... */
const PROGRESS_STEP = 10;
/** ...or after this long without one. */
const PROGRESS_QUIET_MS = 5000;

/** An `onUpgrade` for the stores of a server: one start line, steps, sparse progress, the end. */
export function upgradeLogger(log: Logger): (event: UpgradeEvent) => void {
  let lastPercent = 0;
  let lastAt = 0;
  return (event) => {
    const store = { namespace: event.namespace, file: event.file };
    switch (event.type) {
      case "start": {
        const { fromVersion, toVersion, memories, work } = event;
        // Only some upgrades have slow work; the others take no time worth warning of.
        const what =
          work.length > 0
            ? `: ${work.join(", ")}; this can take a while on a big store, and the server ` +
              "answers once it is done"
            : "";
        log.info(
          { ...store, fromVersion, toVersion, memories, work },
          `store upgrade: namespace ${event.namespace} is upgraded from schema ${fromVersion} ` +
            `to ${toVersion} (${memories.toLocaleString("en-US")} ` +
            `${memories === 1 ? "memory" : "memories"})${what}`,
        );
        return;
      }
      case "step":
        lastPercent = 0;
        lastAt = Date.now();
        log.info({ ...store, task: event.task }, `store upgrade: ${event.task}`);
        return;
      case "progress": {
        const { task, done, total } = event;
        const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
        const due =
          percent - lastPercent >= PROGRESS_STEP || Date.now() - lastAt >= PROGRESS_QUIET_MS;
        if (!due && done < total) return;
        lastPercent = percent;
        lastAt = Date.now();
        log.info(
          { ...store, task, done, total },
          `store upgrade: ${task}: ${done.toLocaleString("en-US")} of ` +
            `${total.toLocaleString("en-US")} (${percent}%)`,
        );
        return;
      }
      case "end":
        log.info(
          { ...store, fromVersion: event.fromVersion, toVersion: event.toVersion, ms: event.ms },
          `store upgrade: namespace ${event.namespace} is at schema ${event.toVersion}, ` +
            `upgraded in ${(event.ms / 1000).toFixed(1)} s`,
        );
    }
  };
}
