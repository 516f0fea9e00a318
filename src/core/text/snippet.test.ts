import { describe, expect, it } from 'vitest';
import { snippet } from './snippet.ts';

const doc = [
  '  @doc """',
  '  Sends a response to the client.',
  '',
  '  The response is sent with the given status.',
  '  It raises when the connection was already sent.',
  '  """',
  '  def send_response(conn, status) do',
  '    send_resp(conn, status, "")',
  '  end',
].join('\n');

const at = (s: string, word: string): [number, number] => {
  const i = s.indexOf(word);
  return [i, i + word.length];
};

describe('snippet', () => {
  it('folds a long leading doc to its first lines and shows the definition line, numbered as in the file', () => {
    const s = snippet({ content: doc, startLine: 6, defLine: 12, highlights: [at(doc, 'send_response(')] }, { whole: false });
    expect(s.head?.code).toBe('  @doc """\n  Sends a response to the client.');
    expect(s.head?.firstLine).toBe(6);
    expect(s.folded).toBe(4);
    expect(s.body.firstLine).toBe(12);
    expect(s.body.code.split('\n')[0]).toBe('  def send_response(conn, status) do');
    // The mark moved with its line: it covers the same text in the block.
    const [a, b] = s.body.marks[0];
    expect(s.body.code.slice(a, b)).toBe('send_response(');
    expect(s.head?.marks).toEqual([]);
    expect(s.hidden).toBe(4);
  });

  it('shows every line, unfolded, when the doc is opened or the card expanded', () => {
    for (const opts of [{ whole: true }, { whole: false, docOpen: true }]) {
      const s = snippet({ content: doc, startLine: 6, defLine: 12, highlights: [] }, opts);
      expect(s.head).toBeNull();
      expect(s.body.code).toBe(doc);
      expect(s.body.firstLine).toBe(6);
    }
  });

  it('keeps a short doc, a docstring after the definition and module code as they are, cut at the preview', () => {
    const short = '/// Adds.\nfn add(a: i32) -> i32 {\n    a\n}';
    expect(snippet({ content: short, startLine: 1, defLine: 2, highlights: [] }, { whole: false }).head).toBeNull();
    const py = ['def parse(argv):', '    """Parse.', '', '    More.', '    """', '    return argv'].join('\n');
    expect(snippet({ content: py, startLine: 1, defLine: 1, highlights: [] }, { whole: false }).body.code).toBe(py);
    const long = Array.from({ length: 30 }, (_, i) => `x${i}`).join('\n');
    const s = snippet({ content: long, startLine: 100, defLine: null, highlights: [at(long, 'x20')] }, { whole: false });
    expect(s.body.code.split('\n')).toHaveLength(14);
    expect(s.body.marks).toEqual([]);
    expect(s.hidden).toBe(16);
  });
});
