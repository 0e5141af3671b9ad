import type { IndexStore } from "../../index/repos/store.js";

/** What the keyword leg reads from the index (the storage layer runs the SQL). */
export type KeywordStore = Pick<IndexStore, "keywordSearch" | "keywordPostings" | "phraseTokens">;
