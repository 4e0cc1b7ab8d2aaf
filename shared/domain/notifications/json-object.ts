/**
 * A stored JSON object column (settings, secrets, rule config, an event's subject, delivery failures) read
 * back: anything that is not a JSON object — unreadable text, null, an array, a scalar — reads as `{}`, so
 * one bad row never breaks a listing or a delivery.
 */
export function parseJsonObject(text: string | null | undefined): Record<string, any> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : {};
  } catch {
    return {};
  }
}
