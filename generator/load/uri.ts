/** URI handling for `$id` and `$ref`: resolution against a base, and fragment splitting. */

/** Resolves `ref` against `base` (RFC 3986). Works for file:, http(s): and urn: bases. */
export function resolveUri(ref: string, base: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(ref)) return normalizeUri(ref);
  if (base.startsWith("urn:") || !/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(base)) {
    // URNs and other non-hierarchical bases only take fragment references.
    const [baseNoFragment] = splitFragment(base);
    if (ref.startsWith("#") || ref === "") return baseNoFragment + ref;
    throw new Error(`cannot resolve "${ref}" against non-hierarchical base "${base}"`);
  }
  return normalizeUri(new URL(ref, base).href);
}

function normalizeUri(uri: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(uri)) {
    try {
      return new URL(uri).href;
    } catch {
      return uri;
    }
  }
  return uri;
}

/** Splits a URI into the part before `#` and the decoded fragment (without `#`). */
export function splitFragment(uri: string): [string, string] {
  const hash = uri.indexOf("#");
  if (hash < 0) return [uri, ""];
  return [uri.slice(0, hash), safeDecode(uri.slice(hash + 1))];
}

function safeDecode(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

export function stripEmptyFragment(uri: string): string {
  return uri.endsWith("#") ? uri.slice(0, -1) : uri;
}
