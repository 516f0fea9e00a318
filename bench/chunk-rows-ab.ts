/**
 * Whether a worker-side change keeps every row the same, this checkout against another (a base
 * worktree), file by file without building an index: what chunkForStore hands the store for each
 * file — the chunker's result (language, chunks with every field, parsed, warnings), prepareChunks'
 * fields (contentHash, ftsTokens), the text unpacked from packText's bytes, and the trigram keys —
 * compared as JSON / bytes (the text as both unpack it: a leading BOM is dropped by either). Also the C/C++ parse inputs (LanguageSpec parseInput, parseRetry,
 * parseAlternative, constants) of both checkouts, text for text, so a masking change is checked
 * on every C/C++ file even where the chunks would hide a difference.
 *
 *   npx tsx bench/chunk-rows-ab.ts --base DIR DIR [DIR…]
 *
 * Files: every file under each DIR (dot folders skipped, at most 1 MB) that has a grammar or is
 * text; prints per DIR the files compared and the files that differ (first few named). Exit 1
 * when any differ. Packed bytes may differ (a deflate level); only what they unpack to counts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Chunker } from '../src/core/chunk/chunker.ts';
import { nodeWasmLoader } from '../src/core/chunk/grammars-node.ts';
import * as now from '../src/core/chunk/languages.ts';
import { prepareChunks } from '../src/core/index/indexer.ts';
import { packText, unpackText } from '../src/core/store/text-codec.ts';
import { nodeTextCodec } from '../src/core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../src/core/text/trigram-keys.ts';
import { nativeSha256 } from '../src/cli/node-hash.ts';
import { isMain, listFiles, parseArgs } from './util.ts';

type Mod<T> = Promise<T>;

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), []);
  const baseDir = flags.get('base');
  if (!baseDir || positional.length === 0) throw new Error('usage: tsx bench/chunk-rows-ab.ts --base DIR DIR [DIR…]');
  const at = (p: string) => resolve(String(baseDir), p);
  const base = {
    Chunker: (await (import(at('src/core/chunk/chunker.ts')) as Mod<{ Chunker: typeof Chunker }>)).Chunker,
    languages: await (import(at('src/core/chunk/languages.ts')) as Mod<typeof now>),
    prepareChunks: (await (import(at('src/core/index/indexer.ts')) as Mod<{ prepareChunks: typeof prepareChunks }>)).prepareChunks,
    packText: (await (import(at('src/core/store/text-codec.ts')) as Mod<{ packText: typeof packText }>)).packText,
    codec: (await (import(at('src/core/store/text-codec-node.ts')) as Mod<{ nodeTextCodec: typeof nodeTextCodec }>)).nodeTextCodec,
    fileTrigramKeys: (await (import(at('src/core/text/trigram-keys.ts')) as Mod<{ fileTrigramKeys: typeof fileTrigramKeys }>)).fileTrigramKeys,
  };
  const chunkers = { now: await Chunker.create({ loadWasm: nodeWasmLoader }), base: await base.Chunker.create({ loadWasm: nodeWasmLoader }) };
  let anyDiffer = false;
  for (const dir of positional) {
    const files = listFiles(dir, (r) => !r.split('/').some((p) => p.startsWith('.')));
    let compared = 0;
    const differ: string[] = [];
    const inputs = { files: 0, differ: [] as string[] };
    for (const f of files) {
      const buf = readFileSync(`${dir}/${f}`);
      if (buf.length > 1 << 20 || buf.includes(0)) continue;
      const text = buf.toString('utf8');
      compared++;
      const why: string[] = [];
      const [b, n] = [await chunkers.base.chunkFile(f, text), await chunkers.now.chunkFile(f, text)];
      if (JSON.stringify(b) !== JSON.stringify(n)) why.push('chunks');
      const [pb, pn] = [base.prepareChunks(b.chunks, nativeSha256), prepareChunks(n.chunks, nativeSha256)];
      if (JSON.stringify(pb) !== JSON.stringify(pn)) why.push('prepared');
      const [tb, tn] = [await unpackText(await base.packText(text, base.codec), nodeTextCodec), await unpackText(await packText(text, nodeTextCodec), nodeTextCodec)];
      if (tb !== tn) why.push('text');
      if (Buffer.compare(Buffer.from(base.fileTrigramKeys(text).buffer), Buffer.from(fileTrigramKeys(text).buffer)) !== 0) why.push('grams');
      if (why.length) differ.push(`${f} (${why.join(', ')})`);
      const lang = n.language;
      if (lang === 'c' || lang === 'cpp') {
        inputs.files++;
        const [sb, sn] = [base.languages.LANGUAGE_SPECS[lang]!, now.LANGUAGE_SPECS[lang]!];
        const ib = sb.parseInput!(text);
        const iN = sn.parseInput!(text);
        const same = ib === iN && sb.parseRetry!(ib) === sn.parseRetry!(iN) && sb.parseAlternative!(ib) === sn.parseAlternative!(iN) &&
          sb.parseAlternative!(sb.parseRetry!(ib)) === sn.parseAlternative!(sn.parseRetry!(iN)) &&
          JSON.stringify(sb.constants!(text)) === JSON.stringify(sn.constants!(text));
        if (!same) inputs.differ.push(f);
      }
    }
    anyDiffer ||= differ.length > 0 || inputs.differ.length > 0;
    console.log(`${dir}: ${compared} files, ${differ.length} differ${differ.length ? `: ${differ.slice(0, 8).join(' ')}` : ''}; ` +
      `C/C++ parse inputs of ${inputs.files} files, ${inputs.differ.length} differ${inputs.differ.length ? `: ${inputs.differ.slice(0, 8).join(' ')}` : ''}`);
  }
  chunkers.now.dispose();
  chunkers.base.dispose();
  process.exitCode = anyDiffer ? 1 : 0;
}
