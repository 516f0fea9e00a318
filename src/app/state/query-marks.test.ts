import { describe, expect, it } from 'vitest';
import { markLines, queryMarks } from './query-marks.ts';

const text = 'def send_response(conn):\n    """Sends a response."""\n    return send_response_raw(conn)\n\nsend_response(c)\n';
const words = (marks: Array<[number, number]>) => marks.map(([a, b]) => text.slice(a, b));

describe('queryMarks', () => {
  it('marks what a keyword search matched, as the result cards do (the identifier, not its stems)', async () => {
    const m = await queryMarks(text, { query: 'send_response', mode: 'hybrid', ignoreCase: true });
    expect(words(m)).toEqual(['send_response', 'send_response']);
    expect(markLines(text, m)).toEqual([1, 5]);
  });
  it('marks every match of an exact or regex pattern, with match case', async () => {
    expect(words(await queryMarks(text, { query: 'send_', mode: 'exact', ignoreCase: false }))).toEqual(['send_', 'send_', 'send_']);
    expect(words(await queryMarks(text, { query: 'Sends?', mode: 'regex', ignoreCase: false }))).toEqual(['Sends']);
    expect(words(await queryMarks(text, { query: 'SENDS?', mode: 'regex', ignoreCase: true }))).toEqual(['send', 'Sends', 'send', 'send']);
  });
  it('marks nothing for a bad pattern or an empty query', async () => {
    expect(await queryMarks(text, { query: 'send(', mode: 'regex', ignoreCase: false })).toEqual([]);
    expect(await queryMarks(text, { query: '  ', mode: 'bm25', ignoreCase: false })).toEqual([]);
  });
  it('numbers lines from the shown window', () => {
    expect(markLines('a\nb\nc', [[0, 1], [4, 5]], 100)).toEqual([100, 102]);
  });
});
