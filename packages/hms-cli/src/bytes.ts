/**
 * Bytes that may not be UTF-8 (file names, command-line arguments) as text a person can read:
 * the UTF-8 in them as it is, every other byte as `\xHH`.
 */

/** `bytes` with each byte that is not part of well-formed UTF-8 written `\xHH`. */
export function escapedBytes(bytes: Uint8Array): string {
  let text = "";
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length === 0) {
      text += `\\x${(bytes[at] as number).toString(16).padStart(2, "0")}`;
      at += 1;
    } else {
      text += Buffer.from(bytes.subarray(at, at + length)).toString("utf8");
      at += length;
    }
  }
  return text;
}

/** Whether `bytes` are well-formed UTF-8 throughout. */
export function isUtf8(bytes: Uint8Array): boolean {
  for (let at = 0; at < bytes.length; ) {
    const length = sequenceLength(bytes, at);
    if (length === 0) return false;
    at += length;
  }
  return true;
}

/**
 * The length of the well-formed UTF-8 sequence at `at` (1 to 4), or 0 when none starts there
 * (Unicode's table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] as number;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  if (at + length > bytes.length) return 0;
  const second = bytes[at + 1] as number;
  if (second < low || second > high) return 0;
  for (let k = 2; k < length; k++) {
    if (((bytes[at + k] as number) & 0xc0) !== 0x80) return 0;
  }
  return length;
}
