import nodemailer from 'nodemailer';
import { allowList } from '#domain/outbound/allow-lists';
import { OutboundFailure } from '#domain/outbound/failure';
import { resolvePinned } from '#domain/outbound/resolve';
import { messageText, need, type Sender } from './message.ts';

/**
 * Email over SMTP (nodemailer): the channel's server, sender and default recipients; a rule's `to` overrides
 * the recipients. STARTTLS is used when the server offers it; `secure: true` is TLS from the first byte (465).
 * The server's name is resolved once under the outbound-address policy and nodemailer connects to that address,
 * with the name kept for TLS (`servername`: SNI and the certificate check).
 */
export const sendEmail: Sender = async ({ deliveryId, event, config, overrides, timeoutMs }) => {
  const s = config.settings;
  const host = need(s.host as string | undefined, 'SMTP host');
  const from = need(s.from as string | undefined, 'email sender (from)');
  const to = need((overrides.to as string | undefined) ?? (s.to as string | undefined), 'email recipients (to)');
  const pinned = await resolvePinned(host, allowList('notify'), undefined, AbortSignal.timeout(timeoutMs));
  const transport = nodemailer.createTransport({
    host: pinned.address,
    // nodemailer's SNI and certificate name (its SMTPConnection `servername`); an IP literal host has none
    ...(pinned.address !== host.replace(/^\[(.*)\]$/, '$1') ? { servername: host } : {}),
    port: Number(s.port ?? (s.secure ? 465 : 587)),
    secure: s.secure === true,
    auth: s.username ? { user: String(s.username), pass: config.secrets.password ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
    debug: false,
  });
  try {
    await transport.sendMail({
      from,
      to,
      subject: `[hostmgr] ${event.title}`,
      text: messageText(event),
      headers: { 'X-Hostmgr-Event': event.type, 'X-Hostmgr-Delivery': String(deliveryId) },
    });
  } catch (err) {
    throw new OutboundFailure(smtpReason(err));
  } finally {
    transport.close();
  }
};

/**
 * The fixed reason of a nodemailer error: the server's reply code and the command it answered (`SMTP 535
 * (AUTH PLAIN)`), else the system error under nodemailer's own code (`ECONNREFUSED`), else that code
 * (`ETIMEDOUT`, `EAUTH`). Never its message: that quotes the server's reply text.
 */
function smtpReason(err: unknown): string {
  const e = err as { responseCode?: unknown; command?: unknown; code?: unknown; originalCode?: unknown };
  const code = (v: unknown) => (typeof v === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(v) ? v : undefined);
  if (typeof e?.responseCode === 'number' && Number.isInteger(e.responseCode)) {
    const command = typeof e.command === 'string' && /^[A-Z][A-Z ]{0,20}$/.test(e.command) ? ` (${e.command})` : '';
    return `SMTP ${e.responseCode}${command}`;
  }
  return code(e?.originalCode) ?? code(e?.code) ?? 'internal_error';
}
