/**
 * The declaration of a function that is not an endpoint, written once in `functions/<area>/<op>.trigger.ts`
 * beside its handler: what invokes it. Endpoints declare their route in `<op>.schema.ts` instead; the build
 * generates serverless.yml's functions from both.
 */
export type Trigger =
  /** the HTTP API's catch-all route: every request no endpoint's route matches */
  | { summary: string; route: '$default' }
  /**
   * a public page for browsers beside the API: GET routes that take no token and are no operation of the OpenAPI
   * document (the web console's `/` and `/console/…` too: its files, served on the API's origin)
   */
  | { summary: string; pages: Array<`/api/${string}` | '/' | `/console/${string}`> }
  /** an EventBridge schedule, not behind the API; `timeout` in seconds overrides the provider's */
  | { summary: string; schedule: `rate(${string})` | `cron(${string})`; timeout?: number };
