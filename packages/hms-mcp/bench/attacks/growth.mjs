// Growth: a store holding `--keep` memories, written by one server and closed; then a second
// server on it runs `--cycles` create/delete cycles of one more memory. Prints the store's files (db + wal + shm) at the start and
// at the end, each after 3 s idle: deleted space must be reclaimed and the WAL bounded, so
// the end stays within 10% of the start. The disk-full spare file (-reserve, a fixed size) is
// shown apart and not counted. Run with HMS_MCP_BIN=<other build>/dist/cli.js for the "before" figure.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BIN, call, round, spawnServer, tempDir } from "../support.mjs";

function flag(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
}

/** Bytes of each store file (db, -wal, -shm) under the data directory's namespaces/. */
function storeBytes(dataDir) {
  const dir = join(dataDir, "namespaces");
  const sizes = { db: 0, wal: 0, shm: 0, reserve: 0 };
  for (const name of readdirSync(dir)) {
    const bytes = statSync(join(dir, name)).size;
    if (name.endsWith(".sqlite")) sizes.db += bytes;
    else if (name.endsWith("-reserve")) sizes.reserve += bytes;
    else if (name.endsWith("-wal")) sizes.wal += bytes;
    else if (name.endsWith("-shm")) sizes.shm += bytes;
  }
  return { ...sizes, total: sizes.db + sizes.wal + sizes.shm };
}

/** The sizes once the server has been idle for 3 s (it trims its WAL after 1 s idle). */
async function atRest(dataDir) {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return storeBytes(dataDir);
}

/** What `pnpm bench attack growth` takes; attack.mjs refuses anything else. */
export const options = ["cycles", "keep"];

export default async function growth(args) {
  const cycles = flag(args, "cycles", 10000);
  const keep = flag(args, "keep", 200);
  const data = tempDir("growth");
  const server = await spawnServer(data.dir);
  try {
    const text = (i) => `memory ${i}: ${"lorem ipsum dolor sit amet ".repeat(40)}`;
    for (let i = 0; i < keep; i++)
      await call(server.client, "remember", { key: `keep/${i}`, text: text(i) });
    const start = await atRest(data.dir);
    for (let i = 0; i < cycles; i++) {
      await call(server.client, "remember", { key: `cycle/${i}`, text: text(i) });
      await call(server.client, "forget", { key: `cycle/${i}` });
    }
    const end = await atRest(data.dir);
    console.log(
      JSON.stringify(
        {
          bin: BIN,
          cycles,
          keep,
          start,
          end,
          ratio: round(end.total / start.total),
          db_ratio: round(end.db / start.db),
        },
        null,
        2,
      ),
    );
  } finally {
    await server.close();
    data.remove();
  }
}
