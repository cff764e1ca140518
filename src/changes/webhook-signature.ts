/**
 * Standard Webhooks v1 (https://www.standardwebhooks.com): a secret of 32 random bytes, written
 * `whsec_` and base64, and a signature `v1,` and base64 of HMAC-SHA256 with the secret's bytes
 * over `id.timestamp.body`.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` of a request: `timestamp` in Unix seconds. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
