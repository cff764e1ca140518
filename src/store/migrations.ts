/**
 * The schema, as numbered steps in SQL that SQLite and PostgreSQL both read. A step never
 * changes once released; a later change is a new step.
 */
import type { SqlClient } from './sql-client.js';

/**
 * The steps, given the database's exact text type for identifiers (`${key}`), so that ids are
 * unique byte for byte whatever the database's collation. On SQLite that type is plain TEXT:
 * step 1 reads there exactly as it was first released.
 */
const migrations = (key: string): readonly (readonly string[])[] => [
  [
    `CREATE TABLE catalogue (
      customer ${key} PRIMARY KEY,
      version INTEGER NOT NULL,
      changed_at TEXT NOT NULL
    )`,
    `CREATE TABLE film (
      customer ${key} NOT NULL,
      id ${key} NOT NULL,
      title TEXT NOT NULL,
      short_name TEXT,
      synopsis TEXT,
      genre TEXT,
      signage_text TEXT,
      distributor TEXT,
      last_modified_date TEXT NOT NULL,
      opening_date TEXT,
      rating TEXT,
      status TEXT NOT NULL,
      content TEXT,
      duration INTEGER NOT NULL,
      display_sequence INTEGER NOT NULL,
      national_code TEXT,
      format TEXT NOT NULL,
      is_restricted INTEGER NOT NULL,
      audio_language TEXT,
      government_film_title TEXT,
      film_poster_url TEXT,
      film_poster_thumbnail_url TEXT,
      backdrop_image_url TEXT,
      film_trailer_url TEXT,
      PRIMARY KEY (customer, id)
    )`,
    `CREATE TABLE film_person (
      customer ${key} NOT NULL,
      film_id ${key} NOT NULL,
      position INTEGER NOT NULL,
      id TEXT NOT NULL,
      first_name TEXT,
      last_name TEXT,
      role TEXT NOT NULL,
      PRIMARY KEY (customer, film_id, position),
      FOREIGN KEY (customer, film_id) REFERENCES film (customer, id) ON DELETE CASCADE
    )`,
    `CREATE TABLE film_package (
      customer ${key} NOT NULL,
      id INTEGER NOT NULL,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      PRIMARY KEY (customer, id)
    )`,
    `CREATE TABLE film_package_film (
      customer ${key} NOT NULL,
      package_id INTEGER NOT NULL,
      film_order INTEGER NOT NULL,
      film_id ${key} NOT NULL,
      title TEXT NOT NULL,
      split_millionths INTEGER NOT NULL,
      trailer_duration INTEGER NOT NULL,
      clean_up_duration INTEGER NOT NULL,
      PRIMARY KEY (customer, package_id, film_order),
      FOREIGN KEY (customer, package_id) REFERENCES film_package (customer, id) ON DELETE CASCADE,
      FOREIGN KEY (customer, film_id) REFERENCES film (customer, id)
    )`,
  ],
  [
    // A token row stays when it is revoked: its digest still answers 'revoked', and a service
    // that has ever issued a token never opens again. Customers are keys, not rows: a customer
    // exists once an import or a token names it.
    `CREATE TABLE access_token (
      id INTEGER PRIMARY KEY,
      customer ${key} NOT NULL,
      label TEXT,
      digest TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      last_used_at TEXT,
      revoked_at TEXT
    )`,
    // One row, bumped by every issue and revocation: servers poll it to reload the tokens.
    `CREATE TABLE access_token_version (
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      version INTEGER NOT NULL
    )`,
    'INSERT INTO access_token_version (singleton, version) VALUES (1, 0)',
  ],
  [
    // What `marquee sync` last took from an upstream: the ETags it answered with, and the local
    // catalogue version they produced (if the catalogue moved since, the ETags no longer speak for it).
    `CREATE TABLE sync_source (
      customer ${key} NOT NULL,
      url TEXT NOT NULL,
      films_etag TEXT,
      packages_etag TEXT,
      catalogue_version INTEGER NOT NULL,
      synced_at TEXT NOT NULL,
      PRIMARY KEY (customer, url)
    )`,
  ],
  [
    // The programme beside films and packages (CONTRACT §11). A list of values is kept as JSON
    // text in one column: it is read and written whole, in its order. References between
    // resources are checked by the import, which names every broken one; no foreign key holds
    // them, since a package is replaced by deleting and inserting its rows.
    `CREATE TABLE screen (
      customer ${key} NOT NULL,
      id INTEGER NOT NULL,
      name TEXT NOT NULL,
      screen_number TEXT NOT NULL,
      has_custom_layout INTEGER NOT NULL,
      total_seats INTEGER NOT NULL,
      house_seats INTEGER NOT NULL,
      wheel_chair_seats INTEGER NOT NULL,
      PRIMARY KEY (customer, id)
    )`,
    `CREATE TABLE attribute (
      customer ${key} NOT NULL,
      id ${key} NOT NULL,
      description TEXT NOT NULL,
      short_name TEXT NOT NULL,
      font_color TEXT NOT NULL,
      background_color TEXT NOT NULL,
      show_on_sessions_with_no_comps INTEGER NOT NULL,
      PRIMARY KEY (customer, id)
    )`,
    `CREATE TABLE site (
      customer ${key} PRIMARY KEY,
      name TEXT NOT NULL,
      short_name TEXT NOT NULL,
      legal_name TEXT NOT NULL,
      national_code TEXT,
      address1 TEXT,
      address2 TEXT,
      address3 TEXT,
      post_code TEXT,
      phone1 TEXT,
      phone2 TEXT,
      fax TEXT,
      sales_tax_registration TEXT,
      ticket_message1 TEXT,
      ticket_message2 TEXT,
      receipt_message1 TEXT,
      receipt_message2 TEXT,
      receipt_message3 TEXT,
      receipt_message4 TEXT,
      receipt_message5 TEXT,
      receipt_message6 TEXT,
      time_zone_identifier TEXT NOT NULL,
      country TEXT NOT NULL,
      screens TEXT NOT NULL
    )`,
    `CREATE TABLE session (
      customer ${key} NOT NULL,
      id INTEGER NOT NULL,
      film_id ${key},
      film_package_id INTEGER,
      title TEXT NOT NULL,
      screen_id INTEGER NOT NULL,
      seating TEXT NOT NULL,
      are_complimentaries_allowed INTEGER NOT NULL,
      show_type TEXT NOT NULL,
      sales_via TEXT NOT NULL,
      status TEXT NOT NULL,
      pre_show_start_time TEXT NOT NULL,
      sales_cut_off_time TEXT NOT NULL,
      tickets_sold_out INTEGER NOT NULL,
      few_tickets_left INTEGER NOT NULL,
      feature_start_time TEXT NOT NULL,
      feature_end_time TEXT NOT NULL,
      cleanup_end_time TEXT NOT NULL,
      seats_available INTEGER NOT NULL,
      seats_held INTEGER NOT NULL,
      seats_house INTEGER NOT NULL,
      seats_sold INTEGER NOT NULL,
      film_format TEXT NOT NULL,
      price_card_name TEXT,
      attributes TEXT NOT NULL,
      audio_language TEXT,
      url TEXT,
      PRIMARY KEY (customer, id)
    )`,
    // The ETag of each list a sync read, by path, as a JSON object: a sync reads more lists than
    // the two columns before it name.
    'ALTER TABLE sync_source ADD COLUMN etags TEXT',
  ],
  [
    // A publishable key (CONTRACT §12) is made to sit in web pages and reads only the programme;
    // its origins, a JSON array, are the pages it serves (null: any page).
    "ALTER TABLE access_token ADD COLUMN kind TEXT NOT NULL DEFAULT 'secret'",
    'ALTER TABLE access_token ADD COLUMN origins TEXT',
  ],
  [
    // One row per customer that `marquee sync` mirrors, shared by every sync process on the
    // database: when each kind of list is next due, which process holds the customer while it
    // syncs it (a lease, so that two processes never sync one customer at once and one that dies
    // lets go), what the upstream last answered, and how the last tries went, for `sync status`.
    // Times are ISO 8601 text in UTC, which sorts as time does. The upstream's token is never
    // kept: each process reads it from its own list of upstreams.
    `CREATE TABLE sync_state (
      customer ${key} PRIMARY KEY,
      url TEXT NOT NULL,
      added_at TEXT NOT NULL,
      every_seconds INTEGER,
      sessions_every_seconds INTEGER,
      due_at TEXT NOT NULL,
      catalogue_due_at TEXT NOT NULL,
      lease_owner TEXT,
      lease_until TEXT,
      etags TEXT,
      catalogue_version INTEGER,
      attempted_at TEXT,
      succeeded_at TEXT,
      catalogue_succeeded_at TEXT,
      changed_at TEXT,
      failures INTEGER NOT NULL,
      last_error TEXT
    )`,
    // Its ETags and catalogue version move to sync_state; an upstream's first sync after this
    // step reads each of its lists once in full.
    'DROP TABLE sync_source',
  ],
  [
    // What each committed change of a catalogue did, written in the change's transaction: which
    // records of which kinds it added, changed and removed (JSON, see CatalogueChange). Servers
    // read it to publish again only what a change touched.
    `CREATE TABLE catalogue_change (
      customer ${key} NOT NULL,
      version INTEGER NOT NULL,
      changed_at TEXT NOT NULL,
      changes TEXT NOT NULL,
      PRIMARY KEY (customer, version)
    )`,
  ],
  [
    // How a cinema corrects the reading of its attributes' names into the access vocabulary
    // (CONTRACT §15): per attribute, the terms it means (a JSON array; empty for none). The
    // version of each customer's corrections moves with every change, so that servers prepare
    // that customer's programme again, as the token version makes them reload tokens.
    `CREATE TABLE access_correction (
      customer ${key} NOT NULL,
      attribute_id ${key} NOT NULL,
      terms TEXT NOT NULL,
      set_at TEXT NOT NULL,
      PRIMARY KEY (customer, attribute_id)
    )`,
    `CREATE TABLE access_correction_version (
      customer ${key} PRIMARY KEY,
      version INTEGER NOT NULL
    )`,
  ],
  [
    // The endpoints that hear of each committed change (CONTRACT §14), with what each has been
    // sent: every change up to delivered_version is delivered (or given up with the endpoint),
    // and the next is tried at due_at, after `failures` failed tries. The secret signs each
    // request, so it is kept as it is. A process delivering to an endpoint holds it by a lease,
    // as a sync process holds a customer.
    `CREATE TABLE webhook_endpoint (
      id INTEGER PRIMARY KEY,
      customer ${key} NOT NULL,
      url TEXT NOT NULL,
      label TEXT,
      secret TEXT NOT NULL,
      created_at TEXT NOT NULL,
      delivered_version INTEGER NOT NULL,
      due_at TEXT NOT NULL,
      failures INTEGER NOT NULL,
      failing_since TEXT,
      disabled_at TEXT,
      disabled_reason TEXT,
      lease_owner TEXT,
      lease_until TEXT
    )`,
    // Each try of each delivery, for `webhook deliveries`: kept as long as the changes are.
    `CREATE TABLE webhook_delivery (
      endpoint_id INTEGER NOT NULL,
      version INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      attempted_at TEXT NOT NULL,
      status INTEGER,
      error TEXT,
      next_at TEXT,
      PRIMARY KEY (endpoint_id, version, attempt)
    )`,
    // Changes older than --change-retention are let go by when they were made.
    'CREATE INDEX catalogue_change_changed_at ON catalogue_change (changed_at)',
  ],
  [
    // Secrets every server of the database shares, by name: `images` signs the pictures' URLs,
    // so that each server hands out, and answers, the same ones; `cache-tags` keys the digests
    // that name customers in cache tags.
    `CREATE TABLE server_secret (
      name ${key} PRIMARY KEY,
      secret TEXT NOT NULL
    )`,
    // The pictures read from their sources (CONTRACT §13), by a digest of their URL: their size,
    // whatever the content is let go to stay within --image-cache, and their bytes while kept.
    // BYTEA is PostgreSQL's binary type; SQLite stores the bytes as given under any type name.
    `CREATE TABLE image_source (
      id ${key} PRIMARY KEY,
      url TEXT NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      transparent INTEGER NOT NULL,
      bytes INTEGER NOT NULL,
      content BYTEA,
      read_at TEXT NOT NULL,
      used_at TEXT NOT NULL
    )`,
  ],
  [
    // Each version row's place in the order of commits: writers take turns, and each one moving a
    // version gives its row the table's next number. A server looking for new versions reads only
    // the rows past the last it saw, rather than every customer's at every look.
    'ALTER TABLE catalogue ADD COLUMN moved INTEGER NOT NULL DEFAULT 0',
    'CREATE INDEX catalogue_moved ON catalogue (moved)',
    'ALTER TABLE access_correction_version ADD COLUMN moved INTEGER NOT NULL DEFAULT 0',
    'CREATE INDEX access_correction_version_moved ON access_correction_version (moved)',
  ],
];

