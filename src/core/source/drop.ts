/**
 * What a drop or a file input hands the page, read into what a FileSource is built from:
 * a directory handle (Chromium's drag and drop: a real, rescannable folder) or a *file
 * snapshot* (`<input webkitdirectory>`, or a dropped folder read through the older
 * FileSystemEntry API) that becomes a `FileListSource`.
 *
 * Invariants: a snapshot's `paths[i]` is `files[i]`'s path including the top folder's name
 * (the shape of `webkitRelativePath`, which does not survive structured cloning, so it
 * travels beside the files); DataTransfer items are read before the first `await`, because
 * the browser empties them once the drop event returns.
 */

/** Files and their relative paths (top folder included), the input of a FileListSource. */
export interface FileSnapshot {
  /** The top folder's name. */
  name: string;
  files: File[];
  paths: string[];
}

export type DropResult =
  | { kind: 'folder'; handle: FileSystemDirectoryHandle }
  | { kind: 'snapshot'; snapshot: FileSnapshot }
  /** Only loose files were dropped (Sift indexes folders). */
  | { kind: 'no-folder' };

type HandleItem = DataTransferItem & { getAsFileSystemHandle?: () => Promise<FileSystemHandle | null> };

/** A snapshot of files from `<input webkitdirectory>` (paths from `webkitRelativePath`). */
export function fileSnapshot(files: File[], name?: string, paths?: string[]): FileSnapshot {
  const rel = (f: File) => (f as File & { webkitRelativePath?: string }).webkitRelativePath ?? '';
  return {
    name: name ?? ((files[0] && rel(files[0]).split('/')[0]) || 'Uploaded files'),
    files,
    paths: paths ?? files.map((f) => rel(f) || f.name),
  };
}

/**
 * Reads a drop: the first directory handle where the browser gives one (Chromium), else the
 * first dropped folder's files, read through FileSystemEntry (other browsers).
 */
export async function readDrop(items: DataTransferItem[]): Promise<DropResult> {
  // Both reads start synchronously: the items are gone after the drop event.
  const handles = items.map((i) => attempt(() => (i as HandleItem).getAsFileSystemHandle?.call(i) ?? Promise.resolve(null), Promise.resolve(null)));
  const entries = items.map((i) => attempt(() => i.webkitGetAsEntry?.() ?? null, null));
  for (const h of handles) {
    const handle = await h.catch(() => null);
    if (handle?.kind === 'directory') return { kind: 'folder', handle: handle as FileSystemDirectoryHandle };
  }
  const dir = entries.find((e) => e?.isDirectory) as FileSystemDirectoryEntry | undefined;
  if (!dir) return { kind: 'no-folder' };
  return { kind: 'snapshot', snapshot: await readEntryTree(dir) };
}

/** `f()`, or `fallback` when it throws (an item of a finished drop throws InvalidStateError). */
function attempt<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** Reads a dropped folder (FileSystemEntry API) into File objects with relative paths. */
export async function readEntryTree(root: FileSystemDirectoryEntry): Promise<FileSnapshot> {
  const files: File[] = [];
  const paths: string[] = [];
  const walk = async (dir: FileSystemDirectoryEntry, prefix: string): Promise<void> => {
    const reader = dir.createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) break;
      for (const e of batch) {
        if (e.isDirectory) await walk(e as FileSystemDirectoryEntry, `${prefix}${e.name}/`);
        else {
          files.push(await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej)));
          paths.push(`${root.name}/${prefix}${e.name}`);
        }
      }
    }
  };
  await walk(root, '');
  return { name: root.name, files, paths };
}
