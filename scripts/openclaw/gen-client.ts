/** Regenerates integrations/openclaw/vendor/ from dist/src (`npm run -s build && node dist/scripts/openclaw/gen-client.js`). */
import { PACKAGE_ROOT } from "../../src/version.js";
import { VENDOR_DIR, writeVendorFiles } from "./vendor-client.js";

writeVendorFiles(PACKAGE_ROOT);
console.log(`wrote ${VENDOR_DIR}`);
