/**
 * The entity tests' workspace (test/entity-leg, test/entity-cli): Alice Chen (once just "Alice")
 * and Project Falcon in four daily logs — the Lisbon one names only Project Falcon — among forty
 * days of everyday entries that name no entity.
 */
const FILLER = ["gardening tomatoes", "repainting the fence", "cycling to the lake", "reading a novel"];

export function entityFiles(): Record<string, string> {
  const out: Record<string, string> = {
    "memory/2026-03-02.md": "# 2026-03-02\n\n- Alice Chen leads Project Falcon this quarter.\n",
    "memory/2026-03-09.md": "# 2026-03-09\n\n- Reviewed the Project Falcon budget with Alice Chen.\n",
    "memory/2026-03-16.md": "# 2026-03-16\n\n- In May, Project Falcon ships from the Lisbon office.\n",
    "memory/2026-03-20.md": "# 2026-03-20\n\n- Lunch with Alice at the harbour.\n",
  };
  for (let i = 0; i < 40; i++) {
    const d = new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
    out[`memory/${d}.md`] = `# ${d}\n\n- Spent the evening ${FILLER[i % FILLER.length]} (entry ${i}).\n`;
  }
  return out;
}
