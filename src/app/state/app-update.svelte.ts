/**
 * "A new version is available": the service worker installs a new build and waits; this
 * state says so, and `apply` hands over (the page reloads when the new worker takes control).
 */
import { applyUpdate, registerServiceWorker } from '../pwa.ts';
import { handleError, notices } from './notices.svelte.ts';

class AppUpdate {
  #available = $state(false);
  /** Why offline use is unavailable ('' while it is, or before registration settles). */
  #offlineMissing = $state('');

  get available(): boolean {
    return this.#available;
  }

  get offlineMissing(): string {
    return this.#offlineMissing;
  }

  start(): void {
    registerServiceWorker(() => {
      this.#available = true;
    })
      .then((r) => {
        if (r.ok || import.meta.env.DEV) return;
        this.#offlineMissing = r.reason;
        notices.push('warning', `Offline use is unavailable: ${r.reason}. Searching, indexing and search by meaning still work while this page is open online.`);
      })
      .catch((e: unknown) => handleError(e, 'Setting up offline use'));
  }

  apply(): void {
    applyUpdate();
  }

  dismiss(): void {
    this.#available = false;
  }
}

export const appUpdate = new AppUpdate();
