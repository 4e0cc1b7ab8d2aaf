/* global SwaggerUIBundle */
// The document (GET /api/openapi.json) is viewer-only, so the page asks for a token first; it stays in this tab's
// sessionStorage and goes, as a bearer token, with the document's request and with every "try it" request.
const KEY = 'hostmgr.docs.token';
const form = document.getElementById('token-form');
const input = document.getElementById('token');
const state = document.getElementById('token-state');

form.addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY, input.value.trim());
  location.reload();
});

const token = sessionStorage.getItem(KEY);
if (!token) {
  state.textContent = 'The document is viewer-only: enter a token to load it.';
} else {
  input.value = token;
  state.textContent = 'token in use (this tab only)';
  const ui = SwaggerUIBundle({
    // relative to /api/docs: /api/openapi.json, on this origin
    url: 'openapi.json',
    dom_id: '#ui',
    // the default sends the document to validator.swagger.io for a badge: nothing leaves this origin
    validatorUrl: null,
    deepLinking: true,
    displayOperationId: true,
    displayRequestDuration: true,
    requestInterceptor: (request) => {
      if (!request.headers.Authorization) request.headers.Authorization = `Bearer ${token}`;
      return request;
    },
    // GET /api/openapi.json answers the envelope {status, message, error, data}: the renderer wants its data
    responseInterceptor: (response) => {
      if (response.ok && new URL(response.url, location.href).pathname.endsWith('/openapi.json')) {
        const document = JSON.parse(response.text).data;
        response.text = response.data = JSON.stringify(document);
        response.body = response.obj = document;
      }
      return response;
    },
    onComplete: () => ui.preauthorizeApiKey('bearer', token),
  });
}
