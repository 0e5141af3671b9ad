import type * as Wire from "../../src/rpc/protocol.js";
import type { SearchHit, SearchResponse } from "../../src/search/types.js";
import type { SyncReport } from "../../src/indexer/sync-report.js";
import type { IssueSummary, RepairKind, SkipKind, SkippedFile } from "../../src/workspace/issues.js";
import type { ConsolidationReport } from "../../src/consolidate/report.js";
import type { MaintenanceReport } from "../../src/consolidate/maintenance.js";
import type { PromotionCandidate } from "../../src/consolidate/promotion.js";
import type { FileClass } from "../../src/ingest/types.js";

/**
 * The wire types (src/rpc/protocol*) are declared apart from the internal types the daemon builds its
 * answers from. These checks, compiled by `npm run typecheck`, make an internal change that no longer
 * fits the wire a compile error (change the wire on purpose, in protocol, or keep the internal shape).
 */
type Fits<Internal, WireType> = [Internal] extends [WireType] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

type _Checks = [
  Assert<Fits<SearchResponse, Wire.SearchResponse>>,
  Assert<Fits<SearchHit, Wire.SearchHit>>,
  Assert<Fits<SyncReport, Wire.SyncReport>>,
  Assert<Fits<SkippedFile, Wire.SkippedFile>>,
  Assert<Fits<IssueSummary, Wire.IssueSummary>>,
  Assert<Fits<ConsolidationReport, Wire.ConsolidationReport>>,
  Assert<Fits<MaintenanceReport, Wire.MaintenanceReport>>,
  Assert<Fits<PromotionCandidate, Wire.PromotionCandidate>>,
  // Closed sets a client may switch on: the same members on both sides.
  Assert<Same<FileClass, Wire.FileClass>>,
  Assert<Same<SkipKind, Wire.SkipKind>>,
  Assert<Same<RepairKind, Wire.RepairKind>>,
];

// A type check, not a test: `npm run typecheck` (tsconfig.test.json) compiles this file and fails
// on a wire mismatch; vitest does not run it (it could not fail at run time).
export type WireTypeChecks = _Checks;
