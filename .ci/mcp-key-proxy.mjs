// Forwards every request to an MCP server, adding its access key: the
// conformance suite sends no Authorization header, and our servers answer
// nothing without a key. Headers (Host and Origin included) pass unchanged.
// Usage: node mcp-key-proxy.mjs LISTEN_PORT TARGET_PORT (key in OPTIMCLAW_MCP_TOKEN)
import http from "node:http";

const [listenPort, targetPort] = process.argv.slice(2).map(Number);
const key = process.env.OPTIMCLAW_MCP_TOKEN;
if (!listenPort || !targetPort || !key) {
  console.error("usage: OPTIMCLAW_MCP_TOKEN=KEY node mcp-key-proxy.mjs LISTEN_PORT TARGET_PORT");
  process.exit(2);
}
http
  .createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${key}` };
    const upstream = http.request(
      { host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(upstream);
  })
  .listen(listenPort, "127.0.0.1");
