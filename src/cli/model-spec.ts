/**
 * Which model a search embeds its question with, without loading any of the embedding code:
 * `--model DIR|HUB_ID` (a path made absolute), else the model the index recorded (meta
 * `model_spec`), else none — the index has no embeddings and the search is keyword-only.
 * model.ts loads the model this names; `sift search` asks here first, so a search of an index
 * without embeddings never parses the tokenizer, safetensors and vector modules.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { looksLikePath } from '../core/embed/model-source.ts';
import { META, type MetaKey } from '../core/store/meta.ts';

/** Why a search has no model to embed with (model.ts loadSearchEmbedder's `unavailable`). */
export const NO_EMBEDDINGS = 'the index has no embeddings';

/** `--model`'s argument as a spec: a path made absolute, else the Hub id as given. */
export function specOf(modelArg: string | undefined): string | undefined {
  if (!modelArg) return undefined;
  return looksLikePath(modelArg) || existsSync(modelArg) ? resolve(modelArg) : modelArg;
}

/** The spec of the model a search of this index embeds with, or null when the index has none. */
export async function searchModelSpec(o: { modelDir?: string; store: { getMeta(key: MetaKey): Promise<string | null> } }): Promise<string | null> {
  return specOf(o.modelDir) ?? (await o.store.getMeta(META.modelSpec));
}
