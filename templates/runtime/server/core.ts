/**
 * The server core, by role: JSON-RPC (`json-rpc.ts`), the task store contract with the in-memory
 * store (`store.ts`), the one compare-and-set write under the status machine (`task-write.ts`) and
 * the task engine (`task-engine.ts`). This module only gathers them, so the set's `server.ts` and the
 * parts import the core from one place.
 */
export * from "./json-rpc.js";
export * from "./store.js";
export * from "./task-write.js";
export * from "./task-engine.js";
