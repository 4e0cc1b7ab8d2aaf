import { parse as parseDisposition } from 'content-disposition';

/**
 * The filename a download source advertises: `Content-Disposition`'s `filename*` (RFC 8187, with its charset)
 * first, then its `filename`, else the final URL's last path segment, percent-decoded. Either way only the last
 * path component is kept, control and format characters (bidi overrides) are removed, and it is cut to 255 bytes;
 * `""` when nothing usable remains.
 */
export function advertisedFilename(contentDisposition: string | undefined, finalUrl: URL): string {
  return fromDisposition(contentDisposition) || fromUrl(finalUrl);
}

function fromDisposition(header: string | undefined): string {
  if (!header) return '';
  try {
    const params = parseDisposition(header).parameters;
    return sanitizeFilename(params.filename ?? '');
  } catch {
    // a header the parser rejects (bad syntax, an unsupported charset) advertises nothing
    return '';
  }
}

function fromUrl(url: URL): string {
  const segment = url.pathname.split('/').pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // a malformed escape: keep the segment as sent
  }
  return sanitizeFilename(decoded);
}

// C0 and C1 controls, DEL, and the invisible format characters (Unicode category Cf): bidirectional overrides and
// isolates (U+202E shows `exe.pdf` as `fdp.exe`), zero-width spaces and joiners, the BOM
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/** FreeBSD's NAME_MAX: the bytes one path component may hold. */
export const MAX_FILENAME_BYTES = 255;

/**
 * The last path component (either separator), without control and format characters and surrounding blanks, cut
 * to MAX_FILENAME_BYTES of UTF-8 (whole characters; the extension kept when it is short).
 */
function sanitizeFilename(name: string): string {
  const last = name.replace(INVISIBLE, '').split(/[/\\]/).pop() ?? '';
  const trimmed = last.trim();
  return trimmed === '.' || trimmed === '..' ? '' : capBytes(trimmed);
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

/** `name` cut to the byte limit: the stem shortened, whole code points only, the extension (≤ 16 bytes) kept. */
function capBytes(name: string): string {
  if (utf8Length(name) <= MAX_FILENAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && utf8Length(name.slice(dot)) <= 16 ? name.slice(dot) : '';
  const room = MAX_FILENAME_BYTES - utf8Length(ext);
  let stem = '';
  for (const ch of ext ? name.slice(0, dot) : name) {
    if (utf8Length(stem) + utf8Length(ch) > room) break;
    stem += ch;
  }
  return stem.trimEnd() + ext;
}
