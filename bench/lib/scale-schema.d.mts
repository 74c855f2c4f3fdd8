/** The synthetic schema of `npm run bench:scale` (see scale-schema.mjs): `count` definitions, a multiple of five. */
export function scaleSchema(count: number): { $schema: string; definitions: Record<string, object> };
