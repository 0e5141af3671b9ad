import { parentPort, workerData } from "node:worker_threads";
import { ensureBuiltinModel } from "../../src/embed/builtin/ensure.js";
import { createStaticBertProvider } from "../../src/embed/builtin/fast-provider.js";
import { startEmbedTestServer, type EmbedTestServer } from "../../test/fixtures/embed/embed-test-server.js";

/**
 * The embed bench's local server, in its own thread (its own event loop, as a real server would
 * be): it adds each request's server time to shared memory — counts[0] = requests received,
 * counts[1] = requests answered, ms[0] = total server ms — so the bench can subtract it from the
 * client's wall time.
 */
const { modelsDir, shared, base64 } = workerData as {
  modelsDir: string;
  shared: SharedArrayBuffer;
  base64: EmbedTestServer["base64"];
};
const counts = new Int32Array(shared, 0, 2);
const ms = new Float64Array(shared, 8, 1);
const provider = await createStaticBertProvider(await ensureBuiltinModel(modelsDir));
const server = await startEmbedTestServer(provider, {
  onReceived: () => void Atomics.add(counts, 0, 1),
  onServed: (t) => {
    ms[0]! += t; // published by the atomic increment below
    Atomics.add(counts, 1, 1);
    Atomics.notify(counts, 1);
  },
});
server.base64 = base64;
parentPort!.postMessage({ url: server.url });
parentPort!.on("message", (m) => {
  if (m === "close")
    void server
      .close()
      .then(() => provider.close())
      .then(() => parentPort!.close());
});
