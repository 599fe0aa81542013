import { type ClientRow, findClient } from '@kbchat/shared/db/clients';
import type { Queryable } from '@kbchat/shared/db/pool';
import { ClientNotFoundError } from '@kbchat/shared/errors';

/**
 * The client a request names, or the one 404 every endpoint answers for an unknown clientId
 * (`{ error: 'Client not found', details: ['no client has this clientId'] }`).
 */
export async function requireClient(db: Queryable, clientId: string): Promise<ClientRow> {
  const client = await findClient(db, clientId);
  if (!client) throw new ClientNotFoundError();
  return client;
}
