import { describe, it, expect } from 'vitest';
import { rerank, RERANK_WEIGHTS, symbolTermMask, termMask, type RerankCandidate } from './rerank.ts';
import { processQuery } from './query.ts';
import { lightStem } from '../text/word-forms.ts';

function cand(id: number, score: number, symbol: string | null, content = '', path = 'src/a.c', exact = false): RerankCandidate {
  return { id, score, symbol, parent: null, path, content, exact };
}

const order = (q: string, cs: RerankCandidate[]) => {
  const pq = processQuery(q);
  return rerank(cs, pq.terms, RERANK_WEIGHTS, pq.words).map((r) => r.id);
};

describe('rerank', () => {
  it('prefers the symbol made of the query words over a longer one that only contains them', () => {
    // FTS order puts rcu_is_idle_cpu first; idle_cpu is all query words and nothing else.
    expect(order('is a given CPU idle currently?', [
      cand(1, 20.7, 'rcu_is_idle_cpu'), cand(2, 19.3, 'idle_task'), cand(3, 18, 'idle_cpu'),
    ])[0]).toBe(3);
  });

  it('matches abbreviated symbol parts and stems (dec ← decrement, refcount ← refcount)', () => {
    expect(order('decrement a refcount if it is 1', [
      cand(1, 28.7, 'refcount_dec_not_one'), cand(2, 26.7, 'kobject_put'), cand(3, 24, 'refcount_dec_if_one'),
    ])[0]).toBe(3);
  });

  it('finds query words inside unsplittable names (smack_ismaclabel)', () => {
    expect(order('check if xattr references a smack MAC label', [
      cand(1, 33.7, 'smack_inode_removexattr'), cand(2, 30, 'smack_ismaclabel'),
    ])[0]).toBe(2);
  });

  it('keeps the FTS order when no signal differs, and scores are normalised to the best', () => {
    const r = rerank([cand(5, 10, null), cand(4, 8, null), cand(9, 2, null)], ['zzz']);
    expect(r.map((x) => x.id)).toEqual([5, 4, 9]);
    expect(r[0].signals.bm25).toBe(1);
    expect(r[1].signals.bm25).toBeCloseTo(0.8);
  });

  it('an exact identifier of the query is a strong signal, not an override', () => {
    const cs = [cand(1, 40, 'suspend_device_irqs', '', 'k/pm.c', true), cand(2, 10, 'resume_device_irqs')];
    const r = rerank(cs, processQuery('enable interrupt lines disabled by suspend_device_irqs()').terms);
    expect(r[0].id).toBe(1);
    expect(r[0].signals.exact).toBe(1);
    expect(r[0].score - r[1].score).toBeLessThan(RERANK_WEIGHTS.exact + RERANK_WEIGHTS.bm25 + RERANK_WEIGHTS.name);
  });

  it('a symbol part in the plural of a word ending in y names it (proxy → get_environment_proxies)', () => {
    const r = rerank([cand(1, 10, 'Client'), cand(2, 9, 'get_environment_proxies')], processQuery('proxy environment variables').terms);
    expect(r.find((x) => x.id === 2)!.signals.name).toBeCloseTo((2 / 3) * (2 / 3));
    expect(r[0].id).toBe(2);
  });

  it('handles no candidates and no terms', () => {
    expect(rerank([], ['a'])).toEqual([]);
    expect(rerank([cand(1, 3, 'x')], []).map((r) => r.id)).toEqual([1]);
  });
});

describe('termMask', () => {
  const mask = (content: string, terms: string[]) => termMask({ symbol: null, parent: null, path: 'x.ts', content }, terms, terms.map(lightStem));
  it('a term is present when a word or identifier part starts with its stem', () => {
    expect(mask('const AllocateBuffer = 1', ['allocates', 'buffers', 'free'])).toBe(0b011);
    expect(mask('new HTTPServer(get_user_name)', ['server', 'user', 'http', 'erver'])).toBe(0b0111);
    expect(mask('utf8Decode(x)', ['decode'])).toBe(1);
    expect(mask('reallocate', ['allocate'])).toBe(0); // inside a word, not at a part's start
  });
  it('a word ending in y is present in its forms that write the y as i', () => {
    expect(mask('for proxy in PROXIES:', ['proxy'])).toBe(1);
    expect(mask('get_environment_proxies()', ['proxy'])).toBe(1);
    expect(mask('copied bytes', ['copy', 'display'])).toBe(0b01);
    expect(mask('proximity', ['proxy'])).toBe(0); // the i form's start is no form of the word
  });
  it('reads the symbol, parent and path too, and non-ASCII text word by word', () => {
    expect(termMask({ symbol: 'Router', parent: 'App', path: 'lib/middleware.go', content: '' }, ['router', 'app', 'middleware'], ['router', 'app', 'middleware'])).toBe(0b111);
    expect(mask('größe des Puffers', ['puffers', 'größe'])).toBe(0b11);
  });
});

describe('symbolTermMask', () => {
  it('the query terms that name a part of a definition\'s name, as the name signal matches them', () => {
    const terms = ['redirects', 'auth', 'sends', 'decrement'];
    const stems = terms.map(lightStem);
    expect(symbolTermMask('_send_handling_redirects', terms, stems)).toBe(0b0101);
    expect(symbolTermMask('AuthFlow', terms, stems)).toBe(0b0010);
    expect(symbolTermMask('dec_ref', terms, stems)).toBe(0b1000); // an abbreviation
    expect(symbolTermMask(null, terms, stems)).toBe(0);
    expect(symbolTermMask('parse', terms, stems)).toBe(0);
  });
});
