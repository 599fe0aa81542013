import { describe, expect, it } from 'vitest';
import { asksForDefault, statesDefault } from './default-question.ts';

describe('default questions', () => {
  it('asks for a default in the five languages, not in the visitor’s own code', () => {
    for (const q of [
      'whats the default port',
      'Which socket does lircd listen on by default?',
      '¿Cuál es el puerto por defecto?',
      'quel est le port par défaut',
      'Welcher Port ist standardmäßig eingestellt?',
      'qual é a porta por padrão',
    ])
      expect(asksForDefault(q), q).toBe(true);
    for (const q of [
      'I added a uuid field with unique=True and default=uuid.uuid4 to a model',
      'what does get_default() return',
      'how do I change the port',
    ])
      expect(asksForDefault(q), q).toBe(false);
  });

  it('states one as reference pages do', () => {
    for (const t of [
      'Defaults to the value of the PGPORT environment variable (normally 5432).',
      'The default is 10240000.',
      'Default: true',
      'The number of workers (default 4).',
      'By default, lircd listens on /var/run/lirc/lircd.',
    ])
      expect(statesDefault(t), t).toBe(true);
    for (const t of ['If you specify a port other than the default port, clients must specify it too.', 'Set the port with -p.'])
      expect(statesDefault(t), t).toBe(false);
  });
});
