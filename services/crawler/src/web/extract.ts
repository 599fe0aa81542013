import type { PageSection } from '@kbchat/shared/crawl/chunker';

/**
 * Main-content extraction.
 * CONTRACT (owner: the "web" work package): title from the page (<title>, og:title, h1);
 * main content without script, style, nav, header, footer, aside, forms and cookie banners
 * (a well-kept extractor such as @mozilla/readability, with a fallback when it finds nothing);
 * sections split at headings (h1–h4) so each chunk keeps its heading; links resolved against the
 * base URL (<base href> honoured) — every <a href>, for the caller to normalise and filter;
 * rel=canonical resolved; <meta name="robots" content="noindex|nofollow"> reported.
 * `textLength` is the length of the extracted main text (render:auto uses it).
 * STUB: tag stripping.
 */
export interface ExtractedPage {
  title: string;
  sections: PageSection[];
  textLength: number;
  links: string[];
  canonical: string | null;
  noindex: boolean;
  nofollow: boolean;
  lang: string | null;
}

export function extractPage(html: string, url: string): ExtractedPage {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() ?? url;
  const body = html
    .replace(/<(script|style|nav|header|footer)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const links = [...html.matchAll(/<a\s[^>]*href="([^"]+)"/gi)].map((m) => {
    try {
      return new URL(m[1] as string, url).toString();
    } catch {
      return '';
    }
  });
  return {
    title,
    sections: [{ heading: null, text: body }],
    textLength: body.length,
    links: links.filter(Boolean),
    canonical: null,
    noindex: false,
    nofollow: false,
    lang: null,
  };
}
