// The synthetic memories of the speed benchmarks (server-perf, recall-by-time): made-up words
// with Zipf-distributed frequencies, like prose, from a seeded generator, so that every run
// and every build reads the same memories and queries.

/** Deterministic pseudo-random numbers (mulberry32). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A vocabulary of pronounceable words with Zipf-distributed frequencies, like prose. */
export function vocabulary(rand, size) {
  const syllables = "ka ri to me sa lu no pe vi da go chi ran tel mor vin sul bex qua zor".split(
    " ",
  );
  const words = new Set();
  while (words.size < size) {
    const n = 1 + Math.floor(rand() * 3);
    let word = "";
    for (let i = 0; i < n; i++) word += syllables[Math.floor(rand() * syllables.length)];
    words.add(word + (rand() < 0.3 ? String(Math.floor(rand() * 100)) : ""));
  }
  const list = [...words];
  const cdf = [];
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
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo];
  };
}

export function memoryText(rand, word) {
  const lines = 3 + Math.floor(rand() * 8);
  const out = [];
  for (let l = 0; l < lines; l++) {
    const n = 5 + Math.floor(rand() * 10);
    out.push(Array.from({ length: n }, word).join(" "));
  }
  return out.join("\n");
}
