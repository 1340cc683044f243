// An ACP client written with the TypeScript SDK (@zed-industries/agent-client-protocol):
// spawns the agent, opens a session in CWD, sends PROMPT, allows every permission request,
// and prints one JSON line with what it saw.
//   node ts_client.mjs '["python", "-m", "valarmind_tui", "acp"]' CWD PROMPT
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@zed-industries/agent-client-protocol";

const [command, ...args] = JSON.parse(process.argv[2]);
const cwd = process.argv[3];
const text = process.argv[4];
const agent = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
const updates = [];
const permissions = [];

class RecordingClient {
  async requestPermission(params) {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  }
  async sessionUpdate(params) {
    updates.push(params.update);
  }
  async readTextFile() {
    throw acp.RequestError.methodNotFound("fs/read_text_file");
  }
  async writeTextFile() {
    throw acp.RequestError.methodNotFound("fs/write_text_file");
  }
}

const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const conn = new acp.ClientSideConnection(() => new RecordingClient(), stream);
const init = await conn.initialize({
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
});
const session = await conn.newSession({ cwd, mcpServers: [] });
await conn.setSessionMode({ sessionId: session.sessionId, modeId: "default" });
const result = await conn.prompt({
  sessionId: session.sessionId,
  prompt: [{ type: "text", text }],
});
process.stdout.write(JSON.stringify({ init, session, result, updates, permissions }) + "\n");
agent.stdin.end();
agent.on("exit", () => process.exit(0));
setTimeout(() => process.exit(0), 5000);
