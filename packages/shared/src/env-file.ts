import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Reads KEY=value lines from file (default `.env` in the working directory) into env, when the file
 * exists, with Node's own parser (the syntax of `node --env-file`). A variable already set in the
 * real environment wins: the file only fills gaps, so a deployment's environment is never overridden
 * by a file left in the checkout. Returns the path read, or undefined when there is no file.
 */
export function loadEnvFile(file = '.env', env: NodeJS.ProcessEnv = process.env): string | undefined {
  const resolved = path.resolve(file);
  if (!existsSync(resolved)) return undefined;
  for (const [key, value] of Object.entries(parseEnv(readFileSync(resolved, 'utf8')))) {
    if (env[key] === undefined) env[key] = value;
  }
  return resolved;
}
