/**
 * GGUF v3 writer. Writes header, typed metadata, tensor infos and 32-byte-aligned tensor
 * data in buffered pieces to a temp file in the target directory, then renames it into
 * place (atomic). Output is a pure function of the input: same input → same bytes.
 */
import { createHash } from "node:crypto";
import { open, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { f32ToF16Bits } from "./f16.js";
import {
  GGML_TYPE_ID,
  GGML_TYPE_SIZE,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VALUE_TYPE,
  GGUF_VERSION,
  alignUp,
  type GgufKV,
  type GgufScalarType,
  type GgufTensor,
} from "./types.js";

export * from "./types.js";

export interface GgufContent {
  kv: readonly GgufKV[];
  tensors: readonly GgufTensor[];
}

export interface GgufWriteResult {
  /** File size in bytes. */
  bytes: number;
  /** Hex sha256 of the file content. */
  sha256: string;
}

const CHUNK = 1 << 20;

/** Buffered little-endian sink that hashes what it writes. */
class Sink {
  private buf = Buffer.alloc(CHUNK);
  private pos = 0;
  written = 0;
  readonly hash = createHash("sha256");
  constructor(private readonly fh: FileHandle) {}

  private async room(n: number): Promise<void> {
    if (this.pos + n > this.buf.length) await this.flush();
    if (n > this.buf.length) this.buf = Buffer.alloc(n);
  }
  async flush(): Promise<void> {
    if (this.pos === 0) return;
    const view = this.buf.subarray(0, this.pos);
    this.hash.update(view);
    let off = 0;
    while (off < view.length) off += (await this.fh.write(view, off, view.length - off)).bytesWritten;
    this.pos = 0;
  }
  async u8(v: number): Promise<void> {
    await this.room(1);
    this.buf.writeUInt8(v, this.pos);
    this.pos += 1;
    this.written += 1;
  }
  async i8(v: number): Promise<void> {
    await this.room(1);
    this.buf.writeInt8(v, this.pos);
    this.pos += 1;
    this.written += 1;
  }
  async u16(v: number): Promise<void> {
    await this.room(2);
    this.buf.writeUInt16LE(v, this.pos);
    this.pos += 2;
    this.written += 2;
  }
  async i16(v: number): Promise<void> {
    await this.room(2);
    this.buf.writeInt16LE(v, this.pos);
    this.pos += 2;
    this.written += 2;
  }
  async u32(v: number): Promise<void> {
    await this.room(4);
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
    this.written += 4;
  }
  async i32(v: number): Promise<void> {
    await this.room(4);
    this.buf.writeInt32LE(v, this.pos);
    this.pos += 4;
    this.written += 4;
  }
  async f32(v: number): Promise<void> {
    await this.room(4);
    this.buf.writeFloatLE(v, this.pos);
    this.pos += 4;
    this.written += 4;
  }
  async f64(v: number): Promise<void> {
    await this.room(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
    this.written += 8;
  }
  async u64(v: bigint | number): Promise<void> {
    await this.room(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.pos);
    this.pos += 8;
    this.written += 8;
  }
  async i64(v: bigint | number): Promise<void> {
    await this.room(8);
    this.buf.writeBigInt64LE(BigInt(v), this.pos);
    this.pos += 8;
    this.written += 8;
  }
  async bytes(b: Uint8Array): Promise<void> {
    await this.room(Math.min(b.length, CHUNK));
    if (b.length > this.buf.length - this.pos) {
      await this.flush();
      this.hash.update(b);
      let off = 0;
      while (off < b.length) off += (await this.fh.write(b, off, b.length - off)).bytesWritten;
    } else {
      this.buf.set(b, this.pos);
      this.pos += b.length;
    }
    this.written += b.length;
  }
  async str(s: string): Promise<void> {
    const b = Buffer.from(s, "utf8");
    await this.u64(b.length);
    await this.bytes(b);
  }
  async padTo(alignment: number): Promise<void> {
    const n = alignUp(this.written, alignment) - this.written;
    if (n > 0) await this.bytes(new Uint8Array(n));
  }
}

async function writeScalar(s: Sink, type: GgufScalarType, v: unknown): Promise<void> {
  switch (type) {
    case "u8":
      return s.u8(v as number);
    case "i8":
      return s.i8(v as number);
    case "u16":
      return s.u16(v as number);
    case "i16":
      return s.i16(v as number);
    case "u32":
      return s.u32(v as number);
    case "i32":
      return s.i32(v as number);
    case "f32":
      return s.f32(v as number);
    case "f64":
      return s.f64(v as number);
    case "u64":
      return s.u64(v as bigint);
    case "i64":
      return s.i64(v as bigint);
    case "bool":
      return s.u8((v as boolean) ? 1 : 0);
    case "string":
      return s.str(v as string);
  }
}

/** Byte size of a tensor's data (unpadded). */
export function tensorByteSize(t: Pick<GgufTensor, "dims" | "type">): number {
  return t.dims.reduce((a, b) => a * b, 1) * GGML_TYPE_SIZE[t.type];
}

function validate(content: GgufContent): void {
  const keys = new Set<string>();
  for (const e of content.kv) {
    if (keys.has(e.key)) throw new Error(`GGUF: duplicate metadata key "${e.key}"`);
    keys.add(e.key);
  }
  const names = new Set<string>();
  for (const t of content.tensors) {
    if (names.has(t.name)) throw new Error(`GGUF: duplicate tensor name "${t.name}"`);
    names.add(t.name);
    if (t.dims.length < 1 || t.dims.length > 4 || t.dims.some((d) => !Number.isInteger(d) || d < 1))
      throw new Error(`GGUF: tensor "${t.name}" has invalid dims [${t.dims.join(", ")}]`);
    const n = t.dims.reduce((a, b) => a * b, 1);
    if (t.data.length !== n) throw new Error(`GGUF: tensor "${t.name}" has ${t.data.length} values, dims need ${n}`);
  }
}

async function writeTensorData(s: Sink, t: GgufTensor): Promise<void> {
  const step = CHUNK / 4;
  for (let start = 0; start < t.data.length; start += step) {
    const part = t.data.subarray(start, Math.min(start + step, t.data.length));
    if (t.type === "f32") {
      const b = Buffer.alloc(part.length * 4);
      for (let i = 0; i < part.length; i++) b.writeFloatLE(part[i]!, i * 4);
      await s.bytes(b);
    } else {
      const b = Buffer.alloc(part.length * 2);
      for (let i = 0; i < part.length; i++) b.writeUInt16LE(f32ToF16Bits(part[i]!), i * 2);
      await s.bytes(b);
    }
  }
}

/** Serialise `content` as a GGUF v3 file at `filePath` (atomically, via temp file + rename). */
export async function writeGguf(filePath: string, content: GgufContent): Promise<GgufWriteResult> {
  validate(content);
  const alignEntry = content.kv.find((e) => e.key === "general.alignment");
  const alignment = alignEntry && alignEntry.type === "u32" ? alignEntry.value : GGUF_DEFAULT_ALIGNMENT;
  const dir = path.dirname(filePath);
  const tmp = path.join(dir, `.${path.basename(filePath)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fh = await open(tmp, "wx", 0o600);
  let ok = false;
  try {
    const s = new Sink(fh);
    await s.u32(GGUF_MAGIC);
    await s.u32(GGUF_VERSION);
    await s.i64(content.tensors.length);
    await s.i64(content.kv.length);
    for (const e of content.kv) {
      await s.str(e.key);
      await s.u32(GGUF_VALUE_TYPE[e.type]);
      if (e.type === "array") {
        await s.u32(GGUF_VALUE_TYPE[e.itemType]);
        await s.u64(e.value.length);
        for (const item of e.value) await writeScalar(s, e.itemType, item);
      } else {
        await writeScalar(s, e.type, e.value);
      }
    }
    let offset = 0;
    for (const t of content.tensors) {
      await s.str(t.name);
      await s.u32(t.dims.length);
      for (const d of t.dims) await s.i64(d);
      await s.u32(GGML_TYPE_ID[t.type]);
      await s.u64(offset);
      offset += alignUp(tensorByteSize(t), alignment);
    }
    await s.padTo(alignment);
    for (const t of content.tensors) {
      await writeTensorData(s, t);
      await s.padTo(alignment);
    }
    await s.flush();
    await fh.sync();
    await fh.close();
    await rename(tmp, filePath);
    ok = true;
    return { bytes: s.written, sha256: s.hash.digest("hex") };
  } finally {
    if (!ok) {
      await fh.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
}
