/**
 * The sessions on sale on the web (`/v1/websession`): open, public, sold through WWW, with a Url,
 * and a sales cut-off still ahead in the site's time zone. Each such session is written once per
 * snapshot; the list is joined again from those bytes whenever a cut-off has passed, so it
 * changes, and its ETag with it, as the clock passes each cut-off, with no import.
 */
import type { Session, Site } from '../catalogue/model.js';
import { ianaZoneOf, ZoneClock } from '../catalogue/site-time.js';
import type { CatalogueSnapshot } from '../catalogue/snapshot.js';
import { ByteSlabs } from './byte-slabs.js';
import type { HeldBytes } from './held-bytes.js';
import { compareOrder, type ListOrder } from './published-collection.js';
import type { Representations } from './representation.js';
import { WEB_SESSION_SHAPE } from './wire-shape.js';
import type { XmlWriter } from './xml-writer.js';
import { itemOf, mapInTurns, writeRecord, writeRecords, WrittenList, type WrittenRecord } from './written-records.js';

/** A session on sale, in the order of sessions (its rank the start, its key the id). */
interface OnSale extends ListOrder {
  readonly id: string;
  /** The instant the sales cut-off passes, in milliseconds since the epoch. */
  readonly cutOff: number;
  readonly written: WrittenRecord;
  readonly item: Representations;
}

function soldOnWeb(session: Session): boolean {
  return session.status === 'Open' && session.showType === 'Public' && session.salesVia.includes('WWW') && session.url !== null;
}

/** The clock of the site's zone; none without a site, and then no session either. */
function clockOf(site: Site | null): ZoneClock | undefined {
  // Sessions need the site, whose zone the import checked.
  const zone = site === null ? undefined : ianaZoneOf(site.timeZoneIdentifier);
  return zone === undefined ? undefined : new ZoneClock(zone);
}

/** Where a session stands in the order of sessions: by PreShowStartTime (its fixed-width text read as UTC orders as the text does), then Id. */
export function sessionOrder(session: Session): ListOrder {
  return { rank: Date.parse(`${session.preShowStartTime}Z`), key: session.id };
}

/** A list of the sessions on sale, those sessions in its order, and the instant its first cut-off passes. */
interface OnSaleList {
  readonly list: WrittenList;
  readonly sessions: readonly OnSale[];
  readonly until: number;
}

export class WebSessions {
  private current: OnSaleList | undefined;

  /** The sessions by id, made on the first request of one: a change need not index every session again. */
  private byId: ReadonlyMap<string, OnSale> | undefined;

  private constructor(
    /** In the order of sessions. */
    private readonly sessions: readonly OnSale[],
    private readonly clock: ZoneClock | undefined,
    private readonly xml: XmlWriter,
    private readonly held: HeldBytes,
    /** The last list of the web sessions these changed, which the first list of these is laid out in. */
    private previous?: OnSaleList,
  ) {}

  static async publish(snapshot: CatalogueSnapshot, xml: XmlWriter, held: HeldBytes): Promise<WebSessions> {
    const clock = clockOf(snapshot.site);
    const sessions = clock === undefined ? [] : snapshot.sessions.filter(soldOnWeb);
    const written = await writeRecords(WEB_SESSION_SHAPE, sessions, new ByteSlabs(held));
    // Each session on sale has answers of its own, made a hundred at a time, so that other answers go out meanwhile.
    const onSale = await mapInTurns(sessions, (session, index) => onSaleOf(session, written[index] as WrittenRecord, clock as ZoneClock, xml, held));
    return new WebSessions(onSale, clock, xml, held);
  }

  /**
   * The web sessions again, with the sessions whose ids are `touched` taken out and `sessions`
   * (those of them that still exist, as stored now) put in where they are on sale: every other
   * goes on as it is, bytes, ETags and compressed forms. What they hold is counted from now on
   * in `whole`, the catalogue that replaces this one's.
   */
  changed(touched: ReadonlySet<string>, sessions: readonly Session[], whole: HeldBytes): WebSessions {
    const held = this.held;
    held.moveInto(whole);
    const kept: OnSale[] = [];
    for (const session of this.sessions) {
      if (!touched.has(session.id)) kept.push(session);
      else held.add(-(session.written.json.length + session.written.xml.length + session.item.xml.body.length));
    }
    const clock = this.clock;
    const added = clock === undefined ? [] : sessions.filter(soldOnWeb).map((session) => onSaleOf(session, writeRecord(WEB_SESSION_SHAPE, session, held), clock, this.xml, held));
    return new WebSessions([...kept, ...added].sort(compareOrder), clock, this.xml, held, this.lastList);
  }

  /** Counts what the web sessions hold in `whole` from now on: the catalogue that replaces their own holds them as they are. */
  moveInto(whole: HeldBytes): void {
    this.held.moveInto(whole);
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
      this.current = { list: this.listOf(onSale), sessions: onSale, until };
      this.previous = undefined;
    }
    return this.current.list;
  }

  /** The last list made: of these web sessions, or of those they changed. */
  private get lastList(): OnSaleList | undefined {
    return this.current ?? this.previous;
  }

  /**
   * The list of `onSale`, laid out in the last one made where it holds them: their bytes and
   * digests are taken from it, and only the sessions it lacks are digested for the list's ETag.
   */
  private listOf(onSale: readonly OnSale[]): WrittenList {
    const last = this.lastList;
    if (last === undefined) return WrittenList.of(WEB_SESSION_SHAPE, onSale.map((session) => session.written), this.xml, this.held);
    const places = new Map(last.sessions.map((session, place) => [session, place]));
    const added: WrittenRecord[] = [];
    const from = Int32Array.from(onSale, (session) => {
      const place = places.get(session);
      if (place !== undefined) return place;
      added.push(session.written);
      return -added.length;
    });
    return last.list.rearranged(from, added, this.held);
  }

  /** The session if it is on sale at `now`. */
  item(id: string, now: number): Representations | undefined {
    this.byId ??= new Map(this.sessions.map((session) => [session.id, session]));
    const session = this.byId.get(id);
    return session !== undefined && session.cutOff > now ? session.item : undefined;
  }
}

function onSaleOf(session: Session, written: WrittenRecord, clock: ZoneClock, xml: XmlWriter, held: HeldBytes): OnSale {
  return { ...sessionOrder(session), id: String(session.id), cutOff: clock.instantOf(session.salesCutOffTime), written, item: itemOf(WEB_SESSION_SHAPE, written, xml, held) };
}
