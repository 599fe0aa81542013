// A small home-services company's documentation, generated: the chat benchmarks' knowledge base.
import type { Config } from '@kbchat/shared/config';
import { refreshTermStats } from '@kbchat/shared/db/retrieval';
import { createSeeder, type SeedPage } from '../../test/support/seed-documents.ts';

// 5 chunks per page, ~900 characters each.
export const TOPICS = [
  'boiler',
  'radiator',
  'water heater',
  'heat pump',
  'underfloor heating',
  'drain',
  'shower',
  'toilet',
  'thermostat',
  'pipe',
  'tap',
  'leak detection',
  'solar panel',
  'ventilation',
  'air conditioning',
  'insulation',
  'gas safety',
  'smart meter',
  'water softener',
  'sewer line',
];
export const ASPECTS = [
  'installation',
  'repair',
  'maintenance',
  'pricing',
  'warranty',
  'troubleshooting',
  'replacement',
  'inspection',
  'emergency service',
  'financing',
];
const FILLER = [
  'Our engineers are certified and carry the parts most jobs need, so most visits finish the same day.',
  'Prices include labour and standard parts; unusual parts are quoted before any work starts.',
  'We send a reminder the day before each visit and a report with photos afterwards.',
  'Bookings can be moved free of charge up to twenty-four hours before the appointment.',
  'Older systems sometimes need extra work to meet current regulations, which we explain in the quote.',
  'Every job is covered by our workmanship guarantee for the period stated on the invoice.',
];

function pageText(topic: string, aspect: string, part: number): string {
  const sentences = [
    `${aspect[0]?.toUpperCase()}${aspect.slice(1)} of a ${topic}: part ${part + 1} of our guide.`,
    `When your ${topic} needs ${aspect}, start by checking the model and age printed on the label.`,
    `A typical ${topic} ${aspect} visit takes between one and three hours depending on access.`,
    ...FILLER.slice(part % 3, (part % 3) + 4),
    `Ask about ${aspect} plans for your ${topic}: they spread the cost and include an annual check.`,
  ];
  return sentences.join(' ');
}

export function homeServicesCorpus(origin: string, docs: number): SeedPage[] {
  const pages: SeedPage[] = [];
  const perPage = 5;
  for (let p = 0; pages.length * perPage < docs; p++) {
    const topic = TOPICS[p % TOPICS.length] as string;
    const aspect = ASPECTS[Math.floor(p / TOPICS.length) % ASPECTS.length] as string;
    const variant = Math.floor(p / (TOPICS.length * ASPECTS.length));
    pages.push({
      url: `${origin}/${topic.replaceAll(' ', '-')}/${aspect.replaceAll(' ', '-')}${variant ? `-${variant}` : ''}`,
      title: `${topic} ${aspect}`,
      chunks: Array.from({ length: Math.min(perPage, docs - pages.length * perPage) }, (_, i) => pageText(topic, aspect, i)),
    });
  }
  return pages;
}

export const HOME_QUESTIONS = TOPICS.flatMap((topic) =>
  ASPECTS.slice(0, 5).map((aspect, i) =>
    i % 2 === 0 ? `How much does ${aspect} of a ${topic} cost?` : `Do you offer ${aspect} for my ${topic}? It is about ten years old.`,
  ),
);

/**
 * Seeds one client with the generated corpus as the chat benchmarks measure it: the term statistics
 * a crawl leaves when its frontier drains (the full-text list's word weights), then the steady state
 * autovacuum keeps — statistics, and the GIN pending list of the freshly inserted rows merged into
 * the index (otherwise every full-text probe scans that list). Returns the client's document count.
 */
export async function seedHomeServices(databaseUrl: string, config: Config, clientId: string, documents: number): Promise<number> {
  const seeder = createSeeder(databaseUrl, config);
  try {
    await seeder.seed(clientId, homeServicesCorpus('https://bench-home.example', documents));
    await refreshTermStats(seeder.pool, clientId);
    await seeder.pool.query('VACUUM ANALYZE documents');
    const { rows } = await seeder.pool.query('SELECT count(*)::int AS n FROM documents WHERE client_id = $1', [clientId]);
    return rows[0].n;
  } finally {
    await seeder.close();
  }
}
