/**
 * Synthetic memories for the benchmarks that need many (100,000) and need them the same from
 * run to run: a seeded random stream, a vocabulary of made-up words drawn with Zipf
 * frequencies (like prose), and texts of a few lines of them.
 */

/** Deterministic pseudo-random numbers in [0, 1) from `seed` (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A vocabulary of `size` pronounceable words; the function returned draws one, with Zipf
 * frequencies (the word of rank r is drawn in proportion to 1 / r).
 */
export function zipfVocabulary(rand: () => number, size: number): () => string {
  const syllables = "ka ri to me sa lu no pe vi da go chi ran tel mor vin sul bex qua zor".split(
    " ",
  );
  const words = new Set<string>();
  while (words.size < size) {
    const n = 1 + Math.floor(rand() * 3);
    let word = "";
    for (let i = 0; i < n; i++) word += syllables[Math.floor(rand() * syllables.length)];
    words.add(word + (rand() < 0.3 ? String(Math.floor(rand() * 100)) : ""));
  }
  const list = [...words];
  const cdf: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= list.length; rank++) {
    total += 1 / rank;
    cdf.push(total);
  }
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo] as string;
  };
}

/** A memory's text: 3 to 10 lines of 5 to 14 words (about 250 tokens). */
export function syntheticText(rand: () => number, word: () => string): string {
  const lines = 3 + Math.floor(rand() * 8);
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const n = 5 + Math.floor(rand() * 10);
    out.push(Array.from({ length: n }, word).join(" "));
  }
  return out.join("\n");
}
