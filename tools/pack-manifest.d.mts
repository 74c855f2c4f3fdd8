/** Declarations of tools/pack-manifest.mjs, for the tests that import it. */

/** Fields of the repository's package.json that the published one leaves out. */
export declare const REPOSITORY_ONLY_FIELDS: readonly string[];

/** The published manifest for the text of the repository's package.json (same indentation and final newline). */
export declare function publishedManifest(text: string): string;
