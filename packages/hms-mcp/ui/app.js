// The hms-mcp inspector: browse, read, search, edit and restore memory files. It is an MCP
// client like any other (streamable HTTP, the server's own tools), written without a framework
// or a build step; the server serves this file as it is.

const ENDPOINT = document.querySelector('meta[name="hms-mcp-endpoint"]').content;
const PROTOCOL_VERSION = "2025-06-18";
const $ = (id) => document.getElementById(id);

/** An answer the server refused: `code` is the contract's error code (VERSION_CONFLICT...). */
class ToolFailure extends Error {
  constructor(text) {
    const match = /^([A-Z_]+): ([\s\S]*)$/.exec(text);
    super(match ? match[2] : text);
    this.code = match ? match[1] : "INTERNAL";
  }
}

class Unauthorized extends Error {}

/** MCP over streamable HTTP: initialize once, then tools/call. */
class McpClient {
  #session;
  #nextId = 1;

  constructor(token, namespace) {
    this.token = token;
    this.namespace = namespace;
  }

  async connect() {
    const { result, response } = await this.#post({
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "hms-mcp-inspector", version: "1" },
      },
    });
    this.#session = response.headers.get("mcp-session-id") ?? undefined;
    await this.#post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return result;
  }

  /**
   * Calls a tool and returns its structured content; a refusal throws ToolFailure. `command`
   * names the change in the server's history (e.g. inspector_edit).
   */
  async call(name, args = {}, command = undefined) {
    const argumentsWithNamespace = this.namespace ? { ...args, namespace: this.namespace } : args;
    const message = () => ({
      jsonrpc: "2.0",
      id: this.#nextId++,
      method: "tools/call",
      params: {
        name,
        arguments: argumentsWithNamespace,
        ...(command ? { _meta: { "hms-mcp/command": command } } : {}),
      },
    });
    let answer = await this.#post(message());
    if (answer.expired) {
      // The server dropped the session (restart, idle expiry): the call never ran.
      await this.connect();
      answer = await this.#post(message());
    }
    const result = answer.result;
    if (result.isError) throw new ToolFailure(result.content.map((part) => part.text).join(""));
    return result.structuredContent;
  }

  async #post(message) {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (this.#session) {
      headers["mcp-session-id"] = this.#session;
      headers["mcp-protocol-version"] = PROTOCOL_VERSION;
    }
    const response = await fetch(ENDPOINT, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
    });
    if (response.status === 401) throw new Unauthorized("the server wants a token");
    if (response.status === 404 && this.#session) return { expired: true, response };
    if (message.id === undefined) return { response };
    const type = response.headers.get("content-type") ?? "";
    const text = await response.text();
    const payload = type.includes("text/event-stream")
      ? fromEventStream(text, message.id)
      : safeJson(text);
    if (payload?.error) throw new Error(payload.error.message);
    if (!response.ok || payload?.result === undefined) {
      throw new Error(`HTTP ${response.status} from the server`);
    }
    return { result: payload.result, response };
  }
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC answer with `id` among the events of a text/event-stream body. */
function fromEventStream(text, id) {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    const message = safeJson(data);
    if (message?.id === id) return message;
  }
  return undefined;
}

// ---- state and small helpers

let client;
/** The file on screen: its key, text and the version that text has. */
let current;
/** The version the editor's text was based on. */
let editingFrom;

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function element(tag, properties = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, properties);
  node.append(...children);
  return node;
}

function linkButton(label, onClick) {
  const button = element("button", { type: "button", className: "link", textContent: label });
  button.addEventListener("click", onClick);
  return button;
}

function humanBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KiB`
    : `${(bytes / 1048576).toFixed(1)} MiB`;
}

async function guarded(action) {
  try {
    await action();
  } catch (error) {
    if (error instanceof Unauthorized) {
      showLogin("That token was refused.");
      return;
    }
    status(error.message, true);
  }
}

// ---- connecting

async function start() {
  const token = sessionStorage.getItem("hms-token") ?? "";
  const namespace = sessionStorage.getItem("hms-namespace") ?? "";
  try {
    await open(token, namespace);
  } catch (error) {
    if (error instanceof Unauthorized) showLogin(token ? "That token was refused." : "");
    else status(error.message, true);
  }
}

async function open(token, namespace) {
  client = new McpClient(token, namespace);
  const info = await client.connect();
  const stats = await client.call("stats");
  $("server").textContent =
    `${info.serverInfo.name} ${info.serverInfo.version} · namespace ${stats.namespace} · ` +
    `${stats.memories} memories · recall ${stats.recall.build}`;
  $("login").hidden = true;
  $("app").hidden = false;
  await loadTree();
  status("Connected.");
}

function showLogin(message) {
  $("app").hidden = true;
  $("login").hidden = false;
  $("token").focus();
  status(message, message !== "");
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = $("token").value;
  const namespace = $("login-namespace").value.trim();
  sessionStorage.setItem("hms-token", token);
  sessionStorage.setItem("hms-namespace", namespace);
  guarded(() => open(token, namespace));
});

// ---- the tree of files

async function loadTree() {
  const files = [];
  let cursor;
  do {
    const page = await client.call("list", {
      prefix: "/memories/",
      tag: "memory-file",
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    files.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  const root = { children: new Map(), bytes: 0 };
  for (const file of files) {
    const names = file.key.slice("/memories/".length).split("/");
    let node = root;
    root.bytes += file.bytes;
    for (const [index, name] of names.entries()) {
      if (index === names.length - 1) {
        node.children.set(name, { file });
      } else {
        if (!node.children.has(name)) node.children.set(name, { children: new Map(), bytes: 0 });
        node = node.children.get(name);
        node.bytes += file.bytes;
      }
    }
  }
  $("tree").replaceChildren(...renderChildren(root));
  if (files.length === 0) $("tree").append(element("li", { textContent: "No memory files yet." }));
}

function renderChildren(node) {
  return [...node.children.entries()].map(([name, child]) => {
    if (child.file) {
      return element(
        "li",
        {},
        linkButton(name, () => guarded(() => openFile(child.file.key))),
        element("span", { className: "size", textContent: humanBytes(child.file.bytes) }),
      );
    }
    const summary = element(
      "summary",
      {},
      `${name}/`,
      element("span", { className: "size", textContent: humanBytes(child.bytes) }),
    );
    return element(
      "li",
      {},
      element("details", { open: true }, summary, element("ul", {}, ...renderChildren(child))),
    );
  });
}

$("refresh").addEventListener("click", () => guarded(loadTree));

// ---- one file

async function openFile(key, lines) {
  const record = await client.call("get", { key });
  current = { key: record.key, text: record.text, version: record.version };
  $("file").hidden = false;
  $("editor").hidden = true;
  $("conflict").hidden = true;
  $("history").hidden = true;
  $("lines").hidden = false;
  $("file-path").textContent = record.key;
  $("file-meta").textContent =
    `version ${record.version} · ${humanBytes(record.bytes)} · changed ${record.updated_at}`;
  const rows = record.text
    .split("\n")
    .map((line, index) =>
      element(
        "tr",
        { id: `L${index + 1}` },
        element("td", { className: "n", textContent: String(index + 1) }),
        element("td", { textContent: line }),
      ),
    );
  $("lines").tBodies[0].replaceChildren(...rows);
  if (lines) {
    for (let n = lines.from; n <= lines.to; n++) $(`L${n}`)?.classList.add("hit");
    $(`L${lines.from}`)?.scrollIntoView({ block: "center" });
    status(`${record.key}: lines ${lines.from}-${lines.to}`);
  } else {
    status(`Opened ${record.key}.`);
  }
  $("file-path").tabIndex = -1;
  $("file-path").focus();
}

// ---- recall

$("search").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = $("query").value.trim();
  if (query === "") return;
  guarded(async () => {
    const { hits } = await client.call("recall", { query, k: 10, tag: "memory-file" });
    $("hits").replaceChildren(
      ...hits.map((hit) =>
        element(
          "li",
          {},
          linkButton(`${hit.key}:${hit.line_start}-${hit.line_end}`, () =>
            guarded(() => openFile(hit.key, { from: hit.line_start, to: hit.line_end })),
          ),
          element("span", { className: "size", textContent: `score ${hit.score.toFixed(2)}` }),
          element("div", { className: "muted", textContent: hit.excerpt }),
        ),
      ),
    );
    status(hits.length === 0 ? "No memory matches." : `${hits.length} results.`);
  });
});

document.addEventListener("keydown", (event) => {
  if (event.key === "/" && !["INPUT", "TEXTAREA"].includes(document.activeElement?.tagName)) {
    event.preventDefault();
    $("query").focus();
  }
});

// ---- editing, with compare-and-set

$("edit").addEventListener("click", () => {
  editingFrom = current.version;
  $("editor-text").value = current.text;
  $("editor").hidden = false;
  $("conflict").hidden = true;
  $("lines").hidden = true;
  $("editor-text").focus();
});

$("cancel-edit").addEventListener("click", () => guarded(() => openFile(current.key)));

$("editor").addEventListener("submit", (event) => {
  event.preventDefault();
  guarded(async () => {
    try {
      await client.call(
        "remember",
        { key: current.key, text: $("editor-text").value, expected_version: editingFrom },
        "inspector_edit",
      );
    } catch (error) {
      if (error instanceof ToolFailure && error.code === "VERSION_CONFLICT") {
        await showConflict();
        return;
      }
      throw error;
    }
    await openFile(current.key);
    await loadTree();
    status(`Saved ${current.key} as version ${current.version}.`);
  });
});

/** Someone changed the file since the editor opened it: show what, keep the editor's text. */
async function showConflict() {
  const answer = await client.call("diff", { key: current.key, from_version: editingFrom });
  $("conflict-diff").textContent = answer.unified || "(only tags or metadata changed)";
  $("conflict").hidden = false;
  $("conflict-title").tabIndex = -1;
  $("conflict-title").focus();
  status("Not saved: the file changed meanwhile.", true);
}

$("conflict-keep").addEventListener("click", () =>
  guarded(async () => {
    // The editor keeps the person's text; the next save replaces the version now stored.
    const record = await client.call("get", { key: current.key });
    editingFrom = record.version;
    current = { key: record.key, text: record.text, version: record.version };
    $("conflict").hidden = true;
    $("editor-text").focus();
    status(`Editing on top of version ${record.version}.`);
  }),
);

// ---- history and restore

let selected;

$("show-history").addEventListener("click", () => guarded(showHistory));

async function showHistory() {
  const { changes } = await client.call("history", { key: current.key, limit: 100 });
  selected = undefined;
  $("restore").disabled = true;
  $("version-diff").textContent = "";
  $("versions").replaceChildren(
    ...changes.map((change, index) => {
      const label =
        `version ${change.version} · ${change.op}` +
        `${change.from_key ? ` from ${change.from_key}` : ""} · ${change.at}` +
        `${change.command ? ` · ${change.command}` : ""}${change.actor ? ` by ${change.actor}` : ""}`;
      return element(
        "li",
        {},
        linkButton(label, () => guarded(() => selectVersion(changes, index))),
      );
    }),
  );
  $("history").hidden = false;
  $("history-title").tabIndex = -1;
  $("history-title").focus();
}

async function selectVersion(changes, index) {
  const change = changes[index];
  selected = change;
  for (const [i, item] of [...$("versions").children].entries()) {
    item.setAttribute("aria-current", String(i === index));
  }
  const previous = changes.slice(index + 1).find((c) => c.op !== "delete" && c.key === current.key);
  if (change.op === "delete") {
    $("version-diff").textContent = `Deleted at ${change.at}.`;
  } else if (previous === undefined) {
    const { unified } = await client.call("diff", {
      key: current.key,
      from_version: change.version,
      to_version: change.version,
    });
    $("version-diff").textContent = unified || "The first version kept of this file.";
  } else {
    const { unified } = await client.call("diff", {
      key: current.key,
      from_version: previous.version,
      to_version: change.version,
    });
    $("version-diff").textContent = unified || "Same text as the version before.";
  }
  $("restore").disabled = change.op === "delete" || change.key !== current.key;
}

$("restore").addEventListener("click", () =>
  guarded(async () => {
    if (!selected) return;
    const version = selected.version;
    try {
      const { restored } = await client.call("restore", {
        key: current.key,
        version: selected.version,
        expected_version: current.version,
      });
      await openFile(current.key);
      await showHistory();
      status(`Restored version ${version} as version ${restored[0]?.version}.`);
    } catch (error) {
      if (error instanceof ToolFailure && error.code === "VERSION_CONFLICT") {
        status("Not restored: the file changed meanwhile. Reopen it and try again.", true);
        return;
      }
      throw error;
    }
  }),
);

start();
