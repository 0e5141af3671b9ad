/**
 * Small GGUF reader: header, typed metadata and tensor infos, plus reading one F32/F16
 * tensor into a Float32Array. Validates structure (magic, version, bounds, tensor data
 * inside the file) and throws GgufFormatError for anything malformed, so callers can
 * reject bad files before handing them to native code.
 */
import { open, type FileHandle } from "node:fs/promises";
import { f16BitsToF32 } from "./f16.js";
import {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VALUE_TYPE,
  alignUp,
  type GgufKV,
  type GgufScalarType,
  type GgufValue,
} from "./types.js";

export * from "./types.js";

export class GgufFormatError extends Error {
  override name = "GgufFormatError";
}

export interface GgufTensorInfo {
  name: string;
  /** ggml order, ne0 first. */
  dims: number[];
  /** ggml type id (0 = F32, 1 = F16, others are quantized types this reader cannot decode). */
  ggmlType: number;
  /** Offset relative to the start of the data section. */
  offset: number;
}

export interface GgufInfo {
  version: number;
  kv: GgufKV[];
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute file offset of the data section. */
  dataOffset: number;
  fileSize: number;
}

const TYPE_BY_ID = new Map<number, GgufScalarType | "array">(
  Object.entries(GGUF_VALUE_TYPE).map(([k, v]) => [v, k as GgufScalarType | "array"]),
);
const SCALAR_SIZE: Record<Exclude<GgufScalarType, "string">, number> = {
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  f32: 4,
  bool: 1,
  u64: 8,
  i64: 8,
  f64: 8,
};
/** Byte sizes of non-quantized ggml types we can bound-check exactly. */
const GGML_ELEMENT_SIZE: Record<number, number> = { 0: 4, 1: 2, 24: 1, 25: 2, 26: 4, 27: 8, 28: 8, 30: 2 };

/** Forward-only buffered reader over a file handle. */
class Cursor {
  private buf = Buffer.alloc(0);
  private start = 0; // file offset of buf[0]
  private pos = 0; // index into buf
  constructor(
    private readonly fh: FileHandle,
    readonly fileSize: number,
  ) {}

  get offset(): number {
    return this.start + this.pos;
  }
  private async need(n: number): Promise<void> {
    if (this.pos + n <= this.buf.length) return;
    const at = this.offset;
    if (at + n > this.fileSize)
      throw new GgufFormatError(`unexpected end of file at byte ${at} (needs ${n} more bytes)`);
    const size = Math.min(Math.max(n, 1 << 20), this.fileSize - at);
    const next = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const { bytesRead } = await this.fh.read(next, got, size - got, at + got);
      if (bytesRead === 0) throw new GgufFormatError(`unexpected end of file at byte ${at + got}`);
      got += bytesRead;
    }
    this.buf = next;
    this.start = at;
    this.pos = 0;
  }
  async take(n: number): Promise<Buffer> {
    await this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  async u32(): Promise<number> {
    return (await this.take(4)).readUInt32LE(0);
  }
  async u64(): Promise<bigint> {
    return (await this.take(8)).readBigUInt64LE(0);
  }
  /** u64 that must fit a safe integer (lengths, counts, offsets). */
  async size(what: string, max = Number.MAX_SAFE_INTEGER): Promise<number> {
    const v = await this.u64();
    if (v > BigInt(max)) throw new GgufFormatError(`${what} too large (${v})`);
    return Number(v);
  }
  async str(what: string): Promise<string> {
    const len = await this.size(`${what} length`, this.fileSize - this.offset);
    return (await this.take(len)).toString("utf8");
  }
  async scalar(type: GgufScalarType): Promise<number | bigint | boolean | string> {
    if (type === "string") return this.str("string value");
    const b = await this.take(SCALAR_SIZE[type]);
    switch (type) {
      case "u8":
        return b.readUInt8(0);
      case "i8":
        return b.readInt8(0);
      case "u16":
        return b.readUInt16LE(0);
      case "i16":
        return b.readInt16LE(0);
      case "u32":
        return b.readUInt32LE(0);
      case "i32":
        return b.readInt32LE(0);
      case "f32":
        return b.readFloatLE(0);
      case "f64":
        return b.readDoubleLE(0);
      case "u64":
        return b.readBigUInt64LE(0);
      case "i64":
        return b.readBigInt64LE(0);
      case "bool":
        return b.readUInt8(0) !== 0;
    }
  }
}

async function readValue(c: Cursor, key: string): Promise<GgufValue> {
  const typeId = await c.u32();
  const type = TYPE_BY_ID.get(typeId);
  if (type === undefined) throw new GgufFormatError(`metadata "${key}" has unknown value type ${typeId}`);
  if (type !== "array") return { type, value: await c.scalar(type) } as GgufValue;
  const itemId = await c.u32();
  const itemType = TYPE_BY_ID.get(itemId);
  if (itemType === undefined || itemType === "array")
    throw new GgufFormatError(`metadata "${key}" has unsupported array item type ${itemId}`);
  const minItem = itemType === "string" ? 8 : SCALAR_SIZE[itemType];
  const count = await c.size(`metadata "${key}" array length`, Math.floor((c.fileSize - c.offset) / minItem));
  const value: unknown[] = new Array(count);
  for (let i = 0; i < count; i++) value[i] = await c.scalar(itemType);
  return { type: "array", itemType, value } as GgufValue;
}

