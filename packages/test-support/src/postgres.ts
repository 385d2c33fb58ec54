import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real PostgreSQL server for tests: Debian's postgresql-15 (installed by scripts/setup.sh),
 * a fresh cluster in a temporary directory, listening on a free loopback port with trust
 * authentication for the user `hms`. PostgreSQL refuses to run as root, so as root (CI) the
 * cluster belongs to the `postgres` user the Debian package creates and runs as that user.
 */
export interface PostgresServer {
  /** `postgres://hms@127.0.0.1:PORT/hms`: the cluster's own database. */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** A URL of a new, empty database of this cluster (named `name` plus a unique suffix). */
  createDatabase(name?: string): string;
  /** Runs `sql` in database `db` (default `hms`) through psql; returns its output (tuples only). */
  psql(sql: string, db?: string): string;
  /** A clean stop (`pg_ctl stop -m fast`), then a start on the same port and data. */
  restart(): void;
  /** Stops the server; start() brings it back on the same port. */
  stopServer(): void;
  start(): void;
  /** Stops the server at once (no clean shutdown: nothing is kept) and deletes the cluster. */
  remove(): void;
}

/** The directory of PostgreSQL's programs: HMS_PG_BIN, else Debian's postgresql-15. */
export function postgresBinDir(): string {
  const dir = process.env.HMS_PG_BIN ?? "/usr/lib/postgresql/15/bin";
  if (!existsSync(join(dir, "postgres"))) {
    throw new Error(
      `no PostgreSQL server in ${dir}: run scripts/setup.sh (it installs Debian's postgresql-15 ` +
        "as root) or point HMS_PG_BIN at a PostgreSQL bin directory",
    );
  }
  return dir;
}

/** A free TCP port on loopback (the kernel's pick; a race with another process is unlikely). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
function runAsOwner(program: string, args: readonly string[]): string {
  const [command, commandArgs] = isRoot
    ? ["runuser", ["-u", "postgres", "--", program, ...args]]
    : [program, [...args]];
  const result = spawnSync(command, commandArgs, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${program} ${args.join(" ")} failed (${result.status ?? result.signal}): ` +
        `${(result.stderr || result.stdout || String(result.error ?? "")).trim()}`,
    );
  }
  return result.stdout;
}

/**
 * Starts a new PostgreSQL cluster for a test run. Durability settings are the defaults except
 * `fsync`, which is off: the tests kill processes, never the machine, and the page cache
 * survives a killed process, so what a crash test sees is what production would.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const dataDir = mkdtempSync(join(tmpdir(), "hms-pg-"));
  if (isRoot) {
    const pg = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const group = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dataDir, pg, group);
  }
  chmodSync(dataDir, 0o700);
  const cluster = join(dataDir, "cluster");
  runAsOwner(join(bin, "initdb"), [
    "-D",
    cluster,
    "-U",
    "hms",
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const port = await freePort();
  // Sockets in the data directory: /var/run/postgresql may not exist or be writable.
  writeFileSync(
    join(dataDir, "server.conf"),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dataDir}'`,
      "fsync = off",
      "max_connections = 300",
      "shared_buffers = 64MB",
      "log_min_messages = warning",
      "",
    ].join("\n"),
  );
  if (isRoot) execFileSync("chown", ["postgres:postgres", join(dataDir, "server.conf")]);
  execFileSync("sh", [
    "-c",
    `echo "include '${join(dataDir, "server.conf")}'" >> '${join(cluster, "postgresql.conf")}'`,
  ]);
  const pgCtl = join(bin, "pg_ctl");
  const logFile = join(dataDir, "server.log");
  const start = () => runAsOwner(pgCtl, ["-D", cluster, "-l", logFile, "-w", "-t", "60", "start"]);
  const stop = () => runAsOwner(pgCtl, ["-D", cluster, "-m", "fast", "-w", "stop"]);
  // A cluster about to be deleted needs no clean shutdown: "immediate" skips ending every open
  // connection and the shutdown checkpoint, which on a loaded machine took longer than a test
  // hook may (12-21 s against 2 s with 60 open stores; over 60 s seen once).
  const kill = () => runAsOwner(pgCtl, ["-D", cluster, "-m", "immediate", "-w", "stop"]);
  start();
  const psqlBin = join(bin, "psql");
  const psql = (sql: string, db = "hms"): string =>
    execFileSync(
      psqlBin,
      [
        "-X",
        "-q",
        "-t",
        "-A",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        "hms",
        "-d",
        db,
        "-c",
        sql,
      ],
      { encoding: "utf8" },
    );
  psql("CREATE DATABASE hms", "postgres");
  let databases = 0;
  let running = true;
  return {
    url: `postgres://hms@127.0.0.1:${port}/hms`,
    port,
    dataDir,
    createDatabase(name = "t") {
      const db = `${name.replace(/[^a-z0-9_]/g, "_")}_${process.pid}_${++databases}_${Date.now() % 100000}`;
      psql(`CREATE DATABASE ${db}`);
      return `postgres://hms@127.0.0.1:${port}/${db}`;
    },
    psql,
    restart() {
      stop();
      start();
    },
    stopServer() {
      stop();
      running = false;
    },
    start() {
      start();
      running = true;
    },
    remove() {
      if (running) {
        try {
          kill();
        } catch {
          // Already stopped (a test stopped it, or it crashed): the files go all the same.
        }
      }
      running = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
