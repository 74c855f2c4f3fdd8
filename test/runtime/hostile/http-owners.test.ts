import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { nodeHttpHandler, type McpHttpOptions } from "../../../generated/ext-tasks-draft/runtime/parts/http-server.js";
import { createTasksServer, type TasksServer } from "../../../generated/ext-tasks-draft/server.js";
import { hmacTokens } from "../../../examples/ext-tasks-server/auth.js";
import { startExampleServer, type ExampleServer } from "../../../examples/ext-tasks-server/server.js";
import { httpText, ping, raw, rpcBody, serve, until, validHeaders, type Served } from "./http-raw.js";

/**
 * Who owns a task over HTTP, as a caller probing for other callers' tasks would try it: the
 * handler's default owner (the unverified `Authorization` header, its scheme in any case; one shared
 * "anonymous" without it, said by a warning once per process), and an owner from a verified token
 * (the example server's `verifyToken`): no token or a forged one is 401 before the body is read.
 */

const rpc = (body: string) => JSON.parse(body) as { id: unknown; error?: { code: number; message: string }; result?: Record<string, any> };

/** A tools/call that creates a task for its caller; `tasks/get` of it. */
function withTasks(tasks: TasksServer, extra: Partial<McpHttpOptions> = {}): McpHttpOptions {
  return {
    tasks,
    methods: {
      ping: () => ({}),
      whoami: (_params, context) => ({ owner: context.owner }),
      "tools/call": async (_params, context) => (await tasks.createTask(context)).createResult,
    },
    ...extra,
  };
}

async function createTask(port: number, headers: Record<string, string> = {}): Promise<string> {
  const answer = await raw(port, [httpText({ ...validHeaders("tools/call", "work"), ...headers }, rpcBody("tools/call", { name: "work" }))], { closeWithinMs: 0 });
  expect(answer.status).toBe(200);
  return rpc(answer.body).result!.taskId as string;
}

async function getTask(port: number, taskId: string, headers: Record<string, string> = {}) {
  const answer = await raw(port, [httpText({ ...validHeaders("tasks/get", taskId), ...headers }, rpcBody("tasks/get", { taskId }))], { closeWithinMs: 0 });
  return { status: answer.status, body: rpc(answer.body), headers: answer.headers };
}

describe("the default owner", () => {
  let tasks: TasksServer;
  let server: Served;
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});

  beforeAll(async () => {
    tasks = createTasksServer();
    // An owner function given: no warning.
    nodeHttpHandler(withTasks(tasks, { owner: () => "someone" }));
    expect(warn).not.toHaveBeenCalled();
    server = await serve(nodeHttpHandler(withTasks(tasks)));
    nodeHttpHandler(withTasks(tasks));
  });

  afterAll(async () => {
    warn.mockRestore();
    tasks.close();
    await server.close();
  });

  it("warns once per process that nothing verifies the caller", () => {
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/no `owner` option.*unverified Authorization.*"anonymous"/);
  });

  it("Bearer, bearer and BEARER with the same token are one owner; another token is another", async () => {
    const taskId = await createTask(server.port, { authorization: "Bearer token-1" });
    for (const authorization of ["bearer token-1", "BEARER  token-1", " Bearer token-1 "]) {
      expect([authorization, (await getTask(server.port, taskId, { authorization })).status]).toEqual([authorization, 200]);
    }
    for (const authorization of ["Bearer token-2", "Bearer TOKEN-1", "Basic token-1"]) {
      const other = await getTask(server.port, taskId, { authorization });
      expect([authorization, other.status, other.body.error?.message]).toEqual([authorization, 400, "Task not found"]);
    }
    expect((await getTask(server.port, taskId)).status).toBe(400);
  });

  it("the conventional spelling hashes as the raw header always did, so owners of existing tasks stay theirs", async () => {
    const whoami = async (authorization: string) =>
      rpc((await raw(server.port, [httpText({ ...validHeaders("whoami"), authorization }, rpcBody("whoami"))], { closeWithinMs: 0 })).body).result!.owner;
    const expected = `auth:${createHash("sha256").update("Bearer token-1").digest("hex")}`;
    expect(await whoami("Bearer token-1")).toBe(expected);
    expect(await whoami("bEaReR token-1")).toBe(expected);
  });

  it("every caller without Authorization shares the owner \"anonymous\" (README says so)", async () => {
    const taskId = await createTask(server.port);
    expect((await getTask(server.port, taskId)).status).toBe(200);
    expect((await getTask(server.port, taskId, { authorization: "Bearer x" })).status).toBe(400);
  });
});

