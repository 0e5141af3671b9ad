import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const out = process.env.CORTEXD_TEST_MODULE_TRACE;
  if (out && !r.url.startsWith("node:")) appendFileSync(out, `${r.url}\n`);
  return r;
}
