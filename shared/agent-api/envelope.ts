/** The response envelope of the spec (part 1): every response, success or error, has exactly these members. */
export interface Envelope<T = unknown> {
  status: 'success' | 'error';
  message: string;
  error: string;
  data: T;
}
