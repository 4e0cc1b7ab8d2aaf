import nodemailer from 'nodemailer';
import { messageText, need, type Sender } from './message.ts';

/**
 * Email over SMTP (nodemailer): the channel's server, sender and default recipients; a rule's `to` overrides
 * the recipients. STARTTLS is used when the server offers it; `secure: true` is TLS from the first byte (465).
 */
export const sendEmail: Sender = async ({ deliveryId, event, config, overrides, timeoutMs }) => {
  const s = config.settings;
  const host = need(s.host as string | undefined, 'the SMTP host');
  const transport = nodemailer.createTransport({
    host,
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
      from: need(s.from as string | undefined, 'the email sender (from)'),
      to: need((overrides.to as string | undefined) ?? (s.to as string | undefined), 'the email recipients (to)'),
      subject: `[hostmgr] ${event.title}`,
      text: messageText(event),
      headers: { 'X-Hostmgr-Event': event.type, 'X-Hostmgr-Delivery': String(deliveryId) },
    });
  } catch (err) {
    // nodemailer's messages name the server and the SMTP reply, never the password
    throw new Error(`email via ${host} failed: ${(err as Error).message}`);
  } finally {
    transport.close();
  }
};
