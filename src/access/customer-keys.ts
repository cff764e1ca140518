/**
 * A list of customer keys, as an operator writes one to provision many customers at once: a key
 * a line, blank lines and `#` comments ignored.
 */
import { CUSTOMER_KEY_PATTERN, CUSTOMER_KEY_RULE } from '../catalogue/model.js';
import { UnreadableInputError } from '../catalogue/problems.js';

/** The keys of `text`, in order; the first line that is not a key fails the whole list, naming `source` and the line. */
export function parseCustomerKeys(text: string, source: string): string[] {
  const keys: string[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    const key = line.trim();
    if (key === '' || key.startsWith('#')) continue;
    if (!CUSTOMER_KEY_PATTERN.test(key)) throw new UnreadableInputError(source, `line ${index + 1}: ${JSON.stringify(key)} is not a customer key (${CUSTOMER_KEY_RULE})`);
    keys.push(key);
  }
  if (keys.length === 0) throw new UnreadableInputError(source, 'names no customer');
  return keys;
}
