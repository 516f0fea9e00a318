/**
 * Draws Sift's app icon procedurally and writes public/icons/*.png and icon.svg.
 * Run `npx tsx vite-plugins/gen-icons.ts` after changing the design; the outputs are
 * committed, so builds never need this script. The PNG encoder is the minimal valid
 * subset (8-bit RGBA, filter 0, one IDAT) and the rasteriser supersamples signed
 * distance fields, so the PNGs match the SVG without any image library or download.
 * Invariant: the maskable icon keeps all artwork inside the 80 % safe circle.
 */
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BG = [0x0f, 0x17, 0x2a] as const; // slate-900, also the manifest background_color
const FG = [0x2d, 0xd4, 0xbf] as const; // teal-400, the theme accent
const LINE = [0xe2, 0xe8, 0xf0] as const; // slate-200, the "code" lines
const SUPERSAMPLE = 4;
const OUT_DIR = 'public/icons';

/** Artwork in a 100×100 design space; `inset` shrinks it towards the centre (maskable). */
interface Shape { color: readonly [number, number, number]; inside: (x: number, y: number) => boolean }

function artwork(): Shape[] {
  const ring = (x: number, y: number) => {
    const d = Math.hypot(x - 43, y - 43);
    return d <= 26 && d >= 19;
  };
  const handle = (x: number, y: number) => {
    // Capsule from (62,62) to (80,80), radius 5.5.
    const t = Math.max(0, Math.min(1, ((x - 62) + (y - 62)) / 36));
    return Math.hypot(x - (62 + 18 * t), y - (62 + 18 * t)) <= 5.5;
  };
  const bar = (x0: number, x1: number, yc: number) => (x: number, y: number) =>
    Math.abs(y - yc) <= 2.2 && x >= x0 && x <= x1;
  const lines = [bar(32, 52, 36), bar(36, 55, 43), bar(32, 48, 50)];
  return [
    { color: FG, inside: (x, y) => ring(x, y) || handle(x, y) },
    { color: LINE, inside: (x, y) => lines.some((f) => f(x, y)) },
  ];
}

function roundedRect(x: number, y: number, r: number): boolean {
  const cx = Math.min(Math.max(x, r), 100 - r);
  const cy = Math.min(Math.max(y, r), 100 - r);
  return Math.hypot(x - cx, y - cy) <= r;
}

function render(size: number, maskable: boolean): Uint8Array {
  const shapes = artwork();
  const px = new Uint8Array(size * size * 4);
  const scale = maskable ? 0.72 : 1; // maskable: artwork within the safe zone
  for (let py = 0; py < size; py++) {
    for (let qx = 0; qx < size; qx++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const x = ((qx + (sx + 0.5) / SUPERSAMPLE) / size) * 100;
          const y = ((py + (sy + 0.5) / SUPERSAMPLE) / size) * 100;
          if (!maskable && !roundedRect(x, y, 22)) continue;
          const ax = 50 + (x - 50) / scale;
          const ay = 50 + (y - 50) / scale;
          let c: readonly [number, number, number] = BG;
          for (const s of shapes) if (s.inside(ax, ay)) c = s.color;
          r += c[0]; g += c[1]; b += c[2]; a += 255;
        }
      }
      const n = SUPERSAMPLE * SUPERSAMPLE;
      const i = (py * size + qx) * 4;
      // Colours are premultiplied by coverage above; un-premultiply for PNG.
      px[i] = a ? Math.round((r * 255) / a) : 0;
      px[i + 1] = a ? Math.round((g * 255) / a) : 0;
      px[i + 2] = a ? Math.round((b * 255) / a) : 0;
      px[i + 3] = Math.round(a / n);
    }
  }
  return px;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit, RGBA, deflate, filter 0, no interlace
  const raw = new Uint8Array(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', new Uint8Array(deflateSync(raw, { level: 9 }))),
    chunk('IEND', new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

const hex = (c: readonly number[]) => '#' + c.map((n) => n.toString(16).padStart(2, '0')).join('');

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
  <rect width="100" height="100" rx="22" fill="${hex(BG)}"/>
  <circle cx="43" cy="43" r="22.5" fill="none" stroke="${hex(FG)}" stroke-width="7"/>
  <line x1="62" y1="62" x2="80" y2="80" stroke="${hex(FG)}" stroke-width="11" stroke-linecap="round"/>
  <g stroke="${hex(LINE)}" stroke-width="4.4" stroke-linecap="butt">
    <line x1="32" y1="36" x2="52" y2="36"/><line x1="36" y1="43" x2="55" y2="43"/><line x1="32" y1="50" x2="48" y2="50"/>
  </g>
</svg>
`;

function main(): void {
  mkdirSync(OUT_DIR, { recursive: true });
  for (const [name, size, maskable] of [
    ['icon-192.png', 192, false], ['icon-512.png', 512, false],
    ['maskable-512.png', 512, true], ['apple-touch-icon.png', 180, true],
  ] as const) {
    writeFileSync(join(OUT_DIR, name), encodePng(size, size, render(size, maskable)));
  }
  writeFileSync(join(OUT_DIR, 'icon.svg'), SVG);
  console.log(`wrote icons to ${OUT_DIR}`);
}

main();