describe("an owner from a verified token (the example server)", () => {
  const tokens = hmacTokens("a-secret-of-at-least-thirty-two-bytes!");
  let example: ExampleServer;
  let port: number;

  beforeAll(async () => {
    example = await startExampleServer({ verifyToken: tokens.verify, log: () => {} });
    port = Number(new URL(example.url).port);
  });

  afterAll(() => example.close());

  const discover = (headers: Record<string, string> = {}) =>
    raw(port, [httpText({ ...validHeaders("server/discover"), ...headers }, rpcBody("server/discover"))]);

  it("no token, another scheme, a forged or tampered token: 401 with WWW-Authenticate, the connection closed", async () => {
    const alice = tokens.issue("alice");
    const forged = hmacTokens("another-secret-of-thirty-two-bytes!!!").issue("alice");
    const tampered = `${Buffer.from("bob").toString("base64url")}.${alice.split(".")[1]}`;
    for (const headers of [{}, { authorization: `Basic ${alice}` }, { authorization: `Bearer ${forged}` }, { authorization: `Bearer ${tampered}` }, { authorization: "Bearer" }]) {
      const answer = await discover(headers);
      expect([answer.status, answer.headers["www-authenticate"], rpc(answer.body), answer.closed]).toEqual([
        401,
        "Bearer",
        { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Unauthorized: the request carries no credentials this server accepts" } },
        true,
      ]);
    }
    expect((await discover({ authorization: `bearer ${alice}` })).status).toBe(200);
  });

  it("the subject owns the task: two tokens of one user reach it, another user's token does not", async () => {
    const first = tokens.issue("alice");
    const created = await raw(port, [httpText({ ...validHeaders("tools/call", "slow_compute"), authorization: `Bearer ${first}` }, rpcBody("tools/call", { name: "slow_compute", arguments: { seconds: 1 } }))]);
    const taskId = rpc(created.body).result!.taskId as string;
    expect(typeof taskId).toBe("string");
    expect((await getTask(port, taskId, { authorization: `Bearer ${tokens.issue("alice")}` })).status).toBe(200);
    const bob = await getTask(port, taskId, { authorization: `Bearer ${tokens.issue("bob")}` });
    expect([bob.status, bob.body.error?.code]).toEqual([400, -32602]);
  });

  it("a flood of unauthenticated requests is refused while a caller with a token is answered; nothing stays open", async () => {
    const alice = `Bearer ${tokens.issue("alice")}`;
    const flood = Array.from({ length: 100 }, (_, i) => discover(i % 2 ? {} : { authorization: "Bearer nope.nope" }));
    const served = await discover({ authorization: alice });
    const answers = await Promise.all(flood);
    expect(served.status).toBe(200);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
    await until(() => new Promise<number>((resolve) => example.http.getConnections((_e, n) => resolve(n))), 0);
  });
});

describe("an owner function that fails", () => {
  it("is -32603 (500), reported to onError, and the next request is answered", async () => {
    const tasks = createTasksServer();
    const reported: unknown[] = [];
    let calls = 0;
    const server = await serve(
      nodeHttpHandler(
        withTasks(tasks, {
          owner: () => {
            if (++calls === 1) throw new Error("identity provider down");
            return "fine";
          },
          onError: (error) => reported.push(error),
        }),
      ),
    );
    try {
      const failed = await raw(server.port, [httpText(validHeaders("ping"), rpcBody("ping"))]);
      expect([failed.status, rpc(failed.body).error]).toEqual([500, { code: -32603, message: "Internal error" }]);
      expect(reported).toEqual([new Error("identity provider down")]);
      expect((await ping(server.port)).status).toBe(200);
    } finally {
      tasks.close();
      await server.close();
    }
  });
});
