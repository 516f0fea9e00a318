import { describe, expect, it } from 'vitest';
import { chunkText } from './text.ts';
import { LineTable, packRows, splitColumns } from './lines.ts';

const OPTS = { maxChunkChars: 1500, minChunkChars: 100, overlapChars: 200 };

const para = (i: number, words = 40) =>
  Array.from({ length: words }, (_, w) => `word${i}_${w}`).join(' ').replace(/(.{70}\S*) /g, '$1\n');

describe('chunkText', () => {
  it('makes markdown sections with the heading as symbol, ignoring # inside code fences', () => {
    const text = [
      '# Title', '', para(0, 30), '',
      '## Install', '', '```sh', '# not a heading', 'npm install sift', '```', '', para(1, 30), '',
      '## Use', '', para(2, 30),
    ].join('\n');
    const chunks = chunkText('README.md', text, 'markdown', OPTS);
    expect(chunks.map((c) => c.symbol)).toEqual(['Title', 'Install', 'Use']);
    expect(chunks.every((c) => c.chunkType === 'text' && c.language === 'markdown')).toBe(true);
    expect(chunks[1].content).toContain('# not a heading');
    expect(chunks[1].startLine).toBe(text.split('\n').indexOf('## Install') + 1);
  });

  it('merges a tiny section into the next one', () => {
    const text = `# A\n\n## B\n\n${para(0, 30)}\n`;
    const chunks = chunkText('x.md', text, 'markdown', OPTS);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ symbol: 'A', startLine: 1 });
  });

  it('splits long text at blank lines, within the max, with up to ~overlap chars of repeated lines', () => {
    const text = Array.from({ length: 30 }, (_, i) => para(i)).join('\n\n');
    const chunks = chunkText('notes.txt', text, 'text', OPTS);
    expect(chunks.length).toBeGreaterThan(3);
    const lines = text.split('\n');
    for (const [i, c] of chunks.entries()) {
      expect(c.content.length).toBeLessThanOrEqual(OPTS.maxChunkChars);
      expect(c.content).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
      if (i === 0) continue;
      const prev = chunks[i - 1];
      expect(c.startLine).toBeGreaterThan(prev.startLine);
      expect(c.startLine).toBeLessThanOrEqual(prev.endLine + 1);
      const overlap = lines.slice(c.startLine - 1, prev.endLine).join('\n');
      expect(overlap.length).toBeLessThanOrEqual(OPTS.overlapChars);
    }
    // Cuts prefer paragraph starts: most chunks (after their overlap) begin right after a blank line.
    const afterBlank = chunks.slice(1).filter((c, i) => {
      const own = Math.max(c.startLine, chunks[i].endLine + 1);
      return lines[own - 2] === '';
    });
    expect(afterBlank.length).toBeGreaterThanOrEqual(chunks.length / 2);
  });

  it('uses TOML tables as sections', () => {
    const table = (name: string, n: number) =>
      `[${name}]\n${Array.from({ length: n }, (_, i) => `key_${i} = "value number ${i} for ${name}"`).join('\n')}\n`;
    const text = `${table('package', 8)}\n${table('dependencies', 8)}\n${table('dev-dependencies', 8)}`;
    const chunks = chunkText('Cargo.toml', text, 'toml', OPTS);
    expect(chunks.map((c) => c.symbol)).toEqual(['package', 'dependencies', 'dev-dependencies']);
  });

  it('cuts YAML at top-level keys', () => {
    const block = (k: string) => `${k}:\n${Array.from({ length: 25 }, (_, i) => `  item_${i}: some value for ${k} number ${i}`).join('\n')}`;
    const text = ['alpha', 'beta', 'gamma'].map(block).join('\n');
    const chunks = chunkText('c.yaml', text, 'yaml', OPTS);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks.slice(1)) {
      // Either starts at a top-level key, or inside a block only as the overlap of the previous cut.
      const firstOwn = c.content.split('\n').find((l) => /^\S/.test(l));
      expect(firstOwn).toBeDefined();
    }
    expect(chunks.some((c) => c.content.startsWith('beta:') || c.content.includes('\nbeta:'))).toBe(true);
  });

  it('cuts a single over-long line by columns', () => {
    const text = 'x'.repeat(4000);
    const chunks = chunkText('data.json', text, 'json', OPTS);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(OPTS.maxChunkChars);
      expect(c).toMatchObject({ startLine: 1, endLine: 1 });
    }
  });
});

describe('lines', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a\n', 1],
    ['a\nb', 2],
    ['a\n\nb\n', 3],
    ['a\r\nb\r\n', 2],
  ])('LineTable(%j) has %i rows', (text, rows) => {
    const t = new LineTable(text);
    expect(t.count).toBe(rows);
    for (let r = 0; r < rows; r++) expect(t.line(r)).toBe(text.split('\n')[r].replace(/\r$/, ''));
  });

  it.each([
    [10, 4, 0, [[0, 4], [4, 8], [8, 10]]],
    [10, 5, 2, [[0, 5], [3, 8], [6, 10]]],
    [3, 5, 0, [[0, 3]]],
  ] as const)('splitColumns(len %i, budget %i, overlap %i)', (len, budget, overlap, want) => {
    expect(splitColumns('a'.repeat(len), 0, len, budget, overlap)).toEqual(want);
  });

  it('packRows cuts at the best-scored row that fills enough of the budget', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${String(i).padStart(2, '0')}`).join('\n'); // 7 chars + \n
    const t = new LineTable(text);
    const pieces = packRows(t, { from: 0, to: 19, firstBudget: 40, laterBudget: 40, score: (r) => (r % 3 === 0 ? 5 : 0), overlapChars: 0 });
    // 40 chars hold 5 rows; the best cut ≤ row 5 with ≥ 40% fill is row 3.
    expect(pieces[0]).toEqual({ startRow: 0, endRow: 2 });
    expect(pieces.flatMap((p) => [p.startRow, p.endRow])).toEqual([0, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 19]);
  });
});
