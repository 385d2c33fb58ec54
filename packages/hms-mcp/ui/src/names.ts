/**
 * A file name a person types (for a new file, or a rename) as a memory file's key. The server
 * checks keys fully and says why it refuses one; this only catches what is plainly wrong,
 * before a call, with a message beside the field.
 */
import { ROOT } from "./tree.js";

export type KeyCheck = { readonly key: string } | { readonly problem: string };

/** The key for `typed` ("notes/today.md" or "/memories/notes/today.md"), or what is wrong. */
export function keyFromName(typed: string): KeyCheck {
  const name = typed.trim().replace(/^\/?memories\//, "");
  if (name === "") return { problem: "Type a name, such as notes/today.md." };
  if (name.startsWith("/")) return { problem: "Memory files live under /memories/." };
  if (name.endsWith("/")) return { problem: "That names a folder: add a file name after the /." };
  const parts = name.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) {
    return { problem: "A path has no empty, . or .. parts." };
  }
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return { problem: "A name has no control characters." };
  }
  return { key: `${ROOT}${name}` };
}
