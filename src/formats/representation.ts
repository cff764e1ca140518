/**
 * An answer built once per snapshot: its bytes and its strong ETag. A request then costs a
 * lookup and a write.
 */
import { createHash } from 'node:crypto';

export type FormatName = 'json' | 'xml';

export interface Representation {
  readonly body: Buffer;
  readonly etag: string;
}

export function representation(text: string): Representation {
  const body = Buffer.from(text, 'utf8');
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/** The same resource in each format. */
export type Representations = Readonly<Record<FormatName, Representation>>;
