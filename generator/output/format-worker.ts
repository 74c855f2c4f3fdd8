/** The worker thread of formatAll: formats the modules it is given and sends them back. */
import { parentPort, workerData } from "node:worker_threads";
import { formatTypeScript } from "./format.js";

const codes = workerData as string[];
const formatted = await Promise.all(codes.map(formatTypeScript));
parentPort!.postMessage(formatted);
