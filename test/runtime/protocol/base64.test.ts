/**
 * The runtime's one Base64 codec (protocol/base64.ts) against Node's Buffer, and the header value
 * rule built on it (protocol/header-values.ts): encodings equal Buffer's, round trips give the bytes
 * back, and decoding refuses every text that is not the canonical encoding of some bytes, which is
 * what the callers rely on (a sealed `requestState` and an `Mcp-Name` header have one reading each).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64, base64url, fromBase64, fromBase64url } from "../../../templates/runtime/protocol/base64.js";
import { decodeHeaderValue, encodeHeaderValue } from "../../../templates/runtime/protocol/header-values.js";

const bytes = fc.uint8Array({ maxLength: 64 });
/** Any string, lone surrogates and all (UTF-16 code units), and well-formed Unicode text. */
const text = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 40 }));

describe("base64 and base64url encode as Buffer does", () => {
  it("for any bytes, including none", () => {
    fc.assert(
      fc.property(bytes, (data) => {
        expect(base64(data)).toBe(Buffer.from(data).toString("base64"));
        expect(base64url(data)).toBe(Buffer.from(data).toString("base64url"));
      }),
    );
    expect(base64(new Uint8Array())).toBe("");
    expect(base64url(new Uint8Array())).toBe("");
  });

  it("for the UTF-8 of any text (non-ASCII included)", () => {
    fc.assert(
      fc.property(text, (value) => {
        const utf8 = new TextEncoder().encode(value);
        expect(base64(utf8)).toBe(Buffer.from(value, "utf8").toString("base64"));
        expect(base64url(utf8)).toBe(Buffer.from(value, "utf8").toString("base64url"));
      }),
    );
    expect(base64(new TextEncoder().encode("Hello, 世界 🌍"))).toBe("SGVsbG8sIOS4lueVjCDwn4yN");
  });
});

describe("decoding gives the bytes back", () => {
  it("round trips any bytes through both alphabets", () => {
    fc.assert(
      fc.property(bytes, (data) => {
        expect(fromBase64(base64(data))).toEqual(data);
        expect(fromBase64url(base64url(data))).toEqual(data);
      }),
    );
  });

  it("reads what Buffer writes", () => {
    fc.assert(
      fc.property(bytes, (data) => {
        expect(fromBase64(Buffer.from(data).toString("base64"))).toEqual(data);
        expect(fromBase64url(Buffer.from(data).toString("base64url"))).toEqual(data);
      }),
    );
  });
});

/** Whether `encoded` is the canonical encoding of some bytes in the given Buffer encoding. */
function canonical(encoded: string, encoding: "base64" | "base64url"): boolean {
  return Buffer.from(encoded, encoding).toString(encoding) === encoded;
}

describe("decoding refuses what is not a canonical encoding", () => {
  const base64Chars = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ .\n%é".split(""));

  it("accepts a text exactly when Buffer's encoding of its bytes is that very text", () => {
    // Buffer decodes leniently (it skips foreign characters, takes either alphabet, ignores padding
    // and unused bits); the runtime takes only the one text each byte string encodes to.
    fc.assert(
      fc.property(fc.string({ unit: base64Chars, maxLength: 12 }), (encoded) => {
        const padded = fromBase64(encoded);
        expect(padded !== undefined, `fromBase64(${JSON.stringify(encoded)})`).toBe(canonical(encoded, "base64"));
        if (padded) expect(Buffer.from(padded).toString("base64")).toBe(encoded);
        const url = fromBase64url(encoded);
        expect(url !== undefined, `fromBase64url(${JSON.stringify(encoded)})`).toBe(canonical(encoded, "base64url"));
        if (url) expect(Buffer.from(url).toString("base64url")).toBe(encoded);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ["missing padding", "QQ"],
    ["extra padding", "QQ==="],
    ["padding inside", "QQ==QQ=="],
    ["a dangling character", "QUJDR"],
    ["non-zero unused bits", "QR=="],
    ["the url alphabet", "-_8="],
    ["white space", "QU JD"],
    ["a line break", "QUJD\n"],
  ])("fromBase64 refuses %s (%j)", (_, encoded) => {
    expect(fromBase64(encoded)).toBeUndefined();
  });

  it.each([
    ["padding", "QQ=="],
    ["a dangling character", "QUJDR"],
    ["non-zero unused bits", "QR"],
    ["the standard alphabet", "+/8"],
    ["white space", "QU JD"],
  ])("fromBase64url refuses %s (%j)", (_, encoded) => {
    expect(fromBase64url(encoded)).toBeUndefined();
  });
});

describe("header values: plain or =?base64?…?=", () => {
  it("decode what the client encodes, any text with well-formed UTF-16", () => {
    fc.assert(
      fc.property(text, (value) => {
        // A lone surrogate is sent as U+FFFD, as TextEncoder and Buffer write it.
        expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(Buffer.from(value, "utf8").toString("utf8"));
      }),
    );
    expect(encodeHeaderValue("")).toBe("");
    expect(decodeHeaderValue("=?base64??=")).toBe("");
  });

  it("encode non-ASCII as Buffer's Base64 of the UTF-8", () => {
    fc.assert(
      fc.property(text, (value) => {
        const encoded = encodeHeaderValue(value);
        if (encoded !== value) expect(encoded).toBe(`=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`);
      }),
    );
    expect(encodeHeaderValue("région-é")).toBe(`=?base64?${Buffer.from("région-é").toString("base64")}?=`);
  });

  it.each([
    ["bad padding", "=?base64?SGVsbG8?="],
    ["the url alphabet", "=?base64?-_8=?="],
    ["non-zero unused bits", "=?base64?SGVsbG9=?="],
    ["bytes that are not UTF-8", `=?base64?${Buffer.from([0xc3, 0x28]).toString("base64")}?=`],
    ["a character a header may not carry", "caf\u00e9"],
  ])("refuse %s", (_, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });
});
