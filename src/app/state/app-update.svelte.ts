/**
 * "A new version is available": the service worker installs a new build and waits; this
 * state says so, and `apply` hands over (the page reloads when the new worker takes control).
 */
import { applyUpdate, registerServiceWorker } from '../pwa.ts';
import { handleError } from './notices.svelte.ts';

class AppUpdate {
  #available = $state(false);

  get available(): boolean {
    return this.#available;
  }

  start(): void {
    registerServiceWorker(() => {
      this.#available = true;
    }).catch((e: unknown) => handleError(e, 'Setting up offline use'));
  }

  apply(): void {
    applyUpdate();
  }

  dismiss(): void {
    this.#available = false;
  }
}

export const appUpdate = new AppUpdate();
