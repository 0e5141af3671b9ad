/**
 * A configuration problem, with a message that names the key and what was expected. A leaf module:
 * the CLI checks for it on every command without loading the config schema.
 */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    options?: ErrorOptions,
  ) {
    super(file ? `${file}: ${message}` : message, options);
    this.name = "ConfigError";
  }
}
