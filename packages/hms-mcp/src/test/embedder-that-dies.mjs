// The real @hms/embedder, except that embedding a text containing DIE_MARKER ends the thread.
// Loaded in its place by worker-dies.mjs.
import * as real from "@hms/embedder";

export * from "@hms/embedder";

export const DIE_MARKER = "END THE EMBEDDING WORKER NOW";

export async function loadEmbedder(...args) {
  const embedder = await real.loadEmbedder(...args);
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts) => {
    if (texts.some((text) => text.includes(DIE_MARKER))) process.exit(7);
    return embed(texts);
  };
  return embedder;
}
