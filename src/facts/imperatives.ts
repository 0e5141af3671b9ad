/**
 * Verbs a request to an agent opens with ("Bump webhook retries to 8", "Deploy billing-api to prod",
 * "Rebase onto main") that are not everyday enough to be frame words (search/frame-words.ts).
 * Capitalised at the start of a sentence they look like names; read as one, "Bump" became an entity
 * that joined every statement opening with it ("Bump billing-api to 8 replicas" superseded "Bump
 * search-api to 4 replicas").
 */
const IMPERATIVES = new Set(
  `bump delete rename refactor deploy redeploy install uninstall reinstall revert merge rebase squash cherry-pick
   enable disable restart reboot upgrade downgrade pin unpin decrease skip lint extract inline migrate retry
   cancel remind reject configure reconfigure enforce rerun rollback bootstrap scaffold convert patch wrap
   provision deprovision rotate revoke regenerate reindex rebuild recompile reformat dedupe debug profile
   benchmark backport archive unarchive mute unmute snooze tweak bisect stash`.split(/\s+/),
);

/** Whether a lowercase word is such a verb. */
export function isImperative(word: string): boolean {
  return IMPERATIVES.has(word);
}
