/**
 * The memory files as a tree of folders, and the rows a tree view shows: folders first, then
 * files, each sorted by name; a collapsed folder hides what is under it.
 */

/** The root every memory file lies under. */
export const ROOT = "/memories/";

/** One memory file as `list` gives it. */
export interface FileEntry {
  readonly key: string;
  readonly bytes: number;
  readonly version: number;
  readonly updated_at: string;
}

export interface FolderNode {
  readonly kind: "folder";
  readonly name: string;
  /** The folder's path with a trailing slash, e.g. /memories/notes/. */
  readonly path: string;
  bytes: number;
  files: number;
  /** The latest change under it. */
  updatedAt: string;
  readonly children: TreeNode[];
}

export interface FileNode {
  readonly kind: "file";
  readonly name: string;
  readonly key: string;
  readonly entry: FileEntry;
}

export type TreeNode = FolderNode | FileNode;

/** A row of the tree view: a node and its depth (0: directly under /memories/). */
export interface TreeRow {
  readonly node: TreeNode;
  readonly depth: number;
}

function folder(name: string, path: string): FolderNode {
  return { kind: "folder", name, path, bytes: 0, files: 0, updatedAt: "", children: [] };
}

/** The tree of `files` (keys under /memories/; others are left out). */
export function buildTree(files: readonly FileEntry[]): FolderNode {
  const root = folder("memories", ROOT);
  const folders = new Map<string, FolderNode>([[ROOT, root]]);
  for (const file of files) {
    if (!file.key.startsWith(ROOT)) continue;
    const names = file.key.slice(ROOT.length).split("/");
    let parent = root;
    let path = ROOT;
    const chain = [root];
    for (const name of names.slice(0, -1)) {
      path = `${path}${name}/`;
      let next = folders.get(path);
      if (next === undefined) {
        next = folder(name, path);
        folders.set(path, next);
        parent.children.push(next);
      }
      parent = next;
      chain.push(next);
    }
    parent.children.push({
      kind: "file",
      name: names[names.length - 1] ?? file.key,
      key: file.key,
      entry: file,
    });
    for (const node of chain) {
      node.bytes += file.bytes;
      node.files += 1;
      if (file.updated_at > node.updatedAt) node.updatedAt = file.updated_at;
    }
  }
  sortTree(root);
  return root;
}

function sortTree(node: FolderNode): void {
  node.children.sort((a, b) =>
    a.kind !== b.kind ? (a.kind === "folder" ? -1 : 1) : a.name < b.name ? -1 : 1,
  );
  for (const child of node.children) if (child.kind === "folder") sortTree(child);
}

/** The rows a tree view shows, top to bottom, with the folders in `collapsed` closed. */
export function treeRows(root: FolderNode, collapsed: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (node: FolderNode, depth: number) => {
    for (const child of node.children) {
      rows.push({ node: child, depth });
      if (child.kind === "folder" && !collapsed.has(child.path)) walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return rows;
}

/** The folders above `key`, e.g. /memories/a/ and /memories/a/b/ for /memories/a/b/c.md. */
export function foldersOf(key: string): string[] {
  const names = key.slice(ROOT.length).split("/").slice(0, -1);
  return names.map((_, index) => `${ROOT}${names.slice(0, index + 1).join("/")}/`);
}

/** A key as people read it: without the /memories/ every memory file has. */
export function shortPath(key: string): string {
  return key.startsWith(ROOT) ? key.slice(ROOT.length) : key;
}

/**
 * The files whose path under /memories/ holds `filter` (any case), for the quick open; every
 * file when the filter is empty. Those whose name holds it come first, then by path.
 */
export function filterFiles(files: readonly FileEntry[], filter: string): FileEntry[] {
  const wanted = filter.trim().toLowerCase();
  if (wanted === "") return [...files];
  const named = (file: FileEntry) =>
    file.key
      .slice(file.key.lastIndexOf("/") + 1)
      .toLowerCase()
      .includes(wanted)
      ? 0
      : 1;
  return files
    .filter((file) => shortPath(file.key).toLowerCase().includes(wanted))
    .sort((a, b) => named(a) - named(b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
