/** Regenerates the reference service files in systemd/ and launchd/ (`node dist/scripts/gen-service-files.js`). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { LAUNCHD_LABEL, REFERENCE_SPEC, SYSTEMD_UNIT, launchdPlist, systemdUnit } from "../src/service/units.js";
import { PACKAGE_ROOT } from "../src/version.js";

writeFileSync(join(PACKAGE_ROOT, "systemd", SYSTEMD_UNIT), systemdUnit(REFERENCE_SPEC));
writeFileSync(
  join(PACKAGE_ROOT, "launchd", `${LAUNCHD_LABEL}.plist`),
  launchdPlist({ ...REFERENCE_SPEC, logDir: "/tmp" }),
);
