/**
 * The protocol facts of a set, computed once after the model's passes and carried to emit: whether the
 * set gets stubs, and what its server and client are built from (the server's features, with the core
 * flows they read, and the client's, which build on the same server features). Both emitters read
 * these; neither derives them again, so client and server of a set cannot disagree.
 */
import type { Model } from "../model.js";
import { findRequestedSchema } from "./elicitation-form.js";
import { clientFeatures, type ClientFeatures } from "./client-features.js";
import { noStubsReason, stubServerFeatures, type ServerFeatures } from "./server-features.js";

export type ProtocolFacts =
  /** The set defines no task methods: it gets no client.ts or server.ts, for this reason (`lint` prints it). */
  | { readonly noStubsReason: string }
  | {
      readonly server: ServerFeatures;
      readonly client: ClientFeatures;
      /** The set has an elicitation form schema: accepted answers are judged by their forms. */
      readonly hasForms: boolean;
    };

/**
 * The set's protocol facts. A set that defines task methods but lacks a piece the stubs need is a
 * located GeneratorError here (see noStubsReason), before anything is emitted.
 */
export function protocolFacts(model: Model): ProtocolFacts {
  const reason = noStubsReason(model);
  if (reason !== undefined) return { noStubsReason: reason };
  const server = stubServerFeatures(model);
  return { server, client: clientFeatures(model, server)!, hasForms: findRequestedSchema(model) !== undefined };
}
