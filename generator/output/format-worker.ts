/**
 * The helper thread of formatAll: loads prettier at once, then formats each batch of statements
 * it is sent and sends the results back, until it is terminated.
 */
import { parentPort } from "node:worker_threads";
import { formatBatch, formatTypeScript } from "./format.js";

await formatTypeScript("");
parentPort!.on("message", async (texts: string[]) => parentPort!.postMessage(await formatBatch(texts)));
