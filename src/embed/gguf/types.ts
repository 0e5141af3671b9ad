/**
 * Shared GGUF v3 types and constants (see ggml/include/gguf.h).
 * Metadata values are typed explicitly because llama.cpp checks value types strictly
 * (e.g. an epsilon must be f32, not u32).
 */

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
export const GGUF_VERSION = 3;
export const GGUF_DEFAULT_ALIGNMENT = 32;

/** Scalar metadata value types, by their GGUF type id. */
export const GGUF_VALUE_TYPE = {
  u8: 0,
  i8: 1,
  u16: 2,
  i16: 3,
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
  i64: 11,
  f64: 12,
} as const;

export type GgufScalarType = Exclude<keyof typeof GGUF_VALUE_TYPE, "array">;

/** Value types of scalars as JS values: 64-bit integers as bigint (number accepted on write). */
export interface GgufScalarValueMap {
  u8: number;
  i8: number;
  u16: number;
  i16: number;
  u32: number;
  i32: number;
  f32: number;
  f64: number;
  u64: bigint;
  i64: bigint;
  bool: boolean;
  string: string;
}

/** A typed metadata value: a scalar, or a homogeneous array of scalars. */
export type GgufValue =
  | { [T in GgufScalarType]: { type: T; value: GgufScalarValueMap[T] } }[GgufScalarType]
  | { [T in GgufScalarType]: { type: "array"; itemType: T; value: readonly GgufScalarValueMap[T][] } }[GgufScalarType];

/** A metadata key/value pair. Keys must be unique within a file. */
export type GgufKV = { key: string } & GgufValue;

/** Tensor element types this module supports (ggml type ids: F32 = 0, F16 = 1). */
export type GgufTensorType = "f32" | "f16";
export const GGML_TYPE_ID: Record<GgufTensorType, number> = { f32: 0, f16: 1 };
export const GGML_TYPE_SIZE: Record<GgufTensorType, number> = { f32: 4, f16: 2 };

/** Tensor to write. `dims` are ggml order: ne0 (row length) first. */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  type: GgufTensorType;
  /** Row-major values, length = product(dims); converted to `type` on write. */
  data: Float32Array;
}

/** Short constructors for common metadata values. */
export const kv = {
  string: (key: string, value: string): GgufKV => ({ key, type: "string", value }),
  u32: (key: string, value: number): GgufKV => ({ key, type: "u32", value }),
  i32: (key: string, value: number): GgufKV => ({ key, type: "i32", value }),
  f32: (key: string, value: number): GgufKV => ({ key, type: "f32", value }),
  bool: (key: string, value: boolean): GgufKV => ({ key, type: "bool", value }),
  strings: (key: string, value: readonly string[]): GgufKV => ({ key, type: "array", itemType: "string", value }),
  i32s: (key: string, value: readonly number[]): GgufKV => ({ key, type: "array", itemType: "i32", value }),
  f32s: (key: string, value: readonly number[]): GgufKV => ({ key, type: "array", itemType: "f32", value }),
};

/** Round `n` up to a multiple of `alignment`. */
export function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}
