// Lets node resolve the page's "rs/..." imports (an import map in the browser) to frontend/js/.
// Import this first, then the page's modules with import().
import { register } from "node:module";

register("./rs-hooks.mjs", import.meta.url);
