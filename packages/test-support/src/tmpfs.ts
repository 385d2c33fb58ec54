import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real small disk, for tests of a full disk: a tmpfs of `sizeMiB` mounted on a new temporary
 * directory. Mounting needs root, as CI and the dev machines run tests; where it is refused
 * this throws with mount's reason, so the test fails instead of skipping.
 */
export function mountTmpfs(sizeMiB: number): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "hms-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", dir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(
      `cannot mount a ${sizeMiB} MiB tmpfs for a full-disk test (it needs root): ${stderr}`,
    );
  }
  return {
    dir,
    remove() {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills what is left of the disk holding `dir` with a file; returns its size in bytes. */
export function fillDisk(dir: string): number {
  const fd = openSync(join(dir, "filler"), "w");
  let filled = 0;
  try {
    for (;;) {
      const written = writeSync(fd, Buffer.alloc(4096, 1));
      filled += written;
      if (written < 4096) break;
    }
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return filled;
}
