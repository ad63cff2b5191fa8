import { buildWeb } from '../../scripts/build-web';

/** Jest's global setup: the browser tests load the built pages, so build them once before any test runs. */
export default async function buildPagesForTests(): Promise<void> {
  await buildWeb();
}
