/** JSON pointers (RFC 6901) as used in `$ref` fragments and in error locations. */

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** A token as a `$ref`'s URI fragment holds it (`#/$defs/a~1b%20c` for `a/b c`): escaped, then percent-encoded. */
export function fragmentToken(token: string): string {
  return encodeURIComponent(escapePointerToken(token));
}

export function appendPointer(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + tokens.map((t) => "/" + escapePointerToken(String(t))).join("");
}

/** Splits a pointer (already percent-decoded) into its tokens; "" is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`not a JSON pointer: ${pointer}`);
  return pointer.slice(1).split("/").map(unescapePointerToken);
}

/** Follows a pointer through plain JSON; undefined when any step is missing. */
export function getByPointer(root: unknown, tokens: readonly string[]): unknown {
  let node: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object") {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return node;
}
