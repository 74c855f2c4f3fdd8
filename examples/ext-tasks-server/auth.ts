/**
 * Owners from an authenticated identity: the HTTP handler's `owner` option as an application
 * writes it. A bearer token is verified (here: an HMAC-signed `subject.signature`, a stand-in for
 * your identity provider's JWT or introspection check) and the caller is its subject, so two tokens
 * of one user reach the same tasks and a token nobody issued gets 401 before the body is read.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** A request's headers as the handler passes them to `owner`. */
type Headers = { readonly [name: string]: string | readonly string[] | undefined };

/** Checks a bearer token: its subject (the user it was issued to), or undefined when it is not valid. */
export type VerifyToken = (token: string) => string | undefined | Promise<string | undefined>;

/**
 * The handler's `owner`: the verified subject of `Authorization: Bearer <token>` (the scheme in any
 * case), `user:`-prefixed; undefined (401) without a token or with one `verify` rejects.
 */
export function ownerFromBearer(verify: VerifyToken): (headers: Headers) => Promise<string | undefined> {
  return async (headers) => {
    const authorization = headers.authorization;
    if (typeof authorization !== "string") return undefined;
    const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match) return undefined;
    const subject = await verify(match[1]!);
    return subject === undefined ? undefined : `user:${subject}`;
  };
}

/** Demonstration tokens: `subject.signature`, HMAC-SHA256 under `secret` (at least 32 bytes). */
export function hmacTokens(secret: string): { issue(subject: string): string; verify: VerifyToken } {
  if (Buffer.byteLength(secret) < 32) throw new Error("the token secret must be at least 32 bytes");
  const sign = (subject: string) => createHmac("sha256", secret).update(subject).digest("base64url");
  return {
    issue: (subject) => `${Buffer.from(subject).toString("base64url")}.${sign(subject)}`,
    verify: (token) => {
      const [encoded, signature, ...rest] = token.split(".");
      if (encoded === undefined || signature === undefined || rest.length > 0) return undefined;
      const subject = Buffer.from(encoded, "base64url").toString("utf8");
      const expected = Buffer.from(sign(subject));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected) ? subject : undefined;
    },
  };
}
