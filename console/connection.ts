import { signal } from '@preact/signals';

/** false while the API cannot be reached (a request got no answer at all); the shell shows a banner then. */
export const reachable = signal(true);
/** Counts the API's returns after an outage: every loader depends on it, so each page fetches its data again. */
export const reconnects = signal(0);

/** Called by every request: an answer (of any status) after an outage brings the pages back. */
export function answered(gotAnswer: boolean): void {
  if (!gotAnswer) {
    reachable.value = false;
    return;
  }
  if (!reachable.value) {
    reachable.value = true;
    reconnects.value++;
  }
}
