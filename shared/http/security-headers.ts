/**
 * The browser protections every page of hostmgr is served with, declared once: the local path (the
 * functions serving the console and the API reference) sends them as headers, and the build turns the same
 * declaration into the CloudFront response-headers policy of the deployed console (scripts/build/edge.ts).
 * The console holds a bearer token, so nothing may frame it, load scripts from elsewhere or sniff a type.
 */
export const SECURITY = {
  /**
   * Every file comes from this origin, and the browser is told to fetch nothing from anywhere else: scripts and
   * styles only from here, requests only to here. Swagger UI, uPlot and Preact set inline styles.
   */
  contentSecurityPolicy: [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  /** frame protection for browsers that predate `frame-ancestors` */
  frameOption: 'DENY',
  /** no address of a console page (host names, ids) leaks to another site */
  referrerPolicy: 'no-referrer',
  /** HTTPS only for two years, subdomains included (ignored by browsers over plain HTTP, as locally) */
  hstsMaxAgeS: 63_072_000,
  hstsIncludeSubdomains: true,
} as const;

/** The same protections as response headers (lower-case names, as the gateway passes them). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': SECURITY.contentSecurityPolicy,
  'x-frame-options': SECURITY.frameOption,
  'x-content-type-options': 'nosniff',
  'referrer-policy': SECURITY.referrerPolicy,
  'strict-transport-security': `max-age=${SECURITY.hstsMaxAgeS}${SECURITY.hstsIncludeSubdomains ? '; includeSubDomains' : ''}`,
};
