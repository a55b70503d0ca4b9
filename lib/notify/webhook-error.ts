// A webhook request refused: its HTTP status, a stable code and the fields at fault; nothing was changed.
export type WebhookErrorCode = "not_found" | "webhook_conflict" | "invalid_webhook";

const STATUS: Record<WebhookErrorCode, number> = { not_found: 404, webhook_conflict: 409, invalid_webhook: 422 };

export class WebhookError extends Error {
  override name = "WebhookError";
  readonly status: number;
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}
