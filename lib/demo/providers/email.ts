// An email API with no idempotency keys and no lookup: every accepted request sends one more email.
import { asRecord, problem, type Router } from "./routes";

export function emailRouter(): Router {
  return (req, ctx) => {
    if (req.method !== "POST" || req.path !== "/email/v1/messages") return null;
    const body = asRecord(req.body);
    if (typeof body.to !== "string" || !body.to.includes("@"))
      return problem(400, "invalid_recipient", "to must be an email address");
    if (typeof body.template !== "string" || !body.template)
      return problem(400, "invalid_template", "template is required");
    return {
      provider: "email",
      kind: "effect",
      commit: () => {
        const id = ctx.newId("msg_");
        ctx.store.addEffect({
          provider: "email",
          kind: "email",
          id,
          idempotencyKey: null,
          clientToken: null,
          operationId: req.operationId,
          attempt: req.attempt,
          data: { to: body.to, template: body.template },
        });
        return { status: 202, body: { id, status: "queued", to: body.to } };
      },
      refuse: () =>
        problem(422, "recipient_suppressed", `${String(body.to)} is on the suppression list (an earlier hard bounce).`),
    };
  };
}
