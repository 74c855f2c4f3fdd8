/**
 * How the Streamable HTTP transport carries a header value (streamable-http.mdx › Value Encoding),
 * one rule for both sides: `Mcp-Name` and `Mcp-Param-{Name}` values are sent as they are when they
 * are plain, otherwise as `=?base64?{UTF-8 in Base64}?=` (protocol/base64.ts's codec). The client
 * writes them with `encodeHeaderValue` (client/headers.ts), the server reads them with
 * `decodeHeaderValue` (server/tasks-extension.ts, parts/http-server.ts).
 */
import { base64, fromBase64 } from "./base64.js";

/** The encoded form: `=?base64?` + Base64 + `?=`. */
const ENCODED_VALUE = /^=\?base64\?(.*)\?=$/s;

/**
 * A header value as the transport carries it: as it is when it is plain visible ASCII or space
 * without leading or trailing space; otherwise (non-ASCII, control characters, edge whitespace, or
 * a value that itself looks like the encoded form) `=?base64?{UTF-8 in Base64}?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x20-\x7e]*$/.test(value) &&
    !value.startsWith(" ") &&
    !value.endsWith(" ") &&
    !(value.startsWith("=?base64?") && value.endsWith("?="));
  return plain ? value : `=?base64?${base64(utf8(value))}?=`;
}

/** The host's UTF-8 decoder (Node 20+, Deno, Bun, workers and browsers have it). */
const { TextDecoder: Utf8Decoder } = globalThis as unknown as {
  readonly TextDecoder: new (label: "utf-8", options: { fatal: true }) => { decode(bytes: Uint8Array): string };
};

/**
 * A header value as the client meant it: the encoded form decoded as UTF-8, anything else literal.
 * Undefined for a value with characters a header may not carry, or a malformed encoded value: bad
 * padding, characters outside the alphabet, non-zero unused bits, or bytes that are not UTF-8.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  // RFC 9110 field values: visible ASCII, space and tab; anything else had to be sent encoded.
  if (!/^[\x20-\x7e\t]*$/.test(raw)) return undefined;
  const encoded = ENCODED_VALUE.exec(raw)?.[1];
  if (encoded === undefined) return raw;
  const bytes = fromBase64(encoded);
  if (bytes === undefined) return undefined;
  try {
    return new Utf8Decoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD, as TextEncoder writes it. */
function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    let code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else {
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    }
  }
  return bytes;
}
