/**
 * zod/mini with classic zod's English messages ("Too small: expected string to have >=1
 * characters", ...): zod/mini registers no locale by itself, and the messages of a config or state
 * error must not depend on which zod entry built the schema. Imported by every module that builds
 * schemas with zod/mini; classic zod sets the same locale when it builds its first schema.
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());