/** Parse a GGUF file's header, metadata and tensor infos (tensor data is not read). */
export async function readGgufInfo(filePath: string): Promise<GgufInfo> {
  const fh = await open(filePath, "r");
  try {
    const fileSize = (await fh.stat()).size;
    const c = new Cursor(fh, fileSize);
    if (fileSize < 24) throw new GgufFormatError(`not a GGUF file (only ${fileSize} bytes)`);
    const magic = await c.u32();
    if (magic !== GGUF_MAGIC) throw new GgufFormatError("not a GGUF file (bad magic)");
    const version = await c.u32();
    if (version !== 2 && version !== 3) throw new GgufFormatError(`unsupported GGUF version ${version}`);
    const tensorCount = await c.size("tensor count", fileSize);
    const kvCount = await c.size("metadata count", fileSize);
    const kv: GgufKV[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < kvCount; i++) {
      const key = await c.str("metadata key");
      if (keys.has(key)) throw new GgufFormatError(`duplicate metadata key "${key}"`);
      keys.add(key);
      kv.push({ key, ...(await readValue(c, key)) });
    }
    const alignKv = kv.find((e) => e.key === "general.alignment");
    const alignment = alignKv?.type === "u32" ? alignKv.value : GGUF_DEFAULT_ALIGNMENT;
    if (alignment < 1 || (alignment & (alignment - 1)) !== 0)
      throw new GgufFormatError(`invalid alignment ${alignment}`);
    const tensors: GgufTensorInfo[] = [];
    const names = new Set<string>();
    for (let i = 0; i < tensorCount; i++) {
      const name = await c.str("tensor name");
      if (names.has(name)) throw new GgufFormatError(`duplicate tensor "${name}"`);
      names.add(name);
      const nDims = await c.u32();
      if (nDims < 1 || nDims > 4) throw new GgufFormatError(`tensor "${name}" has ${nDims} dims`);
      const dims: number[] = [];
      for (let d = 0; d < nDims; d++) {
        const v = (await c.take(8)).readBigInt64LE(0);
        if (v < 0n || v > BigInt(fileSize) * 8n) throw new GgufFormatError(`tensor "${name}" has invalid dim ${v}`);
        dims.push(Number(v));
      }
      const ggmlType = await c.u32();
      const offset = await c.size(`tensor "${name}" offset`, fileSize);
      if (offset % alignment !== 0) throw new GgufFormatError(`tensor "${name}" offset ${offset} is not aligned`);
      tensors.push({ name, dims, ggmlType, offset });
    }
    const dataOffset = alignUp(c.offset, alignment);
    for (const t of tensors) {
      const size = tensorDataSize(t);
      if (size !== undefined && dataOffset + t.offset + size > fileSize)
        throw new GgufFormatError(`tensor "${t.name}" data extends past the end of the file (truncated?)`);
      if (size === undefined && dataOffset + t.offset > fileSize)
        throw new GgufFormatError(`tensor "${t.name}" starts past the end of the file (truncated?)`);
    }
    return { version, kv, tensors, alignment, dataOffset, fileSize };
  } finally {
    await fh.close();
  }
}

/** Byte size of a tensor's data, or undefined for (quantized) types whose size this reader doesn't know. */
export function tensorDataSize(t: Pick<GgufTensorInfo, "dims" | "ggmlType">): number | undefined {
  const el = GGML_ELEMENT_SIZE[t.ggmlType];
  return el === undefined ? undefined : t.dims.reduce((a, b) => a * b, 1) * el;
}

/** Look up a metadata value's JS value (undefined if absent). */
export function ggufValue(info: Pick<GgufInfo, "kv">, key: string): GgufValue["value"] | undefined {
  return info.kv.find((e) => e.key === key)?.value;
}

/** Read a named F32 or F16 tensor as a Float32Array (row-major, ne0 fastest). */
export async function readGgufTensor(filePath: string, info: GgufInfo, name: string): Promise<Float32Array> {
  const t = info.tensors.find((x) => x.name === name);
  if (!t) throw new GgufFormatError(`no tensor named "${name}"`);
  if (t.ggmlType !== 0 && t.ggmlType !== 1)
    throw new GgufFormatError(`tensor "${name}" has ggml type ${t.ggmlType}; only F32 (0) and F16 (1) are supported`);
  const n = t.dims.reduce((a, b) => a * b, 1);
  const bytes = n * (t.ggmlType === 0 ? 4 : 2);
  const buf = Buffer.alloc(bytes);
  const fh = await open(filePath, "r");
  try {
    let got = 0;
    while (got < bytes) {
      const { bytesRead } = await fh.read(buf, got, bytes - got, info.dataOffset + t.offset + got);
      if (bytesRead === 0) throw new GgufFormatError(`tensor "${name}" is truncated`);
      got += bytesRead;
    }
  } finally {
    await fh.close();
  }
  const out = new Float32Array(n);
  if (t.ggmlType === 0) for (let i = 0; i < n; i++) out[i] = buf.readFloatLE(i * 4);
  else for (let i = 0; i < n; i++) out[i] = f16BitsToF32(buf.readUInt16LE(i * 2));
  return out;
}
