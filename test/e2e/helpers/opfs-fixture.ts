/**
 * Test-only folder picking: replaces `window.showDirectoryPicker` (before any app script
 * runs) with a function that returns an OPFS directory pre-filled with fixture files. The
 * app itself has no test paths — it gets a real FileSystemDirectoryHandle, just one that
 * lives in the origin's private file system. Pickers are chosen by the app's `id` option
 * (`sift-codebase`, `sift-model`), falling back to `default`.
 *
 * Fixture folders live under OPFS `e2e-fixtures/<name>/` and are written only when empty,
 * so edits made by a test survive reloads.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Page } from '@playwright/test';

export const FIXTURE_ROOT = 'e2e-fixtures';

export interface FixtureFolder {
  /** Folder name the app sees (handle.name). */
  name: string;
  /** Relative path → base64 bytes. */
  files: Record<string, string>;
}

/** Reads a folder from disk into a FixtureFolder. */
export function readFixture(dir: string, name = dir.split('/').filter(Boolean).pop() ?? 'fixture'): FixtureFolder {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(dir, p).split('\\').join('/')] = readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return { name, files };
}

/** Generated text files (for load tests): `count` TypeScript files in nested folders. */
export function syntheticFixture(name: string, count: number): FixtureFolder {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 6 }, (_, j) =>
      `/** Computes value ${j} for module ${i}. */\nexport function compute_${i}_${j}(input: number): number {\n  const scale = ${j + 1};\n  let total = 0;\n  for (let k = 0; k < input; k++) total += (k * scale) % ${i + 7};\n  return total;\n}\n`,
    ).join('\n');
    files[`pkg${i % 20}/mod${Math.floor(i / 20) % 10}/file_${i}.ts`] = Buffer.from(body).toString('base64');
  }
  return { name, files };
}

/** Installs the fake picker. `pickers` maps the app's picker id (or 'default') to a folder. */
export async function installPicker(page: Page, pickers: Record<string, FixtureFolder>): Promise<void> {
  await page.addInitScript(
    ({ pickers, root }) => {
      const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      async function fill(dir: FileSystemDirectoryHandle, files: Record<string, string>) {
        for (const [path, data] of Object.entries(files)) {
          const parts = path.split('/');
          let d = dir;
          for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
          const fh = await d.getFileHandle(parts[parts.length - 1], { create: true });
          const w = await fh.createWritable();
          await w.write(b64(data));
          await w.close();
        }
      }
      (window as unknown as { showDirectoryPicker: unknown }).showDirectoryPicker = async (opts?: { id?: string }) => {
        const spec = pickers[opts?.id ?? ''] ?? pickers.default;
        if (!spec) throw new DOMException('The user aborted a request.', 'AbortError');
        const base = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
        const dir = await base.getDirectoryHandle(spec.name, { create: true });
        const first = await (dir as unknown as { keys(): AsyncIterableIterator<string> }).keys().next();
        if (first.done) await fill(dir, spec.files);
        return dir;
      };
    },
    { pickers, root: FIXTURE_ROOT },
  );
}

export type FixtureEdit =
  | { op: 'write'; path: string; text: string }
  | { op: 'delete'; path: string }
  | { op: 'rename'; from: string; to: string };

/** Edits a fixture folder in OPFS (as a user editing files on disk would). */
export async function editFixture(page: Page, folder: string, edits: FixtureEdit[]): Promise<void> {
  await page.evaluate(
    async ({ folder, edits, root }) => {
      const base = await (await navigator.storage.getDirectory()).getDirectoryHandle(root);
      const dir = await base.getDirectoryHandle(folder);
      const parentOf = async (path: string, create: boolean) => {
        const parts = path.split('/');
        let d = dir;
        for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create });
        return { d, name: parts[parts.length - 1] };
      };
      const write = async (path: string, data: Blob | string) => {
        const { d, name } = await parentOf(path, true);
        const w = await (await d.getFileHandle(name, { create: true })).createWritable();
        await w.write(data);
        await w.close();
      };
      for (const e of edits) {
        if (e.op === 'write') await write(e.path, e.text);
        else if (e.op === 'delete') {
          const { d, name } = await parentOf(e.path, false);
          await d.removeEntry(name);
        } else {
          const { d, name } = await parentOf(e.from, false);
          const file = await (await d.getFileHandle(name)).getFile();
          await write(e.to, file);
          await d.removeEntry(name);
        }
      }
    },
    { folder, edits, root: FIXTURE_ROOT },
  );
}

/** Clears the origin's OPFS (fixtures and app databases) — call on a fresh page. */
export async function clearOpfs(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    for await (const name of (root as unknown as { keys(): AsyncIterableIterator<string> }).keys()) {
      await root.removeEntry(name, { recursive: true }).catch(() => undefined);
    }
  });
}
