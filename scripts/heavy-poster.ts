/**
 * A poster as the heaviest of Veezi's, for the picture tests and benchmark: 1340×1920, about 6 MB
 * of JPEG. Shapes and lettering over film grain, at the highest quality, so that its renditions
 * keep detail as a real poster's do.
 */
import sharp from 'sharp';

export function heavyPosterJpeg(): Promise<Buffer> {
  const bands = Array.from({ length: 24 }, (_, band) => `<rect y="${band * 80}" width="1340" height="40" fill="hsl(${band * 15} 60% 50%)" opacity="0.35"/>`).join('');
  const art = `<svg xmlns="http://www.w3.org/2000/svg" width="1340" height="1920">${bands}<circle cx="670" cy="700" r="420" fill="none" stroke="#fff" stroke-width="40"/><text x="670" y="1500" font-size="180" font-family="serif" text-anchor="middle" fill="#fff">MARQUEE</text></svg>`;
  return sharp({ create: { width: 1340, height: 1920, channels: 3, background: '#6b3a2a', noise: { type: 'gaussian', mean: 120, sigma: 32 } } })
    .composite([{ input: Buffer.from(art) }])
    .jpeg({ quality: 100, chromaSubsampling: '4:4:4' })
    .toBuffer();
}
