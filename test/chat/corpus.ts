import type { SeedPage } from '../support/seed-documents.ts';

/**
 * A small plumbing company's site, written so each retrieval behaviour under test has one clear
 * right answer: a general "how much does it cost" page (shipping), a premium plan page that also
 * talks about cost, two location pages with near-identical text (the pageUrl boost decides), and
 * an all-in-one FAQ page repeating the warranty page (the specific page must win).
 */
export function plumbingSite(origin: string): SeedPage[] {
  return [
    {
      url: `${origin}/plans/premium`,
      title: 'Premium maintenance plan',
      chunks: [
        'The Premium maintenance plan includes two yearly boiler inspections, priority call-outs within four hours and free replacement of worn washers and seals. ' +
          'The Premium plan costs 49 dollars per month, billed annually, and can be cancelled at any renewal.',
      ],
    },
    {
      url: `${origin}/plans/basic`,
      title: 'Basic maintenance plan',
      chunks: [
        'The Basic maintenance plan covers one yearly boiler inspection and a discount on repairs. ' +
          'It suits small flats with a combi boiler and no hot water cylinder.',
      ],
    },
    {
      url: `${origin}/shipping`,
      title: 'Parts delivery',
      chunks: [
        'How much does delivery cost? Delivery of spare parts costs 5 dollars for orders under 50 dollars and is free above that. ' +
          'How much it costs to ship heavy items such as radiators depends on weight and distance.',
      ],
    },
    {
      url: `${origin}/locations/boston`,
      title: 'Emergency plumbing in Boston',
      chunks: [
        'Emergency plumbing repairs in Boston: burst pipes, blocked drains and leaking water heaters fixed around the clock by licensed plumbers. ' +
          'Our Boston emergency team reaches most neighbourhoods within an hour.',
      ],
    },
    {
      url: `${origin}/locations/denver`,
      title: 'Emergency plumbing in Denver',
      chunks: [
        'Emergency plumbing repairs in Denver: burst pipes, blocked drains and leaking water heaters fixed around the clock by licensed plumbers. ' +
          'Our Denver emergency team reaches most neighbourhoods within an hour.',
      ],
    },
    {
      url: `${origin}/warranty`,
      title: 'Warranty',
      chunks: [
        'Every installation carries a five year warranty on labour and the manufacturer warranty on parts. ' +
          'To make a warranty claim, send a photo of the fault and your invoice number; we answer claims within two working days.',
      ],
    },
    {
      url: `${origin}/faq-all`,
      title: 'Everything on one page',
      chunks: [
        'Frequently asked questions about opening hours, parking at the showroom, gift cards and recycling of old appliances. We are open Monday to Saturday.',
        'Every installation carries a five year warranty on labour and the manufacturer warranty on parts. ' +
          'To make a warranty claim, send a photo of the fault and your invoice number; we answer claims within two working days.',
        'Old boilers and radiators we replace are recycled by a certified partner. Gift cards are valid for two years.',
      ],
    },
  ];
}
