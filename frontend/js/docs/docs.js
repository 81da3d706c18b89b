// /docs: Swagger UI over the API's schema. A file of its own, not an inline script, so the
// server's Content-Security-Policy allows it; the schema's address (with the page's token) is
// the script tag's data-schema.

const schema = document.currentScript.dataset.schema;
window.SwaggerUIBundle({
  url: schema,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  presets: [window.SwaggerUIBundle.presets.apis],
});
