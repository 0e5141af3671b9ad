/** The message of anything thrown: an Error's message, a thrown string itself, else `fallback`. */
export function errorMessage(err: unknown, fallback: string = String(err)): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  return fallback;
}
