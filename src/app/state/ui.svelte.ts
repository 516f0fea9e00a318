/**
 * Presentation state: the page shown (in the URL, `view=`, so Back returns to the page
 * before), the theme (persisted in localStorage and applied as `data-theme` on <html>), and
 * clipboard copies. No worker calls here.
 */
import { notices } from './notices.svelte.ts';
import { parseHash, serializeHash, type AppView } from './url-state.ts';
import { pageEntryState } from './history-entry.ts';

export type View = AppView;
export type Theme = 'system' | 'light' | 'dark';

const THEME_KEY = 'sift:theme';

class Ui {
  #view = $state<View>('search');
  #theme = $state<Theme>('system');

  get view() { return this.#view; }
  get theme() { return this.#theme; }

  init(): void {
    const saved = localStorage.getItem(THEME_KEY);
    this.setTheme(saved === 'light' || saved === 'dark' ? saved : 'system');
  }

  /** Shows a page as a new history entry, so Back returns to the page before. */
  show(v: View): void {
    this.#view = v;
    if (typeof history === 'undefined') return;
    const s = parseHash(location.hash);
    if (s.view === v) return;
    history.pushState(pageEntryState(history.state), '', serializeHash({ ...s, view: v }) || location.pathname + location.search);
  }

  /** The page the URL names (page load, Back and Forward). */
  applyHash(hash: string): void {
    this.#view = parseHash(hash).view;
  }

  setTheme(t: Theme): void {
    this.#theme = t;
    localStorage.setItem(THEME_KEY, t);
    if (t === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = t;
  }

  async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      notices.push('info', `Copied ${text}`);
    } catch {
      notices.push('warning', `Could not copy to the clipboard: ${text}`);
    }
  }

  /** Saves a blob as a download (export). */
  download(name: string, blob: Blob): void {
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

export const ui = new Ui();
