/**
 * Base64 (RFC 4648 § 4, padded) and base64url (§ 5, unpadded): one codec for the runtime's two uses,
 * the `=?base64?…?=` form of `Mcp-Name` and `Mcp-Param-{Name}` header values (client/headers.ts; decoded by server/tasks-extension.ts)
 * and sealed `requestState` (server/request-state.ts). Written out so no host's `btoa` or `Buffer`
 * is needed. Decoding takes the canonical form only (the padding the alphabet wants, zero unused
 * bits), so each text has exactly one reading.
 */

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Standard Base64 with padding. */
export function base64(bytes: ArrayLike<number>): string {
  return encode(bytes, STANDARD, true);
}

/** base64url without padding. */
export function base64url(bytes: ArrayLike<number>): string {
  return encode(bytes, URL_SAFE, false);
}

/** Decodes padded standard Base64; undefined for anything else (missing or extra padding, other characters, non-zero unused bits). */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return undefined;
  return canonical(decode(text.replace(/=+$/, ""), STANDARD), base64, text);
}

/** Decodes base64url without padding; undefined for anything else (padding, other characters, a dangling character, non-zero unused bits). */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return canonical(decode(text, URL_SAFE), base64url, text);
}

function encode(bytes: ArrayLike<number>, alphabet: string, pad: boolean): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const kept = Math.min(4, bytes.length - i + 1);
    for (let k = 0; k < 4; k++) out += k < kept ? alphabet.charAt((n >> (18 - 6 * k)) & 63) : pad ? "=" : "";
  }
  return out;
}

/** The bytes of unpadded digits (4 digits → 3 bytes, a final 3 → 2, a final 2 → 1). */
function decode(digits: string, alphabet: string): Uint8Array {
  const bytes: number[] = [];
  for (let i = 0; i < digits.length; i += 4) {
    const chunk = digits.slice(i, i + 4);
    const n = [...chunk.padEnd(4, alphabet.charAt(0))].reduce((acc, char) => (acc << 6) | alphabet.indexOf(char), 0);
    bytes.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
    bytes.length -= 4 - chunk.length;
  }
  return new Uint8Array(bytes);
}

/** The decoded bytes when they encode back to the very text (so unused bits were zero), else undefined. */
function canonical(bytes: Uint8Array, encoding: (bytes: Uint8Array) => string, text: string): Uint8Array | undefined {
  return encoding(bytes) === text ? bytes : undefined;
}
