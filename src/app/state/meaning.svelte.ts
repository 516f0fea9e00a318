/**
 * Whether search by meaning can answer now, for the places that say so: the summary line
 * (Hybrid answered by keywords), the Semantic mode's message instead of "No results", and the
 * model offer, which steps aside while that message offers the download itself.
 */
import { model } from './model.svelte.ts';
import { search } from './search.svelte.ts';

/** Why search by meaning cannot answer now (no model, or it is loading), else null. */
export function noMeaning(): string | null {
  return model.ready ? null : model.status === 'loading' ? 'the model is still loading' : 'search by meaning needs the embedding model';
}

/** A search by meaning asked for and not possible: the results say so instead of "No results". */
export function meaningBlocked(): boolean {
  return search.mode === 'vector' && !!search.query.trim() && noMeaning() !== null && search.results.length === 0;
}
