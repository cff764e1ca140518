/** The event of a committed change (CONTRACT §14), as the change feed answers it and webhooks send it. */
import { Type } from '@sinclair/typebox';
import { CHANGE_KINDS } from '../catalogue/catalogue-change.js';
import { MOST_IDS } from '../changes/catalogue-event.js';

const IDS = Type.Array(Type.Union([Type.String(), Type.Integer()]), { maxItems: MOST_IDS });

const KIND_CHANGE = Type.Object(
  {
    added: IDS,
    changed: IDS,
    removed: IDS,
    truncated: Type.Optional(Type.Literal(true, { description: `Present when a list held more than ${MOST_IDS} ids, and was cut to the first ${MOST_IDS}.` })),
  },
  { additionalProperties: false },
);

export const EVENT_SCHEMA = Type.Object(
  {
    type: Type.Literal('catalogue.changed'),
    timestamp: Type.String({ format: 'date-time', description: 'When the change committed.' }),
    data: Type.Object({
      customer: Type.String(),
      version: Type.Integer({ description: 'The catalogue version the change made.' }),
      changes: Type.Object(Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, Type.Optional(KIND_CHANGE)])), {
        additionalProperties: false,
        description: 'The ids of each kind of record the change added, changed and removed; a kind it left alone is absent. The site’s id is `site`.',
      }),
      tags: Type.Array(Type.String(), { description: 'The cache tags (`Surrogate-Key`, `Cache-Tag`) of the answers the change altered: purge these.' }),
    }),
  },
  { description: 'One committed change of a catalogue.' },
);
