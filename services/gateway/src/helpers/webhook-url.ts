import type { Config } from '@kbchat/shared/config';
import { BadRequestError } from '@kbchat/shared/errors';
import { assertPublicUrl, findOutboundBlockedError } from '@kbchat/shared/net/outbound';

/** How long saving a client waits for DNS before leaving the verdict to delivery time. */
const LOOKUP_TIMEOUT_MS = 3_000;

/**
 * A lead webhook URL the outbound policy would refuse fails the save with 400, instead of every
 * lead's delivery failing later. It is judged as delivery judges it (address-policy.ts): an IP
 * literal, or every address its name resolves to. A name that does not resolve now (or not within
 * a few seconds) is saved: DNS may come later, and delivery checks every connection again anyway.
 */
export async function assertWebhookUrlAllowed(config: Pick<Config, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'>, url: string): Promise<void> {
  if (config.OUTBOUND_ALLOW_PRIVATE_NETWORKS) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, LOOKUP_TIMEOUT_MS);
  });
  try {
    await Promise.race([assertPublicUrl(url, false), timeout]);
  } catch (err) {
    const blocked = findOutboundBlockedError(err);
    if (blocked) {
      throw new BadRequestError('Invalid request', [
        `leadWebhookUrl must reach a public address: ${blocked.address} is not one, so no lead could be delivered there (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true allows private addresses, for tests and local demos)`,
      ]);
    }
  } finally {
    clearTimeout(timer);
  }
}
