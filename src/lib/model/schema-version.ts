/**
 * Version of the `--json` report layout (`schemaVersion`). Bumped only on an incompatible change.
 *
 * Kept apart from `report.ts` (which re-exports it) so that code needing only the number, such as
 * `pipeline/report.ts` on every command's path, does not load zod and build every report schema at start-up.
 */
export const SCHEMA_VERSION = 1
