// Module resolution hooks for node: "rs/x.js" is frontend/js/x.js, as the page's import map says.
const ROOT = new URL("../../frontend/js/", import.meta.url);

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("rs/")) return { url: new URL(specifier.slice(3), ROOT).href, shortCircuit: true };
  return next(specifier, context);
}
