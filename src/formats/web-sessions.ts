/**
 * The sessions on sale on the web (`/v1/websession`): open, public, sold through WWW, with a Url,
 * and a sales cut-off still ahead in the site's time zone. Each such session is written once per
 * snapshot; the list is joined again from those bytes whenever a cut-off has passed, so it
 * changes, and its ETag with it, as the clock passes each cut-off, with no import.
 */
import type { Session } from '../catalogue/model.js';
import { ianaZoneOf, ZoneClock } from '../catalogue/site-time.js';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
import type { HeldBytes } from './held-bytes.js';
import type { Representations } from './representation.js';
import { WEB_SESSION_SHAPE } from './wire-shape.js';
import type { XmlWriter } from './xml-writer.js';
import { itemOf, listOf, mapInTurns, writeRecords, type WrittenRecord } from './written-records.js';

interface OnSale {
  readonly id: string;
  /** The instant the sales cut-off passes, in milliseconds since the epoch. */
  readonly cutOff: number;
  readonly written: WrittenRecord;
  readonly item: Representations;
}

function soldOnWeb(session: Session): boolean {
  return session.status === 'Open' && session.showType === 'Public' && session.salesVia.includes('WWW') && session.url !== null;
}

export class WebSessions {
  private current: { readonly list: Representations; readonly until: number } | undefined;

  private readonly byId: ReadonlyMap<string, OnSale>;

  private constructor(
    /** In the order of sessions. */
    private readonly sessions: readonly OnSale[],
    private readonly xml: XmlWriter,
    private readonly held: HeldBytes | undefined,
  ) {
    this.byId = new Map(sessions.map((session) => [session.id, session]));
  }

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter, held?: HeldBytes): Promise<WebSessions> {
    // Sessions need the site, whose zone the import checked; with no site there are none.
    const zone = snapshot.site === null ? undefined : ianaZoneOf(snapshot.site.timeZoneIdentifier);
    const clock = zone === undefined ? undefined : new ZoneClock(zone);
    const sessions = clock === undefined ? [] : snapshot.sessions.filter(soldOnWeb);
    const written = await writeRecords(WEB_SESSION_SHAPE, sessions, new ByteSlabs(held));
    // Each session on sale has answers of its own, made a hundred at a time, so that other answers go out meanwhile.
    const onSale = await mapInTurns(sessions, (session, index) => {
      const record = written[index] as WrittenRecord;
      return { id: String(session.id), cutOff: (clock as ZoneClock).instantOf(session.salesCutOffTime), written: record, item: itemOf(WEB_SESSION_SHAPE, record, xml, held) };
    });
    return new WebSessions(onSale, xml, held);
  }

  /**
   * The list of the sessions on sale at `now`, joined anew once a cut-off has passed. Each list
   * joined is counted as held though the one before it is let go: the count only grows, by a
   * shrinking list at each cut-off, and a catalogue counted too large is let go sooner.
   */
  list(now: number): Representations {
    if (this.current === undefined || now >= this.current.until) {
      const onSale = this.sessions.filter((session) => session.cutOff > now);
      const until = onSale.reduce((first, session) => Math.min(first, session.cutOff), Infinity);
      this.current = { list: listOf(WEB_SESSION_SHAPE, onSale.map((session) => session.written), this.xml, this.held), until };
    }
    return this.current.list;
  }

  /** The session if it is on sale at `now`. */
  item(id: string, now: number): Representations | undefined {
    const session = this.byId.get(id);
    return session !== undefined && session.cutOff > now ? session.item : undefined;
  }
}
