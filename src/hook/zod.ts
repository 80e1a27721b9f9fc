/**
 * zod without its JIT in the hook process: imported first by hook/process.ts, so it runs before any
 * schema is built (zod reads the setting when a schema is constructed).
 *
 * zod compiles a fast path for each object schema with `new Function` on its first parse; that pays
 * off in a long-lived process and never in a hook, which parses each schema once or twice and exits
 * (measured in `npm run bench`: about a fifth of a hook call's CPU).
 */
import * as z from "zod/mini";

z.config({ jitless: true });