export const SCHEMA_VERSION = migrations('TEXT').length;

export class SchemaVersionError extends Error {}

/**
 * Brings the schema up to date, one transaction per step. Read-write transactions take turns,
 * so when several servers start at once on one database each step is applied exactly once.
 */
export async function migrate(db: SqlClient): Promise<void> {
  // Only reads when there is nothing to do, so that a command opening the database does not queue
  // behind an import that holds the write lock. Before the first migration there is no
  // schema_migration to read; any other failure comes back in the migration's own transaction.
  if ((await appliedVersion(db).catch(() => 0)) >= SCHEMA_VERSION) return;
  await db.transaction((tx) => tx.execute('CREATE TABLE IF NOT EXISTS schema_migration (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)'));
  for (const [index, steps] of migrations(db.exactTextType).entries()) {
    const version = index + 1;
    await db.transaction(async (tx) => {
      const done = await tx.query('SELECT 1 FROM schema_migration WHERE version = ?', [version]);
      if (done.length > 0) return;
      for (const step of steps) await tx.execute(step);
      await tx.execute('INSERT INTO schema_migration (version, applied_at) VALUES (?, ?)', [version, new Date().toISOString()]);
    });
  }
}

/** Checks that a database this process only reads, such as a replica, holds the current schema. */
export async function checkSchemaVersion(db: SqlClient): Promise<void> {
  const version = await appliedVersion(db);
  if (version < SCHEMA_VERSION) {
    throw new SchemaVersionError(`the database holds schema version ${version}, not ${SCHEMA_VERSION}; a database that is only read (a replica) gets its schema from its primary`);
  }
}

/** The last migration applied to the database. */
async function appliedVersion(db: SqlClient): Promise<number> {
  const [row] = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migration');
  return row?.version ?? 0;
}
