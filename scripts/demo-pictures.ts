/**
 * The demo's pictures, made once and committed under demo/images/HOST/PATH, where
 * `marquee serve --seed demo` reads the pictures its films name rather than from their hosts, so
 * that the demo shows its posters with no network:
 *
 *     npm run demo-pictures
 *
 * Each film with a poster or backdrop URL gets one: its title on a colour of its own, as plain
 * as a poster drawn for a demo should be.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEMO = join(ROOT, 'demo');

interface DemoFilm {
  readonly Title: string;
  readonly FilmPosterUrl: string | null;
  readonly BackdropImageUrl: string | null;
}

/** A hue of the title, so that each film has a colour of its own. */
function hueOf(text: string): number {
  let hue = 0;
  for (const character of text) hue = (hue * 31 + character.charCodeAt(0)) % 360;
  return hue;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The title in lines of at most `width` characters. */
function lines(title: string, width: number): string[] {
  const words = title.toUpperCase().split(/\s+/);
  const result: string[] = [];
  for (const word of words) {
    const last = result.at(-1);
    if (last !== undefined && last.length + word.length + 1 <= width) result[result.length - 1] = `${last} ${word}`;
    else result.push(word);
  }
  return result;
}

function poster(film: DemoFilm): string {
  const hue = hueOf(film.Title);
  // The year the film was made, as its poster's address names it (the opening date is a revival's).
  const year = /-(\d{4})\.\w+$/.exec(film.FilmPosterUrl ?? '')?.[1] ?? '';
  const title = lines(film.Title, 12)
    .map((line, index, all) => `<text x="320" y="${500 - (all.length - 1) * 36 + index * 72}" text-anchor="middle">${escapeXml(line)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="960" viewBox="0 0 640 960">
<defs><linearGradient id="g" x1="0" y1="0" x2="0.3" y2="1"><stop offset="0" stop-color="hsl(${hue} 50% 42%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360} 60% 10%)"/></linearGradient></defs>
<rect width="640" height="960" fill="url(#g)"/>
<circle cx="320" cy="250" r="150" fill="none" stroke="hsl(${hue} 70% 80%)" stroke-width="10" opacity="0.5"/>
<g fill="#fff" font-family="DejaVu Serif, serif" font-size="60" font-weight="700">${title}</g>
<text x="320" y="860" text-anchor="middle" fill="hsl(${hue} 70% 85%)" font-family="DejaVu Sans, sans-serif" font-size="32" letter-spacing="8">${escapeXml(year)}</text>
</svg>`;
}

function backdrop(film: DemoFilm): string {
  const hue = hueOf(film.Title);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="960" height="540" viewBox="0 0 960 540">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="0.4"><stop offset="0" stop-color="hsl(${(hue + 40) % 360} 60% 12%)"/><stop offset="1" stop-color="hsl(${hue} 50% 40%)"/></linearGradient></defs>
<rect width="960" height="540" fill="url(#g)"/>
<text x="60" y="470" fill="#fff" font-family="DejaVu Serif, serif" font-size="56" font-weight="700">${escapeXml(film.Title)}</text>
</svg>`;
}

/** Writes the picture drawn by `svg` where the seed's server looks for `url`. */
async function write(url: string, svg: string): Promise<number> {
  const { hostname, pathname } = new URL(url);
  const file = join(DEMO, 'images', hostname, decodeURIComponent(pathname));
  await mkdir(dirname(file), { recursive: true });
  const jpeg = await sharp(Buffer.from(svg)).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
  await writeFile(file, jpeg);
  return jpeg.length;
}

async function main(): Promise<void> {
  const films = JSON.parse(await readFile(join(DEMO, 'films.json'), 'utf8')) as DemoFilm[];
  let count = 0;
  let bytes = 0;
  for (const film of films) {
    for (const [url, draw] of [
      [film.FilmPosterUrl, poster],
      [film.BackdropImageUrl, backdrop],
    ] as const) {
      if (url === null || url.trim() === '') continue;
      bytes += await write(url, draw(film));
      count++;
    }
  }
  console.log(`wrote ${count} pictures, ${bytes} bytes, under demo/images/`);
}

await main();
