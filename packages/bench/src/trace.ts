/**
 * A fixed, seeded trace of memory-tool commands with the mix an agent produces: mostly views
 * and small edits, some creates, a few renames and deletes. The generator keeps a model of
 * the directory so every command is valid: a correct implementation answers all of them
 * without an error, which lets a benchmark compare implementations on the same work.
 */

export type CommandKind =
  | "view_dir"
  | "view_file"
  | "create"
  | "str_replace"
  | "insert"
  | "rename"
  | "delete";

export type MemoryCommand =
  | { command: "view"; path: string; view_range?: [number, number] }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

export interface TraceStep {
  kind: CommandKind;
  command: MemoryCommand;
}

export interface TraceOptions {
  seed: number;
  length: number;
}

/** Relative weights of each kind of command. */
const MIX: ReadonlyArray<[CommandKind, number]> = [
  ["view_file", 30],
  ["view_dir", 18],
  ["str_replace", 18],
  ["create", 12],
  ["insert", 12],
  ["rename", 5],
  ["delete", 5],
];

const TOPICS = ["clients", "projects", "preferences", "meetings", "research", "people", "tasks"];
const NAMES = ["acme", "globex", "initech", "umbrella", "hooli", "notes", "plan", "todo", "log"];
const WORDS = (
  "prefers email follow-ups before noon meeting agreed budget review quarterly deadline " +
  "contact owner draft shipped blocked waiting feedback priority summary decision next " +
  "week customer renewal invoice design api latency memory store recall schema"
).split(" ");

/** mulberry32: a small, fast, well-distributed 32-bit generator; enough for a benchmark trace. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateTrace({ seed, length }: TraceOptions): TraceStep[] {
  const rand = random(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;

  // The directory as the generator believes it is: file path -> its lines (no trailing "").
  const files = new Map<string, string[]>();
  let serial = 0;
  const line = () => {
    serial += 1;
    const words = Array.from({ length: 4 + int(8) }, () => pick(WORDS));
    return `- ${words.join(" ")} (#${serial})`;
  };
  const dirsOf = () => {
    const dirs = new Set<string>();
    for (const path of files.keys()) {
      const parts = path.split("/");
      for (let i = 3; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    }
    return [...dirs].sort();
  };
  const freshFilePath = (): string => {
    for (;;) {
      serial += 1;
      const name = `${pick(NAMES)}-${serial}.md`;
      const depth = int(10);
      const path =
        depth < 2
          ? `/memories/${name}`
          : depth < 8
            ? `/memories/${pick(TOPICS)}/${name}`
            : `/memories/${pick(TOPICS)}/${pick(NAMES)}/${name}`;
      if (!files.has(path)) return path;
    }
  };
  const text = (lines: string[]) => `${lines.join("\n")}\n`;

  const steps: TraceStep[] = [
    { kind: "view_dir", command: { command: "view", path: "/memories" } },
  ];
  const total = MIX.reduce((sum, [, weight]) => sum + weight, 0);

  while (steps.length < length) {
    let roll = int(total);
    let kind: CommandKind = "create";
    for (const [k, weight] of MIX) {
      if (roll < weight) {
        kind = k;
        break;
      }
      roll -= weight;
    }
    // Without files only a create (or a view of the root) makes sense.
    if (files.size < 3 && kind !== "view_dir") kind = "create";
    const paths = [...files.keys()].sort();

    switch (kind) {
      case "create": {
        const path = freshFilePath();
        const lines = Array.from({ length: 3 + int(25) }, line);
        files.set(path, lines);
        steps.push({ kind, command: { command: "create", path, file_text: text(lines) } });
        break;
      }
      case "view_dir": {
        const dirs = ["/memories", ...dirsOf()];
        steps.push({ kind, command: { command: "view", path: pick(dirs) } });
        break;
      }
      case "view_file": {
        const path = pick(paths);
        const lines = files.get(path) ?? [];
        if (lines.length > 4 && int(4) === 0) {
          const start = 1 + int(lines.length - 1);
          const end = int(2) === 0 ? -1 : Math.min(lines.length, start + int(10));
          steps.push({ kind, command: { command: "view", path, view_range: [start, end] } });
        } else {
          steps.push({ kind, command: { command: "view", path } });
        }
        break;
      }
      case "str_replace":
      case "insert": {
        const path = pick(paths);
        const lines = files.get(path) ?? [];
        const fresh = line();
        // Files stop growing at 100 lines: past that an insert becomes an edit of a line.
        if (kind === "insert" && lines.length < 100) {
          const at = int(lines.length + 1);
          lines.splice(at, 0, fresh);
          steps.push({
            kind,
            command: { command: "insert", path, insert_line: at, insert_text: `${fresh}\n` },
          });
        } else {
          const index = int(lines.length);
          const old = lines[index] as string;
          lines[index] = fresh;
          steps.push({
            kind: "str_replace",
            command: { command: "str_replace", path, old_str: old, new_str: fresh },
          });
        }
        break;
      }
      case "rename": {
        const dirs = dirsOf().filter((d) => d.split("/").length === 3);
        if (dirs.length > 0 && int(6) === 0) {
          const from = pick(dirs);
          const to = `/memories/${pick(TOPICS)}-${++serial}`;
          for (const path of [...files.keys()]) {
            if (path.startsWith(`${from}/`)) {
              files.set(to + path.slice(from.length), files.get(path) ?? []);
              files.delete(path);
            }
          }
          steps.push({ kind, command: { command: "rename", old_path: from, new_path: to } });
        } else {
          const from = pick(paths);
          const to = freshFilePath();
          files.set(to, files.get(from) ?? []);
          files.delete(from);
          steps.push({ kind, command: { command: "rename", old_path: from, new_path: to } });
        }
        break;
      }
      case "delete": {
        const path = pick(paths);
        files.delete(path);
        steps.push({ kind, command: { command: "delete", path } });
        break;
      }
    }
  }
  return steps;
}
