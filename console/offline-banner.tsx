import { reachable } from './connection.ts';

/** Says so while the API cannot be reached: what the pages show is as last read; they read again once it is back. */
export const OfflineBanner = () =>
  reachable.value ? null : (
    <p class="offline-banner" role="alert" data-banner="offline">
      The API cannot be reached: what this page shows is as last read and may be out of date. It reloads by itself when the API is back.
    </p>
  );
