import { parse as parseDisposition } from 'content-disposition';

/**
 * The filename a download source advertises: `Content-Disposition`'s `filename*` (RFC 8187, with its charset)
 * first, then its `filename`, else the final URL's last path segment, percent-decoded. Either way only the last
 * path component is kept and control characters are removed; `""` when nothing usable remains.
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

// C0 and C1 controls and DEL
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The last path component (either separator), without control characters and surrounding blanks. */
function sanitizeFilename(name: string): string {
  const last = name.replace(CONTROL, '').split(/[/\\]/).pop() ?? '';
  const trimmed = last.trim();
  return trimmed === '.' || trimmed === '..' ? '' : trimmed;
}
