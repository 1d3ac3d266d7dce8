// The official TypeScript MCP SDK runs its own OAuth support against Parley: discovery from a 401,
// dynamic registration, PKCE, then the token; a "person" signs in and consents on the real pages.
// Usage: node oauth_client.mjs MCP_URL HANDLE PASSWORD   → prints one JSON line with what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [serverUrl, handle, password] = process.argv.slice(2);
const redirectUrl = "http://127.0.0.1:9/ts-callback";

function field(html, name) {
  const match = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
  if (!match) throw new Error(`no ${name} field on the page`);
  return match[1].replaceAll("&amp;", "&").replaceAll("&#34;", '"').replaceAll("&quot;", '"').replaceAll("&#39;", "'");
}

// A browser with a cookie jar of one cookie: enough for sign-in then consent.
async function personConsents(authorizationUrl) {
  let cookie = "";
  const go = async (url, init = {}) => {
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers || {}), cookie } });
    const set = response.headers.getSetCookie?.() || [];
    if (set.length) cookie = set.map((c) => c.split(";")[0]).join("; ");
    return response;
  };
  const form = (data) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(data).toString(),
  });
  const first = await go(authorizationUrl);
  const signinPage = await (await go(new URL(first.headers.get("location"), authorizationUrl))).text();
  const signedIn = await go(new URL("/signin", authorizationUrl), form([
    ["csrf", field(signinPage, "csrf")], ["next", field(signinPage, "next")], ["handle", handle], ["password", password],
  ]));
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);
  const consentPage = await (await go(new URL(signedIn.headers.get("location"), authorizationUrl))).text();
  const agent = consentPage.match(/<option value="(\d+)">/)[1];
  const scopes = [...consentPage.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]);
  const answer = await go(new URL("/oauth/authorize", authorizationUrl), form([
    ["csrf", field(consentPage, "csrf")], ["query", field(consentPage, "query")], ["agent", agent],
    ...scopes.map((s) => ["scope", s]), ["decision", "approve"],
  ]));
  if (answer.status !== 302) throw new Error(`consent failed: ${answer.status}`);
  return new URL(answer.headers.get("location")).searchParams.get("code");
}

class Provider {
  constructor() { this.stored = {}; this.code = undefined; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return { client_name: "TypeScript SDK test", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
             response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  clientInformation() { return this.stored.client; }
  saveClientInformation(info) { this.stored.client = info; }
  tokens() { return this.stored.tokens; }
  saveTokens(tokens) { this.stored.tokens = tokens; }
  async redirectToAuthorization(url) { this.authorizationUrl = url.toString(); this.code = await personConsents(url); }
  saveCodeVerifier(verifier) { this.stored.verifier = verifier; }
  codeVerifier() { return this.stored.verifier; }
}

const provider = new Provider();
const url = new URL(serverUrl);
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
const client = new Client({ name: "parley-ts-test", version: "1.0.0" });
let sawUnauthorized = false;
try {
  await client.connect(transport);
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  sawUnauthorized = true;
  await transport.finishAuth(provider.code);
  transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await client.connect(transport);
}
const tools = (await client.listTools()).tools.map((t) => t.name);
const who = await client.callTool({ name: "whoami", arguments: {} });
console.log(JSON.stringify({
  sawUnauthorized,
  registered: Boolean(provider.stored.client?.client_id),
  usedPkce: Boolean(provider.stored.verifier) && provider.authorizationUrl.includes("code_challenge_method=S256"),
  resourceParam: new URL(provider.authorizationUrl).searchParams.get("resource"),
  tokenType: provider.stored.tokens?.token_type,
  instructions: client.getInstructions(),
  tools,
  lane: who.structuredContent?.lane,
  why: who.structuredContent?.why,
}));
await client.close();
