// The baseline of `npm run bench:server`: a bare `node:http` server that reads each request's body and answers
// with fixed bytes: the status, headers and body the generated server sent for the same request (given as JSON
// in BARE_ANSWER), so the two differ only in the work done between reading the request and writing the answer.
// Prints "listening on http://127.0.0.1:PORT/mcp" like the example server.
import { createServer } from "node:http";

const { status, headers, body } = JSON.parse(process.env.BARE_ANSWER ?? "");
// The body as a string, as the generated server writes it (Node sends headers and body in one write either way).
// The body is read as the generated server reads it (runtime/parts/http-server.ts `readNodeBody`): one read
// from the stream's buffer when it is all there already (a small body arrives with the headers), else by
// listening; a baseline that always listened would cost more per request than the lean way, and flatter the ratio.
const server = createServer((req, res) => {
  const answer = () => res.writeHead(status, headers).end(body);
  if (req.complete || req.readableLength === Number(req.headers["content-length"])) {
    req.read();
    answer();
    return;
  }
  req.on("data", () => {});
  req.on("end", answer);
});
server.listen(0, "127.0.0.1", () => console.log(`bare node:http server listening on http://127.0.0.1:${server.address().port}/mcp`));
process.once("SIGTERM", () => process.exit(0));
