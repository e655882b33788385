// serveHost serves the host page (index.html and its bundle) and forwards
// /mcp to the MCP server, so that the page's client talks to the server on
// its own origin. Responses stream through (the server's SSE answers
// included); every connection closes with the returned close().

import http from "node:http";

export async function serveHost({ files, upstream }) {
  const target = new URL(upstream);
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    if (req.url === "/mcp" || req.url.startsWith("/mcp?")) {
      const headers = { ...req.headers, host: target.host };
      const fwd = http.request(
        { hostname: target.hostname, port: target.port, path: target.pathname, method: req.method, headers },
        (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        },
      );
      fwd.on("error", (err) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(err));
      });
      req.pipe(fwd);
      return;
    }
    const path = req.url.split("?")[0];
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const file = files[path === "/" ? "/index.html" : path];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" });
    res.end(file.body);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  };
}
